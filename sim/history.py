"""On-demand history: time series the world does not store whole, generated for each request.

The real services hold years of prices, financial statements, ridership, 급식 and 시간표; storing every
(entity, day) of them would make a world gigabytes large. A `History` instead turns a request into a
*scope* (which entities, which days or periods) and generates that scope's rows from named random streams
keyed by entity and date, so a date answers the same whatever was asked before and whenever it is asked.
The world keeps a small stored sample of each series (the same generator over a recent window) for the
code that reads tables directly (truth, stats, tests).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from sim.endpoints import Endpoint, SimError, conditions
from sim.world.context import WorldConfig, WorldContext
from sim.world.table import Table, TableData


class Selection(Protocol):
    """Rows answering one request, in the service's order; slicing pages through them."""

    def __len__(self) -> int: ...

    def __getitem__(self, window: slice) -> Selection: ...

    def records(self, names: Sequence[str], *, text: bool) -> list[dict[str, Any]]: ...


class TableSelection:
    """Selected row indices of a table built for the request."""

    def __init__(self, table: Table, idx: np.ndarray) -> None:
        self.table = table
        self.idx = idx

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, window: slice) -> TableSelection:
        return TableSelection(self.table, self.idx[window])

    def records(self, names: Sequence[str], *, text: bool) -> list[dict[str, Any]]:
        return self.table.rows(self.idx, names, text=text)


class History:
    """One on-demand series. Subclasses say what scope a request asks for and generate its rows."""

    name: str = ""

    def scope(self, ctx: WorldContext, args: dict[str, str]) -> Hashable:
        raise NotImplementedError

    def generate(self, ctx: WorldContext, scope: Hashable) -> TableData | Selection:
        """The scope's rows: a TableData (conditions are then applied to it) or a ready Selection."""
        raise NotImplementedError


def as_table(data: TableData) -> Table:
    return Table(data.name, {k: np.asarray(v, dtype=object) if _is_text(v) else np.asarray(v)
                             for k, v in data.columns.items()}, data.entities)


def _is_text(values) -> bool:
    if isinstance(values, np.ndarray):
        return values.dtype.kind in "OUS"
    return bool(len(values)) and isinstance(values[0], str)


@lru_cache(maxsize=8)
def context_for(config: WorldConfig) -> WorldContext:
    """The generators' context for a served world: entity lists (companies, schools) are rebuilt from the
    config once per process, exactly as the build made them."""
    return WorldContext(config)


class HistoryCache:
    """Generated scopes of one simulator, least recently used dropped first (scopes are cheap to redo)."""

    def __init__(self, config: WorldConfig, size: int = 128) -> None:
        self.config = config
        self.size = size
        self._items: OrderedDict[tuple[int, Hashable], tuple[Table | None, Selection | None]] = OrderedDict()
        self._lock = threading.Lock()

    def select(self, endpoint: Endpoint, args: dict[str, str]) -> Selection:
        history: History = endpoint.history
        ctx = context_for(self.config)
        # required and format checks first, as for a stored table (a generator answers no day after today)
        conds = conditions(endpoint, args, f"{ctx.today:%Y%m%d}")
        scope = history.scope(ctx, args)
        if scope is None:
            raise SimError("no_data")
        key = (id(history), scope)  # two endpoints may share a series but not their filters (KRX markets)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
        if hit is None:
            made = history.generate(ctx, scope)
            hit = (as_table(made), None) if isinstance(made, TableData) else (None, made)
            with self._lock:
                self._items[key] = hit
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        table, ready = hit
        if ready is not None:
            return ready
        assert table is not None
        return TableSelection(table, table.select(conds))
