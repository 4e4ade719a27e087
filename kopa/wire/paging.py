"""How a tool pages, asked of its envelope family (each wire family declares its `Paging`) and of the
catalog (a tool's documented maximum page size is tighter than its family's)."""

from __future__ import annotations

from typing import Any

from kopa.catalog.models import Tool
from kopa.wire.base import Paging
from kopa.wire.registry import family_of


def paging_of(family: str) -> Paging | None:
    return family_of(family).paging


def is_paged(family: str) -> bool:
    return paging_of(family) is not None


def page_args(family: str, page: int, size: int) -> dict[str, Any]:
    """The wire arguments that ask `family` for 1-based page `page` of `size` rows."""
    paging = paging_of(family)
    if paging is None:
        raise ValueError(f"the {family} family is not paged")
    return paging.args(page, size)


def max_page_size(tool: Tool) -> int:
    """The largest page `tool` may ask for: its page-size parameter's documented maximum, else its family's."""
    paging = paging_of(tool.family)
    family_max = paging.max_size if paging is not None else 100
    size = paging.size if paging is not None else None  # a row window's maximum is a row, not a size
    documented = [p.maximum for p in tool.spec.params if p.name == size and p.maximum is not None]
    return min([family_max, *documented])


def default_page_size(family: str) -> int:
    """What a client that sends no page size gets from `family`'s services."""
    paging = paging_of(family)
    return paging.default_size if paging is not None else 100
