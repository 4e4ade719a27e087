"""Offline policies for CI and as sanity baselines.

`oracle` executes the golden trajectory on the episode's fresh environment and answers from what it got
back — a real execution, not a stored answer. The failure-mode policies reproduce what the paper
reports of open models: they skip the code lookup, answer from the first page only, or skip key issuance.
"""

from __future__ import annotations

import re
from typing import Any

from kopa.catalog.loader import load_catalog
from kopa.eval.environment import Environment
from kopa.eval.episode import PolicyOutput
from kopa.eval.golden import GoldenError, GoldenExecutor
from kopa.eval.task import GoldenStep, Target, Task
from kopa.eval.template import REF, TemplateError


def _final(task: Task, answer: str | None) -> str | None:
    if answer is None:
        return None
    if task.answer is not None and task.answer.type == "number":
        return f"정답은 \\boxed{{{answer}}} 입니다."
    return answer


def _referenced(steps: list[GoldenStep]) -> set[str]:
    names: set[str] = set()
    for step in steps:
        text = str(step.args) + str(step.for_each or "")
        names |= {m.group(1).split(".")[0].split("[")[0].split("|")[0].strip() for m in REF.finditer(text)}
        if step.parallel:
            names |= _referenced(step.parallel)
    return names


def lookup_steps(task: Task) -> list[GoldenStep]:
    """Golden steps whose results later steps take values from: the code lookups — a call, or a group of
    calls issued together (two companies looked up side by side) of which one is."""
    used = _referenced(task.golden) | _referenced_answer(task)

    def lookup(s: GoldenStep) -> bool:
        return bool(s.call) and s.id in used and s.call not in SESSION_TOOLS

    return [s for s in task.golden if lookup(s) or (s.parallel is not None and any(lookup(m) for m in s.parallel))]


def _referenced_answer(task: Task) -> set[str]:
    if task.answer is None:
        return set()
    return {m.group(1).split(".")[0].split("[")[0].split("|")[0].strip() for m in REF.finditer(task.answer.value)}


SESSION_TOOLS = frozenset({"issue_api_key", "get_current_date", "evaluate_expression", "add_watchlist_item",
                           "remove_watchlist_item", "list_watchlist_items"})


class OraclePolicy:
    name = "oracle"

    def run(self, task: Task, env: Environment, target: Target, rollout: int) -> PolicyOutput:
        executor = GoldenExecutor(task, env)
        executor.execute()
        return PolicyOutput(answer=_final(task, executor.answer()))


class FirstPageOnlyPolicy:
    """Reads only the first page of anything paged, at the tool's default page size, and answers."""

    name = "first_page_only"

    def run(self, task: Task, env: Environment, target: Target, rollout: int) -> PolicyOutput:
        executor = GoldenExecutor(task, env, first_page_only=True)
        try:
            executor.execute()
            return PolicyOutput(answer=_final(task, executor.answer()))
        except (GoldenError, TemplateError):
            return PolicyOutput(answer=None)


class SkipKeyPolicy:
    """Never issues API keys itself: calls straight away (the 'Invalid API key' failure)."""

    name = "skip_key"

    def run(self, task: Task, env: Environment, target: Target, rollout: int) -> PolicyOutput:
        steps = [s for s in task.golden if s.call != "issue_api_key"]
        executor = GoldenExecutor(task.model_copy(update={"golden": steps}), env)
        try:
            executor.execute()
            return PolicyOutput(answer=_final(task, executor.answer()))
        except (GoldenError, TemplateError):
            return PolicyOutput(answer=None)


class SkipLookupPolicy:
    """Skips the first code lookup and passes the entity's name where its code belongs."""

    name = "skip_lookup"

    def run(self, task: Task, env: Environment, target: Target, rollout: int) -> PolicyOutput:
        lookups = lookup_steps(task)
        if not lookups:
            return OraclePolicy().run(task, env, target, rollout)
        skipped = lookups[0]
        executor = GoldenExecutor(task, env)
        guesses = {m.id: _guess(m, task) for m in skipped.parallel or [skipped]}
        try:
            for step in task.golden:
                executor.run.turns += 1
                if step.id == skipped.id:
                    executor.run.scope.update(guesses)
                    executor.run.scope[step.id] = {"ok": True, "error": None, "total_count": len(guesses),
                                                   "records": [r for g in guesses.values() for r in g["records"]]}
                    continue
                executor.run.scope[step.id] = executor._step(step, executor.run.turns)
            return PolicyOutput(answer=_final(task, executor.answer()))
        except (GoldenError, TemplateError, IndexError, KeyError):
            return PolicyOutput(answer=None)


def _guess(step: GoldenStep, task: Task) -> dict[str, Any]:
    """What a model that skipped the lookup believes: a record per name the question gives for it, every
    output field that name — the name it searched by, or the names later steps pick its records by (a
    lookup that lists every city, then 화성시's code taken from it: 화성시 is passed as the code)."""
    searched = [str(v) for v in step.args.values() if isinstance(v, str) and "{" not in v]
    picked = re.findall(r"\b" + re.escape(step.id) + r"\.records\[\?\w+=([^\]<>${}]+)\]", str(task.model_dump()))
    names = list(dict.fromkeys([*searched[:1], *picked])) or [""]
    fields = [f.name for f in load_catalog()[step.call].spec.output] if step.call else []
    records = [{f: name for f in fields} for name in names]
    return {"ok": True, "records": records, "total_count": len(records), "error": None}


POLICIES = {p.name: p for p in (OraclePolicy, FirstPageOnlyPolicy, SkipKeyPolicy, SkipLookupPolicy)}
