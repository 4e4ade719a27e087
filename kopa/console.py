"""The CLI's rich consoles, made on first use.

Importing rich costs ~30 ms, which `kopa call` (plain JSON on stdout) never needs, and start-up is paid by
every step of a shell chain; so the module-level consoles of the command groups are proxies that import
rich only when something is printed through them.
"""

from __future__ import annotations

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
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def Table(*args: Any, **kwargs: Any) -> Any:  # rich.table.Table, imported on use
    from rich.table import Table as RichTable

    return RichTable(*args, **kwargs)


def NarrowTable(*args: Any, **kwargs: Any) -> Any:
    """A table for 80 columns: no vertical rules or edge padding (the box a wide table spends 3 columns
    per column on)."""
    from rich import box

    return Table(*args, box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0), **kwargs)
