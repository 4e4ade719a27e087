"""The official MCP Inspector CLI (npm @modelcontextprotocol/inspector, pinned in tests/inspector/package.json;
the TypeScript SDK) against `kopa mcp serve`, unmodified: each call below is a fresh inspector process and a
fresh MCP session, as a person runs it. `nox -s inspector` installs it (npm ci) and runs these."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.inspector

INSPECTOR = Path(__file__).parent / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
KOPA = [sys.executable, "-m", "kopa.cli", "mcp", "serve", "--backend", "sim"]

if not INSPECTOR.exists() or shutil.which("node") is None:
    pytest.skip("the MCP Inspector CLI is not installed (nox -s inspector runs npm ci in tests/inspector)",
                allow_module_level=True)


TOOL_IS_ERROR = 5  # the CLI's exit status for a tool result with isError (it prints the result all the same)


def inspect(*server_and_method: str, status: int = 0) -> dict:
    done = subprocess.run([str(INSPECTOR), "--cli", *server_and_method], capture_output=True, timeout=300,
                          text=True)
    assert done.returncode == status, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_a_keyless_call_shows_the_services_korean_auth_message(backend):
    """The TypeScript SDK checks error results against the output schema too: a non-conforming one became
    'MCP error -32602: Structured content does not match the tool's output schema'."""
    shown = inspect(*KOPA, "--platform", "dart", "--method", "tools/call", "--tool-name", "find_dart_corp_code",
                    "--tool-arg", "corp_name=라이트론", status=TOOL_IS_ERROR)
    assert shown["isError"] is True
    assert shown["structuredContent"]["error"] == {"error_class": "auth", "kind": "invalid_key", "code": "010",
                                                   "message": "등록되지 않은 키입니다."}


def test_a_chained_lookup_in_one_shot_calls_with_issued_keys(backend):
    """라이트론 → its corp_code → the company overview: two inspector processes, two sessions, keys issued."""
    serve = [*KOPA, "--platform", "dart", "--issue-keys", "dart"]
    found = inspect(*serve, "--method", "tools/call", "--tool-name", "find_dart_corp_code",
                    "--tool-arg", "corp_name=라이트론")
    corp_code = found["structuredContent"]["records"][0]["corp_code"]
    assert corp_code == "00104083"
    overview = inspect(*serve, "--method", "tools/call", "--tool-name", "get_dart_company_overview",
                       "--tool-arg", f"corp_code={corp_code}")
    assert overview.get("isError") is not True
    assert overview["structuredContent"]["records"][0]["corp_name"] == "라이트론"


def test_the_inspector_lists_the_whole_catalog_page_by_page(backend):
    from kopa.catalog.loader import load_catalog
    from kopa.mcp.listing import EPISODE_TOOLS

    listed = [tool["name"] for tool in inspect(*KOPA, "--method", "tools/list")["tools"]]
    assert len(listed) == len(set(listed)) == len(load_catalog()) + len(EPISODE_TOOLS)


@pytest.fixture(scope="module")
def http_url(backend):
    """`kopa mcp serve --transport http` as a person starts it, on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*KOPA, "--platform", "dart", "--platform", "ex", "--issue-keys", "ex",
                               "--max-tool-chars", "1000", "--transport", "http", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(30)


def test_two_inspector_sessions_over_http_keep_their_episodes_apart(http_url):
    """Each inspector process is a client of its own: the key one issues is not the other's."""
    issued = inspect(http_url, "--method", "tools/call", "--tool-name", "issue_api_key", "--tool-arg", "platform=dart")
    assert issued.get("isError") is not True
    refused = inspect(http_url, "--method", "tools/call", "--tool-name", "find_dart_corp_code",
                      "--tool-arg", "corp_name=라이트론", status=TOOL_IS_ERROR)
    assert refused["structuredContent"]["error"]["kind"] == "invalid_key"


def test_a_cut_result_reaches_the_inspector_with_its_note(http_url):
    """A result over --max-tool-chars keeps its leading records and a note, and still conforms to the output
    schema the TypeScript SDK checks it against (exit 0, no -32602)."""
    shown = inspect(http_url, "--method", "tools/call", "--tool-name", "get_ex_ic_traffic")
    assert shown.get("isError") is not True
    assert 0 < len(shown["structuredContent"]["records"]) < 10 and "truncated" in shown["structuredContent"]
    assert len(json.dumps(shown["structuredContent"], ensure_ascii=False)) <= 1000
