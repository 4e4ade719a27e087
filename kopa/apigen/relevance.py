"""Relevance-detection data (seed: 8,000 of 60,000 samples): from verified samples, (1) remove the tools
the answer calls from the offered tools, or (2) remove a required parameter's source — its value — from the
query; the target becomes no call (`answers: []`), labelled `no_call` or `refusal` (the model should ask
for the missing value rather than guess it).

A label must be true: `no_call` only when no tool the answer used is left (removing one of two called tools
would leave a tool that serves part of the query) and no tool left is one the query names (a near twin: the
yearly edition of the same table), and a value is removed only where the generator recorded
the phrase that states it, which goes whole, so the query stays a question ("기준일자가 인 …" is not one).

Scaled to the run: the seed's 8,000 / 60,000 of the verified samples, half of each construction where
both apply. Each sample draws from its own stream (seed, id), so the set does not depend on order.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kopa.apigen.record import XRecord
from kopa.rng import stream

SHARE = 8_000 / 60_000


def _without_value(query: str, record: XRecord, call: int, param: str) -> str | None:
    """The query with the phrase that states the value (the generator's mention: "삼성전자의", "2026년 1월 29일
    기준", "시군코드 41550인") taken out whole: what is left still asks, only without the value ("주식 시세를
    알려 주세요."), which is what a model should ask back about. None where no phrase was recorded, where it
    is not in the query once, or where the value is one of a list ("A와 B 각각의"): cutting a value out of
    running text or out of a list leaves a broken sentence."""
    said = [m for m in record.provenance.get("mentions", []) if m.get("param") == param]
    if len({str(m.get("value")) for m in said}) > 1:
        return None  # one of listed values
    for m in said:
        phrase = m.get("phrase")
        if m.get("call") == call and phrase and query.count(phrase) == 1:
            return re.sub(r"\s{2,}", " ", query.replace(phrase, "")).strip()
    return None


def relevance_samples(verified: list[XRecord], seed: int, required: dict[str, set[str]],
                      served: Callable[[XRecord], bool]) -> list[XRecord]:
    """`required`: tool name → its required parameters (the catalog's, or a record's own tools'); `served`:
    whether a record's query is asked of one of its offered tools (`kopa.apigen.semantic.serving_tool`, the
    rule verification holds a no-call record to)."""
    wanted = wanted_samples(len(verified))
    out: list[XRecord] = []
    for k, record in enumerate(verified):
        if len(out) >= wanted:
            break
        made = relevance_sample(record, k, seed, required, served)
        if made is not None:
            out.append(made)
    return out


def wanted_samples(verified: int) -> int:
    """How many relevance samples `verified` verified ones give: the seed's share."""
    return round(verified * SHARE)


def relevance_sample(record: XRecord, k: int, seed: int, required: dict[str, set[str]],
                     served: Callable[[XRecord], bool]) -> XRecord | None:
    """The relevance sample the k-th verified record gives, if any: the set is the first `wanted_samples` of
    these, in order, so a run writes them as its samples are verified and keeps that many at the end."""
    rng = stream(seed, "apigen-relevance", record.id)
    kind = "drop_tool" if k % 2 == 0 else "drop_value"
    made = _drop_value(record, rng, required) if kind == "drop_value" else None
    if made is None:
        made = _drop_tool(record)
        made = None if made is not None and served(made) else made
    return made


def _drop_tool(record: XRecord) -> XRecord | None:
    """Every tool the answer calls taken away (one of two would leave a tool that serves part of the query,
    and `no_call` would be false); None when nothing is left to offer."""
    gone = sorted({c.name for c in record.answers})
    tools = [t for t in record.tools if t.name not in gone]
    if not tools:
        return None  # nothing left to offer: a sample with no tools teaches nothing about relevance
    return record.model_copy(update={
        "id": f"{record.id}-rel-tool", "tools": tools, "answers": [], "style": "relevance",
        "provenance": {**_base(record), "relevance": "no_call", "construction": "drop_tool",
                       "removed": ",".join(gone)}})


def _drop_value(record: XRecord, rng, required: dict[str, set[str]]) -> XRecord | None:
    options = [(i, k, str(v)) for i, c in enumerate(record.answers) for k, v in sorted(c.arguments.items())
               if k in required.get(c.name, set())]
    for j in rng.permutation(len(options)) if options else []:
        i, param, value = options[int(j)]
        query = _without_value(record.query, record, i, param)
        if query is not None and value not in query:
            return record.model_copy(update={
                "id": f"{record.id}-rel-value", "query": query, "answers": [], "style": "relevance",
                "provenance": {**_base(record), "relevance": "refusal", "construction": "drop_value",
                               "removed": f"{record.answers[i].name}.{param}={value}"}})
    return None


def _base(record: XRecord) -> dict:
    return {"source": record.id, "source_style": record.style}
