"""Why an episode failed, in the paper's terms: auth error, skipped lookup, early answer, budget."""

from __future__ import annotations

from collections import Counter

from kopa.eval.episode import EpisodeScore, PredictedCall
from kopa.eval.task import Target, Task

CAUSES = ("auth_error", "budget_exceeded", "skipped_lookup", "early_answer", "no_answer", "wrong_state",
          "wrong_answer", "infrastructure")


def failure_cause(task: Task, target: Target, calls: list[PredictedCall], answer: str | None,
                  score: EpisodeScore, lookup_tools: set[str]) -> str | None:
    """The first cause that explains the failure, most specific first; None when the episode passed."""
    if score.passed:
        return None
    if any(c.error_class == "auth" for c in calls):
        return "auth_error"
    if any(c.error_kind == "budget_exceeded" for c in calls):
        return "budget_exceeded"
    called_ok = Counter(c.tool for c in calls if c.ok)
    if any(called_ok[t] == 0 for t in lookup_tools):
        return "skipped_lookup"
    golden_pages = Counter(c.tool for c in target.calls)
    made = Counter(c.tool for c in calls)
    if any(made[t] < n for t, n in golden_pages.items() if n > 1 and t in made):
        return "early_answer"
    if answer is None and "RESPONSE" in task.reward_basis:
        return "no_answer"
    if score.environment is False:
        return "wrong_state"
    return "wrong_answer"
