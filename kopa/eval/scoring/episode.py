"""One episode's score: RESPONSE / ENVIRONMENT per the task's reward_basis, and ACTION gated on them.

:func:`score_stored` scores an episode from what a run stored (its answer, calls and end state) and is
the only way episodes are scored — at the end of ``kopa bench run`` and by ``kopa bench score`` alike —
so a re-score of unchanged scorers gives the run's verdicts, and a changed scorer changes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kopa.eval.causes import failure_cause
from kopa.eval.episode import Episode, EpisodeScore, PredictedCall, ScoredEpisode
from kopa.eval.policies.offline import lookup_steps
from kopa.eval.scoring.action import score_action
from kopa.eval.scoring.environment import score_environment, stored_state_hash
from kopa.eval.scoring.response import ResponseVerdict, score_response
from kopa.eval.task import Target, Task

if TYPE_CHECKING:  # judge.py imports scoring.response: keep the cycle type-only
    from kopa.eval.judge import Judge

__all__ = ["answer_verdict", "score_episode", "score_stored"]


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


def answer_verdict(task: Task, target: Target, answer: str | None, judge: Judge | None = None
                   ) -> ResponseVerdict:
    """RESPONSE alone for one answer text, exactly as an episode's answer is scored (no tool call)."""
    return _response(task, target, answer, judge)


def score_stored(task: Task, target: Target, episode: Episode, judge: Judge | None = None) -> ScoredEpisode:
    """Score a stored episode: RESPONSE from its answer, ENVIRONMENT from its stored end state (hash
    recomputed), ACTION from its stored calls; then the failure cause. An infrastructure failure is not
    scored: it is reported apart, as the policy never played."""
    scored = ScoredEpisode(task_id=episode.task_id, domain=episode.domain, platforms=episode.platforms,
                           policy=episode.policy, seed=episode.seed, rollout=episode.rollout,
                           answer=episode.answer, target_answer=target.answer, score=EpisodeScore(),
                           calls=len(episode.calls),
                           malformed_calls=sum(c.malformed is not None for c in episode.calls),
                           model_requests=episode.usage.get("llm_calls", 0),
                           model_attempts=episode.usage.get("llm_attempts", episode.usage.get("llm_calls", 0)),
                           limits=episode.limits, error=episode.error)
    if episode.error is not None:
        scored.failure_cause = "infrastructure"
        return scored
    scored.score = score_episode(task, target, episode.answer, episode.calls, episode.final_state,
                                 stored_state_hash(episode.final_state), judge)
    # a group of lookups issued together (two companies side by side) is each of its calls
    lookups = {m.call for s in lookup_steps(task) for m in (s.parallel or [s]) if m.call}
    scored.failure_cause = failure_cause(task, target, episode.calls, episode.answer, scored.score, lookups,
                                         episode.limits)
    return scored
