"""Junction typing (seed §5.3): the cardinality n of the connecting field in the executed result decides how
a value passes from T_i to T_{i+1} — SEQ (n = 1), FAN (2 ≤ n ≤ φ, one call per value) or DRV (n > φ: a
process node first selects a bounded subset, pivoting on observed values so at most φ values pass).

Every junction is written in the golden reference language (kopa.eval.template), so golden execution does
the selection; this module only chooses it, and computes in Python what the template will select, so
the choice can be checked before anything is emitted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation
from typing import Any, Literal

import numpy as np

from kopa.bank.links import JunctionKind
from kopa.catalog.models import Tool
from kopa.catalog.view import field_view
from kopa.edge.plan import date_form
from kopa.eval.lint import PHI  # the paper's fan-out budget φ
from kopa.korean.dates import ISO_DAY, calendar_day
from kopa.korean.vocabulary import description_label, spoken

Process = Literal["max", "min", "ge", "le", "eq", "after", "mode"]
# Characters that would break a reference or a selector if they were written into one.
_UNSAFE = re.compile(r"[\[\]{}|$]")
_YYYYMMDD = re.compile(r"^(?:19|20)\d{6}$")
# Field descriptions that mark an identifier, a date or a phone number, not a quantity (numbers, but
# neither their maximum nor a threshold means anything).
_NOT_QUANTITY = ("코드", "번호", "ID", "아이디", "일자", "날짜", "년도", "연도", "년월", "전화", "팩스", "우편", "순번",
                 "차수", "대수", "기수", "회차", "URL", "주소", "구분", "여부", "유형", "종류", "시각",  # 시각: a time of day
                 "좌표", "위도", "경도",  # a position: no one asks for the largest latitude or sums X좌표
                 "시작시간", "종료시간", "마감시간")  # a time of day written as a number (영업시작시간 0600)


def number(value: Any) -> Decimal | None:
    """The number a template's numeric comparison reads (`1,234` → 1234), or None."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value).replace(",", "").strip()
    if not text:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def common_fields(records: list[dict]) -> set[str]:
    """The fields every record holds (one pass: a result can hold 224,958 records)."""
    if not records:
        return set()
    first = records[0].keys()
    common = set(first)
    for r in records:
        if r.keys() != first:  # a C-level comparison: records of one endpoint mostly share their fields
            common &= r.keys()
    return common


def distinct(values: list[Any]) -> list[str]:
    """Distinct non-empty values as text, in order of first appearance."""
    return list(dict.fromkeys(str(v) for v in values if v not in (None, "")))


def field_label(tool: Tool, name: str) -> str:
    """How a question names an output field: the catalog's `say`, else its description up to the first
    separator, as a person says it (`kopa.korean.vocabulary.spoken`)."""
    for f in tool.spec.output:
        if f.name == name:
            return f.say or spoken(description_label(f.description)) or name
    return name


def _field_spec(tool: Tool, name: str):
    return next((f for f in tool.spec.output if f.name == name), None)


def is_measure(tool: Tool, name: str) -> bool:
    """A field the catalog documents as a measure: no code format, and a description that does not call
    it an identifier or a date."""
    spec = _field_spec(tool, name)
    return spec is not None and field_view(spec).format_description is None \
        and not any(w in spec.description for w in _NOT_QUANTITY)


def numbers(values: list[Any]) -> list[Decimal | None]:
    """number() of each value, each distinct value parsed once (a 224,958-record column repeats most)."""
    memo: dict[tuple[type, Any], Decimal | None] = {}
    out = []
    for v in values:
        key = (type(v), v)
        try:
            d = memo[key]
        except KeyError:
            d = memo[key] = number(v)
        except TypeError:  # a dict or list: not a number
            d = None
        out.append(d)
    return out


def is_quantity(tool: Tool, name: str, records: list[dict], parsed: list[Decimal | None] | None = None) -> bool:
    """A numeric measure that varies: every record holds a number, and not all the same one. `parsed`:
    numbers() of the column, when the caller has it."""
    if not is_measure(tool, name):
        return False
    values = [r.get(name) for r in records]
    column = parsed if parsed is not None else numbers(values)
    return all(d is not None for d in column) and len({str(v) for v in values}) > 1


def is_date(tool: Tool, name: str, records: list[dict]) -> bool:
    """A field of days, all written one way: 20260128, or 2026-01-28 (the National Assembly's 제안일)."""
    spec = _field_spec(tool, name)
    if spec is None or not (date_form(field_view(spec)) == "yyyymmdd" or spec.description.strip().endswith("일")
                            or any(w in spec.description for w in ("일자", "날짜", "일시"))):
        return False
    values = {str(r.get(name, "")) for r in records}
    # every value a day that exists: a service's placeholder (20000000) is no pivot a person can name
    return len(values) > 1 and (all(_YYYYMMDD.match(v) for v in values) or all(ISO_DAY.match(v) for v in values)) \
        and all(calendar_day(v) is not None for v in values)


def day_number(value: Any) -> int:
    """A day of `is_date` as the number yyyymmdd, whichever way it is written."""
    return int(str(value).replace("-", ""))


def is_enum(tool: Tool, name: str, records: list[dict]) -> bool:
    """A categorical field: text values, few of them, repeated across records."""
    try:
        if len({r.get(name) for r in records[:200]}) > 12:  # already too many kinds: no need to read them all
            return False
        kinds = {r.get(name) for r in records}
    except TypeError:  # a dict or list value
        return False
    if not 2 <= len(kinds) <= 12 or len(kinds) >= len(records):
        return False
    # a value that lists several ("제18대, 제19대, 제20대") is a history, not a kind a person filters by
    return all(isinstance(v, str) and v and v == v.strip() and not _UNSAFE.search(v) and number(v) is None
               and ", " not in v for v in kinds)


@dataclass(frozen=True)
class Selection:
    """A DRV process node: which records pass (as a reference-language selector) and why (for the query)."""

    process: Process
    pivot_field: str
    pivot: str | None  # the observed value a threshold / equality compares with (None for max / min)
    passed: list[str]  # the connecting field's values that pass on, in the order golden execution gives

    def reference(self, step: str, field: str) -> str:
        """The reference (without braces) to the value(s) that pass on."""
        g = self.pivot_field
        if self.process == "max":
            return f"{step}.records|maxby:{g}|get:{field}"
        if self.process == "min":
            return f"{step}.records|minby:{g}|get:{field}"
        if self.process == "mode":
            return f"{step}.records[*].{field}|mode"
        op = {"ge": ">=", "le": "<=", "eq": "=", "after": ">"}[self.process]
        return f"{step}.records[?{g}{op}{self.pivot}].{field}|unique"

    @property
    def single(self) -> bool:
        return self.process in ("max", "min", "mode")


def tied_at_best(records: list[dict], column: list[Any], largest: bool) -> list[dict]:
    """The records at the max / min of the parsed `column` (None values skipped), in record order."""
    valid = [v for v in column if v is not None]
    if not valid:
        return []
    best = max(valid) if largest else min(valid)
    return [r for r, v in zip(records, column, strict=True) if v == best]


def _argbest(records: list[dict], column: list[Any], field: str, largest: bool) -> dict | None:
    """The record `maxby` / `minby` returns (the max / min of the parsed `column`, the first on ties);
    None when records tied at the best value hand on different values of `field`: which one the golden
    picks would then be the API's record order, not anything the question can state."""
    tied = tied_at_best(records, column, largest)
    return tied[0] if len({str(r.get(field)) for r in tied}) == 1 else None


def _threshold(records: list[dict], column: list[Any], g: str, field: str, op: str,
               rng: np.random.Generator) -> tuple[str, list[str]] | None:
    """A pivot among the observed values of g (parsed: `column`) such that 1..φ distinct values of `field`
    pass `g op pivot`.

    One walk over the records sorted by g from the passing end (O(n log n)): the distinct values that pass
    only grow as the pivot moves, so the walk stops at the first pivot that would pass more than φ."""
    keyed = sorted(((v, i) for i, v in enumerate(column)), key=lambda x: x[0], reverse=op in ("ge", "after"))
    options: list[tuple[Any, int]] = []  # (pivot, how many of `keyed` pass it)
    seen: set[str] = set()
    k, n = 0, len(keyed)
    while k < n and len(seen) <= PHI:
        pivot, end = keyed[k][0], k
        while end < n and keyed[end][0] == pivot:
            end += 1
        if op == "after" and seen:  # strictly after: the records before this pivot's own
            options.append((pivot, k))
        seen.update(str(v) for _, i in keyed[k:end] if (v := records[i].get(field)) not in (None, ""))
        if op != "after" and 1 <= len(seen) <= PHI and end < n:
            options.append((pivot, end))
        k = end
    if not options:
        return None
    pivot, count = options[int(rng.integers(len(options)))]
    passed = distinct([records[i].get(field) for i in sorted(i for _, i in keyed[:count])])
    if op == "after":
        return str(records[column.index(pivot)][g]), passed  # the day as the service wrote it
    # the roundest number between the pivot and the next observed value passes the same records: a person
    # says "8만 5,000 이상", not "84940 이상" (`_threshold` only offers a pivot with a next value)
    return roundest(Decimal(pivot), Decimal(keyed[count][0])), passed


def roundest(pivot: Decimal, bound: Decimal) -> str:
    """The number with the fewest significant digits from `pivot` (included) towards `bound` (excluded),
    as plain digits: 84940 towards 84000 → '84900'; 84940 towards 86000 → '85000'."""
    upward = bound > pivot
    for e in range(max(abs(pivot), abs(bound)).adjusted(), min(int(pivot.as_tuple().exponent), 0) - 1, -1):
        step = Decimal(1).scaleb(e)
        r = (pivot / step).to_integral_value(rounding=ROUND_CEILING if upward else ROUND_FLOOR) * step
        if (pivot <= r < bound) if upward else (bound < r <= pivot):
            return format(r.quantize(step) if e < 0 else r.quantize(Decimal(1)), "f")
    return format(pivot, "f")


def _pivot_options(tool: Tool, records: list[dict], field: str, g: str, rng: np.random.Generator,
                   processes: frozenset[str] | None = None) -> list[Selection]:
    """The process nodes (of `processes`, when given) that pivot on field g (g == field: the most frequent
    value, `mode`). A node left out is never looked for: a threshold draws its pivot from `rng`, and a node
    found only to be dropped would move every later draw (see drv_draws)."""
    def wanted(process: str) -> bool:
        return processes is None or process in processes

    if g == field:
        most = most_frequent([r[field] for r in records]) if wanted("mode") and not is_statistics(tool) else None
        return [] if most is None else [Selection("mode", field, None, [most])]
    out: list[Selection] = []
    column = numbers([r[g] for r in records]) if is_measure(tool, g) else None
    if column is not None and is_quantity(tool, g, records, column):
        extremes: tuple[tuple[Process, bool], ...] = (("max", True), ("min", False))
        for process, largest in extremes:
            best = _argbest(records, column, field, largest) if wanted(process) else None
            if best is not None:
                out.append(Selection(process, g, None, [str(best[field])]))
        thresholds: tuple[Process, ...] = ("ge", "le")
        for op in thresholds:
            found = _threshold(records, column, g, field, op, rng) if wanted(op) else None
            if found:
                out.append(Selection(op, g, found[0], found[1]))
    elif is_date(tool, g, records):
        if wanted("after"):
            found = _threshold(records, [day_number(r[g]) for r in records], g, field, "after", rng)
            if found:
                out.append(Selection("after", g, found[0], found[1]))
    elif is_enum(tool, g, records) and wanted("eq"):
        groups: dict[Any, dict[str, None]] = {}  # one pass: each kind's connecting values, in record order
        for r in records:
            value = r[field]
            if value not in (None, ""):
                groups.setdefault(r[g], {})[str(value)] = None
        for value in sorted({r[g] for r in records}):
            passed = list(groups.get(value, {}))
            if 1 <= len(passed) <= PHI:
                out.append(Selection("eq", g, value, passed))
    return out


def _pivots(records: list[dict], field: str) -> list[str] | None:
    """The fields a process node may pivot on (field itself first: its mode), or None when some record
    lacks the connecting field."""
    if any(field not in r or r[field] in (None, "") for r in records):
        return None
    return [field, *sorted(common_fields(records) - {field})]


def drv_options(tool: Tool, records: list[dict], field: str, rng: np.random.Generator) -> list[Selection]:
    """Every process node the executed records allow, for each candidate pivot field (sorted by name)."""
    return [s for g in _pivots(records, field) or [] for s in _pivot_options(tool, records, field, g, rng)]


def _drawn_pivots(records: list[dict], field: str, processes: frozenset[str] | None) -> list[str] | None:
    """The pivot fields drv_choice draws from (without the field itself when `processes` leaves out mode)."""
    pivots = _pivots(records, field)
    if pivots is not None and processes is not None and "mode" not in processes:
        return pivots[1:]  # the field itself is the mode's pivot
    return pivots


def drv_draws(records: list[dict], field: str, processes: frozenset[str] | None = None) -> int | None:
    """How many pivots drv_choice permutes (its only draw when it finds no node), None when it draws nothing:
    a caller that already knows no node fits a result draws the same, so later draws do not move."""
    pivots = _drawn_pivots(records, field, processes)
    return None if pivots is None else len(pivots)


def drv_choice(tool: Tool, records: list[dict], field: str, rng: np.random.Generator,
               processes: frozenset[str] | None = None) -> Selection | None:
    """One process node (of `processes`, when given): a pivot field drawn from those that allow one, then one
    of its nodes. Fields are tried in a drawn order and only until one allows a node: typing every field of
    a 224,958-record result to pick one node was most of a DRV step's time."""
    pivots = _drawn_pivots(records, field, processes)
    if pivots is None:
        return None
    for i in rng.permutation(len(pivots)):
        options = _pivot_options(tool, records, field, pivots[int(i)], rng, processes)
        if options:
            return options[int(rng.integers(len(options)))]
    return None


def is_statistics(tool: Tool) -> bool:
    """A tool whose records are figures (a year's, a month's totals), not things: "the district with the
    most of them" counts rows of a table, which no person asks about ("자전거보관소 연도별 통계가 가장 많은
    시군구")."""
    return _STATISTICS.search(tool.spec.title) is not None


_STATISTICS = re.compile(r"통계|연도별|월별|일별|시간대별|집계|추이")


def most_frequent(values: list[Any]) -> str | None:
    """The one value (as text) that appears more often than every other, at least twice; None on a tie."""
    counts = Counter(str(v) for v in values)
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]


def junction_kind(n: int, phi: int = PHI) -> JunctionKind:
    if n <= 1:
        return "SEQ"
    return "FAN" if n <= phi else "DRV"


def cond_threshold(value: Decimal, holds: bool, whole: bool = False) -> Decimal:
    """A round threshold next to the observed value: at or below it when the condition should hold
    (value ≥ pivot), above it otherwise — two significant digits, as a person would write it; `whole`: a
    count, whose threshold is a whole number ("8건 이상", never "7.1건")."""
    if value == 0:
        return Decimal(0) if holds else Decimal(1)
    exponent = value.copy_abs().adjusted() - 1
    if whole:
        exponent = max(exponent, 0)
    step = Decimal(10) ** exponent
    rounded = (value / step).to_integral_value(ROUND_FLOOR if holds else ROUND_CEILING) * step
    if not holds and rounded <= value:
        rounded += step
    return rounded.normalize() if exponent < 0 else rounded.quantize(Decimal(1))
