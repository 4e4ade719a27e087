"""Fetch every page of a paged tool, as a client that reads to the end would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kopa.tools.results import ToolResult
from kopa.tools.runtime import ToolRuntime
from kopa.wire.paging import page_args


def iter_pages(runtime: ToolRuntime, tool: str, args: dict[str, Any], page_size: int) -> Iterator[ToolResult]:
    """Yield each page's result until the total is reached, an error occurs, or a page comes back empty."""
    family = runtime.catalog[tool].family
    fetched = 0
    page = 1
    while True:
        result = runtime.call(tool, {**args, **page_args(family, page, page_size)})
        yield result
        if not result.ok or not result.records:
            return
        fetched += len(result.records)
        if result.total_count is None or fetched >= result.total_count:
            return
        page += 1
