"""Reading, before workers fork, the simulator tables a set of calls will read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kopa.backends.base import Backend
from kopa.backends.sim import preload_tables
from kopa.catalog.loader import Catalog
from kopa.wire import family_of


def preload_calls(backend: Backend, calls: Iterable[tuple[str, dict[str, Any]]], catalog: Catalog) -> int:
    """The tables answering `calls` (tool name, arguments) loaded into the in-process simulator now; 0 on any
    other backend. Session tools and unknown names are skipped: they read no table. Each distinct call is
    built once (a task set repeats many)."""
    requests = {}
    for name, args in calls:
        if name not in catalog or catalog[name].family == "session":
            continue
        tool = catalog[name]
        request = family_of(tool.family).build(tool, args, None)
        requests[str(request.url)] = request
    return preload_tables(backend.simulator, requests.values())
