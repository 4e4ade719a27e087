"""Generate and score apart: a run stores trajectories, answers and end states; `kopa bench score`
re-scores them with no tool, backend, socket or model; `bench show` re-renders; `--tasks` names a task set."""

from __future__ import annotations

import os
import shutil
import socket

import orjson
import pytest
from click.testing import CliRunner

import kopa.backends
import kopa.backends.spec
import kopa.eval.scoring.action
import kopa.eval.scoring.episode
from kopa.cli import main
from kopa.eval.runner import RunConfig, read_episodes, read_scores, run_bench, score_run, transcript_name
from kopa.eval.scoring.response import ResponseVerdict
from kopa.eval.task import load_targets, load_tasks, task_set
from kopa.tools.runtime import ToolRuntime

TASKS = {t.id: t for t in load_tasks()}
# finance-001 (a number answer), and one ENVIRONMENT task so end states are stored and compared.
ENV_TASK = next(t.id for t in TASKS.values() if t.reward_basis == ["ENVIRONMENT"] and t.domain == "finance")
IDS = ["finance-001", ENV_TASK]


def _offline(monkeypatch) -> None:
    """Nothing that could reach a tool, a backend or the network works any more."""
    def refuse(*args, **kwargs):
        raise AssertionError("scoring must not open a backend, call a tool or connect anywhere")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(kopa.backends, "open_backend", refuse)
    monkeypatch.setattr(kopa.backends.spec, "open_backend", refuse)
    monkeypatch.setattr(ToolRuntime, "call", refuse)


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("oracle")
    return folder, run_bench(RunConfig(policy="oracle", rollouts=2, only=IDS), folder, workers=2)


@pytest.fixture(scope="module")
def lookup_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("skip-lookup")  # failing episodes: their verdicts must survive too
    return folder, run_bench(RunConfig(policy="skip_lookup", rollouts=1, only=IDS), folder, workers=2)


def test_a_run_stores_each_trajectory_answer_and_end_state(oracle_run):
    folder, scored = oracle_run
    targets = load_targets()
    episodes = read_episodes(folder)
    assert len(episodes) == len(scored) == 4 and all(s.score.passed for s in scored)
    for episode in episodes:
        target = targets[episode.task_id]
        assert [(c.tool, c.arguments, c.turn) for c in episode.calls] == [
            (c.tool, c.arguments, c.turn) for c in target.calls]
        assert episode.final_state == target.state and episode.state_hash == target.state_hash
        assert all(c.ok and c.malformed is None and c.error is None for c in episode.calls)
        if "RESPONSE" in TASKS[episode.task_id].reward_basis:
            assert episode.answer
        # The transcript file holds every call's full result: the records the count in episodes.jsonl counts.
        transcript = orjson.loads((folder / "transcripts" /
                                   transcript_name(episode.task_id, episode.seed, episode.rollout)).read_bytes())
        assert [r["tool"] for r in transcript["results"]] == [c.tool for c in episode.calls]
        assert [len(r["records"]) for r in transcript["results"]] == [c.records for c in episode.calls]
        assert [r["total_count"] for r in transcript["results"]] == [c.total_count for c in episode.calls]
    config = orjson.loads((folder / "config.json").read_bytes())["config"]
    assert (config["task_set"], config["only"]) == (None, IDS)
    assert [s.task_id for s in read_scores(folder)] == ["finance-001"] * 2 + [ENV_TASK] * 2  # task-set order


@pytest.mark.parametrize("which", ["oracle_run", "lookup_run"])
def test_rescoring_offline_gives_the_same_verdicts(which, request, tmp_path, monkeypatch):
    folder, scored = request.getfixturevalue(which)
    stored = {name: (folder / name).read_bytes() for name in ("episodes.jsonl", "scores.jsonl")}
    _offline(monkeypatch)
    out = CliRunner().invoke(main, ["bench", "score", str(folder), "--out", str(tmp_path / "re")])
    assert out.exit_code == 0, out.output
    rescored = read_scores(tmp_path / "re")
    assert rescored == scored
    assert {name: (folder / name).read_bytes() for name in stored} == stored  # the run is left untouched
    if which == "lookup_run":
        assert any(not s.score.passed and s.failure_cause for s in rescored)
    report = (tmp_path / "re" / "report.md").read_text(encoding="utf-8")
    assert "the offline judge" in report and str(folder) in report
    shown = CliRunner().invoke(main, ["bench", "show", str(tmp_path / "re")])
    assert shown.exit_code == 0 and "KOPA-Bench" in shown.output


def test_a_changed_scorer_changes_the_rescored_verdict(oracle_run, tmp_path, monkeypatch):
    folder, scored = oracle_run
    _offline(monkeypatch)
    # A stricter RESPONSE scorer: every answer fails — the RESPONSE task now fails, the ENVIRONMENT one not.
    monkeypatch.setattr(kopa.eval.scoring.episode, "_response",
                        lambda *a: ResponseVerdict(passed=False, method="number:stricter", details="changed"))
    stricter = score_run(folder, tmp_path / "response")
    by_task = {s.task_id: s for s in stricter}
    assert by_task["finance-001"].score.passed is False and by_task["finance-001"].score.action == 0.0
    assert by_task["finance-001"].score.response_method == "number:stricter"
    assert by_task["finance-001"].failure_cause is not None
    assert by_task[ENV_TASK].score == next(s for s in scored if s.task_id == ENV_TASK).score
    monkeypatch.undo()
    _offline(monkeypatch)
    # A stricter ACTION: no argument value ever equal — Corr drops though every outcome still passes.
    monkeypatch.setattr(kopa.eval.scoring.action, "values_equal", lambda *a: False)
    strict = score_run(folder, tmp_path / "action")
    assert all(s.score.passed for s in strict)
    assert all(s.score.correctness < 1.0 for s in strict if s.task_id == "finance-001")
    assert [s.score.passed for s in scored] == [s.score.passed for s in strict]
    assert read_scores(folder) == scored  # scores written elsewhere: the run folder's are the run's


def test_show_needs_scores_and_score_needs_a_run(tmp_path, oracle_run):
    runner = CliRunner()
    not_run = runner.invoke(main, ["bench", "score", str(tmp_path)])
    assert not_run.exit_code == 2 and "not a run folder" in not_run.output
    no_scores = runner.invoke(main, ["bench", "show", str(tmp_path)])
    assert no_scores.exit_code == 2 and "no scores.jsonl" in no_scores.output
    folder, _ = oracle_run
    shown = runner.invoke(main, ["bench", "show", str(folder)])
    assert shown.exit_code == 0, shown.output
    assert "pass@1" in (folder / "report.md").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------------
# --tasks: a task set; --only: the old id/domain filter
# --------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def own_task_set(tmp_path_factory):
    """A task set of one's own: KOPA-Bench's finance tasks and targets, copied."""
    root = tmp_path_factory.mktemp("my-set")
    bench = task_set()
    for sub, name in (("tasks", "finance.yaml"), ("targets", "finance.json")):
        (root / sub).mkdir()
        shutil.copy(bench.root / sub / name, root / sub / name)
    return root


def test_run_and_score_a_named_task_set(own_task_set, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["bench", "run", "--tasks", str(own_task_set), "--only", "finance-001",
                                       "-n", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = orjson.loads((out / "config.json").read_bytes())["config"]
    assert config["task_set"] == str(own_task_set) and config["only"] == ["finance-001"]
    assert orjson.loads((out / "scoring.json").read_bytes())["task_set"] == str(own_task_set)
    assert [s.task_id for s in read_scores(out)] == ["finance-001"] and read_scores(out)[0].score.passed


@pytest.mark.parametrize(("args", "message"), [
    (["--tasks", "/nonexistent/set"], "not a task set"),
    (["--only", "finance-001,nosuch-999"], "unknown task ids or domains: ['nosuch-999']"),
    (["--policy-seeds", "a,b"], "expected comma-separated integers"),
    (["-n", "0"], "-n"),
])
def test_bad_run_options_are_one_line_usage_errors(args, message, tmp_path):
    result = CliRunner().invoke(main, ["bench", "run", *args, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "r").exists()


def test_targets_and_score_answer_take_a_task_set(tmp_path):
    runner = CliRunner()
    for command in (["targets"], ["score-answer", "finance-001", "x"]):
        result = runner.invoke(main, ["bench", *command, "--tasks", str(tmp_path)])
        assert result.exit_code == 2 and "not a task set" in result.output


# --------------------------------------------------------------------------------------------------
# score-answer: RESPONSE alone, no tool call
# --------------------------------------------------------------------------------------------------

def _right_answer(task_id: str) -> str:
    key = load_targets()[task_id].key
    return f"정답은 \\boxed{{{key.exact or key.display}}} 입니다."


def test_score_answer_prints_the_verdict(monkeypatch):
    _offline(monkeypatch)
    runner = CliRunner()
    right = runner.invoke(main, ["bench", "score-answer", "finance-001", _right_answer("finance-001")])
    assert right.exit_code == 0 and right.output.startswith("PASS  number:")
    wrong = runner.invoke(main, ["bench", "score-answer", "finance-001", r"\boxed{0}", "--json"])
    verdict = orjson.loads(wrong.output)
    assert wrong.exit_code == 0 and verdict["passed"] is False and verdict["task"] == "finance-001"
    assert set(verdict) == {"task", "passed", "method", "details"} and verdict["method"].startswith("number:")
    unknown = runner.invoke(main, ["bench", "score-answer", "nosuch-1", "x"])
    assert unknown.exit_code == 2 and "unknown task 'nosuch-1'" in unknown.output
    both = runner.invoke(main, ["bench", "score-answer", "finance-001", "x", "--jsonl", "-"], input="")
    assert both.exit_code == 2


def test_score_answer_jsonl_scores_many_in_order_and_names_bad_lines(monkeypatch, tmp_path):
    _offline(monkeypatch)
    lines = [orjson.dumps({"task": "finance-001", "answer": _right_answer("finance-001")}).decode(),
             '{"task": "finance-001", "answer": "모르겠습니다"}',
             "{not json",
             "",
             '{"task": "nosuch-1", "answer": "x"}',
             '{"task": "finance-001"}',
             '{"task": "finance-001", "answer": null}']
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["bench", "score-answer", "--jsonl", str(path)])
    assert result.exit_code == 2  # a bad input, as the README promises; the good lines are still scored
    verdicts = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [v["line"] for v in verdicts] == [1, 2, 3, 5, 6, 7]  # the blank line 4 is skipped
    assert [v["passed"] for v in verdicts] == [True, False, None, None, None, False]
    assert [v["method"] == "error" for v in verdicts] == [False, False, True, True, True, False]
    assert verdicts[2]["details"].startswith("line 3: not JSON")
    assert verdicts[3]["details"] == "line 5: unknown task 'nosuch-1'" and verdicts[3]["task"] == "nosuch-1"
    assert verdicts[4]["details"].startswith("line 6: expected")
    assert verdicts[5]["method"].endswith("no-answer")
    assert result.stderr.count("\n") == 1 and "3 bad line(s)" in result.stderr and "(first: line 3: not JSON" in result.stderr


def test_a_damaged_or_cut_episode_line_is_reported_never_scored_around(oracle_run, tmp_path, monkeypatch):
    """Scores over what is left of a damaged episodes.jsonl would be another run's: `bench score` names
    the line and exits 2. A cut last line (an interrupted run) is what a resumed run plays again."""
    folder, scored = oracle_run
    _offline(monkeypatch)
    runner = CliRunner()
    lines = (folder / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == len(scored) >= 2
    damaged = tmp_path / "damaged"
    shutil.copytree(folder, damaged)
    (damaged / "episodes.jsonl").write_bytes(lines[0] + b'{"task_id": "finance-001", "seed"\n' + b"".join(lines[2:]))
    out = runner.invoke(main, ["bench", "score", str(damaged), "--out", str(tmp_path / "s1")])
    assert out.exit_code == 2 and "episodes.jsonl:2: not a line this run wrote" in out.output, out.output
    assert not (tmp_path / "s1" / "scores.jsonl").exists()
    cut = tmp_path / "cut"
    shutil.copytree(folder, cut)
    (cut / "episodes.jsonl").write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    out = runner.invoke(main, ["bench", "score", str(cut), "--out", str(tmp_path / "s2")])
    assert out.exit_code == 2 and f"episodes.jsonl:{len(lines)}: the last line is cut short" in out.output
    # resuming reads past the cut line: the episode it held is played again, and the run scores as before
    assert [e.task_id for e in read_episodes(cut)] == [s.task_id for s in scored[:-1]]
    monkeypatch.undo()
    assert run_bench(RunConfig(policy="oracle", rollouts=2, only=IDS), cut, workers=2) == scored


def test_a_folder_a_run_is_writing_is_refused_to_a_second_run_and_to_scoring(oracle_run, tmp_path):
    from kopa.eval.runner import RunFolderError
    from kopa.fileio import RunFolder

    folder, scored = oracle_run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    before = (copy / "episodes.jsonl").read_bytes()
    with RunFolder(copy, what="a run", error=RunFolderError).writing("a first run"):
        with pytest.raises(RunFolderError, match=rf"is being written by .* in process {os.getpid()}"):
            run_bench(RunConfig(policy="oracle", rollouts=3, only=IDS), copy, workers=2)
        out = CliRunner().invoke(main, ["bench", "score", str(copy)])
        assert out.exit_code == 2 and "being written by" in out.output, out.output
        out = CliRunner().invoke(main, ["bench", "run", "--policy", "oracle", "--only", "finance-001", "--out",
                                        str(copy)])
        assert out.exit_code == 2 and "being written by" in out.output, out.output
    assert (copy / "episodes.jsonl").read_bytes() == before
    assert score_run(copy) == scored
