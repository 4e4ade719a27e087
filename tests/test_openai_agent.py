"""The agent episode loop end to end: task finance-001 on the simulator, played by a scripted model behind
a real OpenAI-compatible HTTP server on loopback, through the real `openai` SDK — with a parallel turn,
tool results read back by the "model", the answer checked against the executed golden target, and the
whole episode recorded and replayed offline."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
from urllib.parse import quote

import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.environment import Environment
from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
from kopa.eval.policies.prompt import system_prompt
from kopa.eval.runner import RunConfig, run_episode
from kopa.eval.scoring.action import score_action
from kopa.eval.task import load_targets, load_tasks
from kopa.llm import CachedChatModel, OpenAIChatModel
from kopa.llm.client import ChatModelError
from kopa.tools.render import render_result
from kopa.tools.results import ToolResult
from tests.fakes.chat_server import (
    ChatServer,
    Refusal,
    Reply,
    calls,
    last_tool_results,
    text,
    vllm_request_error,
)

SECRET = "sk-agent-SECRET-7b1c"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("KOPA_AGENT_API_KEY", SECRET)


@pytest.fixture(scope="module")
def task():
    return next(t for t in load_tasks() if t.id == "finance-001")


@pytest.fixture(scope="module")
def target():
    return load_targets()["finance-001"]


def _lookup(request) -> Reply:
    assert request["messages"][-1] == {"role": "user", "content": request["messages"][1]["content"]}
    return calls(("find_dart_corp_code", {"corp_name": "라이트론"}))


def _bond_and_price(request) -> Reply:
    (found,) = last_tool_results(request)
    corp = found["records"][0]
    # "yesterday's close" is asked up to today: the date comes from the injected state in the system prompt
    y, m, d = re.search(r"현재 날짜 \(오늘\): (\d{4})-(\d\d)-(\d\d)", request["messages"][0]["content"]).groups()
    return calls(("get_dart_convertible_bond_issuance_decision",
                  {"corp_code": corp["corp_code"], "bgn_de": "20260101", "end_de": "20260131"}),
                 ("get_stock_price_trend", {"likeSrtnCd": corp["stock_code"], "endBasDt": f"{y}{m}{d}",
                                            "numOfRows": 1}))


def _calculate(request) -> Reply:
    bond, price = last_tool_results(request)
    low = bond["records"][0]["act_mktprcfl_cvprc_lwtrsprc"].replace(",", "")
    close = price["records"][0]["clpr"]
    return calls(("evaluate_expression", {"expression": f"({close} - {low}) / {low} * 100"}))


def _answer(request) -> Reply:
    (result,) = last_tool_results(request)
    return text(f"어제 종가는 리픽싱 최저가보다 \\boxed{{{result['records'][0]['value']}}}% 높습니다.")


SCRIPT = [_lookup, _bond_and_price, _calculate, _answer]


def _play(task, target, backend, model):
    env = Environment(task, backend, budget=target.max_allowed_calls)
    return env, OpenAIAgentPolicy(model).run(task, env, target, rollout=0)


def _boxed(answer: str) -> str:
    return re.search(r"\\boxed\{([^}]*)\}", answer).group(1)


def test_finance_001_end_to_end_with_parallel_tool_calls(task, target, backend):
    with ChatServer(SCRIPT) as server:
        env, out = _play(task, target, backend, OpenAIChatModel("fake-model", server.base_url, max_retries=0))
    assert server.errors == []
    assert [(c.tool, c.turn, c.result.ok) for c in env.calls] == [
        ("find_dart_corp_code", 1, True),
        ("get_dart_convertible_bond_issuance_decision", 2, True),  # two calls in one assistant message
        ("get_stock_price_trend", 2, True),
        ("evaluate_expression", 3, True),
    ]
    assert [c.arguments for c in env.calls][:3] == [c.arguments for c in target.calls][:3]
    assert _boxed(out.answer) == target.answer  # the number the scripted model computed from the tool results

    first, second, third, fourth = server.requests
    assert [t["function"]["name"] for t in first["tools"]] == task.available_tools
    assert first["parallel_tool_calls"] is True and first["seed"] == 0
    assert first["messages"][0] == {"role": "system", "content": system_prompt(task)}
    assert "2026-01-30" in first["messages"][0]["content"] and "\\boxed{}" in first["messages"][0]["content"]
    # The server received the tool results: the lookup's corp_code, then both parallel results by call id.
    assert '"corp_code": "00104083"' in second["messages"][-1]["content"]
    assert [m["tool_call_id"] for m in third["messages"] if m["role"] == "tool"] == [
        "call_0_0", "call_1_0", "call_1_1"]
    assert len(third["messages"][-3]["tool_calls"]) == 2
    assert json.loads(fourth["messages"][-1]["content"])["records"][0]["exact"] == target.key.exact

    assert [m["role"] for m in out.transcript] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert out.transcript == [*fourth["messages"], {"role": "assistant", "content": out.answer}]
    assert out.usage == {"llm_calls": 4, "llm_attempts": 4, "prompt_tokens": 406, "completion_tokens": 40,
                         "total_tokens": 446}  # four requests, each through on its first attempt
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"


def test_recorded_episode_replays_offline(task, target, backend, tmp_path):
    with ChatServer(SCRIPT) as server:
        live = OpenAIChatModel("fake-model", server.base_url, max_retries=0)
        env1, recorded = _play(task, target, backend, CachedChatModel(live, tmp_path, mode="record"))
    dead = OpenAIChatModel("fake-model", server.base_url, max_retries=0)  # the server is stopped
    replayer = CachedChatModel(dead, tmp_path, mode="replay")
    env2, replayed = _play(task, target, backend, replayer)
    assert replayed == recorded and (replayer.hits, replayer.misses) == (4, 0)
    assert [(c.tool, c.arguments, c.turn) for c in env2.calls] == [(c.tool, c.arguments, c.turn) for c in env1.calls]
    assert env2.state.hash() == env1.state.hash()
    for path in tmp_path.rglob("*.json"):
        assert SECRET.encode() not in path.read_bytes()


def test_malformed_arguments_are_recorded_refused_and_counted(task, target, backend):
    # Arguments that are not JSON: not executed, but a call the model made — recorded with its raw text,
    # refused with a structural error the model reads, counted against the budget and in ACTION's N_total.
    def check(request) -> Reply:
        (result,) = last_tool_results(request)
        assert result["error"]["kind"] == "bad_arguments"
        return text("인자를 만들지 못했습니다.")

    with ChatServer([calls(("find_dart_corp_code", '{"corp_name": 라이트론')), check]) as server:
        model = OpenAIChatModel("fake-model", server.base_url, max_retries=0)
        episode, transcript = run_episode(task, target, OpenAIAgentPolicy(model), backend, seed=0, rollout=0)
    assert server.errors == [] and episode.answer == "인자를 만들지 못했습니다."
    (bad,) = episode.calls
    assert (bad.tool, bad.ok, bad.raw_arguments, bad.error.kind) == (
        "find_dart_corp_code", False, '{"corp_name": 라이트론', "bad_arguments")
    assert bad.malformed.startswith("bad_arguments: ")
    assert transcript.results[0]["error"]["kind"] == "bad_arguments"
    assert [m["role"] for m in transcript.messages] == ["system", "user", "assistant", "tool", "assistant"]
    verdict = score_action(target.calls, episode.calls, value_compare_args=task.value_compare_args,
                           optimal_calls=target.optimal_calls, max_allowed_calls=target.max_allowed_calls)
    assert verdict.correctness == 0.0 and "1 malformed call(s) counted in N_total" in verdict.details


def test_a_malformed_call_then_a_recovery_on_a_server_that_applies_vllms_checks(task, target, backend):
    # vLLM json.loads every earlier tool call's arguments: the model's broken text must not go back as is,
    # or the next request is refused and the model's own mistake becomes an infrastructure failure
    broken = '{"corp_name": 라이트론'

    def recover(request) -> Reply:
        (result,) = last_tool_results(request)
        assert result["error"]["kind"] == "bad_arguments" and broken in result["error"]["message"]
        return _lookup_again(request)

    def _lookup_again(request) -> Reply:
        return calls(("find_dart_corp_code", {"corp_name": "라이트론"}))

    script = [calls(("find_dart_corp_code", broken)), recover, _bond_and_price, _calculate, _answer]
    with ChatServer(script, vllm_checks=True) as server:
        model = OpenAIChatModel("fake-model", server.base_url, max_retries=0)
        episode, transcript = run_episode(task, target, OpenAIAgentPolicy(model), backend, seed=0, rollout=0)
    assert server.refused == [] and server.errors == [] and episode.error is None
    assert [(c.tool, c.turn, c.ok, c.raw_arguments) for c in episode.calls][:2] == [
        ("find_dart_corp_code", 1, False, broken), ("find_dart_corp_code", 2, True, None)]
    assert episode.calls[0].malformed.startswith("bad_arguments: ")
    assert server.requests[1]["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert transcript.messages[2] == server.requests[1]["messages"][2]  # the record holds what was sent
    assert _boxed(episode.answer) == target.answer
    verdict = score_action(target.calls, episode.calls, value_compare_args=task.value_compare_args,
                           optimal_calls=target.optimal_calls, max_allowed_calls=target.max_allowed_calls)
    assert "1 malformed call(s) counted in N_total" in verdict.details
    # what the server would have refused: the broken text sent back verbatim
    sent = [*server.requests[1]["messages"][:2], {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_0_0", "type": "function", "function": {"name": "find_dart_corp_code", "arguments": broken}}]}]
    assert vllm_request_error({"messages": sent}) is not None
    assert vllm_request_error({"messages": server.requests[1]["messages"]}) is None


def test_malformed_calls_use_up_the_budget(task, target, backend):
    script = [calls(*[("find_dart_corp_code", "{oops")] * target.max_allowed_calls),
              calls(("find_dart_corp_code", {"corp_name": "라이트론"})), text("끝")]
    with ChatServer(script) as server:
        env, out = _play(task, target, backend, OpenAIChatModel("fake-model", server.base_url, max_retries=0))
    assert out.answer == "끝" and len(env.calls) == target.max_allowed_calls + 1
    assert all(c.malformed for c in env.calls[:-1])
    assert env.calls[-1].malformed is None and env.calls[-1].result.error.kind == "budget_exceeded"


def test_unavailable_tool_and_turn_limit(task, target, backend):
    # A tool outside the task's set is refused by the environment (and counted); the loop stops at max_turns.
    script = [calls(("get_school_info", {"SCHUL_NM": "x"})), calls(("get_current_date", {}))]
    with ChatServer(script) as server:
        env = Environment(task, backend, budget=target.max_allowed_calls)
        model = OpenAIChatModel("fake-model", server.base_url, max_retries=0)
        out = OpenAIAgentPolicy(model, max_turns=2).run(task, env, target, rollout=3)
    assert out.answer is None and out.usage["llm_calls"] == 2
    assert [(c.tool, c.turn, c.result.ok) for c in env.calls] == [("get_school_info", 1, False),
                                                                  ("get_current_date", 2, True)]
    assert env.calls[0].result.error.kind == "unknown_tool" and env.calls[0].malformed == "unknown_tool"
    assert server.requests[0]["seed"] == 3  # the rollout picks the seed


def test_huge_results_are_cut_to_valid_json_with_a_note():
    records = [{"n": i, "name": "가나다라마바사" * 5} for i in range(2000)]
    result = ToolResult(tool="t", arguments={}, ok=True, records=records, total_count=5000)
    content = render_result(result, limit=4000)
    shown = json.loads(content)
    assert len(content) <= 4000 and 0 < len(shown["records"]) < 2000
    assert shown["total_count"] == 5000 and "2000건 중" in shown["truncated"]
    small = ToolResult(tool="t", arguments={}, ok=True, records=records[:2], total_count=2)
    assert "truncated" not in json.loads(render_result(small, limit=4000))


def test_rollout_seed_combines_the_run_seed_and_the_rollout():
    def policy(seed):
        return OpenAIAgentPolicy(OpenAIChatModel("m", "http://127.0.0.1:9/v1", seed=seed))

    assert policy(None).rollout_seed(3) == 3
    assert policy(1).rollout_seed(0) == 10_000 != policy(0).rollout_seed(1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _key_pieces(secret: str) -> list[str]:
    """The key as it could leak: raw, URL-encoded, base64, and every 12-character piece of it."""
    return [secret, quote(secret, safe=""), base64.b64encode(secret.encode()).decode().rstrip("="),
            *(secret[i:i + 12] for i in range(len(secret) - 11))]


def test_episodes_a_dead_server_could_not_play_are_kept_apart_and_played_by_the_rerun(tmp_path):
    port = _free_port()  # nothing listens there yet: the model server is down
    out = tmp_path / "run"
    command = ["bench", "run", "--policy", "openai", "--role", f"agent=fake-model@http://127.0.0.1:{port}/v1",
               "--only", "finance-001", "-n", "2", "--workers", "1", "--out", str(out)]
    down = CliRunner().invoke(main, command, prog_name="kopa")
    assert down.exit_code == 1, down.output
    assert "2 episode(s) not played" in down.output and "run the same command again" in down.output
    assert not (out / "episodes.jsonl").read_bytes()  # nothing counted as the model's failure
    unplayed = [json.loads(line) for line in (out / "unplayed.jsonl").read_text().splitlines()]
    assert [(u["task_id"], u["rollout"]) for u in unplayed] == [("finance-001", 0), ("finance-001", 1)]
    assert all("ChatModelError" in u["error"] for u in unplayed)

    with ChatServer(SCRIPT * 2, port=port) as server:  # the server is back
        up = CliRunner().invoke(main, command, prog_name="kopa")
    assert up.exit_code == 0, up.output
    assert server.errors == [] and len(server.requests) == 8  # exactly the two unplayed episodes, played
    assert "2 episodes · pass@1 1.0000" in up.output and not (out / "unplayed.jsonl").exists()
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["score"]["passed"] for s in scores] == [True, True]
    for path in out.rglob("*"):  # no form of the key in any file of the run
        if path.is_file():
            data = path.read_bytes().decode("utf-8", "replace")
            assert not [p for p in _key_pieces(SECRET) if p in data], path


def test_the_limits_an_episode_meets_are_configured_recorded_and_reported(tmp_path):
    out = tmp_path / "run"
    command = ["bench", "run", "--policy", "openai", "--only", "finance-001", "-n", "1",
               "--workers", "1", "--out", str(out), "--max-turns", "1", "--max-tool-chars", "300",
               "--max-tokens", "64", "--llm-retries", "0"]
    with ChatServer([calls(("find_dart_corp_code", {"corp_name": "전자"}))]) as server:  # many records: cut
        result = CliRunner().invoke(main, [*command, "--role", f"agent=fake-model@{server.base_url}"],
                                    prog_name="kopa")
    assert result.exit_code == 0, result.output
    assert server.requests[0]["max_tokens"] == 64
    config = json.loads((out / "config.json").read_text())["config"]
    assert (config["max_turns"], config["max_tool_chars"], config["max_tokens"], config["llm_retries"]) == (1, 300, 64, 0)
    (episode,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert episode["limits"] == ["tool_result_cut", "max_turns"] and episode["answer"] is None
    transcript = json.loads(next((out / "transcripts").glob("*.json")).read_text())
    shown = json.loads(transcript["messages"][-1]["content"])
    assert len(transcript["messages"][-1]["content"]) <= 300 and "truncated" in shown
    assert "tool_result_cut 1, max_turns 1" in (out / "report.md").read_text()


def test_runs_at_the_default_limits_keep_the_digest_they_had_before_limits_were_options():
    before = {k: v for k, v in RunConfig().model_dump().items()
              if k not in ("tools", "max_tool_chars", "max_tokens", "episode_seconds", "llm_timeout", "llm_retries")}
    assert RunConfig().digest() == hashlib.sha256(orjson.dumps(before, option=orjson.OPT_SORT_KEYS)).hexdigest()
    assert RunConfig(max_tool_chars=4000).digest() != RunConfig().digest()


@pytest.mark.parametrize("retries", [0, 1, 2])
def test_llm_retries_n_is_n_plus_one_attempts_each_counted(retries):
    """kopa owns retries (the SDK's are off): against a server failing twice with 503, --llm-retries N makes
    N + 1 attempts at most, and the reply that comes through says how many it took and why."""
    with ChatServer([Refusal(503, "busy"), Refusal(503, "busy"), text("답")]) as server:
        model = OpenAIChatModel("fake-model", base_url=server.base_url, max_retries=retries, retry_wait=0.01)
        if retries < 2:
            with pytest.raises(ChatModelError) as caught:
                model.complete([{"role": "user", "content": "질문"}])
            assert len(server.requests) == retries + 1
            assert ("after" in str(caught.value)) == (retries > 0)
            return
        reply = model.complete([{"role": "user", "content": "질문"}])
    assert len(server.requests) == 3 and reply.content == "답"
    assert reply.usage["llm_attempts"] == 3 and reply.usage["llm_failed_503"] == 2 and reply.usage["llm_wait_ms"] >= 30


def test_a_run_counts_the_attempts_its_model_requests_took(tmp_path):
    """Through `bench run`: the episode's usage keeps every attempt (and the failures by status), and an
    episode whose model request failed after its retries is not replayed (once, not twice per retry)."""
    out = tmp_path / "run"
    with ChatServer([Refusal(503, "busy"), text("모르겠습니다")]) as server:
        done = CliRunner().invoke(main, ["bench", "run", "--policy", "openai", "--role",
                                         f"agent=fake-model@{server.base_url}", "--only", "finance-001", "-n", "1",
                                         "--workers", "1", "--llm-retries", "1", "--out", str(out)], prog_name="kopa")
    assert done.exit_code == 0, done.output
    (episode,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert episode["usage"]["llm_calls"] == 1 and episode["usage"]["llm_attempts"] == 2
    assert episode["usage"]["llm_failed_503"] == 1 and len(server.requests) == 2
    assert "Model requests: 1, in 2 attempts (1 retried" in (out / "report.md").read_text(encoding="utf-8")
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["model_attempts"] == 2
    assert metrics["model"]["id"] == "fake-model" and metrics["model"]["server"] == server.base_url
    report = (out / "report.md").read_text(encoding="utf-8")
    assert f"model `fake-model` at `{server.base_url}`" in report and "kopa " in report
    viewed = CliRunner().invoke(main, ["bench", "view", str(out)], prog_name="kopa")
    assert viewed.exit_code == 0, viewed.output
    index = (out / "view" / "index.html").read_text(encoding="utf-8")
    assert f"model fake-model at {server.base_url}" in index
    assert "| pass@1 | 95% interval | Action |" in report and "one seed" in report  # one pass@1 column
    with ChatServer([Refusal(503, "busy")] * 4) as server:
        down = CliRunner().invoke(main, ["bench", "run", "--policy", "openai", "--role",
                                         f"agent=fake-model@{server.base_url}", "--only", "finance-001", "-n", "1",
                                         "--workers", "1", "--llm-retries", "1", "--out", str(tmp_path / "down")],
                               prog_name="kopa")
    assert down.exit_code == 1 and len(server.requests) == 2  # 1 + 1 retry; the episode is not played again
    # a run none of whose episodes was played still has a view: the unplayed one listed with why
    viewed = CliRunner().invoke(main, ["bench", "view", str(tmp_path / "down")], prog_name="kopa")
    assert viewed.exit_code == 0, viewed.output
    index = (tmp_path / "down" / "view" / "index.html").read_text(encoding="utf-8")
    assert "0 episodes · 0 passed · " in index and "1 episode(s) not played" in index
    assert re.search(r"<td>finance-001</td><td>0</td><td>0</td><td>ChatModelError: fake-model at \S+: HTTP 503", index)


def test_the_report_says_why_episodes_were_not_played(tmp_path):
    """One rollout played, the other stopped by the model server: the report counts the unplayed one apart and
    says what failed (the kind, how many, one message), instead of leaving it out silently."""
    out = tmp_path / "run"
    with ChatServer([*SCRIPT, Refusal(500, "overloaded")]) as server:
        done = CliRunner().invoke(main, ["bench", "run", "--policy", "openai", "--role",
                                         f"agent=fake-model@{server.base_url}", "--only", "finance-001", "-n", "2",
                                         "--workers", "1", "--llm-retries", "0", "--out", str(out)], prog_name="kopa")
    assert done.exit_code == 1 and "1 episode(s) not played" in done.output, done.output
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "**1 episode(s) not played**" in report
    assert re.search(r"\| ChatModelError \| 1: ChatModelError: fake-model at \S+: HTTP 500", report), report
    assert json.loads((out / "metrics.json").read_text())["not_played_causes"]["ChatModelError"].startswith("1: ")
