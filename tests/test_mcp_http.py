"""`kopa mcp serve --transport http`: Streamable HTTP on loopback, one episode per HTTP session."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
import uvicorn

from kopa.mcp.cli import serve
from kopa.mcp.client import MCPConnection, tool_result
from kopa.mcp.listing import GET_EPISODE_STATE
from kopa.mcp.server import KopaMCPServer, http_app
from kopa.tools.runtime import ToolRuntime


@pytest.fixture(scope="module")
def url(backend):
    server = uvicorn.Server(uvicorn.Config(http_app(KopaMCPServer(backend, ["dart", "krx"]), "127.0.0.1"),
                                           host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(10)


def test_http_sessions_are_separate_episodes(url, backend):
    args = {"corp_name": "라이트론"}
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    with MCPConnection(url) as first, MCPConnection(url) as second:
        first.call_tool("issue_api_key", {"platform": "dart"})
        found = first.call_tool("find_dart_corp_code", args)
        refused = second.call_tool("find_dart_corp_code", args)
        assert second.call_tool(GET_EPISODE_STATE, {}).structured_content["state"]["issued"] == []
    assert tool_result("find_dart_corp_code", args, found) == runtime.call("find_dart_corp_code", args)
    assert refused.is_error and refused.structured_content["error"]["error_class"] == "auth"


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
