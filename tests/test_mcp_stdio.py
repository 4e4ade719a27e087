"""`kopa mcp serve --transport stdio` as a real subprocess, as an MCP client (Claude Desktop, an IDE)
starts it; and `kopa bench run --tools mcp:…` through it, against the same run in-process."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import orjson
import pytest
from click.testing import CliRunner

from kopa.backends.base import BackendError
from kopa.backends.spec import world_to_build
from kopa.catalog.loader import load_catalog
from kopa.cli import main
from kopa.eval.policies.offline import OraclePolicy
from kopa.eval.runner import RunConfig, load_task_set, run_episode
from kopa.mcp.client import MCPConnection, MCPTools, parse_target, tool_result
from kopa.mcp.listing import EPISODE_TOOLS, GET_EPISODE_STATE, openai_tool
from kopa.tools.runtime import ToolRuntime

CATALOG = load_catalog()
SERVE = [sys.executable, "-m", "kopa.cli", "mcp", "serve", "--transport", "stdio"]


def _command(*extra: str) -> str:
    return shlex.join([*SERVE, *extra])


@pytest.fixture(scope="module")
def dart(backend):  # the backend fixture builds the world the subprocess then finds in the shared cache
    with MCPConnection(parse_target(_command("--platform", "dart", "--backend", "sim"))) as connection:
        yield connection


def _assert_lists_its_catalog_tools(connection: MCPConnection, platform: str) -> None:
    tools = [t for t in connection.list_tools() if t.name not in EPISODE_TOOLS]
    assert [t.name for t in tools] == [t.name for t in CATALOG if t.platform in (platform, "session")]
    assert all(openai_tool(t) == CATALOG[t.name].openai_schema() for t in tools)


def test_stdio_server_lists_the_platforms_catalog_tools(dart):
    _assert_lists_its_catalog_tools(dart, "dart")


@pytest.mark.slow  # a server process per platform: about a second and a half each
@pytest.mark.parametrize("platform", [p for p in CATALOG.platforms if p not in ("session", "dart")])
def test_every_platforms_stdio_server_lists_its_catalog_tools(backend, platform):
    with MCPConnection(parse_target(_command("--platform", platform, "--backend", "sim"))) as connection:
        _assert_lists_its_catalog_tools(connection, platform)


def test_lightron_chain_over_stdio_equals_in_process(dart, backend):
    runtime = ToolRuntime(backend)
    steps = [("issue_api_key", {"platform": "dart"}), ("find_dart_corp_code", {"corp_name": "라이트론"})]
    found = []
    for name, args in steps:
        expected = runtime.call(name, args)
        # all of it but `scanned`, the runtime's own count of what DART's archive held, which a client never sees
        assert tool_result(name, args, dart.call_tool(name, args, "chain")) == expected.model_copy(update={"scanned": None})
        found = expected.records
    corp_code = found[0]["corp_code"]
    expected = runtime.call("get_dart_company_overview", {"corp_code": corp_code})
    remote = tool_result("get_dart_company_overview", {"corp_code": corp_code},
                         dart.call_tool("get_dart_company_overview", {"corp_code": corp_code}, "chain"))
    assert remote == expected and remote.records[0]["corp_name"] == "라이트론"
    assert dart.call_tool(GET_EPISODE_STATE, {}, "chain").structured_content["state_hash"] == runtime.state.hash()


def test_an_episode_over_stdio_equals_in_process(dart, backend):
    found = load_task_set(RunConfig())
    task = next(t for t in found.tasks() if t.id == "finance-001")
    target = found.targets()[task.id]
    local = run_episode(task, target, OraclePolicy(), backend, 0, 0)
    with MCPConnection(parse_target(_command("--backend", "sim"))) as connection:
        remote = run_episode(task, target, OraclePolicy(), None, 0, 0, MCPTools(connection))
    assert remote == local


def _bench(tmp_path, name: str, *extra: str) -> list[dict]:
    out = tmp_path / name
    result = CliRunner().invoke(main, ["bench", "run", "--policy", "oracle", "-n", "1", "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return [orjson.loads(line) for line in (out / "episodes.jsonl").read_bytes().splitlines()]


def _compare_bench(tmp_path, *only: str) -> list[dict]:
    local = _bench(tmp_path, "local", *only)
    remote = _bench(tmp_path, "mcp", *only, "--tools", "mcp:" + _command("--backend", "sim"))
    assert [e["state_hash"] for e in remote] == [e["state_hash"] for e in local]
    assert remote == local
    return remote


def test_bench_run_over_mcp_equals_in_process(tmp_path, backend):
    episodes = _compare_bench(tmp_path, "--only", "finance-001,finance-015,finance-008")
    assert len(episodes) == 3


@pytest.mark.slow
def test_all_tasks_over_mcp_pass_with_in_process_state_hashes(tmp_path, backend):
    episodes = _compare_bench(tmp_path)
    assert len(episodes) == len(load_task_set(RunConfig()).tasks())
    scores = [orjson.loads(line) for line in (tmp_path / "mcp" / "scores.jsonl").read_bytes().splitlines()]
    assert all(s["score"]["passed"] for s in scores)


def test_bench_run_refuses_a_backend_beside_mcp_tools(tmp_path):
    result = CliRunner().invoke(main, ["bench", "run", "--only", "finance-001", "-n", "1", "--out", str(tmp_path),
                                       "--faults", "realistic", "--tools", "mcp:kopa mcp serve"])
    assert result.exit_code == 2 and "kopa mcp serve" in result.output


def test_a_command_that_is_no_mcp_server_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["bench", "run", "--only", "finance-001", "-n", "1", "--out", str(tmp_path),
                                       "--tools", "mcp:" + shlex.join([sys.executable, "-c", "pass"])])
    assert result.exit_code != 0 and "cannot start an MCP session" in result.output


def test_a_server_lacking_a_tasks_tool_is_refused_before_any_episode(tmp_path):
    """finance-001 needs get_stock_price_trend (krx): a dart-only server would offer the model part of them."""
    out = tmp_path / "short"
    result = CliRunner().invoke(main, ["bench", "run", "--only", "finance-001", "-n", "1", "--out", str(out),
                                       "--tools", "mcp:" + _command("--platform", "dart", "--backend", "sim")])
    assert result.exit_code == 2, result.output
    assert "get_stock_price_trend" in result.output and "finance-001" in result.output
    assert not (out / "episodes.jsonl").exists() or not (out / "episodes.jsonl").read_bytes()


def test_start_up_lines_go_to_stderr_and_stdout_stays_the_wire(backend):
    # a host reads stdout as JSON-RPC from the first byte: what the server says while it starts goes to stderr
    done = subprocess.run([*SERVE, "--platform", "dart", "--backend", "sim"], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == ""
    assert re.fullmatch(r"kopa mcp serve: 61 tools on sim \(seed=0, scale=small\), over stdio "
                        r"\(ready in \d+\.\d s\)\n", done.stderr)


def test_a_world_to_build_is_announced_before_it_is_built(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPA_CACHE_DIR", str(tmp_path))  # an empty cache: every simulator world is to build
    assert world_to_build("faults:realistic,seed=1").key() == "s0-small-20260130"
    assert world_to_build("record:runs/x@sim:seed=7").key() == "s7-small-20260130"
    assert world_to_build("replay:runs/x") is None and world_to_build("live") is None
    with pytest.raises(BackendError, match="scale='huge' is not a scale"):
        world_to_build("sim:scale=huge")
