"""Execute a golden trajectory: every reference resolved against the results of earlier steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kopa.eval.environment import Environment
from kopa.eval.task import AnswerKey, GoldenStep, Rubric, RubricFact, Task
from kopa.eval.template import TemplateError, render
from kopa.tools.expression import ExpressionError, format_value, parse_expression
from kopa.tools.paging import PageRead, read_pages
from kopa.tools.results import ToolResult
from kopa.wire.paging import default_page_size, is_paged, max_page_size


class GoldenError(RuntimeError):
    """A golden trajectory that does not execute: the message names the task, the step and why."""


@dataclass
class GoldenRun:
    scope: dict[str, Any]
    turns: int = 0
    answer: str | None = None
    key: AnswerKey | None = None
    failures: list[str] = field(default_factory=list)


def result_view(result: ToolResult) -> dict[str, Any]:
    """What references see of one call."""
    view = {"ok": result.ok, "records": result.records, "total_count": result.total_count,
            "error": result.error.model_dump() if result.error else None}
    if result.scanned is not None:
        view["scanned"] = result.scanned
    return view


def returned(view: dict[str, Any]) -> int:
    """The records the service answered for a step (every page, every item it read): a tool's own
    client-side filter is counted before it applies — DART sends its whole corp-code archive however
    few names match."""
    if "items" in view:
        return sum(returned(v) for v in view["items"])
    return view.get("scanned", len(view["records"]))


def _merge(views: list[dict[str, Any]]) -> dict[str, Any]:
    records = [r for v in views for r in v["records"]]
    return {"ok": all(v["ok"] for v in views), "records": records, "total_count": len(records), "items": views}


class GoldenExecutor:
    """Runs steps on an Environment. `first_page_only` and `skip` let failure-mode policies reuse it."""

    def __init__(self, task: Task, env: Environment, *, first_page_only: bool = False) -> None:
        self.task = task
        self.env = env
        self.first_page_only = first_page_only
        self.run = GoldenRun(scope={"today": env.state.current_date.replace("-", "")})

    def execute(self, steps: list[GoldenStep] | None = None) -> GoldenRun:
        for step in steps if steps is not None else self.task.golden:
            self.run.turns += 1
            self.run.scope[step.id] = self._step(step, self.run.turns)
        return self.run

    def _step(self, step: GoldenStep, turn: int) -> dict[str, Any]:
        if step.parallel is not None:
            views = {sub.id: self._step(sub, turn) for sub in step.parallel}
            self.run.scope.update(views)
            return _merge(list(views.values()))
        if step.for_each is not None:
            try:
                source = step.for_each if isinstance(step.for_each, list) else "{" + step.for_each.strip("{}") + "}"
                items = render(source, self.run.scope)
            except TemplateError as exc:
                raise GoldenError(f"{self.task.id}: step {step.id}: for_each: {exc}") from exc
            items = items if isinstance(items, list) else [items]
            if step.limit is not None:
                items = items[: step.limit]
            return _merge([self._call(step, turn, {**self.run.scope, "item": item}) for item in items])
        return self._call(step, turn, self.run.scope)

    def _call(self, step: GoldenStep, turn: int, scope: dict[str, Any]) -> dict[str, Any]:
        try:
            args = render(step.args, scope)
        except TemplateError as exc:
            raise GoldenError(f"{self.task.id}: step {step.id}: {exc}") from exc
        assert step.call is not None
        if step.pages == "one":
            return result_view(self.env.call(step.call, args, turn))
        tool = self.env.runtime.catalog[step.call]
        family = tool.family
        if not is_paged(family):
            raise GoldenError(f"{self.task.id}: step {step.id}: {step.call} is not paged")
        # The oracle reads with the largest page the service allows (or the step's own size); a
        # first-page-only reader asks with the service's default size and stops after one page.
        size = default_page_size(family) if self.first_page_only else step.page_size or max_page_size(tool)
        call = step.call
        views = list(read_pages(lambda window: result_view(self.env.call(call, {**args, **window}, turn)), family,
                                size, lambda v: PageRead(v["ok"], len(v["records"]), v["total_count"]),
                                max_pages=1 if self.first_page_only else None))
        merged = _merge(views)
        merged["total_count"] = views[0]["total_count"]
        return merged

    def answer(self) -> str | None:
        """The answer as the policy states it: the display form (numbers: the exact value)."""
        key = self.answer_key()
        if key is None:
            return None
        return key.exact if key.exact is not None else key.display

    def answer_key(self) -> AnswerKey | None:
        """The task's answer key from this run's results: display and exact value, list items, the
        string aliases and the judge rubric with every template resolved (``{answer}`` names the value)."""
        spec = self.task.answer
        if spec is None:
            return None
        value = self._render(spec.value, "answer")
        scope = {**self.run.scope, "answer": _text(value)}
        exact = None
        if spec.type == "number":
            try:
                number = parse_expression(_text(value))
            except ExpressionError as exc:
                raise GoldenError(f"{self.task.id}: answer: {value!r} is not a number: {exc}") from exc
            exact, display = str(number), format_value(number)
        else:
            display = _text(value)
        items = [_text(v) for v in value] if isinstance(value, list) else None
        aliases = [_text(self._render(a, "aliases", scope)) for a in spec.aliases]
        rubric = None
        if spec.rubric is not None:
            facts = [RubricFact(fact=f.fact, forms=[_text(self._render(x, "rubric", scope)) for x in f.forms],
                                about=f.about, anchor=f.anchor)
                     for f in spec.rubric.facts]
            wrong = [_text(self._render(x, "rubric", scope)) for x in spec.rubric.wrong]
            rubric = Rubric(facts=facts, wrong=wrong)
        return AnswerKey(display=display, exact=exact, items=items, aliases=aliases, rubric=rubric)

    def _render(self, template: str, where: str, scope: dict[str, Any] | None = None) -> Any:
        try:
            return render(template, scope if scope is not None else self.run.scope)
        except TemplateError as exc:
            raise GoldenError(f"{self.task.id}: {where}: {exc}") from exc


def _text(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)  # the shortest text that reads back as the same float: nothing invented
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value)


def execute_golden(task: Task, env: Environment) -> GoldenRun:
    executor = GoldenExecutor(task, env)
    run = executor.execute()
    run.key = executor.answer_key()
    run.answer = None if run.key is None else run.key.display
    return run


@dataclass(frozen=True)
class Span:
    """The calls one golden step made (for one for_each element): every page of a `pages: all` read."""

    step: GoldenStep
    calls: range


class TracingExecutor(GoldenExecutor):
    """The golden executor, noting which step made which calls (lint's checks, and synthesis typing a
    handoff by what each call received, reason about steps)."""

    def __init__(self, task: Task, env: Environment) -> None:
        super().__init__(task, env)
        self.spans: list[Span] = []

    def _call(self, step: GoldenStep, turn: int, scope: dict[str, Any]) -> dict[str, Any]:
        first = len(self.env.calls)
        try:
            return super()._call(step, turn, scope)
        finally:
            self.spans.append(Span(step, range(first, len(self.env.calls))))
