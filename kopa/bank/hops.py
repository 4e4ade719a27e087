"""Every tool-to-tool handoff the bank's questions make, read from their golden steps before anything runs:
(source tool, field) → (target tool, parameter). EDGE Phase A takes them as proposed edges of the skeleton
(beside the proposer's), so that the dependencies people's questions need are verified by execution and,
where they execute, retained in G* — the graph Phase B realizes the questions on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kopa.bank.links import links_of
from kopa.bank.model import Intent
from kopa.catalog.loader import Catalog


@dataclass(frozen=True, order=True)
class Hop:
    source: str  # tools
    target: str
    param: str  # the target's argument ...
    field: str  # ... bound to the source's output field


def _flat(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for s in steps for x in (s.get("parallel") or [s])]


def intent_hops(intent: Intent, catalog: Catalog) -> list[Hop]:
    """The handoffs of one intent: its steps, its COND branches and its asks' own steps, in order."""
    kinds = {name: slot.kind for name, slot in intent.slots.items()}
    branches = [intent.cond.then, intent.cond.otherwise] if intent.cond else []
    asked = [s for a in [*intent.asks, *intent.otherwise_asks] for s in a.steps]
    steps = _flat([*intent.steps, *(s for b in branches for s in b), *asked])
    calls = {s["id"]: s.get("call") for s in steps}
    data: set[str] = set()
    out: list[Hop] = []
    for step in steps:
        call = step.get("call")
        if not call or catalog[call].family == "session":
            continue
        for link in links_of(step, data, kinds):
            source = calls.get(link.source)
            if source and source != call:  # a tool asked again with its own output is no edge of a graph
                out.append(Hop(source, call, link.param, link.field))
        data.add(step["id"])
    return out


def bank_hops(intents: tuple[Intent, ...], catalog: Catalog) -> list[Hop]:
    """Every distinct handoff of the bank, sorted."""
    return sorted({h for intent in intents for h in intent_hops(intent, catalog)})
