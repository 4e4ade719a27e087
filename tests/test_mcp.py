"""The catalog as MCP servers, through the SDK's own in-memory client (kopa.mcp).

Results over MCP are compared with the same calls made in-process by kopa's ToolRuntime, and the tool
listing with the catalog's own OpenAI schemas (kopa.catalog.schema) — independent computations.
"""

from __future__ import annotations

import json

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ListToolsResult

from kopa.backends import open_backend
from kopa.catalog.loader import load_catalog
from kopa.eval.policies.offline import OraclePolicy
from kopa.eval.runner import RunConfig, load_task_set, run_episode
from kopa.mcp.client import MCPConnection, MCPTools, tool_result
from kopa.mcp.episodes import EPISODE_META_KEY
from kopa.mcp.listing import EPISODE_TOOLS, GET_EPISODE_STATE, RESET_EPISODE, openai_tool
from kopa.mcp.server import LIST_PAGE, STATE_HASH_META_KEY, KopaMCPServer
from kopa.tools.render import render_result
from kopa.tools.runtime import ToolRuntime
from kopa.tools.state import EpisodeState

CATALOG = load_catalog()
PLATFORMS = [p for p in CATALOG.platforms if p != "session"]
SESSION_TOOLS = {t.name for t in CATALOG.by_platform("session")}


@pytest.fixture(scope="module")
def server(backend):
    return KopaMCPServer(backend)


@pytest.fixture(scope="module")
def tasks():
    found = load_task_set(RunConfig())
    return {t.id: t for t in found.tasks()}, found.targets()


def _pages(server: KopaMCPServer, mode: str) -> list[ListToolsResult]:
    """Every tools/list page, following the cursors as a client does."""
    async def go():
        async with Client(server.server, mode=mode) as client:
            pages = [await client.list_tools()]
            while pages[-1].next_cursor:
                pages.append(await client.list_tools(cursor=pages[-1].next_cursor))
            return pages

    return anyio.run(go)


def _list(server: KopaMCPServer, mode: str):
    return [tool for page in _pages(server, mode) for tool in page.tools]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_each_platform_server_lists_exactly_its_catalog_tools(backend, platform):
    tools = _list(KopaMCPServer(backend, [platform]), "legacy")
    expected = {t.name for t in CATALOG.by_platform(platform)} | SESSION_TOOLS | set(EPISODE_TOOLS)
    assert [t.name for t in tools if t.name not in EPISODE_TOOLS] == [
        t.name for t in CATALOG if t.platform in (platform, "session")]
    assert {t.name for t in tools} == expected
    for tool in tools:
        if tool.name in EPISODE_TOOLS:
            continue
        spec = CATALOG[tool.name].spec
        assert tool.description == spec.description  # the Korean wording, as the catalog has it
        assert openai_tool(tool) == CATALOG[tool.name].openai_schema()
        assert set(tool.output_schema["properties"]["records"]["items"]["properties"]) == {
            f.name for f in spec.output}


def test_the_whole_catalog_lists_in_pages_a_client_can_take(server):
    """The SDK's HTTP client refuses an event over 1 MiB; the whole catalog at once was 4.7 MB."""
    pages = _pages(server, "legacy")
    sizes = [len(page.model_dump_json(by_alias=True, exclude_none=True).encode()) for page in pages]
    names = [tool.name for page in pages for tool in page.tools]
    assert len(pages) == -(-(len(CATALOG) + len(EPISODE_TOOLS)) // LIST_PAGE) > 1
    assert max(sizes) < 2**20 // 2
    assert len(names) == len(set(names)) and set(names) == {t.name for t in CATALOG} | set(EPISODE_TOOLS)


def test_a_cursor_no_page_gave_is_an_invalid_parameter(server):
    async def go(cursor: str) -> MCPError | None:
        async with Client(server.server, mode="legacy") as client:
            try:
                await client.list_tools(cursor=cursor)
            except MCPError as exc:  # inside the client's task group, which would wrap it in a group
                return exc
        return None

    for cursor in ("x", "0", "-1", str(10**6)):
        refused = anyio.run(go, cursor)
        assert refused is not None and refused.code == INVALID_PARAMS and "nextCursor" in refused.message


def test_every_result_conforms_to_the_declared_output_schema(server, backend):
    """A client that checks error results too (the TypeScript SDK) must see the service's message: checked
    with jsonschema, the validator the Python SDK checks successful results with."""
    schema = next(t for t in _list(KopaMCPServer(backend, ["dart"]), "legacy")
                  if t.name == "find_dart_corp_code").output_schema
    validator = Draft202012Validator(schema)
    with MCPConnection(server.server) as connection:
        refused = connection.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})  # no key: auth error
        malformed = connection.call_tool("find_dart_corp_code", {"corp_nam": "라이트론"})  # kopa's structural error
        assert connection.call_tool("issue_api_key", {"platform": "dart"}).is_error is False
        found = connection.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})
    assert refused.is_error and malformed.is_error and not found.is_error
    assert refused.structured_content["error"]["message"] == "등록되지 않은 키입니다."
    for result in (refused, malformed, found):
        assert list(validator.iter_errors(result.structured_content)) == []
    assert list(validator.iter_errors({"total_count": 1})) != []  # neither records nor an error: refused


def test_the_modern_protocol_lists_the_same_tools(backend):
    server = KopaMCPServer(backend, ["dart"])
    assert _list(server, "auto") == _list(server, "legacy")


def test_unknown_platform_is_refused_with_the_valid_ones(backend):
    with pytest.raises(ValueError, match=r"unknown platform.*'dart'"):
        KopaMCPServer(backend, ["dartt"])


def test_lightron_chain_over_mcp_equals_in_process(server, backend, tasks):
    by_id, targets = tasks
    task = by_id["finance-001"]
    assert "라이트론" in task.query
    local, local_transcript = run_episode(task, targets[task.id], OraclePolicy(), backend, 0, 0)
    with MCPConnection(server.server) as connection:
        remote, remote_transcript = run_episode(task, targets[task.id], OraclePolicy(), None, 0, 0,
                                                MCPTools(connection))
    assert [c.tool for c in remote.calls][:1] == ["find_dart_corp_code"]
    assert remote.state_hash == local.state_hash
    assert remote == local
    assert remote_transcript == local_transcript  # every record, page, redacted request and attempt


def test_invalid_key_is_an_auth_error_result(server, backend):
    args = {"corp_name": "라이트론"}
    expected = ToolRuntime(backend).call("find_dart_corp_code", args)  # no key issued: the service refuses
    with MCPConnection(server.server) as connection:
        result = connection.call_tool("find_dart_corp_code", args)
    assert result.is_error
    assert result.structured_content["error"]["error_class"] == "auth"
    assert result.structured_content == expected.for_model()  # class, kind, the service's code and message
    assert tool_result("find_dart_corp_code", args, result) == expected


def _always_rate_limited(tmp_path):
    profile = tmp_path / "ratelimited.toml"
    profile.write_text('description = "every DART call is rate-limited"\nmaintenance_attempts = 1\n'
                       'timeout_seconds = 10.0\nquota_window_seconds = 86400\n\n[default]\n'
                       'rate_limit = 0.0\nmaintenance = 0.0\nserver_error = 0.0\ntimeout = 0.0\n'
                       'connection_reset = 0.0\ntruncated = 0.0\nmalformed = 0.0\nlatency = 0.0\n\n'
                       '[platforms.dart]\nrate_limit = 1.0\n', encoding="utf-8")
    return f"faults:{profile},seed=3@sim"


def test_rate_limit_fault_is_an_environmental_error_result(tmp_path):
    spec = _always_rate_limited(tmp_path)
    runtime = ToolRuntime(open_backend(spec))
    runtime.call("issue_api_key", {"platform": "dart"})
    args = {"corp_name": "라이트론"}
    expected = runtime.call("find_dart_corp_code", args)
    assert expected.error is not None and expected.error.kind == "rate_limit"
    with MCPConnection(KopaMCPServer(open_backend(spec), ["dart"]).server) as connection:
        connection.call_tool("issue_api_key", {"platform": "dart"})
        result = connection.call_tool("find_dart_corp_code", args)
    assert result.is_error
    assert result.structured_content["error"]["error_class"] == "environmental"
    assert tool_result("find_dart_corp_code", args, result) == expected  # retried as often, same attempts


def test_bad_arguments_are_kopas_own_structural_errors(server, backend):
    args = {"corp_name": "라이트론", "no_such_param": 1}
    expected = ToolRuntime(backend).call("find_dart_corp_code", args)
    with MCPConnection(server.server) as connection:
        result = connection.call_tool("find_dart_corp_code", args)
    assert result.is_error and result.structured_content["error"]["kind"] == "bad_param"
    assert tool_result("find_dart_corp_code", args, result) == expected


def _state(connection: MCPConnection, episode: str | None = None) -> dict:
    return connection.call_tool(GET_EPISODE_STATE, {}, episode).structured_content


def test_two_sessions_do_not_see_each_others_state(server):
    item = {"category": "corp", "code": "00104083", "name": "라이트론"}
    with MCPConnection(server.server) as first, MCPConnection(server.server) as second:
        first.call_tool("issue_api_key", {"platform": "dart"})
        first.call_tool("add_watchlist_item", item)
        seen = second.call_tool("list_watchlist_items", {})
        refused = second.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})
        assert first.call_tool("list_watchlist_items", {}).structured_content["records"] == [item]
        assert _state(first)["state"]["issued"] == sorted(CATALOG.key_ids("dart"))
        assert _state(second)["state"]["issued"] == []
    assert seen.structured_content["records"] == []
    assert refused.is_error and refused.structured_content["error"]["error_class"] == "auth"


def test_modern_protocol_requests_keep_episodes_apart_by_meta_id(server):
    async def go():
        async with Client(server.server, mode="auto") as client:
            assert client.protocol_version >= "2026"
            a, b = {EPISODE_META_KEY: "a"}, {EPISODE_META_KEY: "b"}
            await client.call_tool("issue_api_key", {"platform": "krx"}, meta=a)
            state_a = (await client.call_tool(GET_EPISODE_STATE, {}, meta=a)).structured_content
            state_b = (await client.call_tool(GET_EPISODE_STATE, {}, meta=b)).structured_content
            return state_a, state_b

    state_a, state_b = anyio.run(go)
    assert (state_a["episode"], state_a["state"]["issued"]) == ("a", sorted(CATALOG.key_ids("krx")))
    assert (state_b["episode"], state_b["state"]["issued"]) == ("b", [])


def test_reset_episode_clears_the_state(server, backend):
    fresh = EpisodeState(current_date=backend.today().isoformat())
    with MCPConnection(server.server) as connection:
        connection.call_tool("issue_api_key", {"platform": "dart"})
        added = connection.call_tool("add_watchlist_item", {"category": "corp", "code": "00104083"})
        assert added.meta[STATE_HASH_META_KEY] != fresh.hash()
        reset = connection.call_tool(RESET_EPISODE, {})
        after = connection.call_tool("list_watchlist_items", {})
        refused = connection.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})
        dated = connection.call_tool(RESET_EPISODE, {"current_date": "2025-03-01"}).structured_content
    assert reset.structured_content["state"] == fresh.model_dump()
    assert reset.structured_content["state_hash"] == fresh.hash()
    assert after.structured_content["records"] == []
    assert refused.structured_content["error"]["error_class"] == "auth"  # the issued key is gone too
    assert dated["state_hash"] == EpisodeState(current_date="2025-03-01").hash()


def test_reset_episode_refuses_a_bad_date_and_a_bad_episode_id(server):
    with MCPConnection(server.server) as connection:
        bad_date = connection.call_tool(RESET_EPISODE, {"current_date": "2025-02-30"})
        bad_id = connection.call_tool(GET_EPISODE_STATE, {}, episode="")
    assert bad_date.is_error and "YYYY-MM-DD" in bad_date.structured_content["error"]["message"]
    assert bad_id.is_error and EPISODE_META_KEY in bad_id.structured_content["error"]["message"]


def test_a_tool_of_another_platform_is_not_served(backend):
    with MCPConnection(KopaMCPServer(backend, ["krx"]).server) as connection:
        result = connection.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})
    assert result.is_error and result.structured_content["error"]["kind"] == "unknown_tool"


def test_openai_policy_gets_the_in_process_tool_schemas_over_mcp(server, tasks):
    from kopa.eval.policies.openai_agent import OpenAIAgentPolicy

    task = tasks[0]["finance-001"]
    with MCPConnection(server.server) as connection:
        listed = MCPTools(connection).openai_schemas(task.available_tools)
    assert listed == OpenAIAgentPolicy.tools_for(None, task)  # type: ignore[arg-type]


def test_the_agent_loop_over_mcp_equals_in_process(server, backend, tasks, monkeypatch):
    # A scripted model behind a loopback OpenAI-compatible server plays finance-001 twice: tools listed and
    # called in-process, then over MCP. The model is sent the same tools and the same results both times.
    from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
    from kopa.llm import OpenAIChatModel
    from tests.fakes.chat_server import ChatServer
    from tests.test_openai_agent import SCRIPT

    monkeypatch.setenv("KOPA_AGENT_API_KEY", "sk-test-mcp")
    by_id, targets = tasks
    task = by_id["finance-001"]
    runs = []
    for tools in (None, "mcp"):
        with ChatServer(SCRIPT) as chat, MCPConnection(server.server) as connection:
            policy = OpenAIAgentPolicy(OpenAIChatModel("fake-model", chat.base_url, max_retries=0))
            source = MCPTools(connection) if tools else None
            episode, transcript = run_episode(task, targets[task.id], policy, None if tools else backend, 0, 0,
                                              source)
        assert chat.errors == []
        runs.append((episode, transcript, chat.requests))
    (local, local_transcript, local_requests), (remote, remote_transcript, remote_requests) = runs
    assert [c.tool for c in remote.calls] == ["find_dart_corp_code", "get_dart_convertible_bond_issuance_decision",
                                              "get_stock_price_trend", "evaluate_expression"]
    assert remote_requests == local_requests  # the tools listed and every tool message the model read
    assert (remote, remote_transcript) == (local, local_transcript)


def test_a_task_server_lists_exactly_the_tasks_tools(backend, tasks):
    from kopa.cli_mcp import _task_tools

    by_id, _ = tasks
    wanted = _task_tools("finance-001", None)
    assert wanted == list(by_id["finance-001"].available_tools)
    listed = [t.name for t in _list(KopaMCPServer(backend, tools=wanted), "legacy")]
    assert sorted(listed) == sorted({*wanted, *EPISODE_TOOLS})


def test_a_domain_server_lists_its_domain_and_the_session_tools(backend):
    listed = {t.name for t in _list(KopaMCPServer(backend, domains=["finance"]), "legacy")} - set(EPISODE_TOOLS)
    assert listed == {t.name for t in CATALOG if t.domain == "finance" or t.platform == "session"}
    assert len(listed) < len(CATALOG) // 4


@pytest.mark.parametrize(("options", "named"), [({"tools": ["find_dart_corp_cod"]}, "find_dart_corp_cod"),
                                                ({"domains": ["financ"]}, "financ"),
                                                ({"issue_keys": ["dartt"]}, "dartt")])
def test_an_unknown_tool_domain_or_key_platform_is_refused_by_name(backend, options, named):
    with pytest.raises(ValueError, match=named):
        KopaMCPServer(backend, **options)


def test_issued_keys_let_a_one_shot_client_call_a_keyed_tool(backend):
    """The Inspector CLI opens a session per call: with --issue-keys each fresh episode has the key."""
    server = KopaMCPServer(backend, ["dart"], issue_keys=["dart"])
    for _ in range(2):
        with MCPConnection(server.server) as connection:
            found = connection.call_tool("find_dart_corp_code", {"corp_name": "라이트론"})
        assert not found.is_error and found.structured_content["records"][0]["corp_code"] == "00104083"
    every = KopaMCPServer(backend, ["dart"], issue_keys=["all"]).issue_keys
    assert every == sorted(CATALOG["issue_api_key"].spec.params[0].enum or [])


def test_a_long_result_is_cut_as_the_agent_loop_cuts_it_unless_asked_whole(backend):
    """What a host's model reads is what `kopa bench run`'s agent reads (kopa.tools.render), and the cut
    result still conforms to the tool's output schema; kopa's own client asks for it whole."""
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "ex"})
    expected = runtime.call("get_ex_ic_traffic", {})
    limit = 1000
    assert expected.ok and len(render_result(expected, 10**9)) > limit  # long enough to be cut
    server = KopaMCPServer(backend, ["ex"], max_tool_chars=limit)
    schema = next(t for t in _list(server, "legacy") if t.name == "get_ex_ic_traffic").output_schema
    with MCPConnection(server.server) as connection:
        connection.call_tool("issue_api_key", {"platform": "ex"})
        cut = connection.call_tool("get_ex_ic_traffic", {})
        connection.call_tool("issue_api_key", {"platform": "ex"}, "kopa-client")
        whole = connection.call_tool("get_ex_ic_traffic", {}, "kopa-client")
    assert not cut.is_error and cut.content[0].text == render_result(expected, limit)
    assert cut.structured_content == json.loads(render_result(expected, limit))
    assert 0 < len(cut.structured_content["records"]) < len(expected.records)
    assert "페이지 크기를 줄이거나" in cut.structured_content["truncated"]
    assert list(Draft202012Validator(schema).iter_errors(cut.structured_content)) == []
    assert tool_result("get_ex_ic_traffic", {}, whole) == expected
