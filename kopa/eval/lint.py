"""`kopa bench lint`: the task contract of issue 9, checked on each task's executed golden run.

A task can only be judged by what its trajectory does, so lint executes it (reusing one backend) while
noting which golden step made each call, then checks the contract against the calls and their results:

- tools exist and are available; every golden call validates against its tool's JSON schema and succeeds;
- a real code-lookup chain: some data call takes an argument, or its for_each, from an earlier DATA call
  (a value that only passed through session tools such as today's date does not count);
- no typed literal: a literal argument (or selector value) that an earlier call returned must be a
  reference, and a code the query does not state must come from somewhere the agent can see;
- number answers: exact targets, a stated precision where the target is not an integer, `unit: percent`
  exactly when the query asks in % / %p; string answers that are really numbers; judge rubrics;
- the golden answer passes its own scoring, a high-cardinality intermediate, headroom, and no leak of the
  answer or of a code the chain looks up.

Every problem starts with where it applies (``step S:``, ``answer:``, ``query:``, ``golden:``) and names
the argument and value, so a task author can fix it without re-deriving the check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

import jsonschema

from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog, load_catalog
from kopa.catalog.models import ParamSpec, Tool
from kopa.eval.environment import CallRecord, Environment
from kopa.eval.golden import GoldenError, GoldenRun, Span, TracingExecutor
from kopa.eval.scoring.response import score_response
from kopa.eval.task import AnswerKey, GoldenStep, Rubric, Task
from kopa.eval.template import REF
from kopa.tools.expression import ExpressionError, parse_expression

PHI = 5  # the paper's fan-out budget: a handoff of more than φ records is high-cardinality
MIN_HEADROOM = 2.0
# Dates and periods a user derives from the query's wording ("2024년 한 해" → 20240101~20241231).
PERIOD_FORMATS = frozenset({"yyyymmdd", "yyyymm", "yyyy", "yyyyq", "date_range", "age", "hh"})
SESSION_FAMILY = "session"  # issue_api_key, get_current_date, evaluate_expression, the watchlist tools
# The one phrase per precision a query states it with (rule 4).
PRECISION_PHRASES: dict[int, tuple[str, ...]] = {
    0: ("정수로 반올림", "소수점 이하 반올림"),
    1: ("소수점 첫째 자리까지",),
    2: ("소수점 둘째 자리까지",),
    3: ("소수점 셋째 자리까지",),
}
# Asking in % / %p ("몇 %인가", "몇 %p 높은가", "%로 답하라", "백분율로"), not a threshold ("습도 80% 이상인 곳은 몇 곳").
_ASKS_ORDER = re.compile(r"순서로|순서대로|차례로")  # a list asked for in an order ('도로법, 유료도로법 순서로')
# the money unit a number is asked in: '몇 백만원', or '백만원 단위로'
_ASKS_MONEY = re.compile(r"몇 ?(억원|천만원|백만원|만원|천원)|(?<![가-힣])(억원|천만원|백만원|만원|천원) ?단위")
_ASKS_PERCENT = re.compile(r"몇\s*(?:%|％|퍼센트)|(?:%|％|퍼센트)\s*(?:p|포인트)?\s*(?:로|단위)|백분율")
# '799.8 Kcal', '20,800원', '12건': a number with a unit of money, measure or count, nothing else (rule 4:
# a number task). Not '8호선', '110번', '3층': those numbers are names.
_UNITS = ("원", "천원", "만원", "억원", "조원", "달러", "kcal", "cal", "km", "m", "cm", "mm", "kg", "g", "l", "ml",
          "℃", "°c", "도", "%", "%p", "퍼센트", "명", "건", "개", "곳", "회", "표", "대", "석", "세", "일", "개월",
          "시간", "분", "초", "주")
_NUMBER_WITH_UNIT = re.compile(r"^[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:"
                               + "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True)) + r")$",
                               re.IGNORECASE)
_DATE_LIKE = re.compile(r"^(?:19|20)\d{2}(?:[-./]?(?:0[1-9]|1[0-2])(?:[-./]?(?:0[1-9]|[12]\d|3[01]))?)?$")
_HEAD = re.compile(r"\$?([A-Za-z_][A-Za-z0-9_]*)")
_SELECTOR_REF = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_CONDITION = re.compile(r"^\s*([^!=<>~]+?)\s*(!=|>=|<=|!~|=|~|>|<)\s*(.*?)\s*$")


@dataclass(frozen=True)
class Problem:
    """One defect. ``kind`` groups problems by the rule they break (tests and summaries count them)."""

    kind: str  # tool · golden · schema · chain · cardinality · typed · unstated · unobtainable · leak ·
    #            number · precision · unit · string · rubric · self-score · headroom
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class TaskStats:
    steps: int = 0
    calls: int = 0
    parallel: bool = False
    max_cardinality: int = 0
    chained: bool = False
    high_cardinality: bool = False


@dataclass
class LintResult:
    task_id: str
    issues: list[Problem] = field(default_factory=list)
    stats: TaskStats = field(default_factory=TaskStats)

    @property
    def problems(self) -> list[str]:
        return [p.text for p in self.issues]

    @property
    def kinds(self) -> set[str]:
        return {p.kind for p in self.issues}

    @property
    def ok(self) -> bool:
        return not self.issues

    def add(self, kind: str, text: str) -> None:
        if all(p.text != text for p in self.issues):  # a for_each repeats its literals: report them once
            self.issues.append(Problem(kind, text))


# --------------------------------------------------------------------------------------------------
# The executed golden run, with each call attributed to its step
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Returned:
    """One scalar an executed call returned: where it came from, and what kind of field held it."""

    turn: int
    step: str
    tool: str
    field: str
    format: str | None
    value: str


@dataclass
class _Context:
    task: Task
    catalog: Catalog
    calls: list[CallRecord]
    spans: list[Span]
    run: GoldenRun
    steps: dict[str, GoldenStep]  # every step by id, the members of parallel groups included
    members: dict[str, list[str]]  # a parallel group's id → its members' ids
    turn_of: dict[str, int]
    step_of_call: dict[int, str]

    @cached_property
    def returned(self) -> list[_Returned]:
        """Every scalar the calls returned, built when a check first asks: for a result of 224,958 records
        it is millions of entries, and most tasks' checks never need them."""
        out = []
        for i, call in enumerate(self.calls):
            step_id = self.step_of_call.get(i, "?")
            formats = {f.name: f.format for f in self.catalog[call.tool].spec.output}
            for record in call.result.records:
                for name, text in _scalars(record, ""):
                    out.append(_Returned(call.turn, step_id, call.tool, name, formats.get(name), text))
        return out

    def tool(self, step: GoldenStep) -> Tool:
        assert step.call is not None
        return self.catalog[step.call]

    def is_data(self, step: GoldenStep) -> bool:
        return step.call is not None and self.tool(step).family != SESSION_FAMILY

    def tools_of(self, step_id: str) -> set[str]:
        ids = self.members.get(step_id, [step_id])
        return {s.call for i in ids if (s := self.steps.get(i)) is not None and s.call}


def _walk(steps: list[GoldenStep]) -> Iterator[GoldenStep]:
    for step in steps:
        yield step
        if step.parallel:
            yield from _walk(step.parallel)


def _scalars(value: Any, name: str) -> Iterator[tuple[str, str]]:
    """Every (field name, text) in a record, nested fields (조문 → 항 → 호) included."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _scalars(inner, str(key))
    elif isinstance(value, list):
        for inner in value:
            yield from _scalars(inner, name)
    elif value is not None and not isinstance(value, bool):
        yield name, str(value)


def _context(task: Task, catalog: Catalog, env: Environment, executor: TracingExecutor) -> _Context:
    steps = {s.id: s for s in _walk(task.golden)}
    members = {s.id: [m.id for m in _walk(s.parallel)] for s in steps.values() if s.parallel}
    step_of_call = {i: span.step.id for span in executor.spans for i in span.calls}
    turn_of: dict[str, int] = {}
    for i, call in enumerate(env.calls):
        turn_of.setdefault(step_of_call.get(i, "?"), call.turn)
    for group, ids in members.items():
        turn_of[group] = min((turn_of[i] for i in ids if i in turn_of), default=0)
    return _Context(task, catalog, env.calls, executor.spans, executor.run, steps, members, turn_of,
                    step_of_call)


# --------------------------------------------------------------------------------------------------
# Reading templates
# --------------------------------------------------------------------------------------------------

def _strings(template: Any) -> Iterator[str]:
    if isinstance(template, str):
        yield template
    elif isinstance(template, dict):
        for value in template.values():
            yield from _strings(value)
    elif isinstance(template, list):
        for value in template:
            yield from _strings(value)


def _refs(template: Any) -> list[str]:
    return [m.group(1) for text in _strings(template) for m in REF.finditer(text)]


def _heads(template: Any) -> set[str]:
    """The names a template's references start from, references inside selectors (`$step…`) included."""
    out = set()
    for ref in _refs(template):
        head = _HEAD.match(ref.strip())
        if head:
            out.add(head.group(1))
        out |= set(_SELECTOR_REF.findall(ref))
    return out


def _for_each_template(step: GoldenStep) -> Any:
    if isinstance(step.for_each, str):
        return "{" + step.for_each.strip("{}") + "}"
    return step.for_each


def _step_heads(step: GoldenStep) -> set[str]:
    """The steps a call takes values from: its arguments' references, `item` standing for its for_each."""
    heads = _heads(step.args)
    if "item" in heads:
        heads = (heads - {"item"}) | _heads(_for_each_template(step))
    return heads


def _selectors(ref: str) -> Iterator[str]:
    """The `[?…]` conditions of a reference (nested brackets balanced)."""
    i = 0
    while (start := ref.find("[?", i)) >= 0:
        depth = 0
        for j in range(start, len(ref)):
            depth += (ref[j] == "[") - (ref[j] == "]")
            if depth == 0:
                yield ref[start + 2 : j]
                break
        else:
            return
        i = j + 1


def mentions(text: str, value: str) -> bool:
    """Whether `text` states `value` as a whole token: '44' is not stated by '2044', '11' is by '11월'."""
    if not value:
        return False
    before = r"(?<![0-9])" if value[0].isdigit() else r"(?<![A-Za-z0-9])" if value[0].isascii() else ""
    after = r"(?![0-9])" if value[-1].isdigit() else r"(?![A-Za-z0-9])" if value[-1].isascii() else ""
    return re.search(before + re.escape(value) + after, text) is not None


def _readable(param: ParamSpec, value: str) -> re.Pattern[str] | None:
    """How a person writes a coded article number (the formats' own documentation: 001002 ↔ 제10조의2)."""
    if not re.fullmatch(r"\d{6}", value):
        return None
    number, branch = int(value[:4]), int(value[4:])
    if param.format == "jo":
        unit = "조"
    elif param.format == "law_hang":
        unit = "호" if param.name.upper().startswith("HO") else "항"
    else:
        return None
    tail = rf"의\s?{branch}(?!\d)" if branch else r"(?!의\s?\d)"
    return re.compile(rf"제\s?{number}\s?{unit}{tail}")


def _documented(tool: Tool, param: ParamSpec, value: str) -> bool:
    """A value the parameter's own description (as the model sees it, format text included) names."""
    if param.enum and value in param.enum:
        return True
    schema = tool.openai_schema()["function"]["parameters"]["properties"].get(param.name, {})
    return mentions(str(schema.get("description", "")), value)


def _is_name(value: str) -> bool:
    """Hangul marks a name (회사명, 학교명, 휴게소명), which comes from the query; the services' codes are
    ASCII (see kopa.catalog.formats)."""
    return re.search(r"[가-힣]", value) is not None


def _code_like(param: ParamSpec) -> bool:
    return param.format is not None and param.format not in PERIOD_FORMATS


# --------------------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------------------

def _check_chain(ctx: _Context, out: LintResult) -> None:
    """Rule 1. A value is data-derived when a data call produced it, directly or through session steps."""
    derived: dict[str, bool] = {}

    def visit(steps: list[GoldenStep]) -> None:
        for step in steps:
            if step.parallel is not None:
                visit(step.parallel)
                derived[step.id] = any(derived.get(m.id, False) for m in step.parallel)
                continue
            sources = [h for h in _step_heads(step) if derived.get(h)]
            if ctx.is_data(step) and sources:
                out.stats.chained = True
            derived[step.id] = ctx.is_data(step) or bool(sources)

    visit(ctx.task.golden)
    if not out.stats.chained:
        data = [s.id for s in ctx.steps.values() if ctx.is_data(s)]
        out.add("chain", "golden: no code-lookup chain: no data call takes an argument or its for_each from an "
                         f"earlier data call (data steps {', '.join(data) or 'none'} take only literals or "
                         "session values)")


def _source(ctx: _Context, value: str, before: int, *, param: ParamSpec, name: str) -> str | None:
    """Which step (before turn `before`) returned `value`, and as what: 'step T returns it (FIELD)'. A code
    or any other distinctive value (four characters or more: 253160, not '1') matches any field; a short
    one only a field of the same name or format; an article number also its readable form inside text
    ('약사법 제11조' returns JO 001100)."""
    readable = _readable(param, value)
    code = _code_like(param) or len(value) >= 4
    for r in ctx.returned:
        if r.turn >= before:
            continue
        kind_matches = code or r.field == name or (param.format is not None and r.format == param.format)
        if r.value == value and kind_matches:
            return f"step {r.step} returns it ({r.field})"
        found = readable.search(r.value) if readable is not None else None
        if found is not None:
            return f"step {r.step} returns it ({r.field}: …{found.group(0)}…)"
    return None


def _outputs(ctx: _Context, param: ParamSpec) -> bool:
    """Whether any available tool's output has a field of this parameter's format or name."""
    for name in ctx.task.available_tools:
        for f in ctx.catalog[name].spec.output:
            if f.name == param.name or (param.format is not None and f.format == param.format):
                return True
    return False


def _literal_args(step: GoldenStep) -> list[str]:
    """The arguments the task author typed: no reference, or only `{item}` of a for_each over literals."""
    names = []
    for name, template in step.args.items():
        heads = _heads(template)
        if not heads or (isinstance(step.for_each, list) and heads <= {"item"}):
            names.append(name)
    return names


def _check_literals(ctx: _Context, out: LintResult) -> None:
    """Rule 2 for arguments: typed values the chain returns, and codes nobody told the agent."""
    query = ctx.task.query
    for span in ctx.spans:
        step = span.step
        if not ctx.is_data(step) or not span.calls:
            continue
        tool = ctx.tool(step)
        params = {p.name: p for p in tool.spec.params}
        call = ctx.calls[span.calls[0]]
        for name in _literal_args(step):
            param = params.get(name)
            raw = call.arguments.get(name)
            if param is None or param.paging or raw is None or isinstance(raw, bool):
                continue
            value = str(raw)
            if param.format in PERIOD_FORMATS or (param.format is None and _DATE_LIKE.match(value)):
                continue
            readable = _readable(param, value)
            if (mentions(query, value) or (readable is not None and readable.search(query))
                    or (not _code_like(param) and _is_name(value))):
                continue  # the user gives it (a name, perhaps worded differently: 안성휴게소 서울방향)
            if _documented(tool, param, value):
                continue
            source = _source(ctx, value, call.turn, param=param, name=name)
            if source is not None:
                out.add("typed", f"step {step.id}: {name}={value} is typed, but {source}: reference it")
            elif _code_like(param):
                text = f"step {step.id}: {name}={value} is not in the query and no earlier step returns it"
                if _outputs(ctx, param):
                    out.add("unstated", text)
                else:
                    out.add("unobtainable", f"{text}; no available tool outputs {name}")


def _templates(ctx: _Context) -> Iterator[tuple[str, int, Any]]:
    """Every template with where it is and the turn its references are resolved before."""
    end = max((c.turn for c in ctx.calls), default=0) + 1
    for step in ctx.steps.values():
        if step.call is not None:
            turn = ctx.turn_of.get(step.id, end)
            yield f"step {step.id}", turn, step.args
            if isinstance(step.for_each, str):
                yield f"step {step.id}", turn, _for_each_template(step)
    spec = ctx.task.answer
    if spec is not None:
        yield "answer", end, [spec.value, *spec.aliases]
        if spec.rubric is not None:
            yield "answer", end, [form for f in spec.rubric.facts for form in f.forms] + spec.rubric.wrong


def _field_format(ctx: _Context, head: str, name: str) -> str | None:
    for tool in ctx.tools_of(head):
        for f in ctx.catalog[tool].spec.output:
            if f.name == name:
                return f.format
    return None


def _check_selectors(ctx: _Context, out: LintResult) -> None:
    """Rule 2 for selectors: `[?STND_BSST_ID=100000640]` where another lookup returned 100000640."""
    query = ctx.task.query
    for where, turn, template in _templates(ctx):
        for ref in _refs(template):
            head_match = _HEAD.match(ref.strip())
            if head_match is None or head_match.group(1) not in ctx.steps:
                continue
            head = head_match.group(1)
            for condition in _selectors(ref):
                parsed = _CONDITION.match(condition)
                if parsed is None:
                    continue
                name, op, value = parsed.groups()
                if (op != "=" or value.startswith("$") or len(value) < 3 or mentions(query, value)
                        or _is_name(value)):
                    continue
                fmt = _field_format(ctx, head, name)
                if fmt in PERIOD_FORMATS or (fmt is None and _DATE_LIKE.match(value)):
                    continue
                # Another lookup (not the filtered call's own tool) returned it: the chain holds the value.
                others = ctx.tools_of(head)
                source = next((r for r in ctx.returned
                               if r.turn < turn and r.value == value and r.tool not in others), None)
                if source is not None:
                    out.add("typed", f"{where}: {name}={value} is typed in a selector on {head}, but step "
                                     f"{source.step} returns it ({source.field}): reference it "
                                     f"(${source.step}…)")
                elif fmt is not None:
                    out.add("unstated", f"{where}: {name}={value} (a selector on {head}) is not in the query "
                                        "and no earlier step returns it")


def _check_leaks(ctx: _Context, out: LintResult) -> None:
    """Rule 3: the query states neither the answer nor a code the chain looks up. A code the user gives
    (typed where it first enters the trajectory, e.g. the first call's identifier) is not a leak, even
    when later calls receive it by reference; one that a call received by reference, or that an earlier
    call returned, is — the query would let the agent skip the lookup."""
    query = ctx.task.query
    answer = ctx.run.answer
    if answer and "RESPONSE" in ctx.task.reward_basis:
        leaked = [f for f in _answer_forms(answer) if len(f) >= 3 and mentions(query, f)]
        if leaked:
            out.add("leak", f"query: it contains the answer {leaked[0]!r}")
    looked_up: list[tuple[str, str, str]] = []  # (step, argument, value) stated in the query
    given: set[str] = set()  # values the user gives: typed where they first enter the trajectory
    for span in ctx.spans:
        step = span.step
        if not ctx.is_data(step) or not span.calls:
            continue
        tool = ctx.tool(step)
        literal = set(_literal_args(step))
        for i in span.calls:
            call = ctx.calls[i]
            for param in tool.spec.params:
                raw = call.arguments.get(param.name)
                if raw is None or isinstance(raw, bool) or param.paging or param.format in PERIOD_FORMATS:
                    continue
                value = str(raw)
                if (len(value) < 3 or (param.enum and value in param.enum) or _is_name(value)
                        or (param.format is None and _DATE_LIKE.match(value)) or not mentions(query, value)):
                    continue
                returned = _source(ctx, value, call.turn, param=param, name=param.name) is not None
                if param.name in literal and not returned:
                    given.add(value)
                elif param.name in step.args:
                    looked_up.append((step.id, param.name, value))
    for step_id, name, value in looked_up:
        if value not in given:  # 110번 버스: the route number the user gives, handed on by reference
            out.add("leak", f"step {step_id}: the query states {name}={value}, which the chain looks up")


def _answer_forms(answer: str) -> set[str]:
    forms = {answer}
    try:
        value = float(answer.replace(",", ""))
    except ValueError:
        return forms
    if value.is_integer():
        forms |= {str(int(value)), f"{int(value):,}"}
    return {f for f in forms if len(f) >= 2}


def _answer_steps(ctx: _Context) -> set[str]:
    spec = ctx.task.answer
    return _heads(spec.value) if spec is not None else set()


def _check_numbers(ctx: _Context, key: AnswerKey, out: LintResult) -> None:
    """Rule 4: exact targets; a precision, stated in the query, when the target is not an integer; the
    percent unit exactly when the query asks in % or %p."""
    spec = ctx.task.answer
    assert spec is not None
    query = ctx.task.query
    for ref in _refs(spec.value):
        head = _HEAD.match(ref.strip())
        step = ctx.steps.get(head.group(1)) if head else None
        if step is not None and step.call == "evaluate_expression" and re.search(r"\.value\b", ref):
            out.add("number", f"answer: {{{ref}}} is the rounded display value: use "
                              f"{{{step.id}.records[0].exact}}")
        if "|round" in ref:
            out.add("number", f"answer: {{{ref}}} rounds the target: give the exact value and a precision")
    for step_id in _answer_steps(ctx):
        step = ctx.steps.get(step_id)
        if step is not None and step.call == "evaluate_expression" and "round(" in str(step.args):
            out.add("number", f"step {step_id}: the expression rounds the target: give the exact value and "
                              "a precision")
    stated = {n for n, phrases in PRECISION_PHRASES.items() if any(p in query for p in phrases)}
    try:
        integer = key.exact is not None and parse_expression(key.exact).is_integer is True
    except ExpressionError as exc:
        out.add("number", f"answer: the exact target {key.exact!r} does not parse: {exc}")
        return
    if spec.precision is None:
        if not integer:
            out.add("precision", f"answer: the exact target {key.exact} is not an integer: set precision and "
                                 f"state it in the query (e.g. {PRECISION_PHRASES[2][0]!r})")
        for n in sorted(stated):
            out.add("precision", f"query: it states {PRECISION_PHRASES[n][0]!r} but the task sets no precision")
    else:
        phrases = PRECISION_PHRASES.get(spec.precision)
        if phrases is None:
            out.add("precision", f"answer: precision {spec.precision} has no query phrase "
                                 f"(0–{max(PRECISION_PHRASES)} have)")
        elif spec.precision not in stated:
            out.add("precision", f"query: precision {spec.precision} is not stated: add {phrases[0]!r}")
        for n in sorted(stated - {spec.precision}):
            out.add("precision", f"query: it states {PRECISION_PHRASES[n][0]!r} but precision is {spec.precision}")
    asks_percent = _ASKS_PERCENT.search(query) is not None
    if asks_percent and spec.unit != "percent":
        out.add("unit", "answer: the query asks in % / %p: set unit: percent")
    elif spec.unit == "percent" and not asks_percent:
        out.add("unit", "answer: unit: percent, but the query does not ask in % / %p")
    money = _ASKS_MONEY.search(query)
    asked = (money.group(1) or money.group(2)) if money else None
    if asked != (spec.unit if spec.unit != "percent" else None):
        out.add("unit", f"answer: the query asks in {asked}: set unit: {asked}" if asked else
                f"answer: unit: {spec.unit}, but the query does not ask '몇 {spec.unit}'")


def _check_answer(ctx: _Context, out: LintResult) -> None:
    """Rules 4–6 on the answer key, then the golden answer against its own scoring."""
    spec, key = ctx.task.answer, ctx.run.key
    if spec is None or key is None:
        return
    if spec.type != "number" and (spec.precision is not None or spec.unit is not None):
        out.add("number", f"answer: precision and unit are for number answers, not {spec.type}")
    asks_order = _ASKS_ORDER.search(ctx.task.query) is not None and key.items is not None
    if asks_order != spec.ordered:
        out.add("string", "answer: the query asks for the items in an order: set ordered: true" if asks_order else
                "answer: ordered: true, but the query asks for no order of a list")
    if spec.type == "number":
        _check_numbers(ctx, key, out)
    elif spec.type == "string":
        if _NUMBER_WITH_UNIT.match(key.display.strip()):
            out.add("string", f"answer: the target {key.display!r} is a number with a unit: make it a number "
                              "task (e.g. {step.records[0].FIELD|number})")
        if "|join" in spec.value:
            out.add("string", "answer: a list target must render to a list: drop |join")
    else:
        if key.rubric is None:
            out.add("rubric", "answer: a judge answer needs a rubric: {facts: [{fact, forms}], wrong}")
        elif _is_short_fact(key.display, key.items, key.rubric) and not key.rubric.wrong:
            out.add("rubric", f"answer: the target {key.display!r} is one short fact: make it a string task with "
                              "aliases, or give the rubric wrong forms (a judge passes any text that holds the "
                              "facts' forms, alternatives and denials too)")
        if key.rubric is not None:
            for i, (written, resolved) in enumerate(zip(spec.rubric.facts if spec.rubric else [],
                                                        key.rubric.facts, strict=True), start=1):
                for template, form in zip(written.forms, resolved.forms, strict=True):
                    if not form.strip() or form.strip() == "None":
                        out.add("rubric", f"answer: rubric fact {i} form {template!r} renders empty")
    predicted = f"\\boxed{{{key.exact}}}" if spec.type == "number" and key.exact is not None else key.display
    verdict = score_response(spec, key, predicted, query=ctx.task.query)
    if verdict.passed is not True:
        out.add("self-score", f"answer: the golden answer {predicted[:80]!r} does not pass its own scoring "
                              f"({verdict.method}: {verdict.details[:160]})")


SHORT_FACT_CHARS = 40  # a target this short, on one line and not a list, is one fact a string compares


def _is_short_fact(display: str, items: list[str] | None, rubric: Rubric) -> bool:
    """One short line that is not a list, nor several facts side by side ('2 / 태광라온제지', one per rubric
    fact, as EDGE's SEM answers are; '김철수 찬성 / 이영희 반대', one per item the facts are `about`):
    politics-009's '제433회 국회(정기회) 제5차 본회의' is one."""
    text = display.strip()
    segments = len(text.split(" / "))
    items_about = len({f.about for f in rubric.facts if f.about is not None})
    side_by_side = segments > 1 and segments in (len(rubric.facts), items_about)
    return items is None and "\n" not in text and len(text) <= SHORT_FACT_CHARS and not side_by_side


@cache
def _validator(tool: str) -> jsonschema.protocols.Validator:
    """One checked validator per tool: `jsonschema.validate` re-checks the schema on every call, which
    was a third of the time lint spent on the whole benchmark."""
    schema = load_catalog()[tool].openai_schema()["function"]["parameters"]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def _check_calls(ctx: _Context, out: LintResult) -> None:
    for i, record in enumerate(ctx.calls):
        where = f"step {ctx.step_of_call.get(i, '?')}"
        error = jsonschema.exceptions.best_match(_validator(record.tool).iter_errors(record.arguments))
        if error is not None:
            out.add("schema", f"{where}: {record.tool} arguments {record.arguments} do not validate: "
                              f"{error.message}")
        if not record.result.ok:
            out.add("golden", f"{where}: {record.tool}({record.arguments}) failed: {record.result.error}")


def _check_shape(ctx: _Context, out: LintResult) -> None:
    stats = out.stats
    steps = list(ctx.steps.values())
    stats.steps = len(ctx.task.golden)
    stats.calls = len(ctx.calls)
    turns = [c.turn for c in ctx.calls]
    stats.parallel = any(turns.count(t) > 1 for t in set(turns))
    stats.max_cardinality = max((c.result.total_count or 0 for c in ctx.calls), default=0)
    stats.high_cardinality = (any(s.for_each or s.pages == "all" for s in steps)
                              or any((c.result.total_count or 0) > PHI for c in ctx.calls[:-1]))
    if not stats.high_cardinality:
        out.add("cardinality", f"golden: no high-cardinality intermediate (fan-out, all pages, or > {PHI} "
                               "records handed on)")
    if "RESPONSE" in ctx.task.reward_basis and (ctx.run.answer is None or ctx.run.answer.strip() == ""):
        out.add("golden", "answer: the answer template gives no answer")
    budget = ctx.task.budget(stats.calls)
    if budget < MIN_HEADROOM * stats.calls:
        out.add("headroom", f"task: max_allowed_calls {budget} is under {MIN_HEADROOM}× the optimal "
                            f"{stats.calls}")


def lint_task(task: Task, backend: Backend) -> LintResult:
    out = LintResult(task.id)
    catalog = load_catalog()
    for name in [*task.available_tools, *(a.tool for a in task.state.setup)]:
        if name not in catalog:
            out.add("tool", f"task: unknown tool {name!r}")
    for step in _walk(task.golden):
        if step.call and step.call not in task.available_tools:
            out.add("tool", f"step {step.id}: {step.call} is not in available_tools")
    if out.issues:
        return out
    env = Environment(task, backend)
    executor = TracingExecutor(task, env)
    try:
        run = executor.execute()
        run.key = executor.answer_key()
        run.answer = None if run.key is None else run.key.display
    except GoldenError as exc:
        out.add("golden", f"golden: {exc}")
        return out
    ctx = _context(task, catalog, env, executor)
    _check_calls(ctx, out)
    _check_shape(ctx, out)
    _check_chain(ctx, out)
    _check_literals(ctx, out)
    _check_selectors(ctx, out)
    _check_leaks(ctx, out)
    _check_answer(ctx, out)
    return out
