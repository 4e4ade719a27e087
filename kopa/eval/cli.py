"""`kopa bench …`: task targets, lint, statistics, runs and reports."""

from __future__ import annotations

import sys
from collections import Counter
from contextlib import contextmanager

import click

from kopa.cli_options import (
    IntList,
    ModelRef,
    at_least,
    backend_options,
    check_llm_mode,
    compose_backend,
    executor_options,
    json_option,
    out_option,
    role_option,
    workers_option,
)
from kopa.console import LazyConsole, Table
from kopa.errors import UserError

console = LazyConsole(soft_wrap=True)

# kopa.eval.policies' registry and the model policy, spelled here so that `--help` imports no policy code
# (tests/test_cli_language.py checks the two agree).
POLICY_NAMES = ("oracle", "first_page_only", "skip_key", "skip_lookup", "openai")


@click.group("bench")
def bench() -> None:
    """KOPA-Bench: tasks, golden targets, lint, runs and reports."""


tasks_option = click.option(
    "--tasks", "tasks_path", type=click.Path(file_okay=False),
    help="A task set: a folder with tasks/*.yaml and targets/*.json (default: KOPA-Bench).")


def _task_set(tasks_path: str | None):
    """The task set at ``tasks_path`` (default KOPA-Bench); a bad folder or task file is a one-line error."""
    from kopa.eval.task import TaskFileError, task_set

    try:
        found = task_set(tasks_path)
        found.tasks()  # validate the task files now, so a bad one is reported as the option's fault
    except TaskFileError as exc:
        raise click.BadParameter(str(exc), param_hint="--tasks") from exc
    return found


def _tasks(domain: str | None, tasks_path: str | None = None):
    """The tasks of the task set at ``tasks_path`` (default KOPA-Bench), only ``domain``'s if given."""
    tasks = [t for t in _task_set(tasks_path).tasks() if domain is None or t.domain == domain]
    if not tasks:
        raise click.UsageError(f"no tasks{f' in domain {domain!r}' if domain else ''}")
    return tasks


@bench.command("targets", short_help="Execute the golden trajectories and write the targets.")
@click.option("--domain", help="Only this domain's tasks (its targets file is rewritten).")
@tasks_option
def bench_targets(domain: str | None, tasks_path: str | None) -> None:
    """Execute every golden trajectory on the simulator and write the task set's targets/<domain>.json.

    A task set that records its world (world.json, e.g. one `kopa edge filter` wrote) is executed on that
    world, and its world.json rewritten to match (a changed world generator changes its content hash)."""
    from kopa.eval.targets import write_set_targets

    tasks = _tasks(domain, tasks_path)
    targets = write_set_targets(_task_set(tasks_path), tasks, every_domain=domain is None)
    console.print(f"{len(targets)} targets written for {len({t.domain for t in tasks})} domain(s)")


@bench.command("lint", short_help="Check tasks against the task contract.")
@click.option("--domain", help="Only this domain.")
@tasks_option
@click.option("--file", "task_file", type=click.Path(exists=True, dir_okay=False),
              help="Lint the tasks of one YAML task file instead (e.g. tests/data/defective_tasks.yaml).")
def bench_lint(domain: str | None, tasks_path: str | None, task_file: str | None) -> None:
    """Check every task against the task contract (issue 9), on its executed golden run.

    Prints each problem as TASK: problem (where it applies first: step S, answer, query, golden) and
    exits 1 when any task fails.

    \b
      kopa bench lint --domain law
      kopa bench lint --file tests/data/defective_tasks.yaml
    """
    from collections import Counter

    from rich.markup import escape
    from rich.progress import track

    from kopa.backends import open_backend
    from kopa.eval.lint import lint_task

    if task_file is not None:
        if tasks_path is not None:
            raise click.UsageError("give --tasks or --file, not both")
        tasks = _task_file(task_file, domain)
    else:
        tasks = _tasks(domain, tasks_path)
    backend = open_backend("sim")
    bad = 0
    kinds: Counter[str] = Counter()
    for task in track(tasks, description="linting", console=console.real, transient=True):
        result = lint_task(task, backend)
        for problem in result.problems:
            console.print(f"[red]{escape(task.id)}[/red]: {escape(problem)}")
        bad += not result.ok
        kinds.update(result.kinds)
    console.print(f"{len(tasks) - bad}/{len(tasks)} tasks pass lint")
    if kinds:
        console.print("failing tasks per check: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    sys.exit(1 if bad else 0)


def _task_file(path: str, domain: str | None):
    """The tasks of one YAML file (``--file``), only ``domain``'s if given; a bad file is a one-line error."""
    from pathlib import Path

    from kopa.eval.task import TaskFileError, load_task_file

    try:
        tasks = [t for t in load_task_file(Path(path)) if domain is None or t.domain == domain]
    except TaskFileError as exc:
        raise click.BadParameter(str(exc), param_hint="--file") from exc
    if not tasks:
        raise click.UsageError(f"no tasks in {path}{f' in domain {domain!r}' if domain else ''}")
    return tasks


@bench.command("stats", short_help="The task set's figures beside the paper's.")
@tasks_option
@json_option("Print the figures as JSON.")
def bench_stats(tasks_path: str | None, as_json: bool) -> None:
    """The task set's mix and difficulty beside the paper's figures, from executed golden runs."""
    from rich.markup import escape

    from kopa.backends import open_backend
    from kopa.eval.stats import executed_targets, set_stats

    tasks = _tasks(None, tasks_path)
    targets, failed = executed_targets(tasks, open_backend("sim"))
    stats = set_stats(tasks, targets, failed)
    if as_json:
        click.echo(stats.model_dump_json(indent=2))
        return
    from rich import box

    paper = stats.paper
    table = Table(title=f"{stats.groups[-1].tasks} tasks beside the paper's figures", box=box.SIMPLE_HEAD)
    table.add_column("domain", no_wrap=True)
    for col in ("tasks", "paper", "steps", "calls", "max", "par %", "tools", "headroom"):
        table.add_column(col, justify="right", no_wrap=True)
    for g in stats.groups:
        table.add_row(g.name, str(g.tasks), str(g.paper_tasks), f"{g.mean_steps:.2f}", f"{g.mean_calls:.2f}",
                      str(g.max_calls), f"{100 * g.parallel_share:.0f}", f"{g.mean_tools:.1f}",
                      f"{g.mean_headroom:.2f}", end_section=g.name == "all")
    table.add_row("paper", str(paper.tasks), "", f"{paper.mean_steps:.2f}", f"{paper.mean_calls:.2f}",
                  str(paper.max_calls), f"{100 * paper.parallel_share:.0f}", f"{paper.mean_tools:.1f}",
                  f"{paper.mean_headroom:.2f}", style="dim")
    table.caption = ("means per task. steps: top-level golden steps; calls: executed golden calls (max: the "
                     "most); par %: tasks with two or more calls in one turn; tools: available tools; "
                     "headroom: max_allowed_calls / optimal calls")
    console.print(table)
    for task_id, why in failed.items():
        console.print(f"[yellow]{task_id}[/yellow]: not counted, its golden run fails: {escape(why)}")


def _run_options(rollouts: int):
    """What a run is made of, the same for `bench run` and `bench baselines` (rollouts: the default -n)."""
    return lambda f: _with_run_options(f, rollouts)


def _with_run_options(f, rollouts: int):
    f = workers_option(4, "Episodes run in parallel (the results do not depend on it).")(f)
    f = click.option("--only", "only", default=None, help="Comma-separated task ids or domains (default: all).")(f)
    f = tasks_option(f)
    f = click.option("--policy-seeds", type=IntList(low=0, high=2**32 - 1), default="0", show_default=True,
                     help="Comma-separated policy seeds: episodes are sampled once per seed and rollout "
                          "(the report shows each seed's pass@1 beside the 95% interval over tasks). The world's seed is the "
                          "backend's sim:seed=N.")(f)
    f = click.option("-n", "--rollouts", type=at_least(1), default=rollouts, show_default=True,
                     help="Rollouts per task and policy seed.")(f)
    f = backend_options(f)
    return f


@bench.command("run", short_help="Play a policy's episodes, score them, write the report.")
@click.option("--policy", type=click.Choice(POLICY_NAMES), default="oracle", show_default=True,
              help="Who plays: the oracle, a failure-mode baseline, or openai (the model --role agent=… names).")
@_run_options(rollouts=4)
@executor_options
@out_option("Run folder (default runs/<policy>).")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@role_option({"agent": "the model that plays (--policy openai)",
              "judge": "an LLM judge for open-ended answers (default: the offline judge)"})
@click.option("--llm-cache", type=click.Path(file_okay=False), help="Cache LLM calls here (record/replay).")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True,
              help="With --llm-cache: auto answers from the cache and asks the model on a miss; record always "
                   "asks and stores; replay never asks (a miss is an error).")
@click.option("--temperature", type=float, default=0.0, show_default=True,
              help="Sampling temperature of the model (openai policy); the policy seed seeds its sampling.")
@click.option("--max-turns", type=at_least(1), default=16, show_default=True,
              help="Model calls per episode (openai policy); an episode that uses them all has no answer.")
@click.option("--max-tool-chars", type=at_least(200), default=24_000, show_default=True,
              help="A tool result the model reads is cut to this many characters (trailing records dropped, "
                   "with a note); each episode records whether a cut happened.")
@click.option("--max-tokens", type=at_least(1), default=None,
              help="max_tokens of every model request (default: the server's).")
@click.option("--episode-seconds", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Wall-clock limit per episode: no model call starts after it (default: none).")
@click.option("--llm-timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="Seconds one model request may take.")
@click.option("--llm-retries", type=at_least(0), default=2, show_default=True,
              help="Retries of a failed model request (5xx, 408, 409, 429, a timeout, a lost connection), by "
                   "kopa with backoff (0.5 s doubling, or the server's Retry-After): N retries is at most N + 1 "
                   "attempts, each counted in the episode's usage; an episode still failing is not played.")
@click.option("--tools", "tools", metavar="mcp:COMMAND|mcp:URL",
              help="List and call the tools over MCP instead of in-process: a kopa MCP server started as a "
                   "stdio command (mcp:'kopa mcp serve --backend sim') or at a Streamable HTTP URL. The "
                   "server's own --backend answers; --backend/--record/--faults are then not used.")
def bench_run(policy: str, backend_spec: str, record_dir: str | None, faults: str | None, rollouts: int,
              policy_seeds: list[int], tasks_path: str | None, only: str | None, workers: int, executor: str,
              address: str | None, out: str | None, force: bool, roles: dict[str, ModelRef],
              llm_cache: str | None, llm_mode: str, temperature: float, max_turns: int, max_tool_chars: int, max_tokens: int | None,
              episode_seconds: float | None, llm_timeout: float, llm_retries: int, tools: str | None) -> None:
    """Run episodes (resumable: finished episodes are skipped), score them from the stored files and
    write the report.

    \b
      kopa bench run --policy oracle -n 4
      kopa bench run --policy skip_key --only finance,law --out runs/skip-key
      kopa bench run --policy oracle -n 1 --faults realistic,seed=1 --record runs/rec-bench
      kopa bench run --tasks my-task-set --policy oracle -n 1
      kopa bench run --policy openai --role agent=Qwen/Qwen3.5-9B@http://127.0.0.1:8000/v1 \\
                     --llm-cache runs/llm-cache --policy-seeds 0,1,2,3,4,5,6,7
      kopa bench run --policy oracle --executor ray --address auto
      kopa bench run --policy oracle -n 1 --tools "mcp:kopa mcp serve --backend sim" --out runs/oracle-mcp

    With --executor local, an offline policy's episodes run on --workers processes forked once this one has
    loaded the task set and the world (they share it, and use the cores); a model's on --workers threads
    (they wait on the model's server); with ray, as Ray tasks.
    """
    from pathlib import Path

    from kopa.eval.runner import RunConfig

    agent, judge = roles.get("agent"), roles.get("judge")
    if policy == "openai" and agent is None:
        raise click.UsageError("--policy openai needs --role agent=MODEL[@URL]")
    if policy != "openai" and agent is not None:
        raise click.UsageError(f"--role agent=…: a model plays only with --policy openai, not {policy}")
    check_llm_mode(llm_mode, llm_cache)
    if tools is not None:
        _check_tools(tools, record_dir, faults)
    found = _task_set(tasks_path)
    config = RunConfig(policy=policy, backend=compose_backend(backend_spec, record_dir, faults), rollouts=rollouts,
                       seeds=policy_seeds, task_set=tasks_path, only=_only(only),
                       model=agent.model if agent else None, base_url=agent.base_url if agent else None,
                       llm_cache=llm_cache, llm_mode=llm_mode, temperature=temperature,
                       judge_model=judge.model if judge else None, judge_base_url=judge.base_url if judge else None,
                       max_turns=max_turns, max_tool_chars=max_tool_chars,
                       max_tokens=max_tokens, episode_seconds=episode_seconds, llm_timeout=llm_timeout,
                       llm_retries=llm_retries, tools=tools)
    target = Path(out or f"runs/{policy}")
    total = _episode_count(config, found)
    with _episode_executor(config, executor, workers, address) as units:
        scored = _run_with_progress([(config, target)], total, workers, force, executor=units)
    if scored[0]:
        _report(target, scored[0])
    if _unplayed(target):
        raise SystemExit(1)


@contextmanager
def _episode_executor(config, executor: str, workers: int, address: str | None):
    """Where `bench run` plays episodes: Ray's tasks; forked processes for an offline policy on --workers > 1
    (Python-bound: threads would share one core); else None, the --workers threads of this process."""
    from kopa.eval.runner import forkable
    from kopa.executor import LocalExecutor, open_executor

    if executor != "local":
        with open_executor(executor, workers=workers, address=address) as units:
            yield units
    elif workers > 1 and forkable(config):
        with LocalExecutor(workers, fork=True) as forked:
            yield forked
    else:
        open_executor(executor, workers=workers, address=address).close()  # its checks (--address) still apply
        yield None


def _check_tools(tools: str, record_dir: str | None, faults: str | None) -> None:
    """--tools mcp:…: the server's backend answers, so a backend chosen here would silently go unused."""
    from click.core import ParameterSource

    if not tools.startswith("mcp:") or not tools[4:].strip():
        raise click.BadParameter(f"{tools!r}: expected mcp:COMMAND or mcp:URL", param_hint="'--tools'")
    explicit = click.get_current_context().get_parameter_source("backend_spec") != ParameterSource.DEFAULT
    if explicit or record_dir or faults:
        raise click.UsageError("--tools mcp:…: the MCP server's own --backend/--faults answer the calls; give "
                               "them to `kopa mcp serve`, not to `kopa bench run`")


def _only(text: str | None) -> list[str]:
    """The ids and domains --only names; not given: all. Given empty (`--only ""`, a shell variable that was
    never set) it names nothing, which is refused rather than read as all."""
    if text is None:
        return []
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise click.BadParameter(f"{text!r} names no task id or domain (leave --only out to run all)",
                                 param_hint="'--only'")
    return names


def _episode_count(config, found) -> int:
    """How many episodes the config asks for; an --only naming no task is the option's error."""
    from kopa.eval.runner import select_tasks

    try:
        return len(select_tasks(config, found.tasks())) * len(config.seeds) * config.rollouts
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--only'") from exc


def _run_with_progress(runs, total: int, workers: int, force: bool, executor=None) -> list:
    """Play and score each (config, folder) in turn under one progress bar; the scored episodes of each.
    Episodes run on ``workers`` threads, or as units on ``executor`` when one is given."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.eval.runner import ConfigChanged, read_episodes, run_bench

    results = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console.real, transient=True) as progress:
        bar = progress.add_task("episodes", total=total)
        for config, folder in runs:
            already = len(read_episodes(folder)) if (folder / "config.json").exists() else 0
            progress.update(bar, description=f"{config.policy} episodes", advance=already)
            try:
                results.append(run_bench(config, folder, workers=workers, force=force, executor=executor,
                                         on_episode=lambda e: progress.advance(bar)))
            except ConfigChanged as exc:
                raise click.UsageError(str(exc)) from exc
            except UserError:
                raise  # one line and exit 2 (a folder another run is writing, a refused backend …)
            except ValueError as exc:  # a missing model or target
                raise click.ClickException(str(exc)) from exc
    return results


@bench.command("baselines", short_help="The oracle and the failure-mode policies side by side.")
@_run_options(rollouts=1)
@out_option("Folder of the comparison: one run folder per baseline inside it.", default="runs/baselines")
@click.option("--force", is_flag=True, help="Discard run folders made with another configuration.")
def bench_baselines(backend_spec: str, record_dir: str | None, faults: str | None, rollouts: int,
                    policy_seeds: list[int], tasks_path: str | None, only: str | None, workers: int, out: str,
                    force: bool) -> None:
    """KOPA-Bench with the offline baselines: the oracle and the failure-mode policies (skip_key,
    first_page_only, skip_lookup), then one table — pass@1, Action and the top failure causes per policy —
    and the comparison report with its plots. About a minute on two cores with -n 1 (the default here).

    \b
      kopa bench baselines
      kopa bench baselines --faults realistic --out runs/baselines-faults
      kopa bench baselines --only finance,law -n 2
    """
    from pathlib import Path

    from rich import box

    from kopa.eval.baselines import BASELINES, top_causes, write_comparison
    from kopa.eval.report import write_report
    from kopa.eval.runner import RunConfig

    found = _task_set(tasks_path)
    root = Path(out)
    runs = [(RunConfig(policy=name, backend=compose_backend(backend_spec, record_dir, faults), rollouts=rollouts,
                       seeds=policy_seeds, task_set=tasks_path, only=_only(only)), root / name)
            for name in BASELINES]
    total = sum(_episode_count(config, found) for config, _ in runs)
    with _episode_executor(runs[0][0], "local", workers, None) as units:  # every baseline is offline alike
        played = _run_with_progress(runs, total, workers, force, executor=units)
    if sum(_unplayed(folder) for _, folder in runs):
        raise SystemExit(1)  # a comparison over episodes some policies did not play would not be one
    metrics = {config.policy: write_report(folder, scored) for (config, folder), scored in zip(runs, played, strict=True)}
    report = write_comparison(metrics, root)
    table = Table(title=f"KOPA-Bench, {next(iter(metrics.values())).overall.tasks} tasks on "
                        f"{runs[0][0].backend} — offline baselines", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("policy", no_wrap=True)
    table.add_column("pass@1", justify="right")
    table.add_column("Action", justify="right")
    table.add_column("top failure causes")
    for name, m in metrics.items():
        table.add_row(name, f"{m.overall.pass_at_1:.4f}", f"{m.overall.action:.4f}", top_causes(m))
    console.print(table)
    console.print(f"report: {report} (plots: {root / 'plots' / 'baselines.png'}; each policy's run folder, "
                  f"report and plots under {root}/<policy>/)")


def _unplayed(folder) -> int:
    """Say how many episodes could not be played and why (the first reason); their number."""
    from kopa.eval.runner import read_unplayed

    unplayed = read_unplayed(folder)
    if unplayed:
        console.print(f"[bold]{len(unplayed)} episode(s) not played[/bold] (the model server or an MCP server "
                      f"failed; not counted in any figure): {unplayed[0].error}")
        console.print(f"run the same command again to play them · reasons: {folder / 'unplayed.jsonl'}")
    return len(unplayed)


def _report(folder, scored) -> None:
    """Write the folder's report from its scored episodes and print the headline numbers."""
    from kopa.eval.report import write_report

    metrics = write_report(folder, scored)
    o = metrics.overall
    at_k = f" · pass@{metrics.rollouts} {o.pass_at_k:.4f}" if metrics.rollouts > 1 else ""
    console.print(f"{metrics.episodes} episodes · pass@1 {o.pass_at_1:.4f}{at_k} · Action {o.action:.4f}")
    if metrics.causes:
        console.print("failures: " + ", ".join(f"{c} {n}" for c, n in metrics.causes.items()))
    console.print(f"report: {folder / 'report.md'}")


@bench.command("show", short_help="Re-render a run folder's report.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def bench_show(run_dir: str) -> None:
    """Re-render a folder's report from its scores.jsonl (a run folder, or one `bench score --out` wrote)."""
    from pathlib import Path

    from rich.markdown import Markdown

    from kopa.eval.report import write_report
    from kopa.eval.runner import RunFolderError, read_scores

    scored = read_scores(Path(run_dir))  # no scores.jsonl, or a damaged one: a user error (exit 2)
    if not scored:
        raise RunFolderError(f"{run_dir} has no scored episodes")
    write_report(Path(run_dir), scored)
    console.print(Markdown((Path(run_dir) / "report.md").read_text(encoding="utf-8")))


@bench.command("view", short_help="The run as pages in the browser: a table of episodes, each trajectory.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@out_option("Write the site here (default: RUN_DIR/view).")
def bench_view(run_dir: str, out: str | None) -> None:
    """Write a static site of a scored run (no server: open index.html from disk): a table of episodes with
    filters (domain, verdict, failure cause, policy seed), and per episode the query, every message, each
    tool call with its arguments, result (records in collapsible pages), error and attempts, the final
    answer and the verdict with its method — beside the golden trajectory.

    \b
      kopa bench run --policy oracle -n 1 --out runs/oracle && kopa bench view runs/oracle
      kopa bench view runs/qwen --out /tmp/qwen-view
    """
    from pathlib import Path

    from kopa.eval.view import write_view

    index = write_view(Path(run_dir), Path(out) if out else None)
    console.print(f"{index} — open it in a browser (file://{index.resolve()})")


@bench.command("score", short_help="Re-score a finished run from its stored files.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@out_option("Write scores.jsonl, scoring.json and the report here (default: the run folder).")
@role_option({"judge": "an LLM judge for open-ended answers (default: the offline judge)"})
@workers_option(4, "Episodes scored in parallel (the scores do not depend on it).")
def bench_score(run_dir: str, out: str | None, roles: dict[str, ModelRef], workers: int) -> None:
    """Re-score a finished run from its stored episodes with the current scorers — RESPONSE from the
    stored answers, ENVIRONMENT from the stored end states, ACTION from the stored calls. No tool is
    called and no model asked (unless --role judge=…); episodes.jsonl and transcripts are left untouched.

    \b
      kopa bench score runs/oracle
      kopa bench score runs/qwen --out runs/qwen-rescored --role judge=gpt-4.1
    """
    from pathlib import Path

    from kopa.eval.runner import score_run

    folder = Path(out) if out else Path(run_dir)
    # a folder that is no run, a damaged or cut episodes.jsonl, a task set that cannot score it: user errors,
    # one line and exit 2 (kopa's top-level group)
    judge = roles.get("judge")
    scored = score_run(Path(run_dir), folder, judge_model=judge.model if judge else None,
                       judge_base_url=judge.base_url if judge else None, workers=workers)
    _report(folder, scored)


_EXPECT = ("pass", "fail", "undecided")
_EXPECT_OF = {True: "pass", False: "fail", None: "undecided"}


def _confusion_line(confusion: Counter[tuple[str, str]]) -> str:
    """expected pass: 388 pass, 0 fail, 2 undecided · expected fail: … · wrong verdicts 0 of 910"""
    parts = [f"expected {e}: " + ", ".join(f"{confusion[(e, g)]} {g}" for g in _EXPECT)
             for e in _EXPECT if any(confusion[(e, g)] for g in _EXPECT)]
    wrong = confusion[("pass", "fail")] + confusion[("fail", "pass")]
    return " · ".join(parts) + f" · wrong verdicts {wrong} of {sum(confusion.values())}"


@bench.command("score-answer", short_help="Score answers against a task's target (RESPONSE).")
@click.argument("task_id", required=False)
@click.argument("answer", required=False)
@click.option("--jsonl", "jsonl", type=click.File("r", encoding="utf-8"),
              help='Score many: one {"task": ID, "answer": TEXT} per line ("-" reads stdin); prints one '
                   "JSON verdict per line, in order.")
@json_option("Print the verdict as JSON.")
@tasks_option
def bench_score_answer(task_id: str | None, answer: str | None, jsonl, as_json: bool, tasks_path: str | None
                       ) -> None:
    """Score final answers against a task's target with the RESPONSE scorer (offline judge; no tool call).

    \b
      kopa bench score-answer finance-001 "\\boxed{43.80}%"
      kopa bench score-answer --jsonl answers.jsonl > verdicts.jsonl
    Bad lines of --jsonl get an error verdict naming the line, the others are scored, and the command ends
    with one line counting them and exit status 2 (a bad input). Lines that carry "expect" (pass, fail or
    undecided: a grading set, e.g. tests/data/grading_set.jsonl) get it echoed, and a last line on stderr
    counts the verdicts against it: wrong verdicts (a pass expected to fail, a fail expected to pass) and
    undecided apart.
    """
    import json

    from kopa.eval.scoring.episode import answer_verdict

    if (jsonl is None) == (task_id is None):
        raise click.UsageError("give TASK_ID and ANSWER, or --jsonl FILE (not both)")
    found = _task_set(tasks_path)
    tasks = {t.id: t for t in found.tasks()}
    targets = found.targets()

    def verdict(tid: str, text: str | None) -> dict:
        result = answer_verdict(tasks[tid], targets[tid], text)
        return {"task": tid, "passed": result.passed, "method": result.method, "details": result.details}

    def unscorable(tid: str) -> str | None:
        if tid not in tasks:
            return f"unknown task {tid!r}"
        if tid not in targets:
            return f"task {tid!r} has no target; run `kopa bench targets`"
        return None

    if jsonl is None:
        assert task_id is not None  # given exactly when --jsonl is not (checked above)
        if answer is None:
            raise click.UsageError("give the ANSWER text after TASK_ID")
        problem = unscorable(task_id)
        if problem:
            raise click.BadParameter(problem, param_hint="TASK_ID")
        out = verdict(task_id, answer)
        if as_json:
            click.echo(json.dumps(out, ensure_ascii=False))
        else:
            mark = {True: "PASS", False: "FAIL", None: "UNDECIDED"}[out["passed"]]
            click.echo(f"{mark}  {out['method']}  {out['details']}")
        return
    if answer is not None or task_id is not None:
        raise click.UsageError("give TASK_ID and ANSWER, or --jsonl FILE (not both)")
    bad, first = 0, ""
    confusion: Counter[tuple[str, str]] = Counter()
    try:
        numbered = list(enumerate(jsonl, 1))
    except UnicodeDecodeError as exc:
        raise UserError(f"--jsonl {jsonl.name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    for number, line in numbered:
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            item, problem = None, f"line {number}: not JSON: {exc}"
        else:
            problem = None
        if problem is None:
            if (not isinstance(item, dict) or not isinstance(item.get("task"), str) or "answer" not in item
                    or not isinstance(item["answer"], str | None)):
                problem = f'line {number}: expected {{"task": ID, "answer": TEXT}}'
            else:
                problem = unscorable(item["task"])
                problem = f"line {number}: {problem}" if problem else None
        if problem is not None:
            bad += 1
            first = first or problem
            tid = item.get("task") if isinstance(item, dict) and isinstance(item.get("task"), str) else None
            out = {"line": number, "task": tid, "passed": None, "method": "error", "details": problem}
        else:
            out = {"line": number, **verdict(item["task"], item["answer"])}
            if item.get("expect") in _EXPECT:
                out["expect"] = item["expect"]
                confusion[(item["expect"], _EXPECT_OF[out["passed"]])] += 1
        click.echo(json.dumps(out, ensure_ascii=False))
    if confusion:
        click.echo(_confusion_line(confusion), err=True)
    if bad:
        raise UserError(f"--jsonl {jsonl.name}: {bad} bad line(s), each with an error verdict above (first: {first})")
