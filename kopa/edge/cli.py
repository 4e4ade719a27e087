"""`kopa edge graph build | show | export`."""

from __future__ import annotations

import time
from pathlib import Path

import click
import orjson

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
@click.option("--path-seed", type=SEED, default=0, show_default=True,
              help="The seed Phase A samples its paths with: start tools, next edges, guessed arguments (the "
                   "fault seed is --faults PROFILE,seed=N; the world's, the backend's sim:seed=N).")
@click.option("-T", "--iterations", type=at_least(1), default=100, show_default=True,
              help="Phase A iterations T (the paper: 100); the run resumes per iteration.")
@click.option("-M", "--paths", type=at_least(1), default=500, show_default=True,
              help="Paths executed per iteration M (the paper: 500).")
@workers_option(1, "Path batches run at once, one per worker process, this one among them (the graph does not "
                  "depend on it).")
@executor_options
@out_option("Run folder: report.md, graph.json, graph.graphml, edges.duckdb, values.json (the value cache C), "
            "history.json, plots.", default="runs/edge")
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--no-truth", is_flag=True, help="Skip the precision/recall study against the simulator's truth.")
@click.option("--sampler", type=click.Choice(["paper", "coverage"]), default="paper", show_default=True,
              help="How paths start: 'paper' draws start tools uniformly and follows edges by Thompson sampling; "
                   "'coverage' first sends each path down an edge still short of n_min attempts (through one "
                   "approach edge when its source cannot start a path), so every reachable edge is judged.")
@click.option("--probe-edges", type=at_least(0), default=500, show_default=True,
              help="Held-out probe after convergence: at most N retained and N pruned edges (a seeded sample), "
                   "each executed twice with fresh arguments under a fresh fault seed; 0 skips it.")
@click.option("--proposer", type=click.Choice(["offline", "openai"]), default="offline", show_default=True,
              help="Edge proposer: the offline lexical one, or a chat model (--role proposer=…) asked per candidate.")
@click.option("--no-bank", is_flag=True,
              help="Propose the skeleton's edges by the retriever and the proposer alone (the paper's skeleton): "
                   "without the handoffs of the question bank's questions (kopa/bank/data), which Phase B's "
                   "intents need in G*.")
@click.option("--filler", type=click.Choice(["offline", "openai"]), default="offline", show_default=True,
              help="First-call argument filler: the offline rules, or a chat model (--role filler=…).")
@role_option({"proposer": "the chat model of --proposer openai", "filler": "the chat model of --filler openai"})
@click.option("--llm-cache", type=click.Path(file_okay=False),
              help="Cache of LLM calls (record/replay by request hash); default <out>/llm-cache when a role is openai.")
@click.option("--llm-mode", type=click.Choice(["auto", "record", "replay"]), default="auto", show_default=True,
              help="auto answers from the cache and asks the model on a miss; record always asks and stores; "
                   "replay never asks (a miss is an error).")
def graph_build(backend_spec: str, record_dir: str | None, faults: str | None, path_seed: int,
                iterations: int, paths: int, workers: int, executor: str,
                address: str | None, out: str, force: bool, no_truth: bool, sampler: str, probe_edges: int,
                proposer: str, no_bank: bool, filler: str, roles: dict[str, ModelRef], llm_cache: str | None,
                llm_mode: str) -> None:
    """Skeleton (retriever + proposer, and the handoffs the question bank's questions make), then T × M
    execution-grounded paths; resumable per iteration.

    \b
      kopa edge graph build --faults realistic -T 100 -M 500 --out runs/edge   (the paper's configuration)
      kopa edge graph build -T 2 -M 5 --path-seed 1 --record runs/rec-edge --out runs/edge-small
      kopa edge graph build --faults realistic --sampler coverage --out runs/edge-coverage
      kopa edge graph build --proposer openai --filler openai --model Qwen/Qwen3.5-9B \\
                            --base-url http://127.0.0.1:8000/v1 --out runs/edge-llm
    """
    started = time.perf_counter()  # the command's wall time, imports and the world's build included
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.edge.config import EdgeConfig
    from kopa.edge.run import build_graph
    from kopa.executor import open_executor
    from kopa.llm.client import ChatModelError

    spec = compose_backend(backend_spec, record_dir, faults)
    config = EdgeConfig(seed=path_seed, T=iterations, M=paths, sampler=sampler, bank=not no_bank)
    out_dir = Path(out)
    chosen = llm_roles({"proposer": proposer, "filler": filler}, roles, llm_cache or str(out_dir / "llm-cache"),
                       llm_mode)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[status]}"), console=console.real, transient=True) as progress:
        bar = progress.add_task("Phase A iterations", total=iterations, status="skeleton…")

        def tick(iteration: int, row: dict) -> None:
            progress.update(bar, completed=iteration,
                            status=f"pass {row['trajectory_pass_rate']:.3f} step {row['step_success_rate']:.3f} "
                                   f"edges {int(row['edges_retained'])}")

        try:
            # forked after the skeleton is loaded (an LLM filler runs in this process only: no workers)
            with open_executor(executor, workers=workers, address=address, fork=filler == "offline") as units:
                phase, skeleton = build_graph(out_dir, config, spec, executor=units, force=force,
                                              on_iteration=tick, **chosen)
        except ChatModelError as exc:
            raise click.ClickException(f"LLM role failed: {exc}") from exc
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    phase_a = time.perf_counter() - started
    probe = None
    if probe_edges:
        from kopa.catalog.loader import load_catalog
        from kopa.edge.probe import DEFAULT_REPEATS, run_probe, save_probe
        from kopa.edge.report import probe_figures

        with console.status("held-out probe…"):
            results = run_probe(phase, load_catalog(), spec, per_class=probe_edges, workers=workers)
        save_probe(out_dir, results)
        probe = probe_figures(phase.graph, results, DEFAULT_REPEATS)
        console.print(f"held-out probe: {probe.probed} edges in {time.perf_counter() - started - phase_a:.1f} s")
    reporting = time.perf_counter()
    with console.status("report: " + ("the truth study, " if not no_truth else "") + "tables and plots…"):
        _report(out_dir, phase.graph, skeleton, phase.history, spec, config, phase.backend, not no_truth, probe)
    done = time.perf_counter()
    console.print(f"done in {done - started:.1f} s (Phase A with the skeleton {phase_a:.1f} s, report "
                  f"{done - reporting:.1f} s); run folder {out_dir} (report.md, graph.json, graph.graphml, "
                  "edges.duckdb, values.json, history.json)")


def llm_roles(kinds: dict[str, str], models: dict[str, ModelRef], cache_dir: str, mode: str) -> dict:
    """build_graph's keyword arguments for the chosen roles (role → offline | openai): each openai role gets
    the cached chat model its --role names, and names it in the run's digest (a folder never resumes with
    another model)."""
    for role, kind in kinds.items():
        if kind == "openai" and role not in models:
            raise click.UsageError(f"--{role} openai needs --role {role}=MODEL[@URL]")
        if kind != "openai" and role in models:
            raise click.UsageError(f"--role {role}=…: the model plays only with --{role} openai")
    if not models:
        return {}
    from kopa.llm.cache import cached_openai_model

    def chat(role: str):
        return cached_openai_model(models[role].model, models[role].base_url, cache_dir, mode,  # type: ignore[arg-type]
                                   role=role)

    kwargs: dict = {"roles": {role: f"openai:{ref.model}" for role, ref in models.items()}}
    if "proposer" in models:
        from kopa.edge.proposer import OpenAIProposer

        kwargs["proposer"] = OpenAIProposer(chat("proposer"))
    if "filler" in models:
        from kopa.edge.filler import OpenAIFiller

        filler = chat("filler")
        kwargs["filler"] = lambda today: OpenAIFiller(filler, today)
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
def graph_export(run_dir: str, fmt: str, include_pruned: bool, out: str | None) -> None:
    """Export G* for downstream phases (Phase B synthesis).

    \b
      kopa edge graph export runs/edge --format graphml --out g_star.graphml
    """
    from kopa.edge.graph import ToolGraph

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
