"""KOPA-Bench: the task set, golden re-execution, lint, the oracle and the failure-mode policies."""

from __future__ import annotations

import statistics

import orjson
import pytest

from kopa.eval.environment import Environment
from kopa.eval.golden import execute_golden
from kopa.eval.lint import lint_task
from kopa.eval.task import load_targets, load_tasks

TASKS = load_tasks()
PAPER_MIX = {"traffic": 22, "finance": 29, "education": 30, "law": 22, "politics": 25, "district": 17}


@pytest.fixture(scope="module")
def targets():
    return load_targets()


@pytest.fixture(scope="module")
def lint_results(backend):
    return {t.id: lint_task(t, backend) for t in TASKS}


def test_the_task_set_has_the_papers_mix_over_all_ten_platforms():
    counts = {d: sum(t.domain == d for t in TASKS) for d in PAPER_MIX}
    assert counts == PAPER_MIX
    assert len(TASKS) >= 145
    assert {p for t in TASKS for p in t.platforms} == {"ex", "seoul", "dart", "krx", "kdic", "edu", "hrd", "law",
                                                       "assembly", "gg"}
    assert any("ENVIRONMENT" in t.reward_basis for t in TASKS)
    assert statistics.fmean(len(t.available_tools) for t in TASKS) >= 7.0


def test_every_task_passes_lint(lint_results):
    problems = {k: v.problems for k, v in lint_results.items() if v.problems}
    assert not problems


def test_difficulty_statistics(lint_results):
    stats = [r.stats for r in lint_results.values()]
    assert statistics.fmean(s.steps for s in stats) >= 3.0
    assert statistics.fmean(s.calls for s in stats) >= 4.5
    assert max(s.calls for s in stats) >= 12
    assert sum(s.parallel for s in stats) / len(stats) >= 0.5


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.id)
def test_golden_re_execution_matches_the_stored_target(task, backend, targets):
    target = targets[task.id]
    env = Environment(task, backend)
    run = execute_golden(task, env)
    assert run.answer == target.answer
    assert env.state.hash() == target.state_hash
    assert [(c.tool, c.arguments, c.turn) for c in env.calls] == [(c.tool, c.arguments, c.turn) for c in target.calls]
    assert orjson.loads(env.state.canonical()) == target.state
