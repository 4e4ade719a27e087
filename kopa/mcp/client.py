"""The bench's side of MCP: a synchronous connection to a kopa MCP server (a command line started as a
stdio subprocess, or a Streamable HTTP URL), and the tool source an Environment plays an episode through.

The SDK is asynchronous and the bench's episodes run on threads, so one connection runs on its own event
loop thread (an anyio blocking portal) and every thread's calls go through it. Each episode is named in
``_meta`` (a fresh id per Environment), so episodes played in parallel over one connection keep apart.
"""

from __future__ import annotations

import os
import shlex
import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager, ExitStack
from functools import partial
from typing import Any

import mcp_types as types

from kopa.catalog.loader import Catalog, load_catalog
from kopa.errors import UserError
from kopa.mcp.episodes import EPISODE_META_KEY
from kopa.mcp.listing import GET_EPISODE_STATE, RESET_EPISODE, openai_tool
from kopa.mcp.server import CALL_META_KEY, STATE_HASH_META_KEY, WHOLE_META_KEY
from kopa.tools.results import Attempt, ToolError, ToolResult
from kopa.tools.state import EpisodeState
from kopa.wire.base import PageInfo

TOOLS_PREFIX = "mcp:"


class MCPError(UserError, RuntimeError):
    """A kopa MCP server that cannot be reached, or answered what a kopa server does not."""


def parse_target(target: str):
    """What ``mcp:TARGET`` names: an http(s) URL as it is, else a command line (a stdio server).

    The command inherits this process's environment, as a shell would start it (a live backend's keys
    are read there by the server, never by this process)."""
    # the MCP SDK (~0.3 s) only for runs whose tools are an MCP server
    from mcp.client.stdio import StdioServerParameters

    if target.startswith(("http://", "https://")):
        return target
    argv = shlex.split(target)
    if not argv:
        raise MCPError("mcp: needs a command line or an http(s) URL, e.g. mcp:'kopa mcp serve --backend sim'")
    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


class MCPConnection(AbstractContextManager["MCPConnection"]):
    """One MCP client session, usable from any thread."""

    def __init__(self, server: Any, *, mode: str = "legacy") -> None:
        # Legacy mode (the initialize handshake) is what today's MCP clients speak; the server keeps its
        # episodes per connection there, and this client names every episode anyway.
        self._server = server
        self._mode = mode
        self._stack = ExitStack()
        self._tools: list[types.Tool] | None = None

    def __enter__(self) -> MCPConnection:
        # the MCP SDK (~0.3 s) only for runs whose tools are an MCP server
        from anyio.from_thread import start_blocking_portal
        from mcp import Client

        self.portal = self._stack.enter_context(start_blocking_portal())
        try:
            self.client = self._stack.enter_context(
                self.portal.wrap_async_context_manager(Client(self._server, mode=self._mode)))
        except Exception as exc:
            self._stack.close()
            cause = _first_leaf(exc)
            raise MCPError(f"cannot start an MCP session with {_describe(self._server)}: "
                           f"{type(cause).__name__}: {cause}") from exc
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def list_tools(self, *, fresh: bool = False) -> list[types.Tool]:
        """Every tool the server lists (every page), fetched once (again with ``fresh``)."""
        if self._tools is None or fresh:
            tools: list[types.Tool] = []
            cursor: str | None = None
            while True:
                page = self.portal.call(partial(self.client.list_tools, cursor=cursor))
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            self._tools = tools
        return self._tools

    def call_tool(self, name: str, arguments: dict[str, Any], episode: str | None = None) -> types.CallToolResult:
        """The server's result; with ``episode``, in that episode and whole (a kopa server cuts a result for a
        model unless asked not to; an episode's agent loop cuts what its model reads itself)."""
        if episode is None:
            return self.portal.call(partial(self.client.call_tool, name, arguments))
        # RequestParamsMeta is an open TypedDict (PEP 728 extra_items=Any), which mypy does not read yet: it
        # takes any key but progress_token for an unknown one
        meta: types.RequestParamsMeta = {EPISODE_META_KEY: episode, WHOLE_META_KEY: True}  # type: ignore[typeddict-unknown-key]
        return self.portal.call(partial(self.client.call_tool, name, arguments, meta=meta))


def _first_leaf(exc: BaseException) -> BaseException:
    """The first real error inside the task groups' exception groups the SDK raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(server: Any) -> str:
    command = getattr(server, "command", None)
    return shlex.join([command, *server.args]) if command else str(server)


def tool_result(name: str, arguments: dict[str, Any], result: types.CallToolResult) -> ToolResult:
    """The kopa ToolResult an MCP result of a kopa server stands for (kopa.mcp.server.call_result)."""
    shown = result.structured_content
    call = (result.meta or {}).get(CALL_META_KEY)
    if not isinstance(shown, dict) or not isinstance(call, dict):
        raise MCPError(f"{name}: the server's result is not a kopa tool result (no structured content "
                       f"or no _meta[{CALL_META_KEY!r}])")
    page = call.get("page")
    common = {"tool": name, "arguments": arguments, "total_count": call.get("total_count"),
              "page": PageInfo(**page) if page else None, "request": call.get("request"),
              "attempts": [Attempt(**a) for a in call.get("attempts", [])]}
    if result.is_error:
        return ToolResult(ok=False, error=ToolError(**shown["error"]), **common)
    return ToolResult(ok=True, records=shown.get("records", []), **common)


class MCPEpisode:
    """One episode's tools on a kopa MCP server: what kopa.eval.environment.Environment calls through."""

    def __init__(self, connection: MCPConnection, catalog: Catalog, current_date: str | None) -> None:
        self.connection = connection
        self.catalog = catalog  # the documentation (which family a tool is); the calls go to the server
        self.id = uuid.uuid4().hex
        args = {"current_date": current_date} if current_date else {}
        self._describe(connection.call_tool(RESET_EPISODE, args, self.id))

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        args = dict(arguments or {})
        return tool_result(name, args, self.connection.call_tool(name, args, self.id))

    @property
    def state(self) -> EpisodeState:
        """The episode's state as the server holds it (read anew each time), its hash checked."""
        return self._describe(self.connection.call_tool(GET_EPISODE_STATE, {}, self.id))

    def _describe(self, result: types.CallToolResult) -> EpisodeState:
        described = result.structured_content
        if result.is_error or not isinstance(described, dict) or "state" not in described:
            raise MCPError(f"the server did not describe episode {self.id}: {_text_of(result)}")
        state = EpisodeState.model_validate(described["state"])
        if state.hash() != described.get("state_hash") or (result.meta or {}).get(STATE_HASH_META_KEY) != state.hash():
            raise MCPError(f"episode {self.id}: the server's state hash does not match its state")
        return state


def _text_of(result: types.CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)[:300]


class MCPTools:
    """Episodes' tools from one MCP connection (kopa.eval.environment.ToolSource)."""

    def __init__(self, connection: MCPConnection, catalog: Catalog | None = None) -> None:
        self.connection = connection
        self.catalog = catalog or load_catalog()

    def open_episode(self, current_date: str | None) -> MCPEpisode:
        return MCPEpisode(self.connection, self.catalog, current_date)

    def require(self, needs: dict[str, Sequence[str]]) -> None:
        """Refuse, before any episode, a server that lacks a tool a task offers its agent (task id → its
        available tools): the model would be offered part of the task's tools and fail obscurely."""
        listed = {tool.name for tool in self.connection.list_tools()}
        short = {task: sorted(set(names) - listed) for task, names in needs.items() if set(names) - listed}
        if short:
            task, missing = next(iter(short.items()))
            raise MCPError(f"the MCP server offers none of {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}"
                           f", which task {task} needs ({len(short)} of {len(needs)} tasks lack a tool); serve "
                           "them: a server without --platform serves every tool")

    def openai_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The listed tools among ``names``, in that order, as OpenAI function schemas."""
        listed = {tool.name: tool for tool in self.connection.list_tools()}
        return [openai_tool(listed[name]) for name in names if name in listed]


def open_tools(spec: str) -> tuple[MCPConnection, MCPTools]:
    """The connection (not yet entered) and tool source that ``--tools mcp:TARGET`` names."""
    if not spec.startswith(TOOLS_PREFIX):
        raise MCPError(f"--tools {spec!r}: expected mcp:COMMAND or mcp:URL")
    connection = MCPConnection(parse_target(spec[len(TOOLS_PREFIX):].strip()))
    return connection, MCPTools(connection)
