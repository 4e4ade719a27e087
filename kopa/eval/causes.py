"""Why an episode failed, read from its transcript: what the agent did, in the order a reader would check
it (benchmark/SCORING.md, "Failure causes"). The first cause that explains the failure is the one given."""

from __future__ import annotations

from kopa.eval.episode import EpisodeScore, PredictedCall
from kopa.eval.task import Target, Task

CAUSES = ("turn_limit", "time_limit", "no_tool_used", "missing_key", "budget_exceeded", "malformed_call",
          "early_answer", "skipped_lookup", "wrong_tool", "wrong_arguments", "no_answer", "wrong_state",
          "wrong_answer", "infrastructure")

# Tools that fetch nothing: calling them or not says nothing of the data a task needs.
_SESSION = frozenset({"issue_api_key", "get_current_date", "evaluate_expression"})


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


def _unrecovered_malformed(calls: list[PredictedCall]) -> bool:
    """A malformed call (arguments that are not a JSON object, a tool the task does not offer) after which
    no call succeeded: the agent gave up where its call could not be made."""
    last = max((i for i, c in enumerate(calls) if c.malformed is not None), default=None)
    return last is not None and not any(c.ok for c in calls[last + 1:])


def _argument_mismatch(score: EpisodeScore) -> bool:
    """A golden call left unmatched while its tool was called with another value of an argument the
    golden call sets (ACTION's matching says which): the agent asked about something else."""
    return any("closest call:" in why and ("≠ golden" in why or "missing (golden" in why)
               for why in score.details.get("unmatched_golden", []))


def failure_cause(task: Task, target: Target, calls: list[PredictedCall], answer: str | None,
                  score: EpisodeScore, lookup_tools: set[str], limits: list[str] | tuple[str, ...] = ()) -> str | None:
    """The first cause that explains the failure; None when the episode passed."""
    if score.passed:
        return None
    if answer is None and "max_turns" in limits:
        return "turn_limit"
    if answer is None and "time_limit" in limits:
        return "time_limit"
    if not calls:
        return "no_tool_used"
    if any(c.error_class == "auth" for c in calls):
        return "missing_key"
    if any(c.tool == "issue_api_key" for c in target.calls) and not any(
            c.tool == "issue_api_key" and c.ok for c in calls):
        # Some services answer a keyless call as a sample (a few rows, no error): the key was still skipped.
        return "missing_key"
    if any(c.error_kind == "budget_exceeded" for c in calls):
        return "budget_exceeded"
    if _unrecovered_malformed(calls):
        return "malformed_call"
    if _stopped_early(calls):
        return "early_answer"  # what came after was read from part of an answer: it explains the rest
    order = list(dict.fromkeys(c.tool for c in target.calls if c.tool != "issue_api_key"))  # golden order
    needed = set(order) - _SESSION
    called = {c.tool for c in calls if c.malformed is None}
    answered = {c.tool for c in calls if c.ok}
    if any(t in lookup_tools and t not in called and called & set(order[i + 1:]) for i, t in enumerate(order)):
        # a lookup never asked, and a call after it (the calculator too) made with a value not looked up
        return "skipped_lookup"
    if needed - called:
        return "wrong_tool"  # a tool the answer needs never called
    if needed - answered or _argument_mismatch(score):
        return "wrong_arguments"  # the right tool asked for something else (or refused what it was asked)
    if answer is None and "RESPONSE" in task.reward_basis:
        return "no_answer"
    if score.environment is False:
        return "wrong_state"
    return "wrong_answer"
