"""One episode's score: RESPONSE / ENVIRONMENT per the task's reward_basis, and ACTION gated on them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kopa.eval.episode import EpisodeScore, PredictedCall
from kopa.eval.scoring.action import score_action
from kopa.eval.scoring.environment import score_environment
from kopa.eval.scoring.response import ResponseVerdict, score_response
from kopa.eval.task import Target, Task

if TYPE_CHECKING:  # judge.py imports scoring.response: keep the cycle type-only
    from kopa.eval.judge import Judge

__all__ = ["score_episode"]


def _response(task: Task, target: Target, answer: str | None, judge: Judge | None) -> ResponseVerdict:
    if task.answer is None or target.key is None:
        return ResponseVerdict(passed=False, method="none:no-target", details="the task has no answer key")
    return score_response(task.answer, target.key, answer, judge, query=task.query)


def score_episode(task: Task, target: Target, answer: str | None, predicted: list[PredictedCall],
                  state_canonical: dict, state_hash: str, judge: Judge | None = None, *,
                  schemas: dict[str, dict] | None = None) -> EpisodeScore:
    """Passed = every component of the reward_basis passes (an undecidable judge does not);
    action = ACTION if passed else 0 — a trajectory scores only when its outcome is right (seed §4.4)."""
    score = EpisodeScore()
    outcomes: list[bool] = []
    if "RESPONSE" in task.reward_basis:
        verdict = _response(task, target, answer, judge)
        score.response = verdict.passed is True
        score.response_method = verdict.method
        score.details["response"] = verdict.details
        if verdict.passed is None:
            score.details["response_undecided"] = f"the judge could not decide ({verdict.method}): not passed"
        outcomes.append(score.response)
    if "ENVIRONMENT" in task.reward_basis:
        env = score_environment(target.state, target.state_hash, state_canonical, state_hash)
        score.environment = env.passed
        score.environment_diff = env.diff
        outcomes.append(env.passed)
    action = score_action(target.calls, predicted, value_compare_args=task.value_compare_args,
                          optimal_calls=target.optimal_calls, max_allowed_calls=target.max_allowed_calls,
                          schemas=schemas)
    score.passed = bool(outcomes) and all(outcomes)
    score.correctness = action.correctness
    score.efficiency = action.efficiency
    score.action_raw = action.action
    score.action = action.action if score.passed else 0.0
    score.details.update(cr=action.cr, mpc=action.mpc, duplicates=action.duplicates, matched=action.matched,
                         unmatched_golden=action.unmatched_golden, action_notes=action.details)
    return score
