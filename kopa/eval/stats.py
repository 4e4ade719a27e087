"""`kopa bench stats`: the task set's mix and difficulty beside the figures the paper reports.

Everything but the count of top-level steps is read from executed golden runs (the `Target` that
`kopa bench targets` stores: every executed call with its turn, the optimal and allowed call counts),
never from the task text: a `pages: all` step or a for_each is as many calls as the simulator made it.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from kopa.backends.base import Backend
from kopa.eval.golden import GoldenError
from kopa.eval.targets import compute_target
from kopa.eval.task import Target, Task


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PaperFigures(_Frozen):
    """KOPA-Bench as the paper describes it (the targets of issue 9's task rules, rule 7)."""

    tasks: int
    mix: dict[str, int]
    mean_steps: float
    mean_calls: float
    max_calls: int
    parallel_share: float
    mean_tools: float
    mean_headroom: float


PAPER = PaperFigures(
    tasks=145,
    mix={"traffic": 22, "finance": 29, "education": 30, "law": 22, "politics": 25, "district": 17},
    mean_steps=3.32, mean_calls=4.92, max_calls=14, parallel_share=0.59, mean_tools=7.5, mean_headroom=2.45,
)


class GroupStats(_Frozen):
    """One domain's figures, or the whole set's (``name`` 'all')."""

    name: str
    tasks: int
    paper_tasks: int
    mean_steps: float
    mean_calls: float
    max_calls: int
    parallel_share: float  # tasks with two or more golden calls in one turn
    mean_tools: float
    mean_headroom: float  # max_allowed_calls / optimal calls, averaged over tasks


class SetStats(_Frozen):
    groups: list[GroupStats]  # the domains in the paper's order, then 'all'
    paper: PaperFigures
    not_executed: dict[str, str]  # task id → why its golden run failed (left out of the figures)


def has_parallel_calls(target: Target) -> bool:
    """Two or more golden calls share a turn: a `parallel:` group or a for_each fan-out."""
    turns = [c.turn for c in target.calls]
    return len(turns) != len(set(turns))


def executed_targets(tasks: Iterable[Task], backend: Backend) -> tuple[dict[str, Target], dict[str, str]]:
    """Each task's golden run executed now (so the figures describe the task files as they are), and the
    tasks whose run failed, with why."""
    targets: dict[str, Target] = {}
    failed: dict[str, str] = {}
    for task in tasks:
        try:
            targets[task.id] = compute_target(task, backend)
        except (GoldenError, RuntimeError) as exc:
            failed[task.id] = str(exc)
    return targets, failed


def _group(name: str, pairs: list[tuple[Task, Target]], paper_tasks: int) -> GroupStats:
    def mean(values: Iterable[float]) -> float:
        items = list(values)
        return round(statistics.fmean(items), 4) if items else 0.0

    return GroupStats(
        name=name, tasks=len(pairs), paper_tasks=paper_tasks,
        mean_steps=mean(len(task.golden) for task, _ in pairs),
        mean_calls=mean(t.optimal_calls for _, t in pairs),
        max_calls=max((t.optimal_calls for _, t in pairs), default=0),
        parallel_share=mean(has_parallel_calls(t) for _, t in pairs),
        mean_tools=mean(len(task.available_tools) for task, _ in pairs),
        mean_headroom=mean(t.max_allowed_calls / t.optimal_calls for _, t in pairs if t.optimal_calls),
    )


def set_stats(tasks: Iterable[Task], targets: dict[str, Target], not_executed: dict[str, str] | None = None
              ) -> SetStats:
    """Per-domain and overall figures over the tasks that have a target."""
    pairs = [(task, targets[task.id]) for task in tasks if task.id in targets]
    domains = [*PAPER.mix, *sorted({task.domain for task, _ in pairs} - set(PAPER.mix))]
    groups = [_group(d, [p for p in pairs if p[0].domain == d], PAPER.mix.get(d, 0)) for d in domains]
    groups.append(_group("all", pairs, PAPER.tasks))
    return SetStats(groups=groups, paper=PAPER, not_executed=dict(not_executed or {}))
