"""What a run's answers cost: attempts, retries and the faults observed, per platform and error class."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from kopa.tools.results import ToolResult


class FaultRow(BaseModel):
    platform: str
    outcome: str  # error class of the failed attempt
    kind: str
    count: int


class FaultAccount:
    """Accumulates over every tool call of a run (any number of episodes)."""

    def __init__(self) -> None:
        self.calls = 0
        self.attempts = 0
        self.retried_calls = 0
        self.unrecovered_calls = 0  # calls still failing environmentally after every retry
        self._faults: Counter[tuple[str, str, str]] = Counter()

    def add(self, platform: str, result: ToolResult) -> None:
        if not result.attempts:
            return  # session tools make no exchange
        self.calls += 1
        self.attempts += len(result.attempts)
        self.retried_calls += any(a.attempt > 0 for a in result.attempts)
        self.unrecovered_calls += result.error is not None and result.error.error_class == "environmental"
        for a in result.attempts:
            if a.outcome != "ok":
                self._faults[(platform, a.outcome, a.kind or "?")] += 1

    def rows(self) -> list[FaultRow]:
        return [FaultRow(platform=p, outcome=o, kind=k, count=n) for (p, o, k), n in sorted(self._faults.items())]

    def summary(self) -> str:
        extra = self.attempts - self.calls
        return (f"{self.calls} calls took {self.attempts} attempts ({extra} retries, "
                f"{self.retried_calls} calls retried, {self.unrecovered_calls} still failing after retries)")
