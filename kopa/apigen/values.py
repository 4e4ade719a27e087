"""The validated value cache: argument values the backend has really returned.

APIGen's generator must write arguments that execute. Offline, values are not invented: the tool pool is
probed on the backend (as Phase A's first calls are, with `kopa.edge.phase_a.ArgumentFiller`: enums,
documented defaults, dates from the virtual today, values already seen), and every short text value of a
successful answer is kept under its field name — the same cache C Phase A builds, without a graph — and
under the tool that returned it (a value a tool returned is one its own filters are sure to find). A tool
whose required input no earlier answer supplied is probed again in the next round, when one may have.

A code is kept with the name its own record gives it (`SD_SCHUL_CODE` 7004459 → `SCHUL_NM` 산북초등학교,
`corp_code` → `corp_name`): a person who holds a school's or a company's code knows what it names, and a
query states both ("산북초등학교(행정표준코드 7004459)").

The probe's calls count toward the run's budget (tool calls spent), as Phase A's count toward EDGE's.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from kopa.catalog.models import Tool
from kopa.edge.phase_a import ArgumentFiller
from kopa.edge.proposer import KIND_TOKENS, name_tokens
from kopa.korean.vocabulary import stated_name
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
    named: dict[str, dict[str, str]] = {}  # code field → code → the name its record gives it (first seen)
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
            for field, (code, name) in record_names(record).items():
                self.named.setdefault(field, {}).setdefault(code, name)

    def seen(self) -> dict[str, list[str]]:
        """Field name → every value any answer gave under it: `values` (kept up to PER_FIELD across tools) with
        what each tool's own answers added — what the rule checker knows a name by."""
        out = {field: list(values) for field, values in self.values.items()}
        for fields in self.own.values():
            for field, values in fields.items():
                bucket = out.setdefault(field, [])
                bucket += [v for v in values if v not in bucket]
        return out

    def name_of(self, field: str, code: object) -> str | None:
        """The name a record gave `code` under `field`, if one did."""
        return self.named.get(field, {}).get(str(code))


def _field_kind(name: str) -> tuple[str | None, frozenset[str]]:
    """('code' | 'name' | None, the field's other tokens): SD_SCHUL_CODE → ('code', {sd, schul})."""
    tokens = name_tokens(name)
    kind = KIND_TOKENS.get(tokens[-1]) if tokens else None
    return kind, frozenset(t for t in tokens if t not in KIND_TOKENS)


def record_names(record: dict) -> dict[str, tuple[str, str]]:
    """Each code field of one record → (its code, the Korean name the record gives the same thing): the name
    field that shares a word with the code field (SD_SCHUL_CODE ~ SCHUL_NM, BILL_ID ~ BILL_NAME, corp_code ~
    corp_name); a code with no such field, or with two, is left out."""
    names = {}
    for field, value in record.items():
        kind, words = _field_kind(field)
        if kind == "name" and words and isinstance(value, str) and stated_name(value) and len(value) <= MAX_TEXT:
            names[words] = value
    out = {}
    for field, value in record.items():
        kind, words = _field_kind(field)
        if kind != "code" or not words or isinstance(value, bool) or not isinstance(value, str | int):
            continue
        matches = {name for key, name in names.items() if key & words}
        if len(matches) == 1 and str(value) and not stated_name(str(value)):
            out[field] = (str(value), matches.pop())
    return out


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
