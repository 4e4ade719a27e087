"""The one page iterator: page 1, 2, … of a paged tool's answer, as a client that reads to the end would.

Every reader of whole answers goes through `read_pages` — the runtime's client-side filters, the golden
executor (the oracle), and `iter_pages` for scripts — so they stop on the same rule: a page that fails or
comes back empty, the service's total reached, or the reader's own page limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from kopa.tools.results import ToolResult
from kopa.wire.paging import page_args

if TYPE_CHECKING:
    from kopa.tools.runtime import ToolRuntime

P = TypeVar("P")


@dataclass(frozen=True)
class PageRead:
    """What the iterator needs of one page, whatever shape the reader keeps it in."""

    ok: bool
    records: int
    total: int | None


def read_pages(fetch: Callable[[dict[str, Any]], P], family: str, size: int, read: Callable[[P], PageRead],
               max_pages: int | None = None) -> Iterator[P]:
    """Yield `fetch(page arguments)` for pages 1, 2, … of `size` rows in `family`'s paging parameters."""
    fetched, page = 0, 1
    while True:
        got = fetch(page_args(family, page, size))
        yield got
        seen = read(got)
        fetched += seen.records
        if (not seen.ok or not seen.records or seen.total is None or fetched >= seen.total
                or (max_pages is not None and page >= max_pages)):
            return
        page += 1


def iter_pages(runtime: ToolRuntime, tool: str, args: dict[str, Any], page_size: int) -> Iterator[ToolResult]:
    """Each page's result of `tool` called with `args`, until the total is reached, an error occurs, or a
    page comes back empty."""
    return read_pages(lambda window: runtime.call(tool, {**args, **window}), runtime.catalog[tool].family,
                      page_size, lambda r: PageRead(r.ok, len(r.records), r.total_count))
