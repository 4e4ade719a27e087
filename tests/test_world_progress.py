"""A world build says what it is doing on a terminal, and nothing anywhere else."""

from __future__ import annotations

import io
import re
from pathlib import Path

from sim.registry import served_modules
from sim.world.context import WorldConfig
from sim.world_file import terminal_progress, write_world


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_build_on_a_terminal_counts_its_modules_then_says_where_the_world_went(tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    path = tmp_path / "world.duckdb"
    write_world(WorldConfig(seed=5, scale="small"), path)
    shown = terminal.getvalue()
    steps = [part for part in shown.split("\r\x1b[K") if part.startswith("building world s5-small")][1:]
    modules = len(served_modules())
    assert [s.rsplit(": ", 1)[1].split(" ")[0] for s in steps] == [f"{i}/{modules}" for i in range(1, modules + 1)]
    assert steps[-1].endswith("(long tail)")
    assert re.search(rf"\r\x1b\[Kworld s5-small-\d+ built in \d+ s → {re.escape(str(path))}\n$", shown)
    assert path.exists()


def test_nothing_is_printed_where_no_one_watches(tmp_path):
    assert terminal_progress(WorldConfig(), Path(tmp_path / "w.duckdb"), io.StringIO()) is None
