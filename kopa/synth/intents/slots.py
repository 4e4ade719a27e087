"""Filling an intent's slots: what the question states.

A name comes from what a listing returns (a probe call, not part of the task: the question names what the
probe found, as a person names a company they have heard of); a date is counted back from the backend's
virtual today; a choice is one of the hand-written options; an observed pivot is drawn from an executed
step's records so that 1..φ values pass it (the DRV process node of seed §5.3, `kopa.synth.junction`).
Every slot becomes a dict of strings: `say` (what the question says) and the parts the steps read.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

from kopa.bank.model import Choice, Dated, Observed, Pick
from kopa.eval.template import TemplateError, resolve
from kopa.korean.dates import date_phrase, day_phrase
from kopa.korean.numbers import number_phrase
from kopa.korean.sentence import PLACEHOLDER
from kopa.synth.junction import PHI, _threshold, day_number, numbers

Parts = dict[str, str]
Probe = Callable[[str, dict[str, Any], str], list[dict[str, Any]]]  # (tool, args, pages) → records
_FIELD = re.compile(r"\{([A-Za-z_가-힣][A-Za-z0-9_가-힣]*)(?:\|(date|number))?\}")  # 법령명한글 too


class Unfilled(Exception):
    """A slot with nothing to draw from (the probe found no record, no pivot passes 1..φ values)."""


def today_parts(today: dt.date) -> Parts:
    return _day_parts(today)


def _day_parts(day: dt.date) -> Parts:
    ymd = day.strftime("%Y%m%d")
    return {"say": day_phrase(day), "day": ymd, "iso": day.isoformat(), "first": ymd, "last": ymd,
            "year": str(day.year), "month": ymd[:6]}


def substitute(value: Any, filled: dict[str, Parts]) -> Any:
    """`value` (an argument, a step) with every <slot> / <slot.part> replaced by the filled text."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda m: filled[m["name"]][m["part"] or "say"], value)
    if isinstance(value, dict):
        return {k: substitute(v, filled) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, filled) for v in value]
    return value


def fill_dated(slot: Dated, today: dt.date, rng: np.random.Generator) -> Parts:
    low, high = slot.back
    if slot.kind == "day":
        days = [today - dt.timedelta(days=k) for k in range(low, high + 1)]
        days = [d for d in days if not slot.weekday or d.weekday() < 5]
        if not days:
            raise Unfilled("no day in range")
        return _day_parts(days[int(rng.integers(len(days)))])
    if slot.kind == "month":
        k = int(rng.integers(low, high + 1))
        year, month = divmod(today.year * 12 + today.month - 1 - k, 12)
        month += 1
        end = calendar.monthrange(year, month)[1]
        return {"say": f"{year}년 {month}월", "first": f"{year}{month:02d}01", "last": f"{year}{month:02d}{end:02d}",
                "year": str(year), "month": f"{year}{month:02d}"}
    year = today.year - int(rng.integers(low, high + 1))
    return {"say": f"{year}년", "first": f"{year}0101", "last": f"{year}1231", "year": str(year)}


def fill_choice(slot: Choice, rng: np.random.Generator) -> Parts:
    return dict(slot.options[int(rng.integers(len(slot.options)))])


def said(template: str, record: dict[str, Any]) -> str | None:
    """A pick's `say` over one record ('{SCHUL_NM}', '{PROC_DT|date}'); None when the record lacks a field,
    holds nothing there, or holds no day where a day is said."""
    def one(match: re.Match[str]) -> str:
        value = record.get(match[1])
        if value in (None, "") or isinstance(value, dict | list):
            raise _Unsaid
        text = str(value).strip()
        if match[2] == "date":
            day = date_phrase(text.replace(".", "-")) if text else None
            if day is None:
                raise _Unsaid
            return day
        return number_phrase(text.replace(",", "")) if match[2] == "number" else text

    try:
        return _FIELD.sub(one, template)
    except _Unsaid:
        return None


class _Unsaid(Exception):
    pass


def fill_pick(slot: Pick, filled: dict[str, Parts], probe: Probe, rng: np.random.Generator) -> Parts:
    records = probe(slot.call, substitute(slot.args, filled), slot.pages)
    if slot.where:
        try:
            records = resolve(f"p.records[{substitute(slot.where, filled)}]", {"p": {"records": records}})
        except TemplateError as exc:
            raise Unfilled(f"where: {exc}") from exc
    avoid = filled[slot.differs_from]["say"] if slot.differs_from else None
    by_say: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        text = said(slot.say, r)
        if text is not None and text != avoid:
            by_say.setdefault(text, []).append(r)
    names = sorted(n for n, rs in by_say.items() if not slot.distinct or len(rs) == 1)
    if not names:
        raise Unfilled(f"the probe {slot.call} found nothing to name")
    name = names[int(rng.integers(len(names)))]
    record = by_say[name][0]
    parts = {k: said(v, record) for k, v in slot.parts.items()}
    if any(v is None for v in parts.values()):
        raise Unfilled(f"{name}: a part is not there ({slot.parts})")
    return {**{k: str(v) for k, v in record.items() if not isinstance(v, dict | list) and v is not None},
            **{k: v for k, v in parts.items() if v is not None}, "say": slot.phrases.get(name, name)}


def fill_observed(slot: Observed, records: list[dict[str, Any]], rng: np.random.Generator,
                  filled: dict[str, Parts] | None = None) -> Parts:
    """A pivot over `records` (the step's executed result, narrowed by `where`) that 1..φ distinct values of
    `passes` pass."""
    if slot.where:
        try:
            found = resolve(f"p.records[{substitute(slot.where, filled or {})}]", {"p": {"records": records}})
        except TemplateError as exc:
            raise Unfilled(f"where: {exc}") from exc
        records = found if isinstance(found, list) else [found]
    if any(slot.field not in r or slot.passes not in r for r in records):
        raise Unfilled(f"a record lacks {slot.field} or {slot.passes}")
    if slot.op == "eq":
        groups: dict[str, dict[str, None]] = {}
        for r in records:
            if r[slot.passes] not in (None, ""):
                groups.setdefault(str(r[slot.field]), {})[str(r[slot.passes])] = None
        options = sorted(v for v, passing in groups.items() if 1 <= len(passing) <= PHI
                         and (not slot.phrases or v in slot.phrases))
        if not options:
            raise Unfilled(f"no value of {slot.field} passes 1..{PHI}")
        value = options[int(rng.integers(len(options)))]
        return {"say": slot.phrases.get(value, value), "value": value}
    if slot.op == "after":
        column: list[Any] = [day_number(r[slot.field]) if date_phrase(str(r[slot.field]).replace("-", ""))
                             else None for r in records]
    else:
        column = numbers([r[slot.field] for r in records])
    if any(v is None for v in column):
        raise Unfilled(f"{slot.field} is not a number (or a day) in every record")
    found = _threshold(records, column, slot.field, slot.passes, slot.op, rng)
    if found is None:
        raise Unfilled(f"no pivot of {slot.field} passes 1..{PHI}")
    pivot, _ = found
    if slot.op == "after":
        return {"say": date_phrase(pivot) or pivot, "value": pivot}
    text = number_phrase(pivot) if "." not in pivot else format(Decimal(pivot).normalize(), "f")
    return {"say": f"{text}{slot.unit}", "value": pivot}
