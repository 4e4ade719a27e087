"""The three-stage filter (seed §5.4), cheapest first; every drop carries a stage and a reason code.

Stage 1, rules: `non_reproducible` (a real-time tool whose answer has no fixed timestamp in the query),
`erroneous` (the ground truth is an error signal), `malformed` (schema or task-contract violations found by
`kopa bench lint` on the executed golden run, foreign-script tokens such as 人口 in the query),
`redundant` (a near-duplicate of an earlier task: the same tool chain making the same calls after its
first turn, with the same answer, or the same query).

Stage 2, static judges: `non_gradable`; `answer_leaking` and `decorative_chain`. The paper asks two LLM
judges to agree before these two drop, because such judges are noisy; offline the judges are exact checks,
so each drops on its own: a leak is the query stating the answer (in any of its forms) or a value the chain
hands on (a string check), or lint's leak rule (a code the chain looks up); a decorative chain is found BY
EXECUTION — an intermediate step's result is replaced with other values (PERTURBATIONS independent draws)
and the answer re-derived: if no draw changes it, that call does not constrain the answer; an echo hop (a
step that hands on exactly the values it was handed) is one too, found from the executed handoffs. A static judge
(no later template references the step) is recorded beside it. With model judges (`kopa.synth.judges`),
a candidate the exact checks let through is also dropped when two independent model judges agree.

Stage 3, independent re-solving: the task's golden trajectory is executed again on a fresh backend and a
fresh environment, reading its pages in other sizes. When its answer and final state differ from the stored
ones, plain re-solves judge why: two that agree replace the stored answer (the paper's replacement, counted
as `answer_replaced`); two that disagree reproduce nothing (`not_reproduced`); an answer that only the other
page sizes change was picked by where the pages break (`order_dependent`). Then the trajectory is re-solved
with every call's records shuffled (`order_dependent`): an answer that changes was picked by the API's order
— a tie, "the first item" — which no question states. With a model solver
(`kopa.synth.solver`), a task the model does not solve as a KOPA-Bench episode is dropped (`not_resolved`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict

from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog
from kopa.eval.contamination import query_form
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, GoldenExecutor
from kopa.eval.lint import LintResult, lint_task, mentions
from kopa.eval.targets import compute_target
from kopa.eval.task import AnswerKey, GoldenStep, Target, Task
from kopa.korean.dates import date_phrase
from kopa.korean.text import foreign_script
from kopa.record.transports import ReplayMiss
from kopa.rng import stream
from kopa.synth.candidate import Candidate
from kopa.synth.handoffs import intermediate_values
from kopa.synth.judges import ModelJudge, Question, agreed
from kopa.synth.junction import number
from kopa.wire.paging import max_page_size

if TYPE_CHECKING:
    from kopa.synth.solver import ModelSolver

# Lint kinds that make a synthesized task malformed. Not `cardinality`: KOPA-Bench asks every task for a
# high-cardinality intermediate, while a SEQ trajectory is by definition one whose handoffs have n = 1;
# not `leak`: that is Stage 2's, as one of its two judges.
MALFORMED_KINDS = frozenset({"tool", "golden", "schema", "chain", "typed", "unstated", "unobtainable", "number",
                             "precision", "unit", "string", "rubric", "self-score", "headroom"})
_ERROR_WORDS = re.compile(r"(?i)^(?:none|null|error|에러|오류|없음|정보 없음|-)$")
_REF_HEAD = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)")
MAX_ANSWER_CHARS = 200
PERTURBATIONS = 4  # per step: one drops a record, three replace values (원안가결 can survive one by chance)
REORDERINGS = 2  # Stage 3 re-solves with the records shuffled (and pages resized): a tie survives one by chance
MAX_LIST_ITEMS = 10


class Drop(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int
    task_id: str
    stage: int
    reason: str
    detail: str


def _key(key: AnswerKey | None) -> tuple:
    if key is None:
        return (None,)
    return (key.display, key.exact, tuple(sorted(key.items)) if key.items is not None else None)


# ---------------------------------------------------------------------------------------- Stage 1

def realtime_tools(candidate: Candidate, catalog: Catalog) -> list[str]:
    tools = {s.call for s in candidate.task.golden if s.call}
    return sorted(t for t in tools if "실시간" in catalog[t].spec.title or "실시간" in catalog[t].spec.description)


def stage1(candidate: Candidate, catalog: Catalog, backend: Backend, lint: LintResult | None = None
           ) -> tuple[str, str] | None:
    """(reason, detail) of the first rule the candidate breaks, or None. Redundancy is judged across
    candidates (`redundant`). `lint`: the task's lint result, when the caller already has it."""
    task, target = candidate.task, candidate.target
    live = realtime_tools(candidate, catalog)
    today = task.state.predefined.get("current_date", "")
    if live and not any(d and d in task.query for d in (today, today.replace("-", ""),
                                                     date_phrase(today.replace("-", "")))):
        return "non_reproducible", f"real-time tool(s) {', '.join(live)} and no fixed date in the query"
    if target.key is None or not target.key.display.strip() or _ERROR_WORDS.match(target.key.display.strip()):
        return "erroneous", f"the ground truth is {target.answer!r}"
    failed = [c.tool for c in target.calls if not c.ok]
    if failed:
        return "erroneous", f"golden calls failed: {', '.join(failed)}"
    foreign = foreign_script(task.query)
    if foreign:
        return "malformed", f"foreign-script tokens in the query: {''.join(foreign)}"
    try:
        Task.model_validate(task.model_dump(mode="json"))
    except ValueError as exc:
        return "malformed", f"schema: {exc}"
    problems = [p for p in (lint or lint_task(task, backend)).issues if p.kind in MALFORMED_KINDS]
    if problems:
        return "malformed", f"lint {problems[0].kind}: {problems[0].text}"
    return None


def repeat_keys(c: Candidate) -> tuple[tuple, str]:
    """What makes two candidates one question: the tool chain making the same calls after the first turn
    with the same answer (two pivots that pass the same records), or the same query (normalized)."""
    later = tuple(sorted(orjson.dumps([call.tool, call.arguments], option=orjson.OPT_SORT_KEYS)
                         for call in c.target.calls if call.turn > 1))
    return (tuple(s.call for s in c.task.golden), later, _key(c.target.key)), query_form(c.task.query)


def redundant(candidates: list[Candidate]) -> dict[int, str]:
    """index → the earlier task it repeats, when every candidate is kept (`repeat_keys`). Tasks about
    different entities (other calls) are different questions, even where a small count coincides."""
    repeats = Repeats(candidates)
    while batch := repeats.next_batch():
        repeats.settle(batch, [candidates[i] for i in batch])
    return {d.index: d.detail.removeprefix("repeats ") for d in repeats.drops}


# ---------------------------------------------------------------------------------------- Stage 2

def non_gradable(candidate: Candidate) -> str | None:
    key = candidate.target.key
    if key is None:
        return "no answer key"
    if len(key.display) > MAX_ANSWER_CHARS:
        return f"the answer is {len(key.display)} characters long"
    if key.items is not None and len(key.items) > MAX_LIST_ITEMS:
        return f"a list answer of {len(key.items)} items"
    if candidate.task.answer is not None and candidate.task.answer.type == "judge" and key.rubric is None:
        return "a judge answer without a rubric"
    return None


def leak_by_strings(candidate: Candidate) -> str | None:
    """The query states the answer (in any of its forms) or an intermediate value."""
    query, key = candidate.task.query, candidate.target.key
    forms = set()
    if key is not None:
        forms |= {key.display, *(key.items or [])}
        if key.exact is not None:
            forms.add(key.exact)
            exact = number(key.exact)
            if exact is not None and exact == exact.to_integral_value():
                forms |= {str(int(exact)), f"{int(exact):,}"}
    for form in sorted(f for f in forms if len(f) >= 2):
        if mentions(query, form):
            return f"the query states the answer {form!r}"
    for value in intermediate_values(candidate):
        if mentions(query, value):
            return f"the query states the intermediate value {value!r}"
    return None


def leak_by_lint(candidate: Candidate, backend: Backend, lint: LintResult | None = None) -> str | None:
    """Lint's leak rule (the answer, or a code the chain looks up) on the executed golden run."""
    found = [p.text for p in (lint or lint_task(candidate.task, backend)).issues if p.kind == "leak"]
    return found[0] if found else None


def _heads(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_heads(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_heads(v) for v in value)) if value else set()
    if not isinstance(value, str):
        return set()
    return {a or b for a, b in _REF_HEAD.findall(value)}


def unreferenced_steps(task: Task) -> list[str]:
    """Static judge: top-level steps (a parallel group counts with its members) that no path of
    references leads from the answer back to."""
    uses: dict[str, set[str]] = {}
    owner: dict[str, str] = {}
    for top in task.golden:
        for s in [top, *(top.parallel or [])]:
            owner[s.id] = top.id
            each = "{" + s.for_each.strip("{}") + "}" if isinstance(s.for_each, str) else None
            uses[s.id] = _heads(s.args) | _heads(each)
        for member in top.parallel or []:  # the group's merged result reads what its members read
            uses[top.id] |= uses[member.id]
    needed: set[str] = set()
    frontier = _heads(task.answer.value) if task.answer is not None else set()
    while frontier:
        name = frontier.pop()
        if name in needed or name not in uses:
            continue
        needed.add(name)
        frontier |= uses[name]
    reached = {owner[n] for n in needed}
    return [s.id for s in task.golden[:-1] if s.id not in reached]


def _later_text(task: Task, step_index: int) -> str:
    """The templates of the steps after `step_index` and of the answer, as one text: a field of the step's
    records that it never names is read by nothing later, so perturbing it cannot change the answer."""
    later = [s.model_dump() for s in task.golden[step_index + 1:]]
    return orjson.dumps([later, task.answer.model_dump() if task.answer else None]).decode()


def _perturb(view: dict[str, Any], cache: dict[str, list[str]], rng, later: str) -> None:
    """Replace every scalar of the step's records that a later template may read (its field's name occurs in
    `later`) by another value of its field — one from the validated cache where it holds one the step did
    not return, else a changed one — the same original mapping to the same replacement, so the result keeps
    its shape (how many distinct values, which records share one)."""
    records = view["records"]
    names = sorted(k for k in {k for r in records for k in r} if k in later)
    for name in names:
        originals = {str(r[name]) for r in records if name in r}
        pool = [v for v in cache.get(name, []) if v not in originals]
        mapping: dict[str, Any] = {}
        for r in records:
            if name not in r or isinstance(r[name], dict | list | bool) or r[name] in (None, ""):
                continue
            text = str(r[name])
            if text not in mapping:
                if pool:
                    mapping[text] = pool.pop(int(rng.integers(len(pool))))
                else:
                    value = number(text)
                    mapping[text] = str(value * 2 + 7) if value is not None else text[::-1] + "X"
            r[name] = mapping[text]


def perturbed_answers(task: Task, step_index: int, backend: Backend, cache: dict[str, list[str]],
                      seed: int = 0, draws: int = PERTURBATIONS) -> Iterator[AnswerKey | None]:
    """Execute the golden steps up to `step_index` once, then for each draw perturb that step's result (each
    member's, for a parallel group), execute the rest and re-derive the answer; None for a draw whose
    perturbed chain no longer yields one (the answer changed). Draw 0 drops the (first member's) last
    record, and one from its total_count, which a count reads; the other draws replace values, which a
    lookup reads. The prefix is shared by the draws (a step that read 225 pages is read once); each draw
    runs the rest on its own copy, lazily, so a caller that stops at the first changed answer runs no more
    draws."""
    env = Environment(task, backend)
    executor = GoldenExecutor(task, env)
    try:
        executor.execute(task.golden[: step_index + 1])
    except GoldenError:
        yield from [None] * draws
        return
    scope, turns = dict(executor.run.scope), executor.run.turns
    step, later = task.golden[step_index], _later_text(task, step_index)
    for draw in range(draws):
        executor.run.scope, executor.run.turns = dict(scope), turns
        for k, member in enumerate(step.parallel or [step]):
            view = scope[member.id]
            if draw == 0:
                if k == 0:  # the first member only: a difference of two counts survives dropping from both
                    view = {**view, "records": view["records"][:-1]}
                    if isinstance(view.get("total_count"), int) and view["total_count"] > 0:
                        view["total_count"] -= 1  # the record is gone from the service's count too
            else:  # `_perturb` rewrites scalars in place: each record copied (its nested values are not touched)
                view = {**view, "records": [dict(r) for r in view["records"]]}
                _perturb(view, cache, stream(seed, "synth-perturb", f"{task.id}:{member.id}:{draw}"), later)
            executor.run.scope[member.id] = view
        try:
            executor.execute(task.golden[step_index + 1:])
            yield executor.answer_key()
        except (GoldenError, ReplayMiss):
            # ReplayMiss: on a recording, the perturbed values ask for calls it never made; what they would
            # return is unknown offline, so the draw cannot show the answer unchanged (the step is kept)
            yield None


def decorative_by_execution(candidate: Candidate, backend: Backend, cache: dict[str, list[str]],
                            seed: int = 0) -> list[str]:
    """The intermediate steps no perturbation of whose result changes the answer. A COND question's tested
    step is not one of them: it decides which branch answers, and the golden trajectory holds only the branch
    taken (realization executed both, around a threshold drawn next to the tested value), so no perturbation
    of it can show in the trajectory's answer."""
    task, original = candidate.task, _key(candidate.target.key)
    block = candidate.block
    tested = block.source if block is not None and block.kind == "COND" else None
    out = []
    for i, step in enumerate(task.golden[:-1]):
        if step.id == tested:
            continue
        if all(_key(key) == original for key in perturbed_answers(task, i, backend, cache, seed)):
            out.append(step.id)
    return out


def echo_hops(candidate: Candidate) -> list[str]:
    """Steps that hand on exactly the values they were handed (a code in, the same code out): removing one
    and binding the next step to the earlier value makes the same calls, so the answer cannot change."""
    into = {j.target: set(j.passed) for j in candidate.junctions}
    echoes = [j.source for j in candidate.junctions if j.source in into and set(j.passed) == into[j.source]]
    block = candidate.block
    # a COND block names no values it hands on (its branches test the source's records), so it is no echo
    if block is not None and block.values and block.source in into and set(block.values) <= into[block.source]:
        echoes.append(block.source)  # the block's calls take the code its source step was handed
    return echoes


# ---------------------------------------------------------------------------------------- Stage 3

class _Reordered(GoldenExecutor):
    """Golden execution in which every call's records come back in another (seeded) order."""

    def __init__(self, task: Task, env: Environment, rng: np.random.Generator) -> None:
        super().__init__(task, env)
        self._rng = rng

    def _call(self, step: GoldenStep, turn: int, scope: dict[str, Any]) -> dict[str, Any]:
        view = super()._call(step, turn, scope)
        records = view["records"]
        return {**view, "records": [records[int(i)] for i in self._rng.permutation(len(records))]}


def _resized(step: GoldenStep, catalog: Catalog) -> GoldenStep:
    """`step` reading its pages in pages of about half the size it read them in (an odd number, so the page
    boundaries fall elsewhere)."""
    if step.parallel is not None:
        return step.model_copy(update={"parallel": [_resized(m, catalog) for m in step.parallel]})
    if step.pages != "all" or step.call is None:
        return step
    size = step.page_size or max_page_size(catalog[step.call])
    return step.model_copy(update={"page_size": max(1, size // 2 - 1 if size > 2 else 1)})


def _order_free(key: AnswerKey | None) -> tuple:
    """An answer key as a grader compares it, without its list order (a list answer is scored as a set) and,
    for a number, at the precision the question states (its display): a sum taken in another order can
    differ in the last float digit (597.1999999999999 for 597.2), which no question asks about."""
    if key is None:
        return (None,)
    if key.items is not None:
        return (None, tuple(sorted(key.items)))
    if key.rubric is not None and any(f.about for f in key.rubric.facts):
        # a judge answer about several items ('A 찬성 / B 반대') is graded item by item, in any order: its
        # facts compared grouped by the item they are about, the groups as a set
        groups: dict[str, list[tuple[str, ...]]] = {}
        for f in key.rubric.facts:
            groups.setdefault(f.about or "", []).append(tuple(f.forms))
        loose = tuple(groups.pop("", []))
        return (None, None, loose, tuple(sorted(tuple(g) for g in groups.values())))
    return (key.display,)


def order_dependent(candidate: Candidate, catalog: Catalog, backend: Backend, seed: int = 0) -> str | None:
    """Stage 3's re-solve under other record orders: the golden trajectory executed again with each call's
    records shuffled (the same requests, so `backend` may be the one Stages 1-2 read, its answers kept); a
    task whose answer then changes picked its answer by the API's order (a tie, "the first item"), which no
    question can state. Other page sizes are `paged_differently`'s."""
    task = candidate.task
    for draw in range(REORDERINGS):
        executor = _Reordered(task, Environment(task, backend), stream(seed, "synth-reorder", f"{task.id}:{draw}"))
        try:
            executor.execute()
            key = executor.answer_key()
        except GoldenError as exc:
            return f"re-solving with the records in another order failed: {exc}"
        if _order_free(key) != _order_free(candidate.target.key):
            shown = key.display if key is not None else None
            return f"with the records in another order the answer is {shown!r}, not {candidate.target.answer!r}"
    return None


def resolved_in_other_pages(task: Task, catalog: Catalog, backend: Backend) -> Target | str:
    """The golden trajectory re-solved on `backend` with every paged read in pages of about half the size
    (`_resized`): its target, or why it failed."""
    return _resolved(task.model_copy(update={"golden": [_resized(s, catalog) for s in task.golden]}), backend)


def paged_differently(paged: Target | str, stored: Target) -> str | None:
    """Why a re-solve in other pages (`resolved_in_other_pages`) shows the stored answer picked by where the
    API's pages break; None when it gives the same answer (compared as a grader compares it)."""
    if isinstance(paged, str):
        return f"re-solving with other page sizes failed: {paged}"
    if _order_free(paged.key) != _order_free(stored.key):
        return f"read in pages of another size the answer is {paged.answer!r}, not {stored.answer!r}"
    return None


def _resolved(task: Task, backend: Backend) -> Target | str:
    """The golden trajectory executed on `backend` in a fresh environment: its target, or why it failed."""
    try:
        return compute_target(task, backend)
    except (GoldenError, RuntimeError) as exc:
        return f"re-execution failed: {exc}"


def _same(a: Target, b: Target) -> bool:
    return _key(a.key) == _key(b.key) and a.state_hash == b.state_hash


def resolve_again(candidate: Candidate, fresh_backend: Callable[[], Backend],
                  second_backend: Callable[[], Backend] | None = None) -> tuple[str | None, Target | None]:
    """(why it is dropped, the target that replaces the stored one): (None, None) when the stored answer
    reproduces. When the first re-solve differs from the stored answer, a second, independent re-solve
    (on `second_backend`: the synthesis' recording where there is one, else another fresh backend) judges
    it: if the two re-solves agree, the re-solve is taken as correct and its target replaces the stored one
    (the stored answer was the odd one out); if they disagree, nothing reproduces: dropped."""
    first = _resolved(candidate.task, fresh_backend())
    if isinstance(first, Target) and _same(first, candidate.target):
        return None, None
    second = _resolved(candidate.task, (second_backend or fresh_backend)())
    if isinstance(first, Target) and isinstance(second, Target) and _same(first, second):
        return None, first
    if isinstance(first, str):
        return first, None
    if _key(first.key) != _key(candidate.target.key):
        return f"answer {first.answer!r} ≠ stored {candidate.target.answer!r}, and a second re-solve disagrees", None
    return "final state differs from the stored one, and a second re-solve disagrees", None


# ---------------------------------------------------------------------------------------- all stages

def _model_judged(judges: tuple[ModelJudge, ModelJudge] | None, question: Question, candidate: Candidate,
                  exact: bool, notes: dict[str, int]) -> str | None:
    """With model judges: their two votes (counted in `notes`, beside what the exact check found); the
    drop detail when both say yes on a candidate the exact check let through."""
    if judges is None:
        return None
    both, votes = agreed(judges, question, candidate)
    notes["judge_abstentions"] += sum(v.verdict == "abstain" for v in votes)
    if exact:
        notes[f"judges_{question}_agree_with_exact"] += both
        return None
    if not both:
        return None
    notes[f"judges_{question}_dropped"] += 1
    return f"two model judges agree: {votes[0].reason} / {votes[1].reason}"


def filter_candidates(candidates: list[Candidate], catalog: Catalog, backend: Backend,
                      fresh_backend: Callable[[], Backend], cache: dict[str, list[str]], seed: int = 0,
                      progress: Callable[[str, int, int], None] | None = None,
                      judges: tuple[ModelJudge, ModelJudge] | None = None,
                      second_backend: Callable[[], Backend] | None = None,
                      solver: ModelSolver | None = None, dedupe: bool = True
                      ) -> tuple[list[Candidate], list[Drop], dict[str, int]]:
    """(kept, dropped, notes): notes count the static decorative judge's verdicts beside the executed one,
    the model judges' votes where there are judges, and Stage 3's replaced answers. Redundancy (a Stage 1
    rule across candidates) is decided in index order as the stages keep candidates (`Repeats`): a repeat
    of one already kept is dropped without being filtered. `dedupe=False` leaves it to the caller, so that
    chunks of candidates can be filtered apart and deduplicated together (`Repeats` there)."""
    stages = _Stages(catalog, backend, fresh_backend, cache, seed, judges, second_backend, solver)
    kept: list[Candidate] = []
    drops: list[Drop] = []
    repeats = Repeats(candidates) if dedupe else None
    decided = 0
    while True:
        batch = repeats.next_batch() if repeats is not None else ([] if decided else list(range(len(candidates))))
        if not batch:
            break
        passed = []
        for position in batch:
            made = stages.one(candidates[position])
            if isinstance(made, Drop):
                drops.append(made)
            else:
                passed.append(made)
            decided += 1
            if progress is not None:
                progress("stages 1-3", decided + (len(repeats.drops) if repeats else 0), len(candidates))
        kept += repeats.settle(batch, passed) if repeats is not None else passed
    if repeats is not None:
        drops += repeats.drops
    kept.sort(key=lambda c: c.index)
    drops.sort(key=lambda d: d.index)
    return kept, drops, stages.notes


class _Stages:
    """The three stages on one candidate at a time (each candidate's verdict is its own: batches of any
    size, in any process, give the same verdicts)."""

    def __init__(self, catalog: Catalog, backend: Backend, fresh_backend: Callable[[], Backend],
                 cache: dict[str, list[str]], seed: int, judges: tuple[ModelJudge, ModelJudge] | None,
                 second_backend: Callable[[], Backend] | None, solver: ModelSolver | None) -> None:
        self.catalog, self.backend, self.fresh_backend, self.cache, self.seed = (
            catalog, backend, fresh_backend, cache, seed)
        self.judges, self.second_backend, self.solver = judges, second_backend, solver
        self.notes = {"decorative_static": 0, "decorative_static_not_execution": 0, "answer_replaced": 0}
        if judges is not None:
            self.notes |= {"judge_abstentions": 0, "judges_leak_dropped": 0, "judges_decorative_dropped": 0,
                           "judges_leak_agree_with_exact": 0, "judges_decorative_agree_with_exact": 0,
                           "exact_leak": 0, "exact_decorative": 0}

    def one(self, c: Candidate) -> Candidate | Drop:
        """The candidate as kept (its answer replaced where Stage 3's re-solves agree on another), or the
        first stage's drop."""
        def drop(stage: int, reason: str, detail: str) -> Drop:
            return Drop(index=c.index, task_id=c.task.id, stage=stage, reason=reason, detail=detail)

        lint = lint_task(c.task, self.backend)
        verdict = stage1(c, self.catalog, self.backend, lint)
        if verdict is not None:
            return drop(1, *verdict)
        why = non_gradable(c)
        if why is not None:
            return drop(2, "non_gradable", why)
        notes, judges = self.notes, self.judges
        leak = leak_by_strings(c) or leak_by_lint(c, self.backend, lint)
        if judges is not None:
            notes["exact_leak"] += leak is not None
        leak = _model_judged(judges, "leak", c, leak is not None, notes) or leak
        if leak is not None:
            return drop(2, "answer_leaking", leak)
        echoes = echo_hops(c)
        if echoes:
            return drop(2, "decorative_chain", f"echo hop: step(s) {', '.join(echoes)} hand on what they were handed")
        executed = decorative_by_execution(c, self.backend, self.cache, self.seed)
        unreferenced = set(unreferenced_steps(c.task))
        notes["decorative_static"] += bool(unreferenced)
        notes["decorative_static_not_execution"] += bool(unreferenced - set(executed))
        if judges is not None:
            notes["exact_decorative"] += bool(executed)
        judged = _model_judged(judges, "decorative", c, bool(executed), notes)
        if executed or judged:
            return drop(2, "decorative_chain", judged or (
                f"perturbing step(s) {', '.join(executed)} leaves the answer unchanged"
                + (" (and nothing references them)" if unreferenced >= set(executed) else "")))
        # Stage 3: one re-solve on a fresh backend, its pages read in other sizes, is both the independent
        # re-solve and the page-size check (a fresh backend makes new requests anyway); only when it disagrees
        # with the stored answer do plain re-solves (resolve_again) tell which of the two failed
        paged = resolved_in_other_pages(c.task, self.catalog, self.fresh_backend())
        if not (isinstance(paged, Target) and _same(paged, c.target)):
            why, replacement = resolve_again(c, self.fresh_backend, self.second_backend)
            if why is not None:
                return drop(3, "not_reproduced", why)
            if replacement is not None:
                notes["answer_replaced"] += 1
                c = c.model_copy(update={"target": replacement})
            if (by_pages := paged_differently(paged, c.target)) is not None:
                return drop(3, "order_dependent", by_pages)
        ordered = order_dependent(c, self.catalog, self.backend, self.seed)  # the same requests: Stage 2's answers
        if ordered is not None:
            return drop(3, "order_dependent", ordered)
        unsolved = self.solver.solve(c, self.fresh_backend()) if self.solver is not None else None
        if unsolved is not None:
            return drop(3, "not_resolved", unsolved)
        return c


class Repeats:
    """Redundancy decided as the stages go, so that a repeat is never filtered: on the full world a fifth
    of the candidates repeat an earlier one (the same start, page after page of slots), and the stages
    re-execute every chain several times.

    Candidates that share a key (`repeat_keys`), directly or through others, form a group; a group hands
    out one candidate at a time, in index order, and only once every earlier one of it is decided — so a
    candidate is dropped as a repeat exactly when `redundant` over the kept candidates would drop it, with
    the stages' verdicts on the candidates they did filter unchanged. Groups are independent: a batch takes
    the next candidate of each, to filter in any number of processes."""

    def __init__(self, candidates: list[Candidate]) -> None:
        self.candidates = candidates
        self.keys = [repeat_keys(c) for c in candidates]
        parent = list(range(len(candidates)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        first: dict[tuple, int] = {}
        for i, (chain, query) in enumerate(self.keys):
            for key in (("chain", chain), ("query", query)):
                j = first.setdefault(key, i)
                parent[root(i)] = root(j)
        groups: dict[int, list[int]] = {}
        for i in sorted(range(len(candidates)), key=lambda i: candidates[i].index):
            groups.setdefault(root(i), []).append(i)
        self._waiting = [list(reversed(g)) for g in groups.values()]  # each group's next candidate last
        self._chains: dict[tuple, str] = {}
        self._queries: dict[str, str] = {}
        self.drops: list[Drop] = []

    def _repeated(self, chain: tuple, query: str) -> str | None:
        return self._chains.get(chain) or self._queries.get(query)

    def next_batch(self) -> list[int]:
        """Positions to filter next: of each group, its first undecided candidate that repeats nothing kept
        (those that do are dropped here)."""
        batch = []
        for group in self._waiting:
            while group:
                position = group[-1]
                first = self._repeated(*self.keys[position])
                if first is None:
                    batch.append(position)
                    break
                group.pop()
                c = self.candidates[position]
                self.drops.append(Drop(index=c.index, task_id=c.task.id, stage=1, reason="redundant",
                                       detail=f"repeats {first}"))
        self._waiting = [g for g in self._waiting if g]
        return sorted(batch)

    def settle(self, batch: list[int], kept: list[Candidate]) -> list[Candidate]:
        """Record what the stages kept of `batch`; returns it, less a candidate whose answer Stage 3 replaced
        by one an earlier kept candidate has (a repeat after all)."""
        out = []
        for c in sorted(kept, key=lambda c: c.index):
            chain, query = repeat_keys(c)  # its own keys: a replaced answer changes them
            first = self._repeated(chain, query)
            if first is not None:
                self.drops.append(Drop(index=c.index, task_id=c.task.id, stage=1, reason="redundant",
                                       detail=f"repeats {first}"))
                continue
            self._chains[chain] = self._queries[query] = c.task.id
            out.append(c)
        done = set(batch)
        for group in self._waiting:
            if group[-1] in done:
                group.pop()
        self._waiting = [g for g in self._waiting if g]
        return out
