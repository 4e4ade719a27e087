"""Sequential trajectories on G* (seed §5.3): a chain T1 … Tm along retained edges, built by executing it.

Each step is a KOPA-Bench `GoldenStep` executed by the golden executor as soon as it is chosen, so the next
junction is typed on the records the step really returned. A step that fails, finds nothing, or returns a
truncated page it cannot read in full is rolled back and another edge is tried. Arguments no junction fixes
come from the validated cache C (the values Phase A saw in successful answers), enums, documented
defaults and dates from the virtual 'today'.

The emitted task carries the golden steps, not the values: its answer is derived by executing them again
(`kopa.eval.targets.compute_target`) — never typed — and the build is refused when that re-execution makes
other calls than the build did.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import numpy as np
import orjson

from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog
from kopa.catalog.models import FieldSpec, ParamSpec, Tool
from kopa.catalog.view import field_view, param_view
from kopa.edge.fill import Given, OneOf, Source, first_value
from kopa.edge.graph import Edge, ToolGraph
from kopa.edge.plan import date_form, dated_value, is_generic
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, GoldenExecutor, returned
from kopa.eval.task import AnswerSpec, GoldenStep, Task
from kopa.korean.vocabulary import is_contains, stated_enum, stated_name, value_phrase
from kopa.rng import stream
from kopa.synth.candidate import AnswerInfo, JunctionInfo, Literal_
from kopa.synth.junction import (
    PHI,
    Selection,
    common_fields,
    distinct,
    drv_choice,
    drv_draws,
    field_label,
    is_quantity,
    junction_kind,
    number,
    numbers,
    tied_at_best,
)
from kopa.synth.tasks import injected_state
from kopa.wire.paging import is_paged, max_page_size, page_args

# A step whose full answer needs more pages than this is not read in full: the edge is skipped. The paper's
# largest handoff (224,958 records) is 225 pages of 1,000 rows.
MAX_PAGES = 250
EDGE_TRIES = 6  # out-edges executed per junction before the chain stops ...
EDGE_SCAN = 60  # ... among the first this many (in drawn order) whose field is not an echo of the last hop
START_TRIES = 8
START_FIELDS = 128  # starts whose field facts a context keeps (ChainBuild._field_facts)
MAX_DEPTH = 3  # junctions after one that chain_depths counts (a chain has at most 3 junctions and a block)
KIND_OVERLAP = 0.3  # share of the smaller validated-value set two parameters share when they take one kind
# Share of starts drawn from the domain's documented endpoints (catalog `real`), not its generated long-tail
# datasets: drawn over all tools, the thousands of generated datasets would leave the real services a
# fraction of the corpus, though they are what users query.
REAL_SHARE = 0.6
# Share of starts that also fill one optional filter argument (a district, a name, a category) from C. An
# unfiltered list call answers with tens of distinct values, so its junction is almost always DRV; a
# filtered one answers with one or a few, the SEQ and FAN junctions of a lookup-first question.
NARROW_SHARE = 0.3
EARLIER_DAYS = 4  # a dated start with nothing for today tries this many days back (a long weekend)
_HANGUL = re.compile(r"[가-힣]")


@dataclass
class SynthContext:
    """What every trajectory reads: G*'s retained edges, the validated cache C, the catalog, the backend."""

    graph: ToolGraph
    catalog: Catalog
    backend: Backend
    cache: dict[str, list[str]]
    seed: int = 0
    phi: int = PHI
    hold_out: frozenset[str] = frozenset()
    max_pages: int = MAX_PAGES
    today: str = field(init=False)
    out: dict[str, list[Edge]] = field(init=False)
    starts: list[str] = field(init=False)
    starts_by_domain: dict[str, list[str]] = field(init=False)
    depth: dict[tuple[str, str], int] = field(init=False)  # edge key → junctions that can follow it (≤ MAX_DEPTH)
    width: dict[tuple[str, str], int] = field(init=False)  # edge key → tools a junction after it can reach
    reach: dict[str, int] = field(init=False)  # tool → junctions a chain from it can make (≤ MAX_DEPTH + 1)
    probe_task: Task = field(init=False)
    # (start tool, its arguments, field, paired) whose result allows no process node, learned once (a start's
    # result is fixed by its arguments), with what drv_choice drew to find that out: drawn again, not retyped
    no_process_node: dict[tuple[str, bytes, str, bool], int | None] = field(init=False, default_factory=dict)
    # (start tool, its arguments) → which fields every record holds and each field's distinct values, for the
    # last few starts: a slot's attempts and later slots draw the same start again, and reading a
    # 10,000-record result field by field was most of a junction's time (pure functions of the result)
    start_fields: OrderedDict[tuple[str, bytes], tuple[dict[str, bool], dict[str, list[str]]]] = field(
        init=False, default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self.today = self.backend.today().isoformat()
        usable = {t for t in self.graph.nodes if t in self.catalog and self.catalog[t].platform not in self.hold_out}
        self.out = {}
        for edge in self.graph.sorted_edges():
            if not edge.pruned and edge.source in usable and edge.target in usable and edge.source != edge.target:
                self.out.setdefault(edge.source, []).append(edge)
        self.starts = sorted(t for t in self.out if startable(self.catalog[t], self.cache, self.today))
        self.starts_by_domain = {}
        for name in self.starts:
            self.starts_by_domain.setdefault(self.catalog[name].domain or "", []).append(name)
        onward = onward_edges(self.out, self.cache)
        self.depth = chain_depths(self.out, onward)
        self.width = {key: len({e.target for e in edges}) for key, edges in onward.items()}
        self.reach = {t: 1 + max((self.depth[e.key] for e in edges if not hands_back(e, self.catalog[t])),
                                 default=-1) for t, edges in self.out.items()}
        self.probe_task = Task(id="synth-probe", query="-", domain="finance", platforms=[],
                               available_tools=sorted(usable | {"evaluate_expression"}), golden=[],
                               reward_basis=["ENVIRONMENT"],
                               state=injected_state(self.catalog, sorted(usable), self.today))


def hands_back(edge: Edge, source: Tool) -> bool:
    """An edge that binds only arguments its source itself requires (basDd ← BAS_DD from one KRX market's
    day to another's): its field holds what the source was given, so from a start it hands on nothing the
    user did not state — no junction, and no reach that would make the tool a start."""
    required = {p.name.lower() for p in source.spec.params if p.required}
    bound = _bound_params(edge)
    return bool(bound) and all(p.lower() in required for p in bound)


def _handed_fields(edge: Edge) -> set[str]:
    return {source.field for source in edge.plan.values() if source.kind == "UPSTREAM" and source.field}


def _bound_params(edge: Edge) -> set[str]:
    return {param for param, source in edge.plan.items() if source.kind == "UPSTREAM" and source.field}


def _same_kind(a: str, b: str, cache: dict[str, set[str]]) -> bool:
    """Two parameters that take the same kind of value: one name, or validated values (C) that overlap —
    SIGUN_CD, CD and SGG_CD of the district datasets all take 41110."""
    if a == b:
        return True
    x, y = cache.get(a), cache.get(b)
    if not x or not y:
        return False
    return len(x & y) >= KIND_OVERLAP * min(len(x), len(y))


def onward_edges(out: dict[str, list[Edge]], cache: dict[str, list[str]]) -> dict[tuple[str, str], list[Edge]]:
    """For each edge, the out-edges of its target that hand on another kind of value than the edge handed in
    (not the same field, not a parameter of the same kind) and do not lead back: the junctions that can
    follow it. Almost every edge of G* enters a generated district dataset by its district code, whose every
    out-edge hands the same code on: an echo hop, which is no junction."""
    values = {k: set(v) for k, v in cache.items()}

    def other_kind(e: Edge, nxt: Edge) -> bool:
        return (nxt.target != e.source and not _handed_fields(nxt) & (_handed_fields(e) | _bound_params(e))
                and not any(_same_kind(a, b, values) for a in _bound_params(e) for b in _bound_params(nxt)))

    return {e.key: [nxt for nxt in out.get(e.target, []) if other_kind(e, nxt)]
            for edges in out.values() for e in edges}


def chain_depths(out: dict[str, list[Edge]], onward: dict[tuple[str, str], list[Edge]]) -> dict[tuple[str, str], int]:
    """For each edge, how many more junctions can follow it (up to MAX_DEPTH) along `onward` edges: a chain
    that must go deeper is steered to the edges that can."""
    edges = [e for group in out.values() for e in group]
    depth = {e.key: 0 for e in edges}
    for level in range(1, MAX_DEPTH + 1):
        for e in edges:
            if depth[e.key] == level - 1 and any(depth[nxt.key] >= level - 1 for nxt in onward[e.key]):
                depth[e.key] = level
    return depth


def param_label(param: ParamSpec | FieldSpec) -> str:
    label = re.split(r"\s*[:(/,.]|\s-\s", param.description.strip())[0].strip()
    return label[:24] or param.name


def param_value(param: ParamSpec, cache: dict[str, list[str]], today: str, rng: np.random.Generator,
                avoid: frozenset[str] = frozenset()) -> Any:
    """A value a person states for an argument no junction fixes: an enum value its description explains,
    the documented default, a date from 'today', a name of the same parameter from the validated cache C;
    None when there is none — a code from C is no value a person states, the chain must look it up. Cached
    values in `avoid` (what earlier steps returned) are not used either: the chain hands those on."""
    return first_value(_stated_sources(param, cache, today.replace("-", ""), avoid), rng)


def _stated_sources(param: ParamSpec, cache: dict[str, list[str]], day: str, avoid: frozenset[str]) -> Iterator[Source]:
    """Phase B's precedence: only what a person states (a cached code is looked up by the chain)."""
    yield OneOf(stated_enum(param))
    yield Given(param.default)
    yield Given(dated_value(param_view(param), day))  # a date as the docs show it, not a format identifier
    yield OneOf([v for v in cached_values(param, cache) if v not in avoid and value_phrase(param, v) is not None])


def cached_values(param: ParamSpec, cache: dict[str, list[str]]) -> list[str]:
    """What C holds for `param`; for a search C never saw filled, the values of the output field it searches
    (a law's 법령명한글 for 국가법령정보센터's `query`): the names a person asks about."""
    if cache.get(param.name) or not param.field:
        return cache.get(param.name) or []
    return cache.get(param.field) or []


def startable(tool: Tool, cache: dict[str, list[str]], today: str) -> bool:
    """Whether every required argument of `tool` has a value a person states (`param_value`), so the tool
    can open a question; the others are reached through a lookup."""
    probe = np.random.default_rng(0)
    return all(param_value(p, cache, today, probe) is not None
               for p in tool.spec.params if p.required and not p.paging and not is_generic(p))


class ChainBuild:
    """One trajectory under construction: an environment, a golden executor, the steps so far."""

    def __init__(self, ctx: SynthContext, index: int, attempt: int = 0, domain: str | None = None) -> None:
        self.ctx = ctx
        self.index = index
        self.domain = domain  # the domain its start is drawn from (None: drawn at each start)
        self.rng = stream(ctx.seed, "synth-seq", f"{index}.{attempt}")
        self.env = Environment(ctx.probe_task, ctx.backend)
        self.executor = GoldenExecutor(ctx.probe_task, self.env)
        self.steps: list[GoldenStep] = []
        self.tools: list[str] = []
        self.junctions: list[JunctionInfo] = []
        self.literals: list[Literal_] = []
        self._marks: dict[str, tuple[int, int]] = {}  # step id → (calls, turns) before it ran
        self.pages: dict[str, int] = {}  # step id → the most pages one of its calls read
        self._seen: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())

    # ------------------------------------------------------------ executing steps

    def _try(self, step: GoldenStep) -> dict[str, Any] | None:
        """Execute `step` after the others; keep it when every call answered with records (reading every
        page when the first did not hold the whole answer), else roll it back and return None."""
        view = self._execute(step)
        if view is not None and self._truncated(step, view):
            every = (step.model_copy(update={"parallel": [m.model_copy(update={"pages": "all"})
                                                          for m in step.parallel]})
                     if step.parallel is not None else step.model_copy(update={"pages": "all"}))
            view = None if not self._pageable(step, view) else self._execute(every)
            if view is not None and self._truncated(every, view):
                self._rollback(self.steps[-1].id)
                view = None
        return view

    def _execute(self, step: GoldenStep) -> dict[str, Any] | None:
        calls, turns = len(self.env.calls), self.executor.run.turns
        try:
            self.executor.execute([step])
        except GoldenError:
            self._undo(step, calls, turns)
            return None
        view = self.executor.run.scope[step.id]
        items = view.get("items", [view])
        if not all(v["ok"] and v["records"] for v in items):
            self._undo(step, calls, turns)
            return None
        self.steps.append(step)
        self._marks[step.id] = (calls, turns)
        self.pages[step.id] = math.ceil((len(self.env.calls) - calls) / len(self._calls(step, view)))
        return view

    def _undo(self, step: GoldenStep, calls: int, turns: int) -> None:
        for sub in [step, *(step.parallel or [])]:
            self.executor.run.scope.pop(sub.id, None)
        self.executor.run.turns = turns
        del self.env.calls[calls:]

    def _rollback(self, step_id: str) -> None:
        calls, turns = self._marks.pop(step_id)
        step = self.steps.pop()
        ids = {step.id, *(m.id for m in step.parallel or [])}
        self.literals = [x for x in self.literals if x.step not in ids]
        self._undo(step, calls, turns)

    @staticmethod
    def _calls(step: GoldenStep, view: dict[str, Any]) -> list[dict[str, Any]]:
        """The view of each call the step made (a call's pages merged): one per fan-out item or group member."""
        return view["items"] if step.for_each is not None or step.parallel is not None else [view]

    def _truncated(self, step: GoldenStep, view: dict[str, Any]) -> bool:
        return any(v["total_count"] is not None and v["total_count"] > len(v["records"])
                   for v in self._calls(step, view))

    def _pageable(self, step: GoldenStep, view: dict[str, Any]) -> bool:
        """Whether reading every page stays within ctx.max_pages per call; the truncated try is rolled back."""
        self._rollback(step.id)
        calls = self._calls(step, view)
        # a parallel group's members in order, each its own tool; a fan-out's items all call the step's tool
        tools = [m.call or "" for m in step.parallel] if step.parallel is not None else [step.call or ""] * len(calls)
        for name, call in zip(tools, calls, strict=True):
            tool = self.ctx.catalog[name]
            if not is_paged(tool.family):
                return False
            if math.ceil((call["total_count"] or 0) / max_page_size(tool)) > self.ctx.max_pages:
                return False
        return True

    # ------------------------------------------------------------ arguments

    def _returned(self) -> frozenset[str]:
        """Every scalar the steps so far returned, as text (kept per chain prefix: rollbacks change it)."""
        key = tuple(s.id for s in self.steps)
        if self._seen[0] != key:
            self._seen = (key, frozenset(str(v) for s in self.steps for r in self.executor.run.scope[s.id]["records"]
                                         for v in r.values() if not isinstance(v, dict | list)))
        return self._seen[1]

    def _rest(self, tool: Tool, edge: Edge | None, bound: dict[str, Any], step: str) -> dict[str, Any] | None:
        """`bound` plus every required argument no junction fixes (None when one cannot be filled)."""
        args = dict(bound)
        required_paging = [p.name for p in tool.spec.params if p.required and p.paging and p.name not in args]
        if required_paging and is_paged(tool.family):
            # a service that insists on a row window (Seoul's START_INDEX/END_INDEX): ask for its largest page
            window = page_args(tool.family, 1, max_page_size(tool))
            args.update({k: v for k, v in window.items() if k in required_paging})
        for p in tool.spec.params:
            if p.name in args or is_generic(p) or not p.required:
                continue
            source = edge.plan.get(p.name) if edge is not None else None
            if source is not None and source.kind == "CLARIFY" and source.values:
                value: Any = source.values[int(self.rng.integers(len(source.values)))]
            else:
                value = param_value(p, self.ctx.cache, self.ctx.today, self.rng, self._returned())
            if value is None or (value != p.default and value_phrase(p, value) is None):
                return None  # nothing to fill, or a code no person would state: the chain must look it up
            args[p.name] = value
        return args

    def _note_literals(self, tool: Tool, step: GoldenStep) -> None:
        specs = {p.name: p for p in tool.spec.params}
        for name, value in sorted(step.args.items()):
            spec = specs[name]
            if (isinstance(value, str) and "{" in value) or spec.paging or value == spec.default:
                continue  # handed on, a page window, or the documented default: nothing the user states
            phrase = value_phrase(spec, value)
            assert phrase is not None, f"{tool.name}.{name}={value!r}: filled with a value no person states"
            # part of a name ("이름에 '백운'이 들어간"), unless some record carries the value whole: then the
            # user names that one entity ("삼성전자")
            whole = any(str(v) == str(value) for r in self.executor.run.scope[step.id]["records"] for v in r.values())
            # a search names what it searches (`query` searches 법령명): the label of that field
            searched = _field_spec(tool, spec.field) if spec.field and spec.location != "client" else None
            self.literals.append(Literal_(step=step.id, param=name, label=param_label(searched or spec),
                                          value=str(value), phrase=phrase, contains=is_contains(spec) and not whole))

    # ------------------------------------------------------------ the chain

    def draw_start(self, junctions: int = 1) -> tuple[Tool, dict[str, Any]] | None:
        """A start tool of a drawn domain with its required arguments filled (not executed), from which a
        chain of `junctions` junctions can go on (chain_depths)."""
        # A domain first, then a tool of it: drawn over tools alone, the thousands of generated district and
        # traffic datasets would leave finance, education, law and politics a few tasks in a thousand.
        by_domain = {d: [t for t in tools if self.ctx.reach[t] >= junctions]
                     for d, tools in self.ctx.starts_by_domain.items()}
        domains = sorted(d for d, tools in by_domain.items() if tools)
        if self.domain is not None:
            domains = [d for d in domains if d == self.domain]
        if not domains:
            return None
        starts = by_domain[domains[int(self.rng.integers(len(domains)))]]
        real = [t for t in starts if self.ctx.catalog[t].spec.real]
        if real and self.rng.random() < REAL_SHARE:
            starts = real
        tool = self.ctx.catalog[starts[int(self.rng.integers(len(starts)))]]
        args = self._rest(tool, None, {}, "s1")
        return None if args is None else (tool, args)

    def start(self, narrow: float = NARROW_SHARE, junctions: int = 1) -> dict[str, Any] | None:
        """The first step: a start tool of a drawn domain, executed; with probability `narrow` narrowed by one
        filter a person states (a name, a kind) — what a block needs, whose source is one entity. `junctions`:
        how many junctions (a block counted as one) the chain must make from it."""
        for _ in range(START_TRIES):
            drawn = self.draw_start(junctions)
            if drawn is None:
                continue
            tool, args = drawn
            name = tool.name
            narrowed = self._narrowed(tool, args, narrow)
            for tried in ([narrowed] if narrowed is not None else []) + [args] + self._earlier(tool, args):
                view = self._try(GoldenStep(id="s1", call=name, args=tried))
                if view is not None:
                    self.tools.append(name)
                    self._note_literals(tool, self.steps[-1])
                    return view
        return None

    def _earlier(self, tool: Tool, args: dict[str, Any]) -> list[dict[str, Any]]:
        """`args` with today's date moved one to EARLIER_DAYS days back: a service that publishes after the
        day closes (KRX's daily trading, T+1) has nothing for today, and a person asks about the last day it
        has ("1월 29일 코스피")."""
        today = date.fromisoformat(self.ctx.today)
        specs = {p.name: p for p in tool.spec.params}
        dated = [k for k, v in args.items()
                 if date_form(param_view(specs[k])) == "yyyymmdd" and v == today.strftime("%Y%m%d")]
        if not dated:
            return []
        return [{**args, **dict.fromkeys(dated, (today - timedelta(days=back)).strftime("%Y%m%d"))}
                for back in range(1, EARLIER_DAYS + 1)]

    def _narrowed(self, tool: Tool, args: dict[str, Any], share: float) -> dict[str, Any] | None:
        """`args` plus one optional filter argument with a value from C, for `share` of the starts."""
        if self.rng.random() >= share:
            return None
        optional = self.stated_filters(tool, args)
        if not optional:
            return None
        param = optional[int(self.rng.integers(len(optional)))]
        return {**args, param.name: self.stated_value(param)}

    def stated_filters(self, tool: Tool, args: dict[str, Any]) -> list[ParamSpec]:
        """Optional filter parameters a person fills by stating a value: names (Korean text) and enums, not
        codes — a person asks about 강남구, and a code stated in the query would be handed on as given."""
        # a sort order ("정렬방법 … DESC: 내림차순") filters nothing: no one asks a question "in descending order"
        return [p for p in tool.spec.params if not p.required and not p.paging and not is_generic(p)
                and p.default is None and p.name not in args and "정렬" not in p.description
                and (stated_enum(p) or any(stated_name(v) for v in cached_values(p, self.ctx.cache)))]

    def stated_value(self, param: ParamSpec) -> str:
        """A value of a `stated_filters` parameter: an enum value with a meaning, or a name from C."""
        if param.enum:
            stated = stated_enum(param)
            return stated[int(self.rng.integers(len(stated)))]
        names = [v for v in cached_values(param, self.ctx.cache) if stated_name(v)]
        value = names[int(self.rng.integers(len(names)))]
        if "포함" in param.description and " " in value:
            # a contains-search ("검색값을 포함하는 항목"): one word of a name matches a few records, the
            # handful of values a FAN junction hands on one by one
            value = value.split()[0]
        return value

    def _edges(self, current: str, limit: int | None = EDGE_TRIES) -> list[Edge]:
        """Live out-edges to tools not yet in the chain: those that ever executed first, each tier shuffled."""
        out = [e for e in self.ctx.out.get(current, []) if e.target not in self.tools]
        tried = [e for e in out if e.successes > 0]
        untried = [e for e in out if e.successes == 0]
        order: list[Edge] = []
        for tier in (tried, untried):
            order += [tier[int(i)] for i in self.rng.permutation(len(tier))]
        return order[:limit]

    def _field_facts(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, bool], dict[str, list[str]]]:
        """The start's `held` and `values_of` (see _connecting), kept for the last START_FIELDS starts."""
        key = (tool, orjson.dumps(args, option=orjson.OPT_SORT_KEYS))
        kept = self.ctx.start_fields
        if key in kept:
            kept.move_to_end(key)
            return kept[key]
        kept[key] = ({}, {})
        if len(kept) > START_FIELDS:
            kept.popitem(last=False)
        return kept[key]

    @staticmethod
    def _connecting(edge: Edge, records: list[dict], held: dict[str, bool],
                    values_of: dict[str, list[str]]) -> tuple[str, str] | None:
        """(parameter, field) of the edge's upstream binding whose field every record holds and that tells
        the most records apart — a course's ID, not the 회차 beside it (`held`, `values_of`: per field, kept
        across the edges of one junction: a result can hold 224,958 records)."""
        found: list[tuple[str, str]] = []
        for param, source in sorted(edge.plan.items()):
            if source.kind != "UPSTREAM" or not source.field:
                continue
            name = source.field
            if name not in held:
                held[name] = all(r.get(name) not in (None, "") and not isinstance(r.get(name), dict | list)
                                 for r in records)
            if held[name]:
                found.append((param, name))
        if len(found) > 1:
            for _, name in found:
                if name not in values_of:
                    values_of[name] = distinct([r[name] for r in records])
            return max(found, key=lambda pf: len(values_of[pf[1]]))  # the first of the most distinct
        return found[0] if found else None

    def _continues(self, edge: Edge, more: int, width: int = 1) -> bool:
        """Whether `more` junctions can follow the edge: its depth (chain_depths), an out-edge of its target
        to a tool not yet in the chain, and when one junction follows, `width` tools it can reach."""
        return (self.ctx.depth[edge.key] >= min(more, MAX_DEPTH) and (more != 1 or self.ctx.width[edge.key] >= width)
                and any(e.target not in self.tools and e.target != edge.target for e in self.ctx.out.get(edge.target, [])))

    def junction(self, view: dict[str, Any], more: int = 0, width: int = 1) -> dict[str, Any] | None:
        """One more junction from the last step; `more`: how many junctions (a block counted as one) will
        follow, so only edges from which a chain can go that far (a leaf — a document's text — or a district
        dataset whose every out-edge hands its district code on would end the chain short); `width`: how many
        tools the one after it must reach (a SEM block calls two)."""
        records = view["records"]
        source = self.steps[-1]
        current = source.call or ""
        sid, tid = source.id, f"s{len(self.steps) + 1}"
        given = {str(v) for v in source.args.values() if not isinstance(v, str) or "{" not in v}
        incoming = next((j.passed for j in self.junctions if j.target == sid), None)
        # A field whose values are all arguments the step was given (a filter's own value echoed back) hands
        # on nothing the query did not already state: not a junction; nor does a field that holds just what
        # the step was handed (the district code a district's list carries on every record): an echo hop,
        # seen here before anything runs, so it does not use up one of the EDGE_TRIES edges executed.
        connected: list[tuple[Edge, tuple[str, str], list[str]]] = []
        held, values_of = self._field_facts(current, source.args) if sid == "s1" else ({}, {})
        for edge in self._edges(current, limit=EDGE_SCAN):
            if more and not self._continues(edge, more, width):
                continue
            conn = self._connecting(edge, records, held, values_of)
            if conn is None:
                continue
            if conn[1] not in values_of:
                values_of[conn[1]] = distinct([r[conn[1]] for r in records])
            values = values_of[conn[1]]
            if set(values) <= given or (incoming is not None and set(values[: self.ctx.phi]) == set(incoming)):
                continue
            connected.append((edge, conn, values))
            if len(connected) == EDGE_TRIES:
                break
        # Edges whose field holds 2..φ values first: a FAN is possible only on such a field, and rarer than
        # the SEQ and DRV junctions every other field gives (the order within each group stays drawn).
        connected.sort(key=lambda ec: junction_kind(len(ec[2]), self.ctx.phi) != "FAN")
        drawn: dict[tuple[str, bool], Selection | None] = {}
        for edge, (param, fld), values in connected:
            kind = junction_kind(len(values), self.ctx.phi)
            target = self.ctx.catalog[edge.target]
            # other arguments the target takes from the same record (a course's 회차 beside its ID): one record
            # picked (SEQ, max, min) hands them on together; values handed one by one cannot
            paired = self._varying_companions(edge, records, param, target)
            if paired and kind == "FAN":
                continue
            selection: Selection | None = None
            if kind == "SEQ":
                bound: dict[str, Any] = {param: f"{{{sid}.records[0].{fld}}}"}
                for_each, passed = None, values
            elif kind == "FAN":
                bound, for_each, passed = {param: "{item}"}, f"{sid}.records[*].{fld}|unique", values
            else:
                key = (fld, paired)
                known = (current, orjson.dumps(source.args, option=orjson.OPT_SORT_KEYS), fld, paired) \
                    if sid == "s1" else None
                processes = frozenset({"max", "min"}) if paired else None
                if key not in drawn and known in self.ctx.no_process_node:
                    permuted = self.ctx.no_process_node[known]
                    if permuted is not None:
                        self.rng.permutation(permuted)  # what drv_choice draws before finding nothing
                    drawn[key] = None
                if key not in drawn:  # edges that connect on one field share its process node
                    drawn[key] = drv_choice(self.ctx.catalog[current], records, fld, self.rng, processes)
                    if drawn[key] is None and known is not None:
                        self.ctx.no_process_node[known] = drv_draws(records, fld, processes)
                selection = drawn[key]
                if selection is None:
                    continue
                passed = selection.passed
                if selection.single:
                    bound, for_each = {param: "{" + selection.reference(sid, fld) + "}"}, None
                else:
                    bound, for_each = {param: "{item}"}, selection.reference(sid, fld)
            bound |= self._constant_bindings(edge, records, sid, param, target)
            if selection is not None and selection.process in ("max", "min"):
                bound = self._record_bindings(edge, records, sid, target, selection) | bound
            if incoming is not None and set(passed[: self.ctx.phi]) == set(incoming):
                continue  # an echo hop: the step hands on what it was handed, so the next could take it directly
            args = self._rest(target, edge, bound, tid)
            if args is None:
                continue
            step = GoldenStep(id=tid, call=edge.target, args=args, for_each=for_each,
                              limit=self.ctx.phi if for_each else None)
            out = self._try(step)
            if out is None:
                continue
            if self._handed(self.steps[-1], param) != passed[: self.ctx.phi]:
                self._rollback(tid)  # the template selected other values than the junction chose: refuse it
                continue
            self.tools.append(edge.target)
            self._note_literals(target, self.steps[-1])
            tool = self.ctx.catalog[current]
            self.junctions.append(JunctionInfo(
                kind=kind, source=sid, target=tid, source_tool=current, target_tool=edge.target, field=fld,
                param=param, field_label=field_label(tool, fld), cardinality=len(values), records=returned(view),
                total=view.get("total_count"), pages=self.pages.get(sid, 1), passed=passed[: self.ctx.phi],
                process=selection.process if selection else None,
                pivot_field=selection.pivot_field if selection else None,
                pivot_label=field_label(tool, selection.pivot_field) if selection else None,
                pivot=selection.pivot if selection else None))
            return out
        return None

    @staticmethod
    def _one_valued(edge: Edge, records: list[dict], target: Tool, skip: str | None = None) -> list[tuple[str, str]]:
        """(argument, field) for the target's required arguments (other than `skip`) the edge binds upstream
        where every record of `records` holds one scalar value of the field."""
        required = {p.name for p in target.spec.params if p.required}
        out = []
        for name, source in sorted(edge.plan.items()):
            if name == skip or name not in required or source.kind != "UPSTREAM" or not source.field:
                continue
            values = {str(r.get(source.field)) for r in records}
            if len(values) == 1 and records[0].get(source.field) not in (None, "") and not isinstance(
                    records[0].get(source.field), dict | list):
                out.append((name, source.field))
        return out

    @classmethod
    def _constant_bindings(cls, edge: Edge, records: list[dict], sid: str, param: str, target: Tool) -> dict[str, str]:
        """The target's other required arguments the edge also binds upstream, where every source record holds
        one value for the field (a stop's city code): bound by reference, they come from the chain, not from a
        code typed into the query. A field that varies is left out: which record's value is the API's order."""
        return {name: f"{{{sid}.records[0].{fld}}}" for name, fld in cls._one_valued(edge, records, target, param)}

    @staticmethod
    def _varying_companions(edge: Edge, records: list[dict], param: str, target: Tool) -> bool:
        """Whether the target requires another argument the edge binds upstream whose field varies across
        the records (so only a one-record pick can hand it on beside `param`)."""
        required = {p.name for p in target.spec.params if p.required}
        return any(name != param and name in required and source.kind == "UPSTREAM" and source.field
                   and len({str(r.get(source.field)) for r in records}) > 1
                   for name, source in edge.plan.items())

    @classmethod
    def _record_bindings(cls, edge: Edge, records: list[dict], sid: str, target: Tool,
                         selection: Selection) -> dict[str, str]:
        """The target's other required arguments the edge binds upstream, taken from the one record a max / min
        selection picks (a course's 회차 with its 과정ID, a school's 교육청 code with its own): where every
        record tied at the best value holds one value of the field, so the pick is no matter of API order."""
        column = numbers([r.get(selection.pivot_field) for r in records])
        tied = tied_at_best(records, column, selection.process == "max")
        pick = f"{sid}.records|{selection.process}by:{selection.pivot_field}"
        return {name: "{" + f"{pick}|get:{fld}" + "}" for name, fld in cls._one_valued(edge, tied, target)} \
            if tied else {}

    def _handed(self, step: GoldenStep, param: str) -> list[str]:
        """The values the step's calls received for `param` (one per call, pages of a call counted once)."""
        calls, _ = self._marks[step.id]
        seen = [str(c.arguments.get(param)) for c in self.env.calls[calls:]]
        return list(dict.fromkeys(seen))

    # ------------------------------------------------------------ the answer

    def answer(self, view: dict[str, Any]) -> tuple[AnswerSpec, AnswerInfo] | None:
        step = self.steps[-1]
        tool = self.ctx.catalog[step.call or ""]
        records = view["records"]
        handed = {v for j in self.junctions for v in j.passed} | {x.value for x in self.literals}
        names = sorted(common_fields(records))
        texts = [n for n in names if all(_answerable_text(r[n], handed) for r in records)]
        quantities = [n for n in names if is_quantity(tool, n, records)]
        options: list[tuple[AnswerSpec, AnswerInfo]] = []
        sid = step.id
        if len(records) == 1 and step.for_each is None:
            for n in texts:
                options.append((AnswerSpec(type="string", value=f"{{{sid}.records[0].{n}}}"),
                                AnswerInfo(kind="field", step=sid, field=n, label=field_label(tool, n))))
            for n in sorted(set(names) - set(texts)):
                value = number(records[0][n])
                spec = _field_spec(tool, n)
                if value is None or spec is None or field_view(spec).format_description is not None \
                        or not _measure(spec.description):
                    continue
                places = _places(value)
                if places is not None:
                    options.append((AnswerSpec(type="number", value=f"{{{sid}.records[0].{n}|num}}",
                                               precision=places or None),
                                    AnswerInfo(kind="field", step=sid, field=n, label=field_label(tool, n),
                                               precision=places or None, number=True)))
        else:
            # a fan-out whose calls each return one record counts the values the junction handed on: the
            # last step would not decide the answer
            if not (step.for_each is not None and all(len(v["records"]) == 1 for v in view["items"])):
                options.append((AnswerSpec(type="number", value=f"{{{sid}.records|len}}"),
                                AnswerInfo(kind="count", step=sid)))
            for n in quantities:
                values = [number(r[n]) or Decimal(0) for r in records]
                for kind, aggregate in (("sum", sum(values, Decimal(0))), ("max", max(values))):
                    places = _places(aggregate)
                    if places is not None:
                        options.append((AnswerSpec(type="number", value=f"{{{sid}.records[*].{n}|num|{kind}}}",
                                                   precision=places or None),
                                        AnswerInfo(kind=kind, step=sid, field=n, label=field_label(tool, n),
                                                   precision=places or None)))
                for t in texts:
                    if _HANGUL.search(str(records[0][t])) and _unique_best(records, n):
                        options.append((AnswerSpec(type="string", value=f"{{{sid}.records|maxby:{n}|get:{t}}}"),
                                        AnswerInfo(kind="argmax", step=sid, field=t, label=field_label(tool, t),
                                                   by=n, by_label=field_label(tool, n))))
            for t in texts:
                items = distinct([r[t] for r in records])
                if _HANGUL.search(str(records[0][t])) and 2 <= len(items) <= 10 and not _about_each_item(view, t):
                    options.append((AnswerSpec(type="string", value=f"{{{sid}.records[*].{t}|unique}}"),
                                    AnswerInfo(kind="list", step=sid, field=t, label=field_label(tool, t))))
        if not options:
            return None
        return options[int(self.rng.integers(len(options)))]


def _about_each_item(view: dict[str, Any], name: str) -> bool:
    """A fan-out whose every call lists one value of `name` over several records (the 자치구명 of each
    district's facilities): the field describes what each call was handed, not the records — listing it
    answers with the handed-on entities themselves."""
    items = view.get("items")
    return items is not None and any(len(v["records"]) > 1 for v in items) \
        and all(len({str(r.get(name)) for r in v["records"]}) <= 1 for v in items)


def _field_spec(tool: Tool, name: str):
    return next((f for f in tool.spec.output if f.name == name), None)


def _measure(description: str) -> bool:
    return not any(w in description for w in ("코드", "번호", "ID", "일자", "년도", "연도", "전화", "순번", "차수",
                                               "구분", "여부", "유형", "종류"))


def _places(value: Decimal) -> int | None:
    """Decimal places of an exact number (None beyond the three a query can state)."""
    exponent = value.normalize().as_tuple().exponent
    places = max(0, -int(exponent)) if isinstance(exponent, int) else 0
    return places if places <= 3 else None


def _unique_best(records: list[dict], name: str) -> bool:
    values = [number(r[name]) for r in records]
    return values.count(max(v for v in values if v is not None)) == 1


def _answerable_text(value: Any, handed: set[str]) -> bool:
    """A text answer a person can give: a name or phrase in Hangul, short, not a value the chain hands on."""
    if not isinstance(value, str) or not value.strip() or len(value) > 40 or value in handed:
        return False
    return _HANGUL.search(value) is not None and number(value) is None
