"""Stage 3 re-solving by a model (seed §5.4): every task played again, independently, as a KOPA-Bench episode
by an OpenAI-compatible agent on a fresh environment, and scored with kopa's own scorers against the stored
target. A task the solver does not solve is dropped (`not_resolved`), as the paper drops a task whose answer
does not reproduce under an independent solver; the offline re-execution (`kopa.synth.filters.resolve_again`)
runs first, so the stored target the solver is scored against is already the reproduced one.

The agent's replies go through the replayable LLM cache, so a filtered dataset reproduces offline.
"""

from __future__ import annotations

from kopa.backends.base import Backend
from kopa.eval.runner import run_episode
from kopa.eval.scoring.episode import score_stored
from kopa.synth.candidate import Candidate


class ModelSolver:
    """An agent policy (`OpenAIAgentPolicy` or any policy with `.name` and `.run(task, env, target, rollout)`)."""

    def __init__(self, policy) -> None:
        self.policy = policy

    def solve(self, candidate: Candidate, backend: Backend) -> str | None:
        """None when the policy solves the task; else why not, in one line."""
        episode, _ = run_episode(candidate.task, candidate.target, self.policy, backend, seed=0, rollout=0)
        scored = score_stored(candidate.task, candidate.target, episode)
        if scored.score.passed:
            return None
        if episode.error is not None:
            return f"the solver failed to play: {episode.error[:160]}"
        return (f"the solver ({self.policy.name}) answered {str(episode.answer)[:80]!r}, stored "
                f"{candidate.target.answer!r} (cause: {scored.failure_cause})")
