"""The CLI's rich consoles, made on first use.

Importing rich costs ~30 ms, which `kopa call` (plain JSON on stdout) never needs, and start-up is paid by
every step of a shell chain; so the module-level consoles of the command groups are proxies that import
rich only when something is printed through them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class LazyConsole:
    """Forwards every attribute to a `rich.console.Console(**options)` built on first access."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    @property
    def real(self) -> Any:
        """The rich Console itself, for APIs that type-check it (`Progress(console=…)`, `track`)."""
        if self._console is None:
            # rich on first use: see the module's docstring
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def Table(*args: Any, **kwargs: Any) -> Any:  # rich.table.Table, imported on use
    # rich on first use: see the module's docstring
    from rich.table import Table as RichTable

    return RichTable(*args, **kwargs)


def NarrowTable(*args: Any, **kwargs: Any) -> Any:
    """A table for 80 columns: no vertical rules or edge padding (the box a wide table spends 3 columns
    per column on)."""
    # rich on first use: see the module's docstring
    from rich import box

    return Table(*args, box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0), **kwargs)


@contextmanager
def stage_bars(console: LazyConsole) -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar per stage of a long job, drawn while the block runs (and cleared after it): yields
    `tick(stage, done, total)`, which a job's `progress` callback can be."""
    # rich on first use: see the module's docstring
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console.real, transient=True) as progress:
        bars: dict[str, Any] = {}

        def tick(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=total)
            progress.update(bars[stage], completed=done, total=total)

        yield tick
