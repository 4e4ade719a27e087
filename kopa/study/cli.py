"""`kopa study pruning`. Imports click alone at module level, so `kopa --help` stays fast."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from kopa.cli_options import IntList, at_least, executor_options, out_option, role_option, workers_option
from kopa.console import LazyConsole
from kopa.errors import UserError

console = LazyConsole(soft_wrap=True)
T = TypeVar("T")


class Names(click.ParamType):
    """Comma-separated names, each one of `choices` (after `aliases`)."""

    name = "NAME[,NAME…]"

    def __init__(self, choices: tuple[str, ...], aliases: dict[str, str] | None = None) -> None:
        self.choices = choices
        self.aliases = aliases or {}

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        names = [self.aliases.get(v.strip(), v.strip()) for v in str(value).split(",") if v.strip()]
        bad = [n for n in names if n not in self.choices]
        if bad or not names:
            self.fail(f"{value!r}: valid: {', '.join(self.choices)}", param, ctx)
        if len(set(names)) != len(names):
            self.fail(f"{value!r}: a name is given twice", param, ctx)
        return tuple(names)


def _with_progress(preparing: str, workers: int, timed_from: str,
                   run: Callable[[Callable[[int, int], None], Callable[[int], None], Callable[[float, int], None]], T]
                   ) -> T:
    """A progress bar over a study's runs (a cell × a seed): `run(on_start, on_batch, on_estimate)` reports how
    many it will run (and how many a resume kept), each finished batch, and the grid's estimated time before
    it starts; the time it took is printed beside that estimate at the end."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from kopa.study.estimate import estimate_line, outcome_line

    told: list[tuple[float, float]] = []  # (estimated seconds, when the grid started)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console.real, transient=False) as progress:
        task = progress.add_task(preparing, total=None)

        def start(todo: int, done: int) -> None:
            progress.update(task, description=f"runs ({done} already done)", total=todo, completed=0)

        def estimate(seconds: float, runs: int) -> None:
            progress.console.print(estimate_line(seconds, runs, workers, timed_from))
            told.append((seconds, time.monotonic()))

        out = run(start, lambda n: progress.advance(task, n), estimate)
    if told:
        console.print(outcome_line(told[0][0], time.monotonic() - told[0][1]))
    return out


@click.group("study")
def study() -> None:
    """Studies that need the simulator's truth."""


EPILOG = """\b
Examples:
  kopa study pruning                                   the default grid (≈ 20 min on 2 cores, --workers 2)
  kopa study pruning --rates 0,20 --kinds mix --seeds 3 -o runs/study-small
  kopa study pruning --rules asymmetric,symmetric --retries off --workers 2
  kopa study pruning --executor ray --address auto     the same grid on a Ray cluster, same bytes out

\b
Kinds: mix (the realistic profile's environmental mix, scaled so that r of first attempts fail),
rate_limit, timeout, server_error (5xx), truncated (cut body), connection_reset, malformed (that kind
alone at r), drift (the mix at r, and the default drift scenario switched from epoch 0 to 1 after
iteration T/2). Rules: asymmetric (the paper), symmetric (environmental failures penalised as
structural), ignore (environmental failures carry no evidence and are no attempt).

\b
Kill it at any point and run the same command again: finished cells are kept and the rest run.
"""


@study.command("pruning", epilog=EPILOG, short_help="How pruning holds up under injected faults.")
@click.option("--rates", type=IntList(), default="0,5,10,20,40", show_default=True,
              help="Fault rates, in percent of first attempts failing environmentally.")
@click.option("--kinds", type=Names(("mix", "rate_limit", "timeout", "server_error", "truncated", "connection_reset",
                                     "malformed", "drift"), {"5xx": "server_error", "cut_body": "truncated"}),
              default="mix,rate_limit,timeout,server_error,truncated,drift", show_default=True,
              help="Fault kinds (5xx and cut_body are accepted for server_error and truncated).")
@click.option("--rules", type=Names(("asymmetric", "symmetric", "ignore")), default="asymmetric,symmetric,ignore",
              show_default=True, help="Phase A update rules for environmental failures.")
@click.option("--retries", type=Names(("off", "on")), default="off,on", show_default=True,
              help="Retry environmental failures: off = one attempt, on = up to 5 with backoff (virtual clock).")
@click.option("--seeds", type=at_least(1), default=5, show_default=True,
              help="Seeds 0..N-1 per cell: the path seed and the fault seed.")
@click.option("-T", "--iterations", "T", type=at_least(1), default=14, show_default=True,
              help="Phase A iterations per cell.")
@click.option("-M", "--paths", "M", type=at_least(1), default=150, show_default=True,
              help="Paths per iteration.")
@click.option("--platforms", type=str, default="dart,edu,krx,law", show_default=True,
              help="The tools of these platforms make the skeleton (the default fits the time budget).")
@click.option("--backend", "world_spec", default="sim", show_default=True, metavar="SPEC",
              help="The simulator every cell's faults wrap: sim[:seed=N,scale=small|full,today=YYYY-MM-DD] "
                   "(the study sets the faults and the drift itself).")
@out_option("Study folder: summary.json, grid.duckdb, report.md, plots/.", default="runs/study-pruning")
@click.option("--force", is_flag=True, help="Start over a study folder made with another configuration.")
@workers_option(1, "Cells run in parallel (the results do not depend on it).")
@executor_options
def pruning(rates, kinds, rules, retries, seeds, T, M, platforms, world_spec, out, force, workers, executor,
            address) -> None:
    """Fault-injection study of pruning robustness: how often Phase A prunes a truly bound edge or keeps a
    false one as environmental failures grow, per update rule, with and without retries.

    Each cell builds G* from the study's skeleton (built once) and measures it against the simulator's
    true bindings: true edges wrongly pruned (count and share), false edges retained, G* precision and
    recall, the held-out probe's execution figures and convergence. The report answers whether the
    asymmetric rule prunes fewer true edges than the symmetric one at 20% faults.
    """
    from kopa.study.grid import StudyConfig
    from kopa.study.pruning import run_study

    bad = [r for r in rates if not 0 <= r <= 100]
    if bad:
        raise UserError(f"--rates {bad}: a rate is a percent between 0 and 100")
    try:
        config = StudyConfig(rates=tuple(rates), kinds=kinds, rules=rules, retries=retries, seeds=seeds, T=T, M=M,
                             platforms=tuple(p.strip() for p in platforms.split(",") if p.strip()), world=world_spec)
    except ValueError as exc:
        raise UserError(f"kopa study pruning: {exc}") from exc
    folder = Path(out)
    try:
        rows = _with_progress("preparing (skeleton, truth, profiles)", workers,
                              "the first run's set-up, one of its iterations and its probe",
                              lambda start, advance, estimate: run_study(
                                  folder, config, executor=executor, workers=workers, address=address, force=force,
                                  on_start=start, on_batch=advance, on_estimate=estimate))
    except ValueError as exc:
        raise UserError(f"kopa study pruning: {exc}") from exc
    assert rows is not None
    from kopa.study.report import headline

    for x in config.retries:
        line = headline(rows, x)
        if line:
            console.print(line.replace("**", ""))
    from kopa.study.grid import units

    console.print(f"{len(rows) // config.seeds} cells × {config.seeds} seed{'s' if config.seeds != 1 else ''}, from {len(units(config, folder))} runs "
                  f"(the progress bar's count: at rate 0 every kind is one run) → {folder}/summary.json, "
                  f"{folder}/grid.duckdb, {folder}/report.md")


ROBUSTNESS_EPILOG = """\b
Examples:
  kopa study robustness                                the offline baselines on the default grid
  kopa study robustness --policies oracle --kinds mix,drift --rates 0,20 --seeds 2 --only finance,law
  kopa study robustness --policies openai --role agent=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1 --workers 2
  kopa study robustness --executor ray --address auto  the same grid on a Ray cluster, same bytes out
\b
Kinds: mix (the realistic profile's environmental mix, scaled so that r of first attempts fail),
rate_limit, timeout, server_error (5xx), truncated (cut body), connection_reset, malformed (that kind
alone at r), drift (the mix at r on the world at drift epoch 1). Policies: the offline baselines (oracle,
first_page_only, skip_key, skip_lookup) and openai (the model --role agent= names).
\b
Kill it at any point and run the same command again: finished cells are kept and the rest run.
"""


@study.command("robustness", epilog=ROBUSTNESS_EPILOG, short_help="How agents' scores degrade under faults and drift.")
@click.option("--policies", type=str, default="oracle,first_page_only", show_default=True,
              help="Comma-separated policies: offline baselines, or openai with --role agent=MODEL[@URL].")
@click.option("--rates", type=IntList(), default="0,10,20,40", show_default=True,
              help="Fault rates, in percent of first attempts failing environmentally.")
@click.option("--kinds", type=Names(("mix", "rate_limit", "timeout", "server_error", "truncated", "connection_reset",
                                     "malformed", "drift"), {"5xx": "server_error", "cut_body": "truncated"}),
              default="mix,rate_limit,timeout,server_error,truncated,drift", show_default=True,
              help="Fault kinds (5xx and cut_body are accepted for server_error and truncated).")
@click.option("--retries", type=Names(("off", "on")), default="off,on", show_default=True,
              help="Retry environmental failures: off = one attempt, on = up to 5 with backoff (virtual clock).")
@click.option("--seeds", type=at_least(1), default=3, show_default=True,
              help="Seeds 0..N-1 per cell: the fault seed and the policy seed; CIs are across them.")
@click.option("--tasks", "tasks_path", type=click.Path(exists=True, file_okay=False), default=None,
              help="Another task set (a folder with tasks/ and targets/; default KOPA-Bench).")
@click.option("--only", type=str, default="", help="Comma-separated task ids or domains.")
@click.option("--backend", "world_spec", default="sim", show_default=True, metavar="SPEC",
              help="The simulator every cell's faults wrap: sim[:seed=N,scale=small|full,today=YYYY-MM-DD].")
@role_option({"agent": "the model of the openai policy"})
@out_option("Study folder: summary.json, grid.duckdb, report.md, plots/.", default="runs/study-robustness")
@click.option("--force", is_flag=True, help="Start over a study folder made with another configuration.")
@workers_option(1, "Cells run in parallel (the results do not depend on it).")
@executor_options
def robustness(policies, rates, kinds, retries, seeds, tasks_path, only, world_spec, roles, out, force, workers,
               executor, address) -> None:
    """How an agent's KOPA-Bench score degrades as environmental faults and endpoint drift grow: per policy,
    fault kind and rate, with and without retries, pass@1 and Action with 95% bootstrap intervals over tasks, the share of
    episodes that met a fault and the failure causes that grew.
    """
    from kopa.study.robustness import RobustnessConfig, run_study

    bad = [r for r in rates if not 0 <= r <= 100]
    if bad:
        raise UserError(f"--rates {bad}: a rate is a percent between 0 and 100")
    agent = roles.get("agent")
    try:
        config = RobustnessConfig(rates=tuple(rates), kinds=kinds, retries=retries, seeds=seeds, world=world_spec,
                                  policies=tuple(p.strip() for p in policies.split(",") if p.strip()),
                                  task_set=str(Path(tasks_path).resolve()) if tasks_path else None,
                                  only=tuple(x.strip() for x in only.split(",") if x.strip()),
                                  model=agent.model if agent else None, base_url=agent.base_url if agent else None,
                                  llm_cache=str((Path(out) / "llm-cache").resolve()) if agent else None)
    except ValueError as exc:
        raise UserError(f"kopa study robustness: {exc}") from exc
    folder = Path(out)
    rows = _with_progress("preparing (profiles)", workers, "the first run's first episodes",
                          lambda start, advance, estimate: run_study(
                              folder, config, executor=executor, workers=workers, address=address, force=force,
                              on_start=start, on_batch=advance, on_estimate=estimate))
    assert rows is not None
    from kopa.study.robustness_report import tables

    console.print("\n".join(tables(config.model_copy(update={"kinds": config.kinds[:1], "retries": config.retries[:1]}),
                                   rows)))
    from kopa.study.robustness import units

    console.print(f"{len(rows)} cells × {config.seeds} seed{'s' if config.seeds != 1 else ''}, from {len(units(config, folder))} runs (the progress "
                  f"bar's count) → {folder}/summary.json, {folder}/grid.duckdb, {folder}/report.md, {folder}/plots/")
