"""Call a tool by name with JSON arguments; get records or one typed error, the same on every backend."""

from __future__ import annotations

import time
from typing import Any

import httpx
import orjson
from pydantic import BaseModel, ConfigDict, Field

from kopa.backends.base import ATTEMPT_EXTENSION, Backend, Sender
from kopa.backends.memo import keepable, own_copy
from kopa.catalog.loader import Catalog, load_catalog
from kopa.catalog.models import Tool
from kopa.tools.arguments import check_arguments
from kopa.tools.paging import PageRead, read_pages
from kopa.tools.results import Attempt, ToolError, ToolResult
from kopa.tools.session import call_session_tool
from kopa.tools.state import EpisodeState
from kopa.wire import family_of
from kopa.wire.base import Parsed, WireError
from kopa.wire.paging import is_paged, max_page_size

REDACTED = "REDACTED"


def _structural(name: str, args: dict, kind: str, message: str) -> ToolResult:
    return ToolResult(tool=name, arguments=args, ok=False,
                      error=ToolError(error_class="structural", kind=kind, code=kind, message=message))


def redacted_url(request: httpx.Request, tool: Tool) -> str:
    """The request line for transcripts: the key replaced wherever the platform carries it. On the URL's text,
    as it was sent: another httpx URL per call cost a replayed call a fifth of its time."""
    url = str(request.url)
    auth = tool.auth
    if auth is None or auth.location == "header":
        return f"{request.method} {url}"
    base, mark, query = url.partition("?")
    if auth.location == "query":
        prefix = auth.name + "="
        query = "&".join(prefix + REDACTED if pair.startswith(prefix) else pair for pair in query.split("&"))
    else:  # path: the segment the template gives the key (the scheme's "//" makes two leading segments)
        scheme, _, rest = base.partition("://")
        segments = rest.split("/")  # segments[0] is the host; the template's [0] is the empty root
        for i, seg in enumerate(tool.spec.path.split("/")):
            if seg == "{" + auth.name + "}" and 0 < i < len(segments):
                segments[i] = REDACTED
        base = f"{scheme}://" + "/".join(segments)
    return f"{request.method} {base}{mark}{query}"


class RetryPolicy(BaseModel):
    """Bounded exponential backoff for environmental failures; a service's Retry-After wins when it
    asks for longer."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(5, ge=1)
    base_delay: float = Field(1.0, ge=0)
    multiplier: float = Field(2.0, ge=1)
    max_delay: float = Field(60.0, ge=0)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.max_delay, self.base_delay * self.multiplier**attempt)
        return min(self.max_delay, max(backoff, retry_after or 0.0))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP-date: unused by these services; fall back to our own backoff


# A client-side search reads at most this many pages of its listing.
MAX_CLIENT_FILTER_PAGES = 50


def has_client_filters(tool: Tool, args: dict[str, Any]) -> bool:
    return any(p.location == "client" and args.get(p.name) not in (None, "") for p in tool.spec.params)


def apply_client_filters(tool: Tool, args: dict[str, Any], parsed: Parsed) -> Parsed:
    """Filters the real service does not take but the tool offers (e.g. a name search over DART's
    full corp-code archive), applied to the parsed records."""
    records = parsed.records
    for param in tool.spec.params:
        if param.location != "client" or args.get(param.name) in (None, ""):
            continue
        needle = str(args[param.name])
        field = param.field or param.name
        if param.match == "exact":
            records = [r for r in records if str(r.get(field, "")) == needle]
        else:
            records = [r for r in records if needle in str(r.get(field, ""))]
    if records is parsed.records:
        return parsed
    if not records and parsed.error is None:
        return Parsed(error=WireError(error_class="structural", kind="no_data", code="no_match",
                                      message="no record matches the filter"))
    return Parsed(records=records, total_count=len(records), page=None, error=parsed.error)


class ToolRuntime:
    def __init__(self, backend: Backend, *, catalog: Catalog | None = None, state: EpisodeState | None = None,
                 client: Sender | None = None, retry: RetryPolicy | None = None) -> None:
        self.backend = backend
        self.retry = retry or RetryPolicy()
        self.catalog = catalog or load_catalog()
        self.state = state or EpisodeState(current_date=backend.today().isoformat())
        self.client = client or backend.sender()
        self._sent: list[httpx.Request] = []  # the requests of the call in progress, for recording
        self._attempts: list[Attempt] = []  # the attempts of the call in progress

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        args = dict(arguments or {})
        if name not in self.catalog:
            return _structural(name, args, "unknown_tool", f"no tool named {name!r}")
        tool = self.catalog[name]
        known = {p.name for p in tool.spec.params}
        unexpected = sorted(set(args) - known)
        if unexpected:
            return _structural(name, args, "bad_param",
                               f"unexpected argument(s) {unexpected}; {name} takes {sorted(known)}")
        if tool.family == "session":
            # Session tools answer from the episode state and check their own arguments; nothing is sent.
            return call_session_tool(name, args, catalog=self.catalog, backend=self.backend, state=self.state)
        refused = check_arguments(tool, args)
        if refused is not None:
            return ToolResult(tool=name, arguments=args, ok=False, error=refused)
        if self.backend.real_hosts and not tool.spec.real:
            return _structural(name, args, "simulator_only",
                               f"{name} is simulator-only: no real service answers it (it answers on --backend sim "
                               "or a served simulator); nothing was sent")
        memo = self.backend.answers
        # the key the call carries is part of what was asked: without one the service refuses
        asked = (name, orjson.dumps(args, option=orjson.OPT_SORT_KEYS),
                 self.state.key_for(tool.auth.key_id) if tool.auth else None) if memo is not None else None
        if memo is not None and (kept := memo.get(asked)) is not None:
            # no observer: only a plain simulator keeps answers, and nothing records it
            shell, records = kept
            return shell.model_copy(update={"records": own_copy(records)})
        self._sent = []
        self._attempts = []
        started = time.perf_counter()
        result = self._call_service(tool, args)
        if memo is not None and result.ok:  # a failure is not kept: a retry may be what the caller wants
            # every caller gets its own copy of the records (kopa.backends.memo.own_copy)
            kept_records, size = keepable(result.records)
            memo.put(asked, (result.model_copy(update={"records": []}), kept_records), size)
        observer = self.backend.observer
        if observer is not None:
            observer.observe(tool, args, result, (time.perf_counter() - started) * 1000, self._sent)
        return result

    def _call_service(self, tool: Tool, args: dict[str, Any]) -> ToolResult:
        name = tool.name
        if has_client_filters(tool, args) and is_paged(tool.family):
            shown, parsed = self._fetch_all_pages(tool, args)
        else:
            shown, parsed = self._fetch(tool, args)
        scanned = len(parsed.records) if has_client_filters(tool, args) else None
        parsed = apply_client_filters(tool, args, parsed)
        attempts = list(self._attempts)
        if parsed.error is not None:
            return ToolResult(tool=name, arguments=args, ok=False, request=shown, total_count=parsed.total_count,
                              page=parsed.page, error=ToolError(**parsed.error.model_dump()), attempts=attempts)
        # The parser already produced plain JSON values; re-validating thousands of records per page
        # would dominate paging time, so the result is constructed without a second validation.
        return ToolResult.model_construct(tool=name, arguments=args, ok=True, records=parsed.records,
                                          total_count=parsed.total_count, scanned=scanned, page=parsed.page,
                                          error=None, request=shown, attempts=attempts)

    def _fetch(self, tool: Tool, args: dict[str, Any]) -> tuple[str, Parsed]:
        """One exchange, retried with backoff while it fails environmentally (never when structural or
        auth: the same binding would fail the same way). Every attempt is kept."""
        wire = family_of(tool.family)
        key = self.state.key_for(tool.auth.key_id) if tool.auth else None
        policy = self.retry
        shown = ""
        for attempt in range(policy.max_attempts):
            request = wire.build(tool, args, key)
            request.extensions[ATTEMPT_EXTENSION] = attempt
            self._sent.append(request)
            shown = redacted_url(request, tool)
            parsed, retry_after = self._exchange(wire, tool, args, request)
            error = parsed.error
            retry = error is not None and error.error_class == "environmental" and attempt + 1 < policy.max_attempts
            wait = policy.delay(attempt, retry_after) if retry else 0.0
            self._attempts.append(Attempt(attempt=attempt, outcome="ok" if error is None else error.error_class,
                                          kind=error.kind if error else None, code=error.code if error else None,
                                          waited=wait))
            if not retry:
                break
            self.backend.clock.sleep(wait)
        return shown, parsed

    def _exchange(self, wire, tool: Tool, args: dict[str, Any], request: httpx.Request
                  ) -> tuple[Parsed, float | None]:
        """Send once: the parsed answer (transport failures become environmental errors) and any
        Retry-After the service sent."""
        try:
            response = self.client.send(request)
            response.read()
        except httpx.TimeoutException as exc:
            return Parsed(error=WireError(error_class="environmental", kind="timeout", code="timeout",
                                          message=type(exc).__name__)), None
        except httpx.TransportError as exc:
            return Parsed(error=WireError(error_class="environmental", kind="connection", code="connection",
                                          message=f"{type(exc).__name__}: {exc}"[:200])), None
        return wire.parse(tool, args, response), _retry_after(response)

    def _fetch_all_pages(self, tool: Tool, args: dict[str, Any]) -> tuple[str, Parsed]:
        """A tool that filters client-side searches the whole listing, as its server-side wrapper
        would: every page at the service's largest page size (bounded), then the filter."""
        records: list[dict[str, Any]] = []
        shown = ""
        for shown, parsed in read_pages(lambda window: self._fetch(tool, {**args, **window}), tool.family,
                                        max_page_size(tool),
                                        lambda got: PageRead(got[1].error is None, len(got[1].records),
                                                             got[1].total_count),
                                        max_pages=MAX_CLIENT_FILTER_PAGES):
            if parsed.error is not None:
                return shown, parsed
            records.extend(parsed.records)
        return shown, Parsed(records=records, total_count=len(records))
