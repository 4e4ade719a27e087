"""`kopa edge graph build | show | export`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
import orjson

from kopa.cli_options import (
    backend_options,
    compose_backend,
    deprecation_note,
    executor_options,
    out_option,
    workers_option,
)
from kopa.console import LazyConsole

console = LazyConsole(soft_wrap=True)


@click.group("edge", short_help="EDGE: the graph G* (Phase A) and trajectories synthesized on it (Phase B).")
def edge() -> None:
    """EDGE: the execution-grounded tool-dependency graph (Phase A: `edge graph`) and the trajectories
    synthesized on it (Phase B: `edge synth`, `edge filter`)."""


@edge.group("graph")
def graph_group() -> None:
    """Build, show and export the refined graph G*."""


@graph_group.command("build", short_help="Build G*: a skeleton, then T × M executed paths.")
@backend_options
@click.option("--path-seed", type=int, default=0, show_default=True,
              help="The seed Phase A samples its paths with: start tools, next edges, guessed arguments (the "
                   "fault seed is --faults PROFILE,seed=N; the world's, the backend's sim:seed=N).")
@click.option("--seed", "deprecated_seed", type=int, default=None, hidden=True)
@click.option("-T", "--iterations", type=click.IntRange(min=1), default=100, show_default=True,
              help="Phase A iterations T (the paper: 100); the run resumes per iteration.")
@click.option("-M", "--paths", type=click.IntRange(min=1), default=500, show_default=True,
              help="Paths executed per iteration M (the paper: 500).")
@workers_option(1, "Path batches run at once, one per worker process, this one among them (the graph does not "
                  "depend on it).")
@executor_options
@out_option("Run folder: report.md, graph.json, graph.graphml, edges.duckdb, plots.", default="runs/edge")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--no-truth", is_flag=True, help="Skip the precision/recall study against the simulator's truth.")
@click.option("--sampler", type=click.Choice(["paper", "coverage"]), default="paper", show_default=True,
              help="How paths start: 'paper' draws start tools uniformly and follows edges by Thompson sampling; "
                   "'coverage' first sends each path down an edge still short of n_min attempts (through one "
                   "approach edge when its source cannot start a path), so every reachable edge is judged.")
@click.option("--probe-edges", type=click.IntRange(min=0), default=500, show_default=True,
              help="Held-out probe after convergence: at most N retained and N pruned edges (a seeded sample), "
                   "each executed twice with fresh arguments under a fresh fault seed; 0 skips it.")
@click.option("--proposer", type=click.Choice(["offline", "openai"]), default="offline", show_default=True,
              help="Edge proposer: the offline lexical one, or a chat model (--model/--base-url) asked per candidate.")
@click.option("--filler", type=click.Choice(["offline", "openai"]), default="offline", show_default=True,
              help="First-call argument filler: the offline rules, or a chat model (--model/--base-url).")
@click.option("--model", help="Model name of the openai proposer/filler.")
@click.option("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM).")
@click.option("--llm-cache", type=click.Path(file_okay=False),
              help="Cache of LLM calls (record/replay by request hash); default <out>/llm-cache when a role is openai.")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True,
              help="auto answers from the cache and asks the model on a miss; record always asks and stores; "
                   "replay never asks (a miss is an error).")
def graph_build(backend_spec: str, record_dir: str | None, faults: str | None, path_seed: int,
                deprecated_seed: int | None, iterations: int, paths: int, workers: int, executor: str,
                address: str | None, out: str, force: bool, no_truth: bool, sampler: str, probe_edges: int,
                proposer: str, filler: str, model: str | None, base_url: str | None, llm_cache: str | None,
                llm_mode: str) -> None:
    """Skeleton (retriever + proposer), then T × M execution-grounded paths; resumable per iteration.

    \b
      kopa edge graph build --faults realistic -T 100 -M 500 --out runs/edge   (the paper's configuration)
      kopa edge graph build -T 2 -M 5 --path-seed 1 --record runs/rec-edge --out runs/edge-small
      kopa edge graph build --faults realistic --sampler coverage --out runs/edge-coverage
      kopa edge graph build --proposer openai --filler openai --model Qwen/Qwen3.5-9B \\
                            --base-url http://127.0.0.1:8000/v1 --out runs/edge-llm
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.edge.config import EdgeConfig
    from kopa.edge.run import build_graph
    from kopa.executor import open_executor
    from kopa.llm.client import ChatModelError

    if deprecated_seed is not None:
        # The old --seed was both the path seed and the fault seed; for one release it still is both,
        # so an old command resumes its old run folder.
        deprecation_note("--seed", "--path-seed (and --faults PROFILE,seed=N for the fault seed)")
        path_seed = deprecated_seed
        if faults is not None and faults.endswith(",seed=0"):
            faults = faults.removesuffix("0") + str(deprecated_seed)
    spec = compose_backend(backend_spec, record_dir, faults)
    config = EdgeConfig(seed=path_seed, T=iterations, M=paths, sampler=sampler)
    out_dir = Path(out)
    roles = llm_roles(proposer, filler, model, base_url, llm_cache or str(out_dir / "llm-cache"), llm_mode)
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[status]}"), console=console.real, transient=True) as progress:
        bar = progress.add_task("Phase A iterations", total=iterations, status="skeleton…")

        def tick(iteration: int, row: dict) -> None:
            progress.update(bar, completed=iteration,
                            status=f"pass {row['trajectory_pass_rate']:.3f} step {row['step_success_rate']:.3f} "
                                   f"edges {int(row['edges_retained'])}")

        try:
            with open_executor(executor, workers=workers, address=address) as units:
                phase, skeleton = build_graph(out_dir, config, spec, executor=units, force=force,
                                              on_iteration=tick, **roles)
        except ChatModelError as exc:
            raise click.ClickException(f"LLM role failed: {exc}") from exc
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    elapsed = time.perf_counter() - started
    probe = None
    if probe_edges:
        from kopa.catalog.loader import load_catalog
        from kopa.edge.probe import DEFAULT_REPEATS, run_probe, save_probe
        from kopa.edge.report import probe_figures

        with console.status("held-out probe…"):
            results = run_probe(phase, load_catalog(), spec, per_class=probe_edges, workers=workers)
        save_probe(out_dir, results)
        probe = probe_figures(phase.graph, results, DEFAULT_REPEATS)
        console.print(f"held-out probe: {probe.probed} edges in {time.perf_counter() - started - elapsed:.1f} s")
        elapsed = time.perf_counter() - started
    _report(out_dir, phase.graph, skeleton, phase.history, spec, config, phase.backend, not no_truth, probe)
    console.print(f"done in {elapsed:.1f} s; run folder {out_dir} (report.md, graph.json, graph.graphml, edges.duckdb)")


def llm_roles(proposer: str, filler: str, model: str | None, base_url: str | None, cache_dir: str,
              mode: str) -> dict:
    """build_graph's keyword arguments for the chosen roles: the openai ones share one cached chat model,
    and name it in the run's digest (a folder never resumes with another model)."""
    if "openai" not in (proposer, filler):
        if model or base_url:
            raise click.UsageError("--model/--base-url need --proposer openai or --filler openai")
        return {}
    if not model:
        raise click.UsageError("--proposer openai / --filler openai need --model (and usually --base-url)")
    from kopa.llm.cache import cached_openai_model

    chat = cached_openai_model(model, base_url, cache_dir, mode)  # type: ignore[arg-type]
    kwargs: dict = {"roles": {}}
    if proposer == "openai":
        from kopa.edge.proposer import OpenAIProposer

        kwargs["proposer"] = OpenAIProposer(chat)
        kwargs["roles"]["proposer"] = f"openai:{model}"
    if filler == "openai":
        from kopa.edge.filler import OpenAIFiller

        kwargs["filler"] = lambda today: OpenAIFiller(chat, today)
        kwargs["roles"]["filler"] = f"openai:{model}"
    return kwargs


def _report(out: Path, graph, skeleton, history, spec: str, config, backend, with_truth: bool, probe=None) -> None:
    from kopa.edge.report import render_markdown, success_figures, write_plots

    figures = success_figures(graph)
    truth = None
    if with_truth and backend.simulator is not None:
        from kopa.edge.truth_study import truth_report

        truth = truth_report(backend.simulator, skeleton, graph)
    write_plots(out / "plots", history, skeleton, graph)
    summary = {"backend": spec, "T": config.T, "M": config.M, "K": config.K, "Kx": config.Kx, "seed": config.seed,
               "sampler": config.sampler}
    text = render_markdown(out.name, figures, history, truth, summary, probe)
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "figures.json").write_bytes(orjson.dumps({"success": figures.model_dump(),
                                                     "probe": probe.model_dump() if probe else None,
                                                     "truth": truth.model_dump() if truth else None},
                                                    option=orjson.OPT_INDENT_2))
    console.print(text, markup=False)


@graph_group.command("show")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def graph_show(run_dir: str) -> None:
    """Print a finished run's report."""
    path = Path(run_dir) / "report.md"
    if not path.exists():
        raise click.UsageError(f"{run_dir} has no report yet (is the run finished?)")
    from rich.markdown import Markdown

    console.print(Markdown(path.read_text(encoding="utf-8")))


@graph_group.command("compare", short_help="Finished runs side by side, beside the paper's figures.")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@out_option("Also write the table to this Markdown file.", file=True)
def graph_compare(run_dirs: tuple[str, ...], out: str | None) -> None:
    """Finished runs side by side, beside the paper's figures: sampler, coverage of the skeleton, the
    held-out probe, precision and recall against the truth, the proposer's calibration.

    \b
      kopa edge graph compare runs/edge runs/edge-coverage --out runs/samplers.md
    """
    from kopa.edge.compare import compare_markdown

    text = compare_markdown([Path(d) for d in run_dirs])
    if out:
        Path(out).write_text(text, encoding="utf-8")
    console.print(text, markup=False)


@graph_group.command("export")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "edgelist"]), default="json", show_default=True,
              help="json (kopa's own format), graphml (Gephi, networkx) or edgelist (source, target, "
                   "posterior mean; tab-separated).")
@click.option("--include-pruned", is_flag=True, help="Keep the edges Phase A pruned (marked as such).")
@out_option("The file to write G* to.", file=True)
@click.option("--output", "deprecated_output", type=click.Path(dir_okay=False), default=None, hidden=True)
def graph_export(run_dir: str, fmt: str, include_pruned: bool, out: str | None, deprecated_output: str | None
                 ) -> None:
    """Export G* for downstream phases (Phase B synthesis).

    \b
      kopa edge graph export runs/edge --format graphml --out g_star.graphml
    """
    from kopa.edge.graph import ToolGraph

    if deprecated_output is not None:
        deprecation_note("--output", "-o/--out")
        out = out or deprecated_output
    if out is None:
        raise click.MissingParameter(param_hint="'-o' / '--out'", param_type="option")
    output, source = Path(out), Path(run_dir) / "graph.json"
    if not source.exists():
        raise click.BadParameter(f"{run_dir} has no graph.json (is the run finished?)", param_hint="RUN_DIR")
    graph = ToolGraph.load_json(source)
    if not include_pruned:
        kept = ToolGraph(nodes=graph.nodes, meta=graph.meta)
        for e in graph.sorted_edges():
            if not e.pruned:
                kept.add(e)
        graph = kept
    if fmt == "json":
        graph.save_json(output)
    elif fmt == "graphml":
        graph.save_graphml(output)
    else:
        lines = [f"{e.source}\t{e.target}\t{e.alpha / (e.alpha + e.beta):.4f}" for _, e in sorted(graph.edges.items())]
        output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    console.print(f"{len(graph.edges)} edges → {output}")


# ------------------------------------------------------------------------------ Phase B (kopa.synth)

@edge.command("synth", short_help="Phase B: cardinality-typed trajectories on G*, as KOPA-Bench tasks.")
@click.option("--graph", "graph_run", required=True, type=click.Path(exists=True, file_okay=False),
              help="A finished `kopa edge graph build` run folder (graph.json, checkpoint.json with the cache C).")
@out_option("Run folder: parts/, candidates.jsonl, failures.jsonl (then `kopa edge filter DIR`).",
            default="runs/synth")
@click.option("--count", type=click.IntRange(min=1), default=100, show_default=True,
              help="Candidates to synthesize (executed trajectories before filtering).")
@click.option("--path-seed", type=int, default=0, show_default=True,
              help="The seed Phase B samples its trajectories on G* with: each draws from the stream "
                   "(seed, index).")
@workers_option(1, "Worker processes building chunks of trajectories (the dataset does not depend on it).")
@click.option("--hold-out-platforms", default="", metavar="P,Q",
              help="Platforms left out of synthesis (e.g. seoul,dart,krx, as the paper's held-out study).")
@click.option("--max-pages", type=click.IntRange(min=1), default=250, show_default=True,
              help="Pages one call may read in full (the paper's largest handoff, 224,958 records, is 225 "
                   "pages of 1,000); a step whose answer needs more is not built.")
@click.option("--writer", type=click.Choice(["template", "chat"]), default="template", show_default=True,
              help="Query writer: deterministic Korean templates, or an OpenAI-compatible model.")
@click.option("--writer-model", default=None, metavar="NAME", help="--writer chat: the model name.")
@click.option("--writer-base-url", default=None, metavar="URL", help="--writer chat: the OpenAI-compatible base URL.")
@click.option("--llm-cache", default="runs/llm-cache", show_default=True, type=click.Path(file_okay=False),
              help="--writer chat: where replies are cached by request hash (replayed offline).")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--filter", "then_filter", is_flag=True,
              help="Then filter the candidates as `kopa edge filter DIR --workers N` does (offline judges).")
@backend_options
def synth_command(graph_run: str, out: str, count: int, path_seed: int, workers: int, hold_out_platforms: str,
                  max_pages: int, writer: str, writer_model: str | None, writer_base_url: str | None, llm_cache: str,
                  force: bool, then_filter: bool, backend_spec: str, record_dir: str | None,
                  faults: str | None) -> None:
    """Synthesize trajectories on G* — sequential chains whose junctions are typed SEQ / FAN / DRV by executed
    cardinality, and SEM / CMP / COND templates — each a KOPA-Bench task whose answer golden execution
    derives; resumable per chunk. Trajectories execute on --backend (default `sim`, the world KOPA-Bench
    targets are computed on), whatever backend G* was built with. With --record DIR the synthesis is
    recorded (one worker), and `kopa edge filter` re-solves every task on a fresh backend and on the
    recording.

    \b
      kopa edge synth --graph runs/edge --out runs/synth --count 2500 --workers 2
      kopa edge synth --graph runs/edge --out runs/synth-rec --count 200 --record runs/synth-rec/recording
      kopa edge filter runs/synth
      kopa edge synth --graph runs/edge --out runs/synth --count 2500 --workers 2 --filter   # both at once
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.synth.dataset import synth_run
    from kopa.synth.query import ChatWriter, TemplateWriter

    if writer == "chat":
        if not writer_model:
            raise click.UsageError("--writer chat needs --writer-model")
        from kopa.llm.cache import CachedChatModel
        from kopa.llm.client import OpenAIChatModel

        chosen = ChatWriter(CachedChatModel(OpenAIChatModel(writer_model, writer_base_url), Path(llm_cache)))
    else:
        chosen = TemplateWriter()
    hold_out = frozenset(p.strip() for p in hold_out_platforms.split(",") if p.strip())
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console.real, transient=True) as progress:
        bar = progress.add_task("trajectories", total=count)
        candidates, failures = synth_run(Path(graph_run), Path(out), count, seed=path_seed, workers=workers,
                                         backend_spec=compose_backend(backend_spec, record_dir, faults),
                                         hold_out=hold_out, writer=chosen, force=force, max_pages=max_pages,
                                         progress=lambda done, total: progress.update(bar, completed=done))
    console.print(f"{len(candidates)} candidates ({len(failures)} failed slots) in "
                  f"{time.perf_counter() - started:.1f} s → {out}/candidates.jsonl"
                  + ("" if then_filter else f"; next: kopa edge filter {out}"))
    if then_filter:
        _filter_shown(Path(out), workers=workers)


@edge.command("sample", short_help="Phase B: a seeded sample of kept tasks, each query beside its trajectory.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--count", type=click.IntRange(min=1), default=15, show_default=True, help="Tasks to show.")
@click.option("--sample-seed", "seed", type=int, default=0, show_default=True, help="Which tasks are drawn.")
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


@edge.command("filter", short_help="Phase B: the three-stage filter, the dataset and its report.")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--judge-model", default=None, metavar="NAME[,NAME]",
              help="Stage 2 model judges (OpenAI-compatible): two models, or one asked in two framings; a task "
                   "the exact checks let through is dropped when both judges say it leaks or is decorative.")
@click.option("--judge-base-url", default=None, metavar="URL", help="--judge-model: the OpenAI-compatible base URL.")
@click.option("--solver-model", default=None, metavar="NAME",
              help="Stage 3 re-solving by an OpenAI-compatible agent as well: a task it does not solve as a "
                   "KOPA-Bench episode is dropped (not_resolved). Its base URL is --judge-base-url.")
@click.option("--llm-cache", default="runs/llm-cache", show_default=True, type=click.Path(file_okay=False),
              help="--judge-model / --solver-model: where replies are cached by request hash (replayed offline).")
@workers_option(1, "Worker processes filtering chunks of candidates (the dataset does not depend on it; model "
                  "judges and solvers need 1).")
def filter_command(run_dir: str, judge_model: str | None, judge_base_url: str | None, solver_model: str | None,
                   llm_cache: str, workers: int) -> None:
    """Stage 1 rules, Stage 2 judges (answer leaking, decorative chains by execution; with --judge-model
    also two model judges that must agree), Stage 3 re-solving; writes dataset.jsonl, tasks/ + targets/ (a
    task set for `kopa bench run --tasks DIR`), dropped.jsonl and report.md.

    \b
      kopa edge filter runs/synth --workers 2
      kopa edge filter runs/synth --judge-model qwen3-32b --judge-base-url http://127.0.0.1:8000/v1
      kopa bench run --tasks runs/synth --policy oracle -n 1
    """
    judges = None
    if judge_model:
        from kopa.llm.cache import CachedChatModel
        from kopa.llm.client import OpenAIChatModel
        from kopa.synth.judges import judge_pair

        names = [n.strip() for n in judge_model.split(",") if n.strip()]
        if len(names) > 2:
            raise click.BadParameter("one or two model names", param_hint="--judge-model")
        judges = judge_pair([CachedChatModel(OpenAIChatModel(n, judge_base_url), Path(llm_cache)) for n in names])
    solver = None
    if solver_model:
        from kopa.eval.policies.openai_agent import OpenAIAgentPolicy
        from kopa.llm.cache import CachedChatModel
        from kopa.llm.client import OpenAIChatModel
        from kopa.synth.solver import ModelSolver

        model = OpenAIChatModel(solver_model, judge_base_url, temperature=0.0, seed=0)
        solver = ModelSolver(OpenAIAgentPolicy(CachedChatModel(model, Path(llm_cache))))

    _filter_shown(Path(run_dir), judges=judges, solver=solver, workers=workers)


def _filter_shown(run_dir: Path, **options: Any) -> None:
    """`filter_run` with a progress bar per stage, then the report and where everything went."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.synth.dataset import filter_run

    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console.real, transient=True) as progress:
        bars: dict[str, object] = {}

        def tick(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=total)
            progress.update(bars[stage], completed=done)  # type: ignore[arg-type]

        kept, drops, _ = filter_run(run_dir, progress=tick, **options)
    console.print((run_dir / "report.md").read_text(encoding="utf-8"))
    console.print(f"{len(kept)} tasks kept, {len(drops)} dropped in {time.perf_counter() - started:.1f} s → "
                  f"{run_dir}/dataset.jsonl, tasks/, targets/, dropped.jsonl, report.md")
