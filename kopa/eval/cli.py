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


@bench.command("run")
@click.option("--policy", default="oracle", show_default=True,
              help="oracle | first_page_only | skip_key | skip_lookup | openai (a model via --model/--base-url)")
@click.option("--backend", "backend_spec", default="sim", show_default=True, help="Where tools are answered.")
@click.option("-n", "--rollouts", type=int, default=4, show_default=True, help="Rollouts per task and seed.")
@click.option("--seeds", default="0", show_default=True, help="Comma-separated seeds (95% CIs are across seeds).")
@click.option("--tasks", "task_filter", default="", help="Comma-separated task ids or domains (default: all).")
@click.option("--workers", type=int, default=4, show_default=True, help="Episodes run in parallel.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Run folder (default runs/<policy>).")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--model", help="Model name (openai policy).")
@click.option("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM).")
@click.option("--llm-cache", type=click.Path(file_okay=False), help="Cache LLM calls here (record/replay).")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True)
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--judge-model", help="An LLM judge for open-ended answers (default: the offline judge).")
@click.option("--judge-base-url", help="OpenAI-compatible endpoint of the judge model.")
def bench_run(policy: str, backend_spec: str, rollouts: int, seeds: str, task_filter: str, workers: int,
              out_dir: str | None, force: bool, model: str | None, base_url: str | None, llm_cache: str | None,
              llm_mode: str, temperature: float, judge_model: str | None, judge_base_url: str | None) -> None:
    """Run episodes (resumable: finished episodes are skipped) and write the report.

    \b
      kopa bench run --policy oracle -n 4
      kopa bench run --policy skip_key --tasks finance,law --out runs/skip-key
      kopa bench run --policy openai --model Qwen/Qwen3.5-9B --base-url http://127.0.0.1:8000/v1 \\
                     --llm-cache runs/llm-cache --seeds 0,1,2,3,4,5,6,7
    """
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.eval.report import write_report
    from kopa.eval.runner import ConfigChanged, RunConfig, read_episodes, run_bench, select_tasks

    config = RunConfig(policy=policy, backend=backend_spec, rollouts=rollouts,
                       seeds=[int(s) for s in seeds.split(",") if s.strip()],
                       tasks=[t.strip() for t in task_filter.split(",") if t.strip()], model=model,
                       base_url=base_url, llm_cache=llm_cache, llm_mode=llm_mode, temperature=temperature,
                       judge_model=judge_model, judge_base_url=judge_base_url)
    target = Path(out_dir or f"runs/{policy}")
    try:
        total = len(select_tasks(config)) * len(config.seeds) * config.rollouts
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    already = len(read_episodes(target)) if (target / "config.json").exists() else 0
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        bar = progress.add_task(f"{policy} episodes", total=total, completed=min(already, total))
        try:
            episodes = run_bench(config, target, workers=workers, force=force,
                                 on_episode=lambda e: progress.advance(bar))
        except ConfigChanged as exc:
            raise click.UsageError(str(exc)) from exc
    metrics = write_report(target, episodes)
    o = metrics.overall
    console.print(f"{metrics.episodes} episodes · pass@1 {o.pass_at_1:.4f} · pass@{metrics.rollouts} "
                  f"{o.pass_at_k:.4f} · Action {o.action:.4f}")
    if metrics.causes:
        console.print("failures: " + ", ".join(f"{c} {n}" for c, n in metrics.causes.items()))
    console.print(f"report: {target / 'report.md'}")


@bench.command("show")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def bench_show(run_dir: str) -> None:
    """Re-render a run's report from its episodes (e.g. after a scoring fix, without re-running)."""
    from pathlib import Path

    from rich.markdown import Markdown

    from kopa.eval.report import write_report
    from kopa.eval.runner import read_episodes

    episodes = read_episodes(Path(run_dir))
    if not episodes:
        raise click.UsageError(f"{run_dir} has no episodes")
    write_report(Path(run_dir), episodes)
    console.print(Markdown((Path(run_dir) / "report.md").read_text(encoding="utf-8")))
