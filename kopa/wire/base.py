"""What every family parser returns, and the request builder most families share."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict

from kopa.catalog.models import Tool

ErrorClass = Literal["structural", "environmental", "auth"]


class WireError(BaseModel):
    """An application error as the service signalled it, with its class (DESIGN.md decision 7)."""

    model_config = ConfigDict(frozen=True)

    error_class: ErrorClass
    kind: str  # no_data | bad_param | missing_param | page_out_of_range | unknown_service | invalid_key |
    # missing_key | rate_limit | maintenance | server_error | timeout | malformed
    code: str  # the service's own code ("013", "INFO-200", "30", "401", …)
    message: str


class PageInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    page: int | None = None
    page_size: int | None = None
    total_pages: int | None = None
    start: int | None = None  # Seoul's 1-based row window
    end: int | None = None


@dataclass
class Parsed:
    """A parsed answer. A plain dataclass, not a validated model: parsers build it from JSON they have
    just decoded, and re-validating a thousand records a page would dominate paging time."""

    records: list[dict[str, Any]] = field(default_factory=list)
    total_count: int | None = None
    page: PageInfo | None = None
    error: WireError | None = None


@dataclass(frozen=True)
class Paging:
    """How a family pages: a page-number and a page-size parameter, or a 1-based inclusive row window
    (Seoul's START_INDEX/END_INDEX); the largest page its services serve (a tool's catalog maximum, where
    it documents one, is tighter) and what a client that sends no page size gets."""

    number: str | None = None
    size: str | None = None
    window: tuple[str, str] | None = None
    max_size: int = 100
    default_size: int = 10

    def args(self, page: int, size: int) -> dict[str, Any]:
        """The wire arguments that ask for 1-based page `page` of `size` rows."""
        if self.window is not None:
            start = (page - 1) * size + 1
            return {self.window[0]: start, self.window[1]: start + size - 1}
        assert self.number is not None and self.size is not None
        return {self.number: page, self.size: size}


class WireFamily(Protocol):
    paging: Paging | None  # None: the family's services answer in one piece

    def build(self, tool: Tool, args: dict[str, Any], key: str | None) -> httpx.Request: ...

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed: ...


def wire_value(value: Any) -> str:
    if isinstance(value, bool):
        return "Y" if value else "N"
    return str(value)


def build_request(tool: Tool, args: dict[str, Any], key: str | None, *, extra_headers: dict[str, str] | None = None,
                  extra_query: tuple[tuple[str, str], ...] = ()) -> httpx.Request:
    """Query and path parameters as the spec places them, then `extra_query`; the key where the platform's auth
    says. The URL is built once (httpx parses every URL it is given: a copy per added parameter doubled a
    replayed call's cost).

    Client-side parameters (filters the real service does not take) never travel.
    """
    spec = tool.spec
    path_values: dict[str, str] = {}
    query: list[tuple[str, str]] = []
    headers = {"User-Agent": "kopa/0.1", "Accept": "*/*", **(extra_headers or {})}
    for name, value in spec.fixed.items():
        query.append((name, value))
    for param in spec.params:
        if param.name not in args or args[param.name] is None:
            continue
        value = wire_value(args[param.name])
        if param.location == "query":
            query.append((param.name, value))
        elif param.location == "path":
            path_values[param.name] = value
    auth = tool.auth
    if auth is not None and key is not None:
        if auth.location == "query":
            query.insert(0, (auth.name, key))
        elif auth.location == "header":
            headers[auth.name] = key
        else:
            path_values[auth.name] = key
    path = spec.path
    for name, value in path_values.items():
        path = path.replace("{" + name + "}", quote(value, safe=""))
    # a tuple: httpx takes a list of pairs typed list[tuple[str, str | int | …]], which a list of str pairs
    # is not (lists are invariant); it reads a tuple of pairs alike
    query.extend(extra_query)
    return httpx.Request(spec.method, tool.base_url.rstrip("/") + path, params=tuple(query), headers=headers)


ErrorTable = dict[str, tuple[ErrorClass, str]]


def coded_error(table: ErrorTable, code: str, message: str) -> WireError:
    """The service's own code mapped to (class, kind); a code the table does not know is treated as
    the service failing, not the binding."""
    cls, kind = table.get(code, ("environmental", "server_error"))
    return WireError(error_class=cls, kind=kind, code=code, message=message)


class StandardWire:
    """Families whose requests are exactly what the catalog spec says; they override `parse` only."""

    paging: Paging | None = None

    def build(self, tool: Tool, args: dict[str, Any], key: str | None) -> httpx.Request:
        return build_request(tool, args, key)


def http_status_error(response: httpx.Response) -> WireError | None:
    """Transport-level failures every family shares: 5xx, 429, and a web server's 404 page for a path
    that names no open API."""
    status = response.status_code
    if status == 404:
        return WireError(error_class="structural", kind="unknown_service", code="404", message="Not Found")
    if status == 429:
        return WireError(error_class="environmental", kind="rate_limit", code="429", message="Too Many Requests")
    if status >= 500:
        return WireError(error_class="environmental", kind="server_error", code=str(status),
                         message=response.reason_phrase or "server error")
    return None


def page_outcome(rows: list[dict[str, Any]], total: int, page: int, size: int, *, code: str,
                 total_pages: int | None = None, empty: str = "no records") -> Parsed:
    """A page of a paged answer as the runtime sees it: its records, or — when it holds none — no data
    (the service has nothing) or a page past the end (it has records, not on this page). Both are
    structural: the request, not the service, is wrong."""
    pages = total_pages if total_pages is not None else max(1, math.ceil(total / max(size, 1)))
    info = PageInfo(page=page, page_size=size, total_pages=pages)
    if not rows and total > 0:
        return Parsed(total_count=total, page=info,
                      error=WireError(error_class="structural", kind="page_out_of_range", code=code,
                                      message=f"page {page} > {pages} pages"))
    if not rows:
        return Parsed(total_count=total, page=info,
                      error=WireError(error_class="structural", kind="no_data", code=code, message=empty))
    return Parsed(records=rows, total_count=total, page=info)


def malformed(detail: str) -> Parsed:
    """A body that does not parse: the service (or the line) broke, not the binding."""
    return Parsed(error=WireError(error_class="environmental", kind="malformed", code="malformed",
                                  message=detail[:200]))
