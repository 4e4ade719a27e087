"""Every tool-to-tool handoff the bank's questions make, read from their golden steps before anything runs:
(source tool, field) → (target tool, parameter), with the values the questions pass for the target's other
arguments where the bank states them (a kind, a report code, a year counted back from today). EDGE Phase A
takes them as proposed edges of the skeleton (beside the proposer's), so that the dependencies people's
questions need are verified by execution and, where they execute, retained in G* — the graph Phase B
realizes the questions on."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kopa.bank.links import links_of
from kopa.bank.model import Choice, Dated, Intent
from kopa.catalog.loader import Catalog
from kopa.eval.template import REF
from kopa.korean.sentence import PLACEHOLDER

STATED_VALUES = 6  # values of one argument the bank offers Phase A, at most


@dataclass(frozen=True, order=True)
class Hop:
    source: str  # tools
    target: str
    param: str  # the target's argument ...
    field: str  # ... bound to the source's output field


def _flat(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for s in steps for x in (s.get("parallel") or [s])]


def _handoffs(intent: Intent, catalog: Catalog) -> Iterator[tuple[dict[str, Any], Hop]]:
    """(step, hop) of each handoff between two tools in the intent's steps, its COND branches and its asks'
    own steps, in order (a tool asked again with its own output is no edge of a graph)."""
    kinds = {name: slot.kind for name, slot in intent.slots.items()}
    steps = _steps(intent)
    calls = {s["id"]: s.get("call") for s in steps}
    data: set[str] = set()
    for step in steps:
        call = step.get("call")
        if not call or catalog[call].family == "session":
            continue
        for link in links_of(step, data, kinds):
            source = calls.get(link.source)
            if source and source != call:
                yield step, Hop(source, call, link.param, link.field)
        data.add(step["id"])


def intent_hops(intent: Intent, catalog: Catalog) -> list[Hop]:
    """The handoffs of one intent: its steps, its COND branches and its asks' own steps, in order."""
    return [hop for _, hop in _handoffs(intent, catalog)]


def bank_hops(intents: tuple[Intent, ...], catalog: Catalog) -> list[Hop]:
    """Every distinct handoff of the bank, sorted."""
    return sorted({h for intent in intents for h in intent_hops(intent, catalog)})


@dataclass(frozen=True)
class Seed:
    """A proposed edge: what the bank's questions hand from `source` to `target`, and the values they pass
    for the target's other arguments (where the bank states them)."""

    source: str
    target: str
    bindings: dict[str, str]  # parameter ← field
    stated: dict[str, list[str]]  # parameter → values the questions pass


def bank_seeds(intents: tuple[Intent, ...], catalog: Catalog, today: dt.date) -> list[Seed]:
    """One seed per (source, target) pair the bank's handoffs connect, sorted."""
    bindings: dict[tuple[str, str], dict[str, str]] = {}
    stated: dict[tuple[str, str], dict[str, list[str]]] = {}
    for intent in intents:
        for step, hop in _handoffs(intent, catalog):
            pair = (hop.source, hop.target)
            bindings.setdefault(pair, {})[hop.param] = hop.field
            for param, values in _stated_args(step, intent, today).items():
                known = stated.setdefault(pair, {}).setdefault(param, [])
                for v in values:
                    if v not in known and len(known) < STATED_VALUES:
                        known.append(v)
    return [Seed(s, t, dict(sorted(b.items())), {p: v for p, v in sorted(stated.get((s, t), {}).items())
                                                 if p not in b})
            for (s, t), b in sorted(bindings.items())]


def _steps(intent: Intent) -> list[dict[str, Any]]:
    branches = [intent.cond.then, intent.cond.otherwise] if intent.cond else []
    asked = [s for a in [*intent.asks, *intent.otherwise_asks] for s in a.steps]
    return _flat([*intent.steps, *(s for b in branches for s in b), *asked])


def _stated_args(step: dict[str, Any], intent: Intent, today: dt.date) -> dict[str, list[str]]:
    """The values a step passes for the arguments it states itself: a literal, each option of a choice, the
    days, months or years a dated slot can take from today. A name a listing gives (a pick) is not known
    before the listing runs: left to Phase A's own filling."""
    out: dict[str, list[str]] = {}
    for param, value in (step.get("args") or {}).items():
        if not isinstance(value, str) and not isinstance(value, int):
            continue
        text = str(value)
        if REF.search(text):
            continue
        slot = PLACEHOLDER.fullmatch(text)
        if slot is None:
            if not PLACEHOLDER.search(text):
                out[param] = [text]
            continue
        spec = intent.slots.get(slot["name"])
        part = slot["part"] or "say"
        if isinstance(spec, Choice):
            out[param] = [o[part] for o in spec.options if part in o]
        elif isinstance(spec, Dated):
            out[param] = _dated(spec, part, today)
    return out


def _dated(slot: Dated, part: str, today: dt.date) -> list[str]:
    low, high = slot.back
    values: list[str] = []
    for k in range(low, min(high, low + STATED_VALUES - 1) + 1):
        if slot.kind == "day":
            day = today - dt.timedelta(days=k)
            ymd = day.strftime("%Y%m%d")
            parts = {"day": ymd, "first": ymd, "last": ymd, "iso": day.isoformat(), "year": ymd[:4],
                     "month": ymd[:6]}
        elif slot.kind == "month":
            year, month = divmod(today.year * 12 + today.month - 1 - k, 12)
            month += 1
            parts = {"first": f"{year}{month:02d}01", "month": f"{year}{month:02d}", "year": str(year)}
        else:
            year = today.year - k
            parts = {"first": f"{year}0101", "last": f"{year}1231", "year": str(year)}
        if part in parts:
            values.append(parts[part])
    return values
