"""`kopa bench …`: task targets, lint, statistics, runs and reports."""

from __future__ import annotations

import sys

import click
from rich.console import Console
from rich.table import Table

console = Console(soft_wrap=True)


@click.group("bench")
def bench() -> None:
    """KOPA-Bench: tasks, golden targets, lint, runs and reports."""


def _tasks(domain: str | None):
    from kopa.eval.task import load_tasks

    tasks = [t for t in load_tasks() if domain is None or t.domain == domain]
    if not tasks:
        raise click.UsageError(f"no tasks{f' in domain {domain!r}' if domain else ''}")
    return tasks


@bench.command("targets")
@click.option("--domain", help="Only this domain's tasks (its targets file is rewritten).")
def bench_targets(domain: str | None) -> None:
    """Execute every golden trajectory on the simulator and write benchmark/targets/<domain>.json."""
    from kopa.eval.targets import write_targets

    tasks = _tasks(domain)
    targets = write_targets(tasks)
    console.print(f"{len(targets)} targets written for {len({t.domain for t in tasks})} domain(s)")


@bench.command("lint")
@click.option("--domain", help="Only this domain.")
def bench_lint(domain: str | None) -> None:
    """Check every task: tools, argument schemas, reachable answer, chain, cardinality, headroom, leaks."""
    from rich.progress import track

    from kopa.backends import open_backend
    from kopa.eval.lint import lint_task

    backend = open_backend("sim")
    tasks = _tasks(domain)
    bad = 0
    for task in track(tasks, description="linting", console=console, transient=True):
        result = lint_task(task, backend)
        for problem in result.problems:
            console.print(f"[red]{task.id}[/red]: {problem}")
        bad += not result.ok
    console.print(f"{len(tasks) - bad}/{len(tasks)} tasks pass lint")
    sys.exit(1 if bad else 0)


@bench.command("stats")
def bench_stats() -> None:
    """The task set's mix and difficulty, as the paper reports them."""
    from kopa.backends import open_backend
    from kopa.eval.lint import lint_task

    backend = open_backend("sim")
    tasks = _tasks(None)
    results = [lint_task(t, backend) for t in tasks]
    table = Table(title=f"{len(tasks)} tasks")
    for col in ("domain", "tasks", "platforms", "avg steps", "avg calls", "max calls", "parallel %",
                "avg tools"):
        table.add_column(col)
    rows = {}
    for task, res in zip(tasks, results, strict=True):
        rows.setdefault(task.domain, []).append((task, res))
    for domain, items in [*sorted(rows.items()), ("all", list(zip(tasks, results, strict=True)))]:
        n = len(items)
        table.add_row(domain, str(n), ",".join(sorted({p for t, _ in items for p in t.platforms})),
                      f"{sum(r.stats.steps for _, r in items) / n:.2f}", f"{sum(r.stats.calls for _, r in items) / n:.2f}",
                      str(max(r.stats.calls for _, r in items)),
                      f"{100 * sum(r.stats.parallel for _, r in items) / n:.0f}",
                      f"{sum(len(t.available_tools) for t, _ in items) / n:.1f}")
    console.print(table)
