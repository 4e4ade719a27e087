"""`kopa edge synth`, `kopa edge filter` and `kopa edge sample`: EDGE Phase B on the command line.

They sit under `kopa edge` beside Phase A's commands (kopa/cli.py attaches them there), but live here:
Phase B is the layer above Phase A, and edge may not import it.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from kopa.cli_options import (
    SEED,
    ModelRef,
    at_least,
    backend_options,
    compose_backend,
    executor_options,
    out_option,
    role_option,
    workers_option,
)
from kopa.console import LazyConsole, stage_bars

console = LazyConsole(soft_wrap=True)


@click.command("synth", short_help="Phase B: cardinality-typed trajectories on G*, as KOPA-Bench tasks.")
@click.option("--graph", "graph_run", required=True, type=click.Path(exists=True, file_okay=False),
              help="A finished `kopa edge graph build` run folder (graph.json, values.json: the cache C).")
@out_option("Run folder: parts/, candidates.jsonl, failures.jsonl (then `kopa edge filter DIR`).",
            default="runs/synth")
@click.option("--count", type=at_least(1), default=100, show_default=True,
              help="Candidates to synthesize (executed trajectories before filtering).")
@click.option("--path-seed", type=SEED, default=0, show_default=True,
              help="The seed Phase B samples its trajectories on G* with: each draws from the stream "
                   "(seed, index).")
@workers_option(1, "Worker processes building chunks of trajectories (the dataset does not depend on it).")
@click.option("--hold-out-platforms", default="", metavar="P,Q",
              help="Platforms left out of synthesis (e.g. seoul,dart,krx, as the paper's held-out study).")
@click.option("--max-pages", type=at_least(1), default=250, show_default=True,
              help="Pages one call may read in full (the paper's largest handoff, 224,958 records, is 225 "
                   "pages of 1,000); a step whose answer needs more is not built.")
@click.option("--writer", type=click.Choice(["intents", "chat"]), default="intents", show_default=True,
              help="intents: the hand-written question bank realized on G* (offline, kopa/bank/data); "
                   "chat: walks on G* put into words by the chat model --role writer=… names.")
@role_option({"writer": "the chat model of --writer chat"})
@click.option("--llm-cache", default="runs/llm-cache", show_default=True, type=click.Path(file_okay=False),
              help="--writer chat: where replies are cached by request hash (replayed offline).")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--filter", "then_filter", is_flag=True,
              help="Then filter the candidates as `kopa edge filter DIR --workers N` does (offline judges).")
@executor_options
@backend_options
def synth_command(graph_run: str, out: str, count: int, path_seed: int, workers: int, hold_out_platforms: str,
                  max_pages: int, writer: str, roles: dict[str, ModelRef], llm_cache: str,
                  force: bool, then_filter: bool, executor: str, address: str | None, backend_spec: str,
                  record_dir: str | None, faults: str | None) -> None:
    """Synthesize tasks question first: each slot draws a type toward the paper's mix, then a hand-written
    intent of the bank (a question a person asks, with slots and the golden steps that answer it), fills
    its slots from what the services return, executes it on G*'s retained edges and types every handoff SEQ
    / FAN / DRV by its executed cardinality (SEM / CMP / COND templates besides); a realization whose
    handoffs G* does not retain, or that comes out in another pattern than the question was written for, is
    drawn again. Each task's answer is derived by executing its golden trajectory; resumable per chunk.
    Trajectories execute on --backend (default `sim`, the world KOPA-Bench targets are computed on). With
    --writer chat, walks on G* are put into words by a model instead. With --record DIR the synthesis is
    recorded (one worker), and `kopa edge filter` re-solves every task on a fresh backend and on the
    recording. `kopa edge intents` shows what each intent asks.

    \b
      kopa edge synth --graph runs/edge --out runs/synth --count 2500 --workers 2
      kopa edge synth --graph runs/edge --out runs/synth-rec --count 200 --record runs/synth-rec/recording
      kopa edge filter runs/synth
      kopa edge synth --graph runs/edge --out runs/synth --count 2500 --workers 2 --filter   # both at once
      kopa edge synth --graph runs/edge --out runs/synth --count 2500 --executor ray --address auto
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.executor import open_executor
    from kopa.synth.dataset import synth_run
    from kopa.synth.query import ChatWriter, QueryWriter

    chosen: QueryWriter | None
    if (writer == "chat") != ("writer" in roles):
        raise click.UsageError("--writer chat and --role writer=MODEL[@URL] go together: the role names the "
                               "model that writes")
    if writer == "chat":
        from kopa.llm.cache import cached_openai_model

        ref = roles["writer"]
        chosen = ChatWriter(cached_openai_model(ref.model, ref.base_url, llm_cache, role="writer"))
    else:
        chosen = None  # the intent bank
    hold_out = frozenset(p.strip() for p in hold_out_platforms.split(",") if p.strip())
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console.real, transient=True) as progress:
        bar = progress.add_task("trajectories", total=count)
        # the local executor is synth_run's own (processes forked once the run's context is loaded)
        if executor == "local" and address is not None:
            raise click.UsageError("--address is for --executor ray; the local executor runs on this machine")
        cluster = open_executor(executor, workers=workers, address=address) if executor != "local" else None
        try:
            candidates, failures = synth_run(Path(graph_run), Path(out), count, seed=path_seed, workers=workers,
                                             backend_spec=compose_backend(backend_spec, record_dir, faults),
                                             hold_out=hold_out, writer=chosen, force=force, max_pages=max_pages,
                                             progress=lambda done, total: progress.update(bar, completed=done),
                                             executor=cluster)
        finally:
            if cluster is not None:
                cluster.close()
    console.print(f"{len(candidates)} candidates ({len(failures)} failed slots) in "
                  f"{time.perf_counter() - started:.1f} s → {out}/candidates.jsonl"
                  + ("" if then_filter else f"; next: kopa edge filter {out}"))
    if then_filter:
        _filter_shown(Path(out), workers=workers)


@click.command("sample", short_help="Phase B: a seeded sample of kept tasks, each query beside its trajectory.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--count", type=at_least(1), default=15, show_default=True, help="Tasks to show.")
@click.option("--sample-seed", "seed", type=SEED, default=0, show_default=True, help="Which tasks are drawn.")
def sample_command(run_dir: str, count: int, seed: int) -> None:
    """Read the corpus as a reviewer would: each sampled query, the golden trajectory that answers it and
    the answer, then how many of all kept queries quote a tool title, name a paging parameter, pick "the
    n-th item" or carry a raw date or a looked-up value (goal: none).

    \b
      kopa edge sample runs/synth
      kopa edge sample runs/synth --count 40 --sample-seed 1
    """
    from kopa.catalog.loader import load_catalog
    from kopa.synth.audit import query_audit, sample, trajectory_lines
    from kopa.synth.dataset import read_kept

    kept = read_kept(Path(run_dir))
    for c in sample(kept, count, seed):
        console.print(f"[bold]{c.task.id}[/bold] {c.pattern} · {c.task.domain}")
        console.print(f"  Q  {c.task.query}", markup=False)
        for line in trajectory_lines(c):
            console.print(f"     {line}", markup=False)
        console.print(f"  A  {c.target.answer}", markup=False)
    audit = query_audit(kept, load_catalog())
    console.print(f"{audit['queries']} kept queries: {audit['title']} quote a tool title, {audit['paging']} name a "
                  f"paging parameter, {audit['nth_item']} pick the n-th item, {audit['code_or_raw_date']} carry a "
                  "raw date or a looked-up value")


@click.command("filter", short_help="Phase B: the three-stage filter, the dataset and its report.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@role_option({"judge": "Stage 2 model judges, judge=A,B (two models) or judge=A (one, asked in two framings); a "
                        "task the exact checks let through is dropped when both say it leaks or is decorative",
              "solver": "Stage 3 re-solving by a model agent as well: a task it does not solve as a KOPA-Bench "
                         "episode is dropped (not_resolved)"}, several=("judge",))
@click.option("--llm-cache", default="runs/llm-cache", show_default=True, type=click.Path(file_okay=False),
              help="--role judge / solver: where replies are cached by request hash (replayed offline).")
@workers_option(1, "Worker processes filtering chunks of candidates (the dataset does not depend on it; model "
                  "judges and solvers need 1).")
def filter_command(run_dir: str, roles: dict[str, ModelRef], llm_cache: str, workers: int) -> None:
    """Stage 1 rules, Stage 2 judges (answer leaking, decorative chains by execution; with --role judge=…
    also two model judges that must agree), Stage 3 re-solving; writes dataset.jsonl, tasks/ + targets/ (a
    task set for `kopa bench run --tasks DIR`), dropped.jsonl and report.md.

    \b
      kopa edge filter runs/synth --workers 2
      kopa edge filter runs/synth --role judge=qwen3-32b@http://127.0.0.1:8000/v1 \\
                                  --role solver=Qwen/Qwen3.5-9B@http://127.0.0.1:8001/v1
      kopa bench run --tasks runs/synth --policy oracle -n 1
    """
    from kopa.llm.cache import cached_openai_model

    judges = None
    if "judge" in roles:
        from kopa.synth.judges import judge_pair

        ref = roles["judge"]
        if len(ref.models) > 2:
            raise click.BadParameter("judge takes one or two models", param_hint="--role")
        judges = judge_pair([cached_openai_model(name, ref.base_url, llm_cache, role="judge") for name in ref.models])
    solver = None
    if "solver" in roles:
        from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
        from kopa.synth.solver import ModelSolver

        ref = roles["solver"]
        solver = ModelSolver(OpenAIAgentPolicy(cached_openai_model(ref.model, ref.base_url, llm_cache, role="solver",
                                                                   temperature=0.0, seed=0)))

    _filter_shown(Path(run_dir), judges=judges, solver=solver, workers=workers)


def _filter_shown(run_dir: Path, **options: Any) -> None:
    """`filter_run` with a progress bar per stage, then the report and where everything went."""
    from kopa.synth.dataset import filter_run

    started = time.perf_counter()
    with stage_bars(console) as tick:
        kept, drops, _ = filter_run(run_dir, progress=tick, **options)
    console.print((run_dir / "report.md").read_text(encoding="utf-8"))
    console.print(f"{len(kept)} tasks kept, {len(drops)} dropped in {time.perf_counter() - started:.1f} s → "
                  f"{run_dir}/dataset.jsonl, tasks/, targets/, dropped.jsonl, report.md")


@click.command("intents", short_help="Phase B's question bank: realize each intent on G* and show what it asks.")
@click.option("--graph", "graph_run", required=True, type=click.Path(exists=True, file_okay=False),
              help="A finished `kopa edge graph build` run folder: the G* the intents are realized on.")
@click.option("--only", default="", metavar="TEXT", help="Only the intents whose id contains TEXT (dart., .ceo).")
@click.option("--tries", type=at_least(1), default=4, show_default=True,
              help="Realizations of each intent (each with new slot values).")
@click.option("--path-seed", type=SEED, default=0, show_default=True, help="The seed the slots are drawn with.")
@click.option("--ignore-graph", is_flag=True,
              help="Realize even the handoffs G* does not retain, and list them (what Phase A missed).")
@click.option("--bank", type=click.Path(exists=True, file_okay=False), default=None,
              help="A folder of intent files (*.yaml) to realize instead of kopa's own bank (one being written).")
@backend_options
def intents_command(graph_run: str, only: str, tries: int, path_seed: int, ignore_graph: bool, bank: str | None,
                    backend_spec: str, record_dir: str | None, faults: str | None) -> None:
    """Each intent of the bank (kopa/bank/data/*.yaml) realized --tries times on --backend: the
    questions it wrote with their answers, and why the other realizations were refused (a slot with nothing to
    draw from, a handoff with another cardinality than the question asks for, an edge G* does not retain).
    For people who write intents, and for anyone reading what the bank asks.

    \b
      kopa edge intents --graph runs/edge --only assembly.
      kopa edge intents --graph runs/edge --tries 10 --ignore-graph
    """
    from collections import Counter

    from kopa.backends.spec import open_backend
    from kopa.bank.model import BANK, load_bank
    from kopa.catalog.loader import load_catalog
    from kopa.synth.candidate import Candidate
    from kopa.synth.dataset import MEMO_BYTES, load_graph_run
    from kopa.synth.intents.realize import BankContext, realize

    graph, _, _ = load_graph_run(Path(graph_run))
    intents = load_bank(Path(bank) if bank else BANK)
    backend = open_backend(compose_backend(backend_spec, record_dir, faults)).memoized(MEMO_BYTES)
    ctx = BankContext(graph, load_catalog(), backend, seed=path_seed, intents=intents, check_graph=not ignore_graph)
    chosen = [i for i in ctx.intents if only in i.id]
    if not chosen:
        raise click.BadParameter(f"no intent id contains {only!r}", param_hint="--only")
    kept = 0
    for intent in chosen:
        refused: Counter[str] = Counter()
        details: dict[str, str] = {}
        lines = []
        for index in range(tries):
            made = realize(ctx, intent, index, 0)
            if isinstance(made, Candidate):
                lines.append(f"    {made.task.query}  →  {made.target.answer}  ({made.target.optimal_calls} calls)")
            else:
                refused[made.reason] += 1
                details.setdefault(made.reason, made.detail or "")
        kept += len(lines)
        console.print(f"[bold]{intent.id}[/bold] {intent.pattern}: {len(lines)}/{tries} realized")
        for line in lines:
            console.print(line, markup=False)
        for reason, count in refused.most_common():
            console.print(f"    ✗ {count} {reason}: {details[reason]}", markup=False)
    console.print(f"{kept} of {len(chosen) * tries} realizations kept ({len(chosen)} intents)")
    if ignore_graph and ctx.missing:
        console.print("Handoffs G* does not retain (realized anyway):")
        for hop, count in ctx.missing.most_common():
            console.print(f"    {count} {hop}", markup=False)
