"""How each family pages: its page-number and page-size parameters (or Seoul's row window), and the
largest page each service serves."""

from __future__ import annotations

from typing import Any

# family → (page-number parameter, page-size parameter).
PAGE_PARAMS: dict[str, tuple[str, str]] = {
    "datagokr": ("pageNo", "numOfRows"),
    "ex": ("pageNo", "numOfRows"),
    "portal": ("pIndex", "pSize"),
    "dart": ("page_no", "page_count"),
    "law": ("page", "display"),
    "hrd": ("pageNum", "pageSize"),
}
WINDOW_PARAMS = ("START_INDEX", "END_INDEX")  # Seoul: a 1-based inclusive row window
MAX_PAGE_SIZE: dict[str, int] = {
    "datagokr": 1000, "ex": 1000, "portal": 1000, "seoul": 1000, "dart": 100, "law": 100, "hrd": 100,
}


# What a client that sends no page size gets: the services' documented (or observed) defaults. Seoul has
# no default (the window is required); 100 rows is the window hurried clients ask for.
DEFAULT_PAGE_SIZE: dict[str, int] = {
    "datagokr": 10, "ex": 10, "portal": 100, "seoul": 100, "dart": 10, "law": 20, "hrd": 10,
}


def is_paged(family: str) -> bool:
    return family in PAGE_PARAMS or family == "seoul"


def page_args(family: str, page: int, size: int) -> dict[str, Any]:
    """The wire arguments that ask `family` for 1-based page `page` of `size` rows."""
    if family == "seoul":
        start = (page - 1) * size + 1
        return {WINDOW_PARAMS[0]: start, WINDOW_PARAMS[1]: start + size - 1}
    if family in PAGE_PARAMS:
        number, per_page = PAGE_PARAMS[family]
        return {number: page, per_page: size}
    raise ValueError(f"the {family} family is not paged")
