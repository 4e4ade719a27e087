"""Fetch every page of a paged tool, as a client that reads to the end would.

Each family pages its own way; the parameter names are the wire names the catalog exposes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kopa.tools.results import ToolResult
from kopa.tools.runtime import ToolRuntime

# family → (page-number parameter, page-size parameter), or a row window for Seoul.
PAGE_PARAMS: dict[str, tuple[str, str]] = {
    "datagokr": ("pageNo", "numOfRows"),
    "ex": ("pageNo", "numOfRows"),
    "portal": ("pIndex", "pSize"),
    "dart": ("page_no", "page_count"),
    "law": ("page", "display"),
    "hrd": ("pageNum", "pageSize"),
}
WINDOW_PARAMS = ("START_INDEX", "END_INDEX")


def iter_pages(runtime: ToolRuntime, tool: str, args: dict[str, Any], page_size: int) -> Iterator[ToolResult]:
    """Yield each page's result until the total is reached, an error occurs, or a page comes back empty."""
    family = runtime.catalog[tool].family
    fetched = 0
    page = 1
    while True:
        call_args = dict(args)
        if family == "seoul":
            start = (page - 1) * page_size + 1
            call_args.update({WINDOW_PARAMS[0]: start, WINDOW_PARAMS[1]: start + page_size - 1})
        elif family in PAGE_PARAMS:
            number, size = PAGE_PARAMS[family]
            call_args.update({number: page, size: page_size})
        else:
            raise ValueError(f"tool {tool} ({family} family) is not paged")
        result = runtime.call(tool, call_args)
        yield result
        if not result.ok or not result.records:
            return
        fetched += len(result.records)
        if result.total_count is None or fetched >= result.total_count:
            return
        page += 1
