"""KOPA-Bench under Inspect (inspect_ai, pinned by kopa[inspect]; `nox -s inspect_eval`): the task Inspect finds
through kopa's entry point plays the same episodes as `kopa bench run` and its scorers give the same verdicts,
methods and ACTION — for the oracle, and for a scripted tool-calling model served to kopa over HTTP (the
`openai` SDK, as `--role agent=…@URL` runs) and to Inspect as its `mockllm` with the same script."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

pytest.importorskip("inspect_ai", reason="Inspect is not installed: pip install 'kopa[inspect]' (nox -s inspect_eval)")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolCall

from kopa.cli import main
from kopa.eval.runner import read_episodes, read_scores
from kopa.eval.task import task_set
from kopa.inspect_eval.task import kopa_bench
from tests.fakes.chat_server import ChatServer, Reply

pytestmark = pytest.mark.inspect_eval

BENCH = task_set()
TEN = [t.id for t in BENCH.tasks()][::14][:10]  # ten tasks across the domains
TARGETS = BENCH.targets()
QUERIES = {t.query: t.id for t in BENCH.tasks()}


def decide(query: str, turn: int) -> tuple[str, object]:
    """The scripted model: on its first turn, the task's first golden call (and, on every third task, a call
    to a tool no task offers: a malformed call both sides must record); then an answer — the right one on
    even tasks, a wrong one on odd. Mixed verdicts, partial ACTION."""
    index = TEN.index(QUERIES[query])
    if turn == 0:
        first = TARGETS[QUERIES[query]].calls[0]
        calls = [(first.tool, first.arguments)] + ([("no_such_tool", {"x": 1})] if index % 3 == 0 else [])
        return "calls", calls
    return "answer", (TARGETS[QUERIES[query]].answer or "") if index % 2 == 0 else "모르겠습니다."


def served(body: dict) -> Reply:
    messages = body["messages"]
    query = next(m["content"] for m in messages if m["role"] == "user")
    kind, what = decide(query, sum(m["role"] == "assistant" for m in messages))
    return Reply(tool_calls=what) if kind == "calls" else Reply(content=what)  # type: ignore[arg-type]


def mocked(messages, tools, tool_choice, config) -> ModelOutput:
    query = next(m.text for m in messages if isinstance(m, ChatMessageUser))
    kind, what = decide(query, sum(isinstance(m, ChatMessageAssistant) for m in messages))
    if kind == "calls":
        calls = [ToolCall(id=f"call_{i}", function=name, arguments=args) for i, (name, args) in enumerate(what)]
        output = ModelOutput.for_tool_call("script", calls[0].function, calls[0].arguments)
        output.choices[0].message.tool_calls = calls
    else:
        output = ModelOutput.from_content("script", what)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1)  # mockllm counts with tiktoken otherwise (a download)
    return output


def _inspect(tmp_path, model, **task_args) -> dict[str, dict]:
    logs = inspect_eval(kopa_bench(only=",".join(TEN), **task_args), model=model,
                        log_dir=str(tmp_path / "inspect-logs"), display="none", max_samples=1)
    assert logs[0].status == "success", logs[0].error
    log = read_eval_log(logs[0].location)
    assert log.samples is not None and len(log.samples) == len(TEN)
    assert log.eval.metadata is not None and log.eval.metadata["policy"] == task_args.get("policy", "model")
    assert log.eval.metadata["kopa_version"] and log.eval.model == "mockllm/model"  # what was evaluated, named
    return {str(s.id): {"scores": s.scores, "episode": s.store["kopa_episode"], "messages": s.messages}
            for s in log.samples}


def _in_order(messages, episode: dict) -> None:
    """What `inspect view` shows of a sample: the question, then per turn the calls the episode made, each
    followed by its own result, and the answer last — in its own message, after the last call's result."""
    calls = [m for m in messages if m.role == "assistant" and m.tool_calls]
    made = [(c.function, c.arguments) for m in calls for c in m.tool_calls]
    assert made == [(c["tool"], c["arguments"]) for c in episode["calls"]]
    for i, m in enumerate(messages):
        if m.role == "assistant" and m.tool_calls:
            results = messages[i + 1:i + 1 + len(m.tool_calls)]
            assert [r.tool_call_id for r in results] == [c.id for c in m.tool_calls]
            assert not episode["answer"] or m.text != episode["answer"]  # the answer not shown inside a calling turn
    last = messages[-1]
    assert last.role == "assistant" and not last.tool_calls and last.text == (episode["answer"] or "")


def _kopa(tmp_path, *args: str) -> tuple[dict, dict]:
    out = tmp_path / "kopa-run"
    result = CliRunner().invoke(main, ["bench", "run", *args, "-n", "1", "--workers", "1", "--only", ",".join(TEN),
                                       "--out", str(out)], prog_name="kopa")
    assert result.exit_code == 0, result.output
    return ({s.task_id: s for s in read_scores(out)},
            {e.task_id: orjson.loads(e.model_dump_json()) for e in read_episodes(out)})


def _same_verdicts(inspect_run: dict, kopa_scores: dict, kopa_episodes: dict) -> list[tuple]:
    rows = []
    for task_id in TEN:
        i, k = inspect_run[task_id], kopa_scores[task_id]
        played = i["episode"]
        assert [(c["tool"], c["arguments"], c["ok"], c["malformed"]) for c in played["calls"]] == \
            [(c["tool"], c["arguments"], c["ok"], c["malformed"]) for c in kopa_episodes[task_id]["calls"]]
        assert played["answer"] == kopa_episodes[task_id]["answer"] and played["state_hash"] == kopa_episodes[task_id]["state_hash"]
        scores = i["scores"]
        assert scores["kopa_passed"].value == ("C" if k.score.passed else "I")
        assert scores["kopa_passed"].explanation == (k.failure_cause or "passed")
        response = scores["kopa_response"]
        assert (math.isnan(response.value) if k.score.response is None
                else response.value == ("C" if k.score.response else "I"))
        assert response.metadata["method"] == k.score.response_method
        environment = scores["kopa_environment"].value
        assert (math.isnan(environment) if k.score.environment is None
                else environment == ("C" if k.score.environment else "I"))
        assert scores["kopa_action"].value == k.score.action
        assert scores["kopa_action"].metadata["correctness"] == k.score.correctness
        rows.append((task_id, k.score.passed, k.score.response_method, k.score.action))
    return rows


def test_the_oracle_plays_the_same_episodes_and_scores_the_same_under_inspect(tmp_path):
    inspect_run = _inspect(tmp_path, "mockllm/model", policy="oracle")
    kopa_scores, kopa_episodes = _kopa(tmp_path, "--policy", "oracle")
    rows = _same_verdicts(inspect_run, kopa_scores, kopa_episodes)
    assert all(passed for _, passed, _, _ in rows)  # the oracle solves every task it plays
    for task_id in TEN:  # an offline policy's episode shown as the chat a model would have had
        _in_order(inspect_run[task_id]["messages"], inspect_run[task_id]["episode"])


def test_a_scripted_tool_calling_model_gets_the_same_verdicts_under_inspect_and_kopa(tmp_path):
    inspect_run = _inspect(tmp_path, get_model("mockllm/model", custom_outputs=mocked))
    with ChatServer([served] * (3 * len(TEN))) as server:
        kopa_scores, kopa_episodes = _kopa(tmp_path, "--policy", "openai", "--role", f"agent=script@{server.base_url}")
    rows = _same_verdicts(inspect_run, kopa_scores, kopa_episodes)
    for task_id in TEN:
        _in_order(inspect_run[task_id]["messages"], inspect_run[task_id]["episode"])
    print("\ntask | passed (both) | RESPONSE method (both) | Action (both)")  # -rP shows the side by side
    for task_id, passed, method, action in rows:
        print(f"{task_id} | {passed} | {method} | {action:.3f}")
    verdicts = {passed for _, passed, _, _ in rows}
    assert verdicts == {True, False}, rows  # the script passes some tasks and fails others
    assert any(0 < k.score.action < 1 for k in kopa_scores.values() if k.score.passed)  # ACTION partial
    malformed = [e for e in kopa_episodes.values() if any(c["malformed"] for c in e["calls"])]
    assert len(malformed) == 4  # every third task of ten: the unknown tool recorded as a malformed call


def test_inspect_finds_the_task_by_its_entry_point_and_reduces_epochs_to_pass_at_k(tmp_path):
    """`inspect eval kopa/kopa_bench` as a user types it (Inspect's CLI in a fresh process, in a folder of its
    own: a kopa checkout's kopa.egg-info hides the editable install from Inspect's package naming), then
    `inspect log list` finds the log."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    inspect_cli = str(Path(sys.executable).with_name("inspect"))
    run = subprocess.run([inspect_cli, "eval", "kopa/kopa_bench", "--model", "mockllm/model", "-T", f"only={TEN[0]},{TEN[1]}",
                          "-T", "policy=oracle", "-T", "rollouts=2", "--log-dir", "logs", "--display", "plain"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    listed = subprocess.run([inspect_cli, "log", "list", "--log-dir", "logs", "--json"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    (log_info,) = json.loads(listed.stdout)
    log = read_eval_log(str(tmp_path / "logs" / Path(log_info["name"]).name))
    assert log.status == "success" and log.eval.task == "kopa/kopa_bench"
    metrics = {(s.name, s.reducer): {m: v.value for m, v in s.metrics.items()} for s in log.results.scores}
    assert metrics[("kopa_passed", "mean")]["accuracy"] == 1.0
    assert metrics[("kopa_passed", "pass_at_2")]["accuracy"] == 1.0
    # -T only=a,b (Inspect's CLI hands it over as a list): both tasks, two epochs each
    assert sorted(str(s.id) for s in log.samples) == sorted([TEN[0], TEN[0], TEN[1], TEN[1]])
    assert sorted(s.epoch for s in log.samples) == [1, 1, 2, 2]
    assert sorted(s.store["kopa_episode"]["rollout"] for s in log.samples) == [0, 0, 1, 1]  # epoch = rollout + 1


def _cli(tmp_path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    inspect_cli = str(Path(sys.executable).with_name("inspect"))
    return subprocess.run([inspect_cli, *args, "--log-dir", "logs", "--display", "plain"], cwd=tmp_path,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})},
                          capture_output=True, text=True, timeout=300)


def test_kopa_mock_runs_offline_and_a_bad_option_exits_1(tmp_path):
    """`--model kopa/mock` needs no network (every connection refused here through a dead proxy, tiktoken's
    cache empty); a bad `-T backend=` stops the task (exit 1) before any sample; a sample that errors leaves
    `inspect eval` at 0, as Inspect's CLI does, and `inspect eval-set` at 1."""
    offline = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
               "TIKTOKEN_CACHE_DIR": str(tmp_path / "no-tiktoken")}
    run = _cli(tmp_path, "eval", "kopa/kopa_bench", "--model", "kopa/mock", "-T", f"only={TEN[0]},{TEN[1]}", env=offline)
    assert run.returncode == 0, run.stdout + run.stderr
    (log_file,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.model == "kopa/mock" and log.eval.metadata["model_plays"]
    assert {s.scores["kopa_passed"].explanation for s in log.samples} == {"no_tool_used"}
    bad = _cli(tmp_path, "eval", "kopa/kopa_bench", "--model", "kopa/mock", "-T", "backend=sim:scale=huge")
    assert bad.returncode == 1 and "scale='huge' is not a scale" in bad.stdout + bad.stderr
    # every call refused (nothing listens on port 9): the oracle's sample errors
    failing = ["kopa/kopa_bench", "--model", "kopa/mock", "-T", f"only={TEN[0]}", "-T", "policy=oracle",
               "-T", "backend=live:http://127.0.0.1:9"]
    assert _cli(tmp_path / "logs", "eval", *failing).returncode == 0  # Inspect's `eval` exits 0 on errored samples
    assert _cli(tmp_path / "logs", "eval-set", *failing, "--retry-attempts", "0").returncode == 1


def test_the_readme_s_provider_line_reaches_a_chat_completions_server(tmp_path):
    """The README's `openai-api` line, as a user with their own OpenAI-compatible server types it: Inspect's
    provider posts chat completions to the scripted server, which answers; the sample is scored."""
    with ChatServer([Reply(content="모르겠습니다.")] * 2) as server:
        run = _cli(tmp_path, "eval", "kopa/kopa_bench", "--model", "openai-api/local/my-model", "-T", f"only={TEN[0]}",
                   env={"LOCAL_BASE_URL": server.base_url, "LOCAL_API_KEY": "none"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(server.requests) == 1 and server.errors == [] and server.requests[0]["model"] == "my-model"
    (log_file,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.samples[0].scores["kopa_passed"].explanation == "no_tool_used"
