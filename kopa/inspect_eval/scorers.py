"""kopa's scorers as Inspect scorers: each reads the episode the solver stored and scores it with
`kopa.eval.scoring.score_stored` — the function `kopa bench score` runs — with the offline judge.

- `kopa_passed`: the task passed (every component of its reward_basis), C or I; Inspect's epoch reducers
  give pass@k from it.
- `kopa_response`, `kopa_environment`: one component each, C or I, the method in the explanation; a task
  whose reward_basis lacks the component is unscored (NaN), and `scored_accuracy` leaves it out, as kopa's
  report counts each component over the tasks that have it.
- `kopa_action`: ACTION gated on the outcome (0 unless passed), as kopa reports it; Corr, Eff and the
  ungated value in the metadata.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    mean,
    metric,
    scorer,
    stderr,
    value_to_float,
)
from inspect_ai.solver import TaskState

from kopa.eval.episode import Episode, ScoredEpisode
from kopa.eval.scoring.episode import score_stored
from kopa.eval.task import TaskSet, task_set

EPISODE_KEY = "kopa_episode"  # where the solver leaves the episode in the sample's store


@cache
def tasks_at(folder: str | None) -> TaskSet:
    return task_set(Path(folder) if folder else None)


def scored(state: TaskState, folder: str | None) -> ScoredEpisode:
    episode = Episode.model_validate(state.store.get(EPISODE_KEY))
    found = tasks_at(folder)
    task = next(t for t in found.tasks() if t.id == episode.task_id)
    return score_stored(task, found.targets()[task.id], episode)


def _verdict(passed: bool | None) -> str | float:
    return math.nan if passed is None else CORRECT if passed else INCORRECT


@metric
def scored_accuracy() -> Metric:
    """The share of C among the samples scored (an unscored NaN — the component is not the task's — left
    out); NaN when none was."""
    to_float = value_to_float()

    def compute(scores: list[SampleScore]) -> float:
        values = [to_float(s.score.value) for s in scores
                  if not (isinstance(s.score.value, float) and math.isnan(s.score.value))]
        return sum(values) / len(values) if values else math.nan

    return compute


@scorer(metrics=[accuracy(), stderr()])
def kopa_passed(tasks: str | None = None) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        s = scored(state, tasks)
        return Score(value=_verdict(s.score.passed), answer=s.answer or "",
                     explanation=s.failure_cause or "passed",
                     metadata={"failure_cause": s.failure_cause, "calls": s.calls,
                               "malformed_calls": s.malformed_calls, "limits": s.limits})
    return score


@scorer(metrics=[scored_accuracy()])
def kopa_response(tasks: str | None = None) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        s = scored(state, tasks)
        return Score(value=_verdict(s.score.response), answer=s.answer or "",
                     explanation=s.score.response_method or "not in the task's reward_basis",
                     metadata={"method": s.score.response_method, "details": s.score.details.get("response")})
    return score


@scorer(metrics=[scored_accuracy()])
def kopa_environment(tasks: str | None = None) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        s = scored(state, tasks)
        return Score(value=_verdict(s.score.environment),
                     explanation="; ".join(s.score.environment_diff) or (
                         "not in the task's reward_basis" if s.score.environment is None else "same end state"),
                     metadata={"diff": s.score.environment_diff})
    return score


@scorer(metrics=[mean(), stderr()])
def kopa_action(tasks: str | None = None) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        s = scored(state, tasks)
        return Score(value=s.score.action,
                     explanation=f"Corr {s.score.correctness:.3f}, Eff {s.score.efficiency:.3f}"
                                 + ("" if s.score.passed else " (0: the task did not pass)"),
                     metadata={"correctness": s.score.correctness, "efficiency": s.score.efficiency,
                               "action_raw": s.score.action_raw})
    return score
