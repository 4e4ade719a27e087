"""`kopa bench lint`: every task checked before anyone runs it.

Executes each golden trajectory (so the answer is known to be reachable) and checks: tools exist and are
available; golden arguments validate against the tools' JSON schemas; a code-lookup chain and a
high-cardinality intermediate (fan-out, all-pages reduction, or a handoff of more than φ records);
headroom; and that the query leaks neither the answer nor any code the trajectory looks up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import jsonschema

from kopa.backends.spec import Backend
from kopa.catalog.loader import load_catalog
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, execute_golden
from kopa.eval.task import GoldenStep, Task

PHI = 5  # the paper's fan-out budget: a handoff of more than φ records is high-cardinality
MIN_HEADROOM = 2.0
DATE_FORMATS = frozenset({"yyyymmdd", "yyyymm", "yyyy", "date_range", "age", "hh"})  # may appear in a query


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
    problems: list[str] = field(default_factory=list)
    stats: TaskStats = field(default_factory=TaskStats)

    @property
    def ok(self) -> bool:
        return not self.problems


def _walk(steps: list[GoldenStep]):
    for step in steps:
        yield step
        if step.parallel:
            yield from _walk(step.parallel)


def _references(step: GoldenStep) -> bool:
    text = str(step.args) + (step.for_each or "")
    return bool(re.search(r"\{(?!today\b)[A-Za-z_]", text))


def _number_forms(answer: str) -> set[str]:
    forms = {answer}
    try:
        value = float(answer.replace(",", ""))
    except ValueError:
        return forms
    if value.is_integer():
        forms |= {str(int(value)), f"{int(value):,}"}
    return {f for f in forms if len(f) >= 2}


def lint_task(task: Task, backend: Backend) -> LintResult:
    out = LintResult(task.id)
    catalog = load_catalog()
    for name in [*task.available_tools, *(a.tool for a in task.state.setup)]:
        if name not in catalog:
            out.problems.append(f"unknown tool {name!r}")
    steps = list(_walk(task.golden))
    for step in steps:
        if step.call and step.call not in task.available_tools:
            out.problems.append(f"golden step {step.id} uses {step.call}, which is not in available_tools")
    if out.problems:
        return out
    env = Environment(task, backend)
    try:
        run = execute_golden(task, env)
    except GoldenError as exc:
        out.problems.append(str(exc))
        return out
    for record in env.calls:
        schema = catalog[record.tool].openai_schema()["function"]["parameters"]
        try:
            jsonschema.validate(record.arguments, schema)
        except jsonschema.ValidationError as exc:
            out.problems.append(f"{record.tool} arguments {record.arguments} do not validate: {exc.message}")
        if not record.result.ok:
            out.problems.append(f"golden call {record.tool}({record.arguments}) failed: {record.result.error}")
    stats = out.stats
    stats.steps = len(task.golden)
    stats.calls = len(env.calls)
    turns = [c.turn for c in env.calls]
    stats.parallel = any(turns.count(t) > 1 for t in set(turns))
    stats.max_cardinality = max((c.result.total_count or 0 for c in env.calls), default=0)
    stats.chained = any(_references(s) for s in steps)
    stats.high_cardinality = (any(s.for_each or s.pages == "all" for s in steps)
                              or any((c.result.total_count or 0) > PHI for c in env.calls[:-1]))
    if not stats.chained:
        out.problems.append("no code-lookup chain: no golden step takes a value from an earlier step")
    if not stats.high_cardinality:
        out.problems.append(f"no high-cardinality intermediate (fan-out, all pages, or > {PHI} records handed on)")
    if "RESPONSE" in task.reward_basis and (run.answer is None or run.answer.strip() == ""):
        out.problems.append("the answer template gives no answer")
    budget = task.budget(stats.calls)
    if budget < MIN_HEADROOM * stats.calls:
        out.problems.append(f"max_allowed_calls {budget} is under {MIN_HEADROOM}× the optimal {stats.calls}")
    query = task.query
    if run.answer and "RESPONSE" in task.reward_basis:
        leaked = [f for f in _number_forms(run.answer) if len(f) >= 3 and f in query]
        if leaked:
            out.problems.append(f"the query contains the answer {leaked[0]!r}")
    for record in env.calls:
        tool = catalog[record.tool]
        for param in tool.spec.params:
            value = record.arguments.get(param.name)
            is_code = param.format is not None and param.format not in DATE_FORMATS
            if is_code and value is not None and len(str(value)) >= 4 and str(value) in query:
                out.problems.append(f"the query leaks the code {param.name}={value}")
    return out
