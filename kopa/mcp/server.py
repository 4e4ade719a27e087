"""A kopa MCP server: the catalog's tools of a set of platforms, called through kopa's ToolRuntime on one
backend, with per-session episodes (kopa.mcp.episodes). Built on the SDK's low-level ``Server``, which
hands a call to us as it came: kopa checks the arguments itself, so a bad argument comes back as kopa's
own structural error, the same over MCP as in-process.

A result carries what the model sees in-process (``ToolResult.for_model()``: records, total count and
page info; or the error with its class, kind, and the service's code and message) twice — as structured
content and as its JSON text — and, in the result's ``_meta``, the episode id, the episode's state hash
after the call, and what a transcript keeps beside it (the request with its key redacted, every attempt).
A tool error is an MCP error result (``isError``). A result is cut as the agent loop cuts what a model
reads (`kopa.tools.render`: whole records dropped from the end, a note saying how to read the rest), unless
the request's ``_meta["kopa/whole"]`` asks for it whole — kopa's own client does, and cuts for its agent
itself.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Final

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from kopa import __version__
from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog, load_catalog
from kopa.mcp.episodes import (
    DEFAULT_EPISODE,
    EPISODE_META_KEY,
    Episode,
    EpisodeError,
    EpisodeStore,
    episode_id_of,
)
from kopa.mcp.listing import (
    GET_EPISODE_STATE,
    RESET_EPISODE,
    catalog_tools,
    episode_tools,
    key_platforms,
    mcp_tool,
    platforms_served,
)
from kopa.tools.render import MAX_TOOL_CHARS, shown_within
from kopa.tools.results import ToolError, ToolResult

STATE_HASH_META_KEY = "kopa/state_hash"
# Tools per tools/list page: the whole catalog listed at once is 4.7 MB, and the SDK's HTTP client refuses an
# event over 1 MiB; a page of 100 is 196–311 kB (25 pages for 2,494 tools; tests/test_mcp.py measures them)
LIST_PAGE = 100
CALL_META_KEY = "kopa/call"
WHOLE_META_KEY: Final = "kopa/whole"  # true: the result uncut (kopa's own client, whose agent loop cuts it)
# A request that names no episode on a server many clients share with no session (HTTP, 2026-07-28) gets a
# new episode under this prefix and a number; the result's _meta names it, so a client can continue it.
UNNAMED_EPISODE = "unnamed-"
_STORE_KEY = "kopa.episodes"  # where a connection keeps its episodes (Connection.state)

INSTRUCTIONS = (
    "한국 공공 API 도구 모음(kopa). 인증이 필요한 도구는 먼저 issue_api_key로 해당 플랫폼의 키를 발급받으세요. "
    "세션마다 독립된 에피소드이며, reset_episode로 새로 시작하고 get_episode_state로 상태와 해시를 읽습니다."
)


class KopaMCPServer:
    """The MCP server for ``platforms`` (none named: the whole catalog) on ``backend``."""

    def __init__(self, backend: Backend, platforms: Sequence[str] = (), *, catalog: Catalog | None = None,
                 tools: Sequence[str] = (), domains: Sequence[str] = (), issue_keys: Sequence[str] = (),
                 max_tool_chars: int = MAX_TOOL_CHARS) -> None:
        self.backend = backend
        self.max_tool_chars = max_tool_chars  # a result's JSON is cut to this many characters (0: never)
        self.catalog = catalog or load_catalog()
        self.platforms = platforms_served(self.catalog, platforms)
        served = catalog_tools(self.catalog, self.platforms, names=tools, domains=domains)
        # keys every fresh episode starts with: a one-shot client (each call a new session) can call a tool
        self.issue_keys = key_platforms(self.catalog, issue_keys) if issue_keys else []
        if self.issue_keys:  # a key the backend cannot issue is refused now, not at a client's first call
            EpisodeStore(backend, self.catalog, self.issue_keys).get("start-up check")
        self.tool_names = frozenset(t.name for t in served)
        # True once served over HTTP (http_app): one run, many clients
        self.shared = False
        self._unnamed = itertools.count(1)
        self.listing = [mcp_tool(t) for t in served] + episode_tools()
        named = "+".join(p for p in self.platforms if p != "session") if platforms else "all"
        self.server: Server[Any] = Server(f"kopa-{named}", version=__version__, title=f"kopa ({named})",
                                          instructions=INSTRUCTIONS, lifespan=self._lifespan,
                                          on_list_tools=self._list_tools,
                                          on_call_tool=self._call_tool)

    @asynccontextmanager
    async def _lifespan(self, _: Server[Any]) -> AsyncIterator[dict[str, EpisodeStore]]:
        # Entered once per stdio process, per in-process client, per HTTP server: the episodes of
        # requests that come with no session of their own (kopa.mcp.episodes).
        yield {_STORE_KEY: EpisodeStore(self.backend, self.catalog, self.issue_keys)}

    # ------------------------------------------------------------------ handlers

    async def _list_tools(self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                          ) -> types.ListToolsResult:
        start = _page_start(params.cursor if params is not None else None, len(self.listing))
        end = start + LIST_PAGE
        return types.ListToolsResult(tools=self.listing[start:end],
                                     next_cursor=str(end) if end < len(self.listing) else None)

    async def _call_tool(self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                         ) -> types.CallToolResult:
        name, args = params.name, dict(params.arguments or {})
        store = self._store_of(ctx)
        try:
            episode_id = episode_id_of(params.meta) or self._unnamed_episode(ctx)
            if name == RESET_EPISODE:
                unexpected = sorted(set(args) - {"current_date"})
                if unexpected:
                    raise EpisodeError(f"unexpected argument(s) {unexpected}; {name} takes ['current_date']")
                return _state_result(store.reset(episode_id, args.get("current_date")))
        except EpisodeError as exc:
            return _error_result(name, args, "bad_param", str(exc), None)
        episode = store.get(episode_id)
        if name == GET_EPISODE_STATE:
            return _state_result(episode)
        if name not in self.tool_names:
            return _error_result(name, args, "unknown_tool", f"{name!r} is not a tool of this server "
                                 f"(platforms {', '.join(self.platforms)})", episode)
        # ToolRuntime is synchronous (and sleeps between retries): a worker thread per call keeps the
        # server answering other episodes meanwhile.
        result = await anyio.to_thread.run_sync(_call_in_turn, episode, name, args)
        whole = isinstance(params.meta, dict) and params.meta.get(WHOLE_META_KEY) is True
        return call_result(result, episode, 0 if whole else self.max_tool_chars)

    def _unnamed_episode(self, ctx: ServerRequestContext[Any]) -> str:
        """The episode of a request that names none: its scope's default one — a session's, a stdio
        process's, an in-process client's — except where one scope holds every client (a 2026-07-28 request
        to an HTTP server), where it is a new episode for this request alone."""
        if self.shared and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return f"{UNNAMED_EPISODE}{next(self._unnamed)}"
        return DEFAULT_EPISODE

    async def _discover_sessions(self, ctx: ServerRequestContext[Any], params: types.RequestParams | None
                                 ) -> types.DiscoverResult:
        """`server/discover` over HTTP: the handshake versions alone, so a client that negotiates (the SDKs'
        default) opens a session and keeps one episode across its calls; a client that insists on
        2026-07-28 is still served, an episode per request unless it names one."""
        return types.DiscoverResult(supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
                                    capabilities=self.server.get_capabilities(protocol_version=ctx.protocol_version),
                                    instructions=self.server.instructions)

    def _store_of(self, ctx: ServerRequestContext[Any]) -> EpisodeStore:
        """The session's episodes: its connection's, where the protocol has sessions (the low-level context
        reaches the connection only through its session: the SDK documents ``Connection.state`` as
        per-connection state but gives handlers no public path to it); else the lifespan's — a modern
        (2026-07-28) request has no connection that outlives it."""
        connection = getattr(ctx.session, "_connection", None)
        if connection is None or ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return ctx.lifespan_context[_STORE_KEY]
        store = connection.state.get(_STORE_KEY)
        if store is None:
            store = connection.state[_STORE_KEY] = EpisodeStore(self.backend, self.catalog, self.issue_keys)
        return store


def _page_start(cursor: str | None, size: int) -> int:
    """Where a tools/list page starts: the cursor a previous page gave (an offset into the listing, opaque
    to the client); anything else is the client's invalid parameter (-32602)."""
    if cursor is None:
        return 0
    if not cursor.isdigit() or not 0 < int(cursor) < size:
        raise MCPError(code=types.INVALID_PARAMS, message=f"invalid cursor {cursor!r}: pass the nextCursor "
                                                            "of the previous tools/list page")
    return int(cursor)


def _call_in_turn(episode: Episode, name: str, args: dict[str, Any]) -> ToolResult:
    with episode.lock:
        return episode.runtime.call(name, args)


def _text(value: Any) -> list[types.ContentBlock]:
    return [types.TextContent(text=json.dumps(value, ensure_ascii=False, default=str))]


def call_result(result: ToolResult, episode: Episode, max_chars: int = 0) -> types.CallToolResult:
    """A kopa ToolResult as an MCP tool result (an error result when the call failed), its records cut to
    `max_chars` characters of JSON (0: whole)."""
    shown = shown_within(result, max_chars)[0] if max_chars else result.for_model()
    meta = {EPISODE_META_KEY: episode.id, STATE_HASH_META_KEY: episode.state.hash(),
            CALL_META_KEY: {"request": result.request,
                            "attempts": [a.model_dump(mode="json") for a in result.attempts],
                            "total_count": result.total_count,
                            "page": result.page.model_dump(mode="json") if result.page is not None else None}}
    return types.CallToolResult(content=_text(shown), structured_content=shown, is_error=not result.ok,
                                _meta=meta)


def _error_result(name: str, args: dict[str, Any], kind: str, message: str, episode: Episode | None
                  ) -> types.CallToolResult:
    error = ToolError(error_class="structural", kind=kind, code=kind, message=message)
    shown = {"error": error.model_dump()}
    meta: dict[str, Any] = {}
    if episode is not None:
        meta = {EPISODE_META_KEY: episode.id, STATE_HASH_META_KEY: episode.state.hash()}
    return types.CallToolResult(content=_text(shown), structured_content=shown, is_error=True, _meta=meta or None)


def _state_result(episode: Episode) -> types.CallToolResult:
    described = episode.describe()
    return types.CallToolResult(content=_text(described), structured_content=described,
                                _meta={EPISODE_META_KEY: episode.id, STATE_HASH_META_KEY: described["state_hash"]})


# ---------------------------------------------------------------------- transports


async def serve_stdio(server: KopaMCPServer) -> None:
    """Serve one client over this process's stdin and stdout until it hangs up."""
    # one transport's machinery per server: stdio never loads the HTTP stack, nor HTTP the stdio one
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.server.run(read_stream, write_stream, server.server.create_initialization_options())


def http_app(server: KopaMCPServer, host: str):
    """The Streamable HTTP app at /mcp (stateful: every HTTP session is an episode scope; a sessionless
    2026-07-28 request that names no episode gets one of its own). On a loopback host the SDK's DNS-rebinding
    protection admits only loopback Host and Origin headers."""
    server.shared = True
    server.server.add_request_handler("server/discover", types.RequestParams, server._discover_sessions)
    return server.server.streamable_http_app(host=host)


@contextmanager
def http_in_thread(server: KopaMCPServer, host: str = "127.0.0.1") -> Iterator[str]:
    """`server` over Streamable HTTP on a free port of `host`, in a thread of this process, while the block
    runs; yields its URL (tests and benchmark/perf/mcp_latency.py use it)."""
    import uvicorn  # one transport's machinery per server, as in serve_stdio

    running = uvicorn.Server(uvicorn.Config(http_app(server, host), host=host, port=0, log_level="warning"))
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not running.started:
        raise RuntimeError(f"the MCP HTTP server did not start on {host}")
    try:
        yield f"http://{host}:{running.servers[0].sockets[0].getsockname()[1]}/mcp"
    finally:
        running.should_exit = True
        thread.join(10)


def serve_http(server: KopaMCPServer, host: str, port: int) -> None:
    import uvicorn  # one transport's machinery per server, as in serve_stdio

    uvicorn.run(http_app(server, host), host=host, port=port, log_level="warning")
