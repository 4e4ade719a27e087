"""Why an episode failed, in the paper's terms: auth error, skipped lookup, early answer, budget."""

from __future__ import annotations

from collections import Counter

from kopa.eval.episode import EpisodeScore, PredictedCall
from kopa.eval.task import Target, Task

CAUSES = ("auth_error", "budget_exceeded", "skipped_lookup", "early_answer", "no_answer", "wrong_state",
          "wrong_answer", "infrastructure")


def _stopped_early(calls: list[PredictedCall]) -> bool:
    """Some paged answer held fewer records than the service reported, and the rest was never fetched."""
    by_tool: dict[str, list[PredictedCall]] = {}
    for c in calls:
        if c.ok and c.total_count is not None:
            by_tool.setdefault(c.tool, []).append(c)
    for tool_calls in by_tool.values():
        biggest = max(c.total_count or 0 for c in tool_calls)
        if biggest > max(c.records for c in tool_calls) and sum(c.records for c in tool_calls) < biggest:
            return True
    return False


def failure_cause(task: Task, target: Target, calls: list[PredictedCall], answer: str | None,
                  score: EpisodeScore, lookup_tools: set[str]) -> str | None:
    """The first cause that explains the failure, most specific first; None when the episode passed."""
    if score.passed:
        return None
    if any(c.error_class == "auth" for c in calls):
        return "auth_error"
    needs_key = any(c.tool == "issue_api_key" for c in target.calls)
    if needs_key and not any(c.tool == "issue_api_key" and c.ok for c in calls):
        # Some services answer a keyless call as a sample (a few rows, no error): the key was still skipped.
        return "auth_error"
    if any(c.error_kind == "budget_exceeded" for c in calls):
        return "budget_exceeded"
    called_ok = Counter(c.tool for c in calls if c.ok)
    if any(called_ok[t] == 0 for t in lookup_tools):
        return "skipped_lookup"
    if _stopped_early(calls):
        return "early_answer"
    if answer is None and "RESPONSE" in task.reward_basis:
        return "no_answer"
    if score.environment is False:
        return "wrong_state"
    return "wrong_answer"
