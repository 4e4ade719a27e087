"""One intent realized on G* (seed §5.3, question first): its slots filled, its steps executed one at a time as
golden steps, every handoff typed by the cardinality it really had and checked against G*'s retained
edges, then the task written and its target re-derived by executing the golden trajectory again.

A realization is refused — and another drawn — when a step finds nothing, when a handoff does not have the
cardinality its reference asks for (`kopa.bank.links`), when G* does not hold the edge a handoff
takes, when the junctions come out in another pattern than the question was written for, or when the
re-execution makes other calls than the build did.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kopa.backends.base import Backend
from kopa.bank.links import Link, cardinality, kind_of, links_of, narrowed
from kopa.bank.model import Ask, Choice, Dated, Intent, Observed, Pick, load_bank
from kopa.catalog.loader import Catalog
from kopa.catalog.models import Tool
from kopa.edge.graph import Edge, ToolGraph
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, TracingExecutor, returned
from kopa.eval.targets import compute_target
from kopa.eval.task import AnswerKey, AnswerSpec, GoldenStep, Task
from kopa.eval.template import REF, TemplateError, order_key, render, resolve
from kopa.korean.numbers import number_phrase
from kopa.korean.sentence import PLACEHOLDER, SentenceError, fill
from kopa.korean.vocabulary import is_contains, param_label, subject
from kopa.rng import stream
from kopa.synth.candidate import AnswerInfo, BlockInfo, Candidate, Failure, JunctionInfo, Literal_
from kopa.synth.intents.slots import (
    Parts,
    Unfilled,
    fill_choice,
    fill_dated,
    fill_observed,
    fill_pick,
    substitute,
    today_parts,
)
from kopa.synth.junction import cond_threshold, distinct, field_label, number
from kopa.synth.tasks import available_tools, injected_state
from kopa.tools.expression import ExpressionError, parse_expression
from kopa.wire.paging import is_paged, max_page_size

MAX_PAGES = 250  # pages one call may read in full (the paper's largest handoff is 225 pages of 1,000)
CALC = "evaluate_expression"


@dataclass
class BankContext:
    """What every realization reads: G*'s retained edges, the catalog, the backend, the intent bank."""

    graph: ToolGraph
    catalog: Catalog
    backend: Backend
    seed: int = 0
    hold_out: frozenset[str] = frozenset()
    max_pages: int = MAX_PAGES
    intents: tuple[Intent, ...] = field(default_factory=load_bank)
    check_graph: bool = True  # False: realize handoffs G* lacks too, counting them in `missing` (kopa edge intents)
    today: dt.date = field(init=False)
    missing: Counter[str] = field(init=False, default_factory=Counter)
    edges: dict[tuple[str, str], list[Edge]] = field(init=False)
    usable: tuple[Intent, ...] = field(init=False)
    ungrounded: dict[str, str] = field(init=False)  # intent id → a handoff it needs that G* does not retain
    drawable: tuple[Intent, ...] = field(init=False)  # the usable intents G* can realize
    probe_task: Task = field(init=False)
    probes: dict[tuple[str, str, str], list[dict[str, Any]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.today = self.backend.today()
        self.edges = retained_edges(self.graph)
        self.usable = tuple(i for i in self.intents if not (platforms(i, self.catalog) & self.hold_out))
        self.ungrounded = ungrounded(self.usable, self.catalog, self.edges) if self.check_graph else {}
        self.drawable = tuple(i for i in self.usable if i.id not in self.ungrounded)
        tools = sorted(t.name for t in self.catalog if t.family != "session")
        self.probe_task = Task(id="intent-probe", query="-", domain="finance", platforms=[],
                               available_tools=[*tools, CALC], golden=[], reward_basis=["ENVIRONMENT"],
                               state=injected_state(self.catalog, tools, self.today.isoformat()))

    def probe(self, tool: str, args: dict[str, Any], pages: str) -> list[dict[str, Any]]:
        """The records a listing returns (a pick slot's probe), read once per process."""
        key = (tool, repr(sorted(args.items())), pages)
        if key not in self.probes:
            env = Environment(self.probe_task, self.backend)
            executor = TracingExecutor(self.probe_task, env)
            try:
                executor.execute([GoldenStep(id="probe", call=tool, args=args, pages=pages)])  # type: ignore[arg-type]
                view = executor.run.scope["probe"]
                self.probes[key] = view["records"] if view["ok"] else []
            except GoldenError:
                self.probes[key] = []
        return self.probes[key]

    def in_graph(self, source: str, target: str, param: str, fld: str) -> bool:
        """Whether G* retains an edge source → target that binds `param` to the source's `fld` (always, when
        the graph is not checked: the hop is counted in `missing` instead)."""
        found = _binds(self.edges, source, target, param, fld)
        if not found and not self.check_graph:
            self.missing[f"{source}.{fld} → {target}.{param}"] += 1
            return True
        return found

    def domain_of(self, intent: Intent) -> str:
        """The domain of the intent's first data tool (what the task's domain will be)."""
        names = [s.get("call") for s in _raw_flat(intent.steps)]
        return next((d for n in names if n and (d := self.catalog[n].domain)), "")

    def neighbours(self, tools: list[str]) -> list[str]:
        return sorted({t for (s, t) in self.edges if s in tools})


def retained_edges(graph: ToolGraph) -> dict[tuple[str, str], list[Edge]]:
    """G*'s retained edges by (source, target)."""
    edges: dict[tuple[str, str], list[Edge]] = {}
    for edge in graph.sorted_edges():
        if not edge.pruned:
            edges.setdefault(edge.key, []).append(edge)
    return edges


def _binds(edges: dict[tuple[str, str], list[Edge]], source: str, target: str, param: str, fld: str) -> bool:
    return any((plan := e.plan.get(param)) is not None and plan.kind == "UPSTREAM" and plan.field == fld
               for e in edges.get((source, target), []))


def ungrounded(intents: tuple[Intent, ...], catalog: Catalog, edges: dict[tuple[str, str], list[Edge]]
               ) -> dict[str, str]:
    """Intent id → the first handoff it needs (`required_hops`) that G* does not retain, for the intents that
    cannot realize on G*."""
    out: dict[str, str] = {}
    for intent in intents:
        lacking = [h for h in required_hops(intent, catalog) if not _binds(edges, *h)]
        if lacking:
            source, target, param, fld = lacking[0]
            out[intent.id] = f"{source}.{fld} → {target}.{param}"
    return out


def required_hops(intent: Intent, catalog: Catalog) -> list[tuple[str, str, str, str]]:
    """(source tool, target tool, parameter, field) of every handoff of the intent's own steps that a
    realization must find in G* whatever the data (not a COND branch's or an ask's, which only some
    realizations run; not a value in hand reused, see `_reuses`; not a tool asked again with its own answer's
    value): an intent lacking one can never realize, so it is not drawn."""
    kinds = {name: slot.kind for name, slot in intent.slots.items()}
    calls = {m["id"]: m.get("call") for m in _raw_flat(intent.steps)}
    first: dict[Link, str] = {}
    earlier: set[str] = set()
    out: list[tuple[str, str, str, str]] = []
    for step in intent.steps:
        members = step.get("parallel") or [step]
        for member in members:
            call = member.get("call")
            if not call or catalog[call].family == "session":
                continue
            for link in links_of(member, earlier, kinds):
                source = calls.get(link.source)
                if first.setdefault(replace(link, param=""), step["id"]) == step["id"] and source and source != call:
                    out.append((source, call, link.param, link.field))
        earlier |= {m["id"] for m in members}
    return out


def platforms(intent: Intent, catalog: Catalog) -> frozenset[str]:
    names = [s.get("call") for s in _raw_flat(intent.steps)] + [
        s.call for s in intent.slots.values() if isinstance(s, Pick)]
    return frozenset(catalog[n].platform for n in names if n and catalog[n].family != "session")


def _raw_flat(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [x for s in steps for x in ([s] if "parallel" not in s else [s, *s["parallel"]])]


class _Refused(Exception):
    """Why this realization is not kept (a Failure reason, then a detail)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason, self.detail = reason, detail


class _Build:
    """One realization under way: the environment, the executor, the steps run so far and their raw form."""

    def __init__(self, ctx: BankContext, intent: Intent, rng: np.random.Generator) -> None:
        self.ctx, self.intent, self.rng = ctx, intent, rng
        self.filled: dict[str, Parts] = {"today": today_parts(ctx.today)}
        self.env = Environment(ctx.probe_task, ctx.backend)
        self.executor = TracingExecutor(ctx.probe_task, self.env)
        self.steps: list[GoldenStep] = []
        self.raw: dict[str, dict[str, Any]] = {}  # step id → the step as the intent writes it (members too)

    @property
    def scope(self) -> dict[str, Any]:
        return self.executor.run.scope

    # ------------------------------------------------------------------ slots

    def fill_stated(self) -> None:
        """The slots the question states before anything runs (names, dates, choices), in declared order."""
        for name, slot in self.intent.slots.items():
            try:
                if isinstance(slot, Pick):
                    self.filled[name] = fill_pick(slot, self.filled, self.ctx.probe, self.rng)
                elif isinstance(slot, Dated):
                    self.filled[name] = fill_dated(slot, self.ctx.today, self.rng)
                elif isinstance(slot, Choice):
                    self.filled[name] = fill_choice(slot, self.rng)
            except Unfilled as exc:
                raise _Refused("unfilled", f"{name}: {exc}") from exc

    def _fill_observed(self, step_id: str) -> None:
        for name, slot in self.intent.slots.items():
            if isinstance(slot, Observed) and slot.step == step_id:
                try:
                    self.filled[name] = fill_observed(slot, self.scope[step_id]["records"], self.rng, self.filled)
                except Unfilled as exc:
                    raise _Refused("unfilled", f"{name}: {exc}") from exc

    # ------------------------------------------------------------------ steps

    def run(self, raw: dict[str, Any]) -> GoldenStep:
        """Execute one step as the intent writes it (slots filled); every page where one did not hold all."""
        try:
            step = GoldenStep.model_validate(substitute(raw, self.filled))
        except KeyError as exc:
            raise _Refused("intent_error", f"step {raw.get('id')}: slot {exc} is not filled yet") from exc
        mark = (len(self.env.calls), self.executor.run.turns, len(self.executor.spans))
        self._execute(step)
        calls = self._calls_of(step)
        if any(_truncated(view) for _, _, view in calls):
            self._undo(step, mark)
            cut = [(member, tool, view) for member, tool, view in calls if _truncated(view)]
            if not all(is_paged(tool.family) and math.ceil((view["total_count"] or 0) / max_page_size(tool))
                       <= self.ctx.max_pages for _, tool, view in cut):
                raise _Refused("too_many_pages", step.id)
            step = _every_page(step, {member for member, _, _ in cut})
            self._execute(step)
            if any(_truncated(view) for _, _, view in self._calls_of(step)):
                raise _Refused("truncated", step.id)
        self.steps.append(step)
        for member in [step, *(step.parallel or [])]:
            self.raw[member.id] = next(r for r in [raw, *raw.get("parallel", [])] if r["id"] == member.id)
            self._fill_observed(member.id)
        return step

    def _execute(self, step: GoldenStep) -> dict[str, Any]:
        try:
            self.executor.execute([step])
        except GoldenError as exc:
            # the most frequent value shared by several: no single answer (a max or min tie is caught on the
            # junction, where the records it picks from are known)
            tie = "no single most frequent value" in str(exc)
            raise _Refused("tie" if tie else "step_failed", str(exc)[:200]) from exc
        view = self.scope[step.id]
        for member in [step, *(step.parallel or [])]:
            v = self.scope[member.id]
            for item in v.get("items", [v]):
                if not item["ok"]:
                    raise _Refused("step_failed", f"{member.id}: {item.get('error')}")
                if not item["records"]:
                    raise _Refused("empty", f"{member.id} found nothing")
        return view

    def _undo(self, step: GoldenStep, mark: tuple[int, int, int]) -> None:
        for member in [step, *(step.parallel or [])]:
            self.scope.pop(member.id, None)
        del self.env.calls[mark[0]:]
        self.executor.run.turns = mark[1]
        del self.executor.spans[mark[2]:]

    def _calls_of(self, step: GoldenStep) -> list[tuple[str, Tool, dict[str, Any]]]:
        """Each call the step made, with its member's id and tool: one per member of a group, per item of a
        fan-out."""
        out: list[tuple[str, Tool, dict[str, Any]]] = []
        for member in step.parallel or [step]:
            tool, view = self.ctx.catalog[member.call or ""], self.scope[member.id]
            out += [(member.id, tool, v) for v in (view.get("items", [view]) if member.for_each is not None
                                                   else [view])]
        return out

    def pages(self, step_id: str) -> int:
        """The most pages one call of the step read."""
        return max((len(s.calls) for s in self.executor.spans if s.step.id == step_id), default=1)

    def received(self, step_id: str, param: str) -> list[str]:
        """What the step's calls received for `param` (one value per call, its pages counted once)."""
        seen = [str(self.env.calls[s.calls[0]].arguments.get(param)) for s in self.executor.spans
                if s.step.id == step_id and s.calls]
        return list(dict.fromkeys(seen))


def _truncated(view: dict[str, Any]) -> bool:
    return view["total_count"] is not None and view["total_count"] > len(view["records"])


def _every_page(step: GoldenStep, members: set[str]) -> GoldenStep:
    """The step reading every page of the calls of `members` (the step itself, or members of its group)."""
    if step.parallel is not None:
        return step.model_copy(update={"parallel": [m.model_copy(update={"pages": "all"}) if m.id in members else m
                                                    for m in step.parallel]})
    return step.model_copy(update={"pages": "all"})


# ------------------------------------------------------------------------------------------ realizing

def realize(ctx: BankContext, intent: Intent, index: int, attempt: int) -> Candidate | Failure:
    """Intent `intent` realized as trajectory `index` (its `attempt`-th try): its own random stream."""
    build = _Build(ctx, intent, stream(ctx.seed, "intent", f"{index}.{attempt}"))
    try:
        return _realize(build, index)
    except _Refused as refused:
        return Failure(index=index, reason=refused.reason, intent=intent.id, detail=refused.detail or None)


def _realize(build: _Build, index: int) -> Candidate:
    intent = build.intent
    build.fill_stated()
    for raw in intent.steps:
        build.run(raw)
    block: BlockInfo | None = None
    ask_index = int(build.rng.integers(len(intent.asks)))
    asks = intent.asks
    if intent.cond is not None:
        block, taken = _cond(build, ask_index)
        asks = intent.asks if taken == 0 else intent.otherwise_asks
    ask = asks[ask_index]
    for raw in ask.steps:
        build.run(raw)
    junctions = _junctions(build)
    if intent.block is not None:
        block = _block(build, intent.block)
    pattern = "+".join([j.kind for j in junctions] + ([block.kind] if block is not None else []))
    if pattern != intent.pattern:
        raise _Refused("pattern_mismatch", f"{pattern} for {intent.pattern}")
    spec = _answer_spec(ask.answer, build.filled)
    try:
        query = fill(ask.q, build.filled)
    except SentenceError as exc:
        raise _Refused("intent_error", str(exc)) from exc
    candidate = _candidate(build, index, query, spec, junctions, block, pattern)
    if ask.positive and not _above_zero(candidate.target.key):
        raise _Refused("not_positive", f"{query!r} answers {candidate.target.answer!r}, not a number above zero")
    return candidate


def _above_zero(key: AnswerKey | None) -> bool:
    try:
        return key is not None and key.exact is not None and bool(parse_expression(key.exact) > 0)
    except (ExpressionError, TypeError):
        return False


def _junctions(build: _Build) -> list[JunctionInfo]:
    """The handoffs between data steps outside the template block, typed by executed cardinality: per
    target step and source step, the link whose field tells the most records apart (a course's ID, not the
    회차 beside it)."""
    ctx, intent = build.ctx, build.intent
    block_members = _members(build, intent.block) if intent.block else set()
    cond_steps = _cond_steps(intent)
    kinds = {name: slot.kind for name, slot in intent.slots.items()}
    out: list[JunctionInfo] = []
    data_before: set[str] = set()
    reused = _reuses(build)
    for step in build.steps:
        for member in [step] if step.parallel is None else step.parallel:
            tool = ctx.catalog[member.call or ""]
            if tool.family == "session":
                continue
            if member.id not in block_members and member.id not in cond_steps and member.id != intent.block:
                by_source: dict[str, list[tuple[Link, int]]] = {}
                for link in links_of(build.raw[member.id], data_before, kinds):
                    if (member.id, link) in reused:
                        continue
                    n = cardinality(build.scope[link.source]["records"], link, build.filled, build.scope)
                    by_source.setdefault(link.source, []).append((link, n))
                for found in by_source.values():
                    link, n = max(found, key=lambda ln: ln[1])
                    out.append(_junction(build, link, n, member))
        data_before |= {m.id for m in ([step] if step.parallel is None else step.parallel)
                        if ctx.catalog[m.call or ""].family != "session"}
    return out


def _junction(build: _Build, link: Link, n: int, target: GoldenStep) -> JunctionInfo:
    ctx = build.ctx
    kind = kind_of(link, n, len(build.received(target.id, link.param)))
    if kind not in ("SEQ", "FAN", "DRV"):
        raise _Refused(kind.split(":")[0], kind)
    source_step = _step(build, link.source)
    source_tool, target_tool = source_step.call or "", target.call or ""
    _require_edge(ctx, source_tool, target_tool, link)
    view = build.scope[link.source]
    if link.process in ("max", "min") and link.pivot_field:
        # records tied at the best value must hand on one value: which of them is picked is the API's order.
        # Ordered as golden execution orders them (`maxby` / `minby`: numerically where numbers, else as text)
        records = narrowed(view["records"], link, build.filled, build.scope)
        key = order_key(substitute(link.pivot_field, build.filled))
        best = (max if link.process == "max" else min)(records, key=key)
        tied = [r for r in records if key(r) == key(best)]
        if len({str(r.get(link.field)) for r in tied}) != 1:
            raise _Refused("tie", f"{len(tied)} records share the {link.process} {link.pivot_field}")
    tool = ctx.catalog[source_tool]
    pivot = substitute(link.pivot, build.filled) if link.pivot else None
    return JunctionInfo(kind=kind, source=link.source, target=target.id, source_tool=source_tool,  # type: ignore[arg-type]
                        target_tool=target_tool, field=link.field, param=link.param,
                        field_label=field_label(tool, link.field), cardinality=n, records=returned(view),
                        total=view.get("total_count"), pages=build.pages(link.source),
                        passed=build.received(target.id, link.param)[:5],
                        process=link.process if kind == "DRV" else None,
                        pivot_field=link.pivot_field if kind == "DRV" else None,
                        pivot_label=field_label(tool, link.pivot_field) if kind == "DRV" and link.pivot_field else None,
                        pivot=pivot if kind == "DRV" else None)


def _require_edge(ctx: BankContext, source: str, target: str, link: Link) -> None:
    """A handoff between two tools must be an edge G* retains. A tool asked again with a value of its own
    answer (a stock's code, then its month of prices) is no edge of any tool graph: nothing to require."""
    if source != target and not ctx.in_graph(source, target, link.param, link.field):
        raise _Refused("not_in_graph", f"{source}.{link.field} → {target}.{link.param}")


def _step(build: _Build, step_id: str) -> GoldenStep:
    for step in build.steps:
        for member in [step, *(step.parallel or [])]:
            if member.id == step_id:
                return member
    raise _Refused("intent_error", f"no step {step_id}")


def _members(build: _Build, group: str) -> set[str]:
    return {m.id for m in _step(build, group).parallel or []}


def _reuses(build: _Build) -> set[tuple[str, Link]]:
    """(step, link) pairs that take a value an earlier step already took from the same records the same way
    (TAGO's city code, looked up once and passed to every later call): the value is in hand, so the later
    use is no new handoff — neither a junction to type nor an edge G* must hold."""
    kinds = {name: slot.kind for name, slot in build.intent.slots.items()}
    first: dict[Link, str] = {}
    out: set[tuple[str, Link]] = set()
    earlier: set[str] = set()
    for step in build.steps:
        members = [step] if step.parallel is None else step.parallel
        for member in members:
            for link in links_of(build.raw[member.id], earlier, kinds):
                key = replace(link, param="")
                if first.setdefault(key, step.id) != step.id:
                    out.add((member.id, link))
        earlier |= {m.id for m in members}
    return out


def _cond_steps(intent: Intent) -> set[str]:
    if intent.cond is None:
        return set()
    return {s["id"] for s in _raw_flat([*intent.cond.then, *intent.cond.otherwise])}


def _block(build: _Build, group_id: str) -> BlockInfo:
    """SEM (different tools fed from one step) or CMP (one tool on two things the user names, each looked
    up first) — the template block of seed §5.3."""
    ctx = build.ctx
    group = _step(build, group_id)
    members = group.parallel or []
    tools = [m.call or "" for m in members]
    kind = "CMP" if len(set(tools)) == 1 else "SEM"
    kinds = {name: slot.kind for name, slot in build.intent.slots.items()}
    earlier = {m.id for s in build.steps if s.id != group_id for m in [s, *(s.parallel or [])]
               if m.call and ctx.catalog[m.call].family != "session"}
    sources: list[tuple[GoldenStep, Link]] = []
    reused = _reuses(build)
    for member in members:
        found = [link for link in links_of(build.raw[member.id], earlier, kinds) if (member.id, link) not in reused]
        if not found:
            raise _Refused("intent_error", f"block member {member.id} takes nothing from an earlier step")
        for link in found:
            n = cardinality(build.scope[link.source]["records"], link, build.filled, build.scope)
            if kind_of(link, n, len(build.received(member.id, link.param))) != "SEQ":
                raise _Refused("block_handoff", f"{member.id} takes {n} distinct {link.field}")
            _require_edge(ctx, _step(build, link.source).call or "", member.call or "", link)
            sources.append((member, link))
    source_ids = sorted({link.source for _, link in sources})
    values = [v for member, link in sources for v in build.received(member.id, link.param)]
    labels = [field_label(ctx.catalog[_step(build, link.source).call or ""], link.field) for _, link in sources]
    if len(source_ids) == 1:
        view = build.scope[source_ids[0]]
        return BlockInfo(kind=kind, source=source_ids[0], records=returned(view),  # type: ignore[arg-type]
                         steps=[m.id for m in members], tools=tools, subjects=[subject(ctx.catalog[t]) for t in tools],
                         fields=labels[:2], values=distinct(values)[:2])
    if kind != "CMP":
        raise _Refused("intent_error", "a SEM block is fed from one step")
    lookups = [_step(build, s) for s in source_ids]
    stated = [x.value for s in lookups for x in _literals(build, s)]
    return BlockInfo(kind="CMP", source=None, records=returned(build.scope[source_ids[0]]),
                     lookup=subject(ctx.catalog[lookups[0].call or ""]), steps=[m.id for m in members], tools=tools,
                     subjects=[subject(ctx.catalog[t]) for t in tools], fields=labels[:2], values=stated[:2])


def _cond(build: _Build, ask_index: int) -> tuple[BlockInfo, int]:
    """COND: the tested quantity, a threshold next to it (so that the test holds or fails as drawn), both
    branches executed and the one the test selects kept. The two branches must answer differently: else
    the test decides nothing (and the golden trajectory, which holds only the branch taken, cannot show it)."""
    intent, ctx = build.intent, build.ctx
    cond = intent.cond
    assert cond is not None
    try:
        tested = number(resolve(substitute(cond.test, build.filled).strip().strip("{}"), build.scope))
    except TemplateError as exc:
        raise _Refused("intent_error", f"cond: {exc}") from exc
    if tested is None or tested == 0:
        raise _Refused("unfilled", "cond: nothing to test")
    holds = bool(build.rng.integers(2))
    threshold = cond_threshold(tested, holds, whole=tested == tested.to_integral_value())
    build.filled["threshold"] = {"say": f"{number_phrase(format(threshold, 'f'))}{cond.unit}",
                                 "value": format(threshold, "f")}
    taken = 0 if tested >= threshold else 1
    branches = [cond.then, cond.otherwise]
    mark = (len(build.env.calls), build.executor.run.turns, len(build.executor.spans), len(build.steps))
    for raw in branches[1 - taken]:  # the branch not taken must execute too: the question is well-posed
        build.run(raw)
    other = _branch_answer(build, [intent.asks, intent.otherwise_asks][1 - taken][ask_index])
    for step in reversed(build.steps[mark[3]:]):
        build._undo(step, mark[:3])
    del build.steps[mark[3]:]
    for raw in branches[taken]:
        build.run(raw)
    mark = (len(build.env.calls), build.executor.run.turns, len(build.executor.spans), len(build.steps))
    answer = _branch_answer(build, [intent.asks, intent.otherwise_asks][taken][ask_index])
    for step in reversed(build.steps[mark[3]:]):
        build._undo(step, mark[:3])
    del build.steps[mark[3]:]
    if answer == other:
        raise _Refused("cond_same", f"both branches answer {answer!r}")
    head = re.match(r"\{?\s*([A-Za-z_][A-Za-z0-9_]*)", cond.test)
    source = head.group(1) if head else ""
    tools = [branches[0][0].get("call", ""), branches[1][0].get("call", "")]
    source_view = build.scope.get(source, {"records": []})
    kinds = {name: slot.kind for name, slot in intent.slots.items()}
    earlier = {m.id for s in build.steps for m in [s, *(s.parallel or [])]
               if m.call and ctx.catalog[m.call].family != "session"}
    reused = _reuses(build)
    for raw in branches[taken]:
        for link in links_of(raw, earlier, kinds):
            if (raw["id"], link) in reused:
                continue
            _require_edge(ctx, _step(build, link.source).call or "", raw.get("call", ""), link)
    return BlockInfo(kind="COND", source=source, records=returned(source_view),
                     steps=[s["id"] for s in branches[taken]], tools=tools,
                     subjects=[subject(ctx.catalog[t]) for t in tools], fields=[], quantity=cond.test,
                     op=">=", threshold=format(threshold, "f"), taken=taken), taken


def _branch_answer(build: _Build, ask: Ask) -> str:
    """What `ask` answers after one branch of a COND ran: its own steps run (the caller undoes them)."""
    for raw in ask.steps:
        build.run(raw)
    spec = _answer_spec(ask.answer, build.filled)
    try:
        return str(render(spec.value, build.scope))
    except TemplateError as exc:
        raise _Refused("answer_error", f"cond: {exc}") from exc


# ------------------------------------------------------------------------------------------ the task

def _answer_spec(raw: dict[str, Any], filled: dict[str, Parts]) -> AnswerSpec:
    answer = substitute(raw, filled)
    if answer.get("type") == "date":  # a day, accepted as 2024-07-09, 20240709, 2024년 7월 9일, 2024.7.9
        ref = REF.fullmatch(answer["value"])
        if ref is None:
            raise _Refused("intent_error", f"a date answer is one reference, not {answer['value']!r}")
        inner = ref.group(1)
        answer = {**answer, "type": "string", "value": "{" + inner + "|iso}",
                  "aliases": ["{" + inner + "|yyyymmdd}"]}
    return AnswerSpec.model_validate(answer)


def _answer_info(spec: AnswerSpec, step: str) -> AnswerInfo:
    value = spec.value
    kind = ("count" if value.endswith("|len}") else "sum" if "|sum" in value else "max" if "|max}" in value
            else "argmax" if "maxby" in value or "minby" in value else "facts" if spec.type == "judge"
            else "difference" if "exact" in value else "list" if "[*]" in value or "unique" in value else "field")
    return AnswerInfo(kind=kind, step=step, number=spec.type == "number", precision=spec.precision)  # type: ignore[arg-type]


def _literals(build: _Build, step: GoldenStep) -> list[Literal_]:
    """The arguments of `step` the question states (a slot filled in, no reference)."""
    raw = build.raw.get(step.id, {})
    tool = build.ctx.catalog[step.call or ""]
    specs = {p.name: p for p in tool.spec.params}
    out = []
    for name, template in (raw.get("args") or {}).items():
        if not isinstance(template, str) or REF.search(template) or not PLACEHOLDER.search(template):
            continue
        value = str(step.args.get(name))
        whole = PLACEHOLDER.fullmatch(template)
        # the slot as the question says it: a name, a date said as a date whatever part the call takes ('2025년
        # 12월' for its first and last day), a choice by its words ('원안대로 가결된' for 원안가결); a part of a
        # pick is the value itself
        said = whole is not None and isinstance(build.intent.slots.get(whole["name"]), Dated | Choice)
        phrase = build.filled[whole["name"]]["say"] if whole and (not whole["part"] or said) else value
        spec = specs[name]
        out.append(Literal_(step=step.id, param=name, label=param_label(spec), value=value, phrase=phrase,
                            contains=is_contains(spec)))
    return out


def _candidate(build: _Build, index: int, query: str, spec: AnswerSpec, junctions: list[JunctionInfo],
               block: BlockInfo | None, pattern: str) -> Candidate:
    ctx, intent = build.ctx, build.intent
    flat = [m for s in build.steps for m in ([s] if s.parallel is None else s.parallel)]
    used = list(dict.fromkeys(m.call or "" for m in flat))
    data_tools = [t for t in used if ctx.catalog[t].family != "session"]
    domain = next((ctx.catalog[t].domain for t in data_tools if ctx.catalog[t].domain), None)
    if domain is None:
        raise _Refused("intent_error", "no domain")
    tools = available_tools(used, ctx.neighbours(data_tools), build.rng)
    task = Task(id=f"edge-{ctx.seed}-{index:06d}", query=query, domain=domain,
                platforms=sorted({ctx.catalog[t].platform for t in data_tools}), available_tools=tools,
                state=injected_state(ctx.catalog, tools, ctx.today.isoformat()), golden=build.steps, answer=spec,
                reward_basis=["RESPONSE"], tags=["edge-synth", pattern, f"intent:{intent.id}"])
    try:
        target = compute_target(task, ctx.backend)
    except (GoldenError, RuntimeError) as exc:
        raise _Refused("answer_error", str(exc)[:200]) from exc
    key = target.key
    if key is None or not key.display.strip() or any(not item.strip() for item in key.items or []):
        raise _Refused("empty_answer", f"the answer {target.answer!r} states nothing (a field the records leave empty)")
    built = [(c.tool, c.arguments) for c in build.env.calls]
    if [(c.tool, c.arguments) for c in target.calls] != built:
        raise _Refused("not_reproduced")
    literals = [x for m in flat if m.call and ctx.catalog[m.call].family != "session" for x in _literals(build, m)]
    last = build.steps[-1].id
    return Candidate(index=index, pattern=pattern, category=intent.category, junctions=junctions, block=block,
                     answer=_answer_info(spec, last), titles={m.id: ctx.catalog[m.call or ""].spec.title for m in flat},
                     literals=literals, task=task, target=target)
