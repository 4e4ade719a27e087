"""The tables a person reads fit an 80-column terminal, and nothing a user copies from them is cut."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata

from kopa.catalog import load_catalog


def _width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def _kopa_at_80_columns(*args: str) -> list[str]:
    env = {**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "dumb"}
    done = subprocess.run([sys.executable, "-m", "kopa.cli", *args], capture_output=True, text=True, env=env,
                          check=True)
    return done.stdout.splitlines()


def test_the_tool_list_fits_80_columns_with_every_name_whole():
    lines = _kopa_at_80_columns("tools", "list")
    assert max(map(_width, lines)) <= 80
    shown = {line.split()[0] for line in lines if line.strip()}
    assert {t.name for t in load_catalog()} <= shown  # each name on a line of its own, never "…"


def test_the_world_statistics_fit_80_columns():
    lines = _kopa_at_80_columns("sim", "stats")
    assert max(map(_width, lines)) <= 80
    assert any("content hash:" in line for line in lines)
