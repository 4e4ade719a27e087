"""The validated value cache: argument values the backend has really returned.

APIGen's generator must write arguments that execute. Offline, values are not invented: the tool pool is
probed on the backend (as Phase A's first calls are, with `kopa.edge.phase_a.ArgumentFiller`: enums,
documented defaults, dates from the virtual today, values already seen), and every short text value of a
successful answer is kept under its field name — the same cache C Phase A builds, without a graph — and
under the tool that returned it (a value a tool returned is one its own filters are sure to find). A tool
whose required input no earlier answer supplied is probed again in the next round, when one may have.

The probe's calls count toward the run's budget (tool calls spent), as Phase A's count toward EDGE's.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from kopa.catalog.models import Tool
from kopa.edge.phase_a import ArgumentFiller
from kopa.rng import stream
from kopa.tools.runtime import ToolRuntime

ROUNDS = 3  # probe rounds: a tool that needs a value another tool returns waits for a later round
PER_FIELD = 50  # values kept per field name (Phase A keeps as many)
RECORDS_READ = 5  # records of an answer whose values are kept
MAX_TEXT = 40  # longer text is prose, not an argument value


class ValueCache(BaseModel):
    """Field name → values the backend returned, with the tools that answered and what probing cost."""

    model_config = ConfigDict(extra="forbid")

    values: dict[str, list[str]] = {}
    own: dict[str, dict[str, list[str]]] = {}  # tool → field → values that tool itself returned
    answered: list[str] = []  # tools whose probe returned records: the generator's usable pool
    calls: int = 0  # tool calls the probe spent (session tools excluded)
    attempts: int = 0  # HTTP attempts behind them (retries included)

    def add(self, tool: str, records: list[dict]) -> None:
        own = self.own.setdefault(tool, {})
        for record in records[:RECORDS_READ]:
            for name, value in record.items():
                if isinstance(value, int | float) and not isinstance(value, bool):
                    value = str(value)
                if isinstance(value, str) and 0 < len(value) <= MAX_TEXT:
                    for bucket in (self.values.setdefault(name, []), own.setdefault(name, [])):
                        if value not in bucket and len(bucket) < PER_FIELD:
                            bucket.append(value)


def build_cache(tools: list[Tool], runtime: ToolRuntime, seed: int,
                progress: Callable[[int, int], None] | None = None) -> ValueCache:
    """Probe `tools` (in the given order, which the caller makes deterministic) for at most ROUNDS rounds."""
    cache = ValueCache()
    filler = ArgumentFiller(runtime.state.current_date)
    waiting = list(tools)
    total = len(tools) * ROUNDS
    done = 0
    for round_ in range(ROUNDS):
        later: list[Tool] = []
        for tool in waiting:
            done += 1
            args = filler.fill(tool, cache.values, stream(seed, "apigen-probe", f"{round_}:{tool.name}"))
            if args is None:
                later.append(tool)
                continue
            result = runtime.call(tool.name, args)
            cache.calls += 1
            cache.attempts += max(1, len(result.attempts))
            if result.ok and result.records:
                cache.add(tool.name, result.records)
                cache.answered.append(tool.name)
            if progress is not None:
                progress(done, total)
        waiting = later
        if not waiting:
            break
    cache.answered = sorted(set(cache.answered))
    return cache
