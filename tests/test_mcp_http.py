"""`kopa mcp serve --transport http`: Streamable HTTP on loopback, one episode per HTTP session."""

from __future__ import annotations

import anyio
import httpx
import pytest
from mcp import Client
from mcp_types import CallToolResult, ListToolsResult
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from kopa.catalog.loader import load_catalog
from kopa.cli_mcp import serve
from kopa.mcp.client import MCPConnection, tool_result
from kopa.mcp.episodes import EPISODE_META_KEY
from kopa.mcp.listing import EPISODE_TOOLS, GET_EPISODE_STATE, RESET_EPISODE
from kopa.mcp.server import KopaMCPServer, http_in_thread
from kopa.tools.runtime import ToolRuntime


@pytest.fixture(scope="module")
def url(backend):
    with http_in_thread(KopaMCPServer(backend, ["dart", "krx"])) as served:
        yield served


def test_the_sdks_http_client_lists_the_whole_catalog_and_calls_a_tool(backend):
    """The README's `kopa mcp serve --transport http` (every platform): the SDK's own client, which refuses
    an event over 1 MiB, takes the listing page by page and then calls a tool (it lists to check results)."""
    async def go(url: str) -> tuple[list[ListToolsResult], CallToolResult]:
        async with Client(url) as client:
            pages = [await client.list_tools()]
            while pages[-1].next_cursor:
                pages.append(await client.list_tools(cursor=pages[-1].next_cursor))
            await client.call_tool("issue_api_key", {"platform": "dart"})
            return pages, await client.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})

    catalog = load_catalog()
    with http_in_thread(KopaMCPServer(backend)) as served:
        pages, found = anyio.run(go, served)
    names = [tool.name for page in pages for tool in page.tools]
    assert len(pages) > 1 and len(names) == len(set(names)) == len(catalog) + len(EPISODE_TOOLS)
    assert not found.is_error and found.structured_content["records"][0]["corp_code"] == "00104083"


def test_http_sessions_are_separate_episodes(url, backend):
    args = {"corp_name": "라이트론"}
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    with MCPConnection(url) as first, MCPConnection(url) as second:
        first.call_tool("issue_api_key", {"platform": "dart"})
        found = first.call_tool("find_dart_corp_code", args)
        refused = second.call_tool("find_dart_corp_code", args)
        assert second.call_tool(GET_EPISODE_STATE, {}).structured_content["state"]["issued"] == []
    assert tool_result("find_dart_corp_code", args, found) == runtime.call("find_dart_corp_code", args).model_copy(
        update={"scanned": None})  # all but the runtime's count of DART's archive, which no client sees
    assert refused.is_error and refused.structured_content["error"]["error_class"] == "auth"


def test_two_default_sdk_clients_keep_their_episodes_apart(url):
    """Two `mcp.Client(url)` as the SDK makes them by default, interleaved on one server: B never sees the
    key A issued, and B's reset leaves A's episode (and key) as it was."""
    args = {"corp_name": "라이트론"}

    async def go() -> dict[str, object]:
        async with Client(url) as a, Client(url) as b:
            await a.call_tool("issue_api_key", {"platform": "dart"})
            refused = await b.call_tool("find_dart_corp_code", args)
            await b.call_tool(RESET_EPISODE, {})
            found = await a.call_tool("find_dart_corp_code", args)
            return {"versions": (a.protocol_version, b.protocol_version), "refused": refused, "found": found}

    seen = anyio.run(go)
    # the server steers a negotiating client to the handshake: a session, whose episode is its own
    assert all(version in HANDSHAKE_PROTOCOL_VERSIONS for version in seen["versions"])
    refused, found = seen["refused"], seen["found"]
    assert refused.is_error and refused.structured_content["error"]["error_class"] == "auth"
    assert not found.is_error and found.structured_content["records"][0]["corp_code"] == "00104083"


def test_a_sessionless_request_gets_an_episode_of_its_own(url):
    """A client that insists on 2026-07-28 (no sessions): a request naming no episode starts a new one,
    which the result names; naming it continues it — no request ever lands in another client's episode."""
    args = {"corp_name": "라이트론"}

    async def go() -> tuple[CallToolResult, CallToolResult, CallToolResult]:
        async with Client(url, mode="2026-07-28") as client:
            issued = await client.call_tool("issue_api_key", {"platform": "dart"})
            alone = await client.call_tool("find_dart_corp_code", args)
            meta = {EPISODE_META_KEY: issued.meta[EPISODE_META_KEY]}
            return issued, alone, await client.call_tool("find_dart_corp_code", args, meta=meta)

    issued, alone, continued = anyio.run(go)
    assert issued.meta[EPISODE_META_KEY] != alone.meta[EPISODE_META_KEY]
    assert alone.is_error and alone.structured_content["error"]["error_class"] == "auth"
    assert continued.meta[EPISODE_META_KEY] == issued.meta[EPISODE_META_KEY]
    assert not continued.is_error and continued.structured_content["records"][0]["corp_code"] == "00104083"


def test_a_foreign_host_header_is_refused_on_loopback(url):
    # DNS rebinding: a page on another origin that resolves its name to 127.0.0.1 must not reach the tools.
    response = httpx.post(url, headers={"Host": "evil.example", "Accept": "application/json, text/event-stream"},
                          json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code in (400, 403, 421)


def test_http_binds_loopback_by_default():
    host = next(p for p in serve.params if p.name == "host")
    assert host.default == "127.0.0.1"


def test_an_episode_over_http_equals_in_process(url, backend):
    from kopa.eval.policies.offline import OraclePolicy
    from kopa.eval.runner import RunConfig, load_task_set, run_episode
    from kopa.mcp.client import MCPTools, parse_target

    found = load_task_set(RunConfig())
    task = next(t for t in found.tasks() if t.id == "finance-001")
    local = run_episode(task, found.targets()[task.id], OraclePolicy(), backend, 0, 0)
    with MCPConnection(parse_target(url)) as connection:
        remote = run_episode(task, found.targets()[task.id], OraclePolicy(), None, 0, 0, MCPTools(connection))
    assert remote == local
