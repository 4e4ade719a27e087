"""`kopa edge graph build | show | export`."""

from __future__ import annotations

import time
from pathlib import Path

import click
import orjson
from rich.console import Console

console = Console(soft_wrap=True)


@click.group("edge")
def edge() -> None:
    """EDGE: the execution-grounded tool-dependency graph (Phase A)."""


@edge.group("graph")
def graph_group() -> None:
    """Build, show and export the refined graph G*."""


@graph_group.command("build")
@click.option("--backend", "backend_spec", default="sim", show_default=True,
              help="Where paths execute, e.g. sim, faults:realistic@sim, live, replay:DIR.")
@click.option("--faults", "fault_profile", default=None, help="Shorthand: wrap the backend in faults:PROFILE@….")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("-T", "--iterations", type=int, default=100, show_default=True)
@click.option("-M", "--paths", type=int, default=500, show_default=True)
@click.option("--workers", type=int, default=1, show_default=True, help="Paths run concurrently (same result).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="runs/edge", show_default=True)
@click.option("--force", is_flag=True, help="Discard a run folder made with another configuration.")
@click.option("--no-truth", is_flag=True, help="Skip the precision/recall study against the simulator's truth.")
def graph_build(backend_spec: str, fault_profile: str | None, seed: int, iterations: int, paths: int, workers: int,
                out_dir: str, force: bool, no_truth: bool) -> None:
    """Skeleton (retriever + proposer), then T × M execution-grounded paths; resumable per iteration."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from kopa.edge.config import EdgeConfig
    from kopa.edge.run import build_graph

    spec = f"faults:{fault_profile},seed={seed}@{backend_spec}" if fault_profile else backend_spec
    config = EdgeConfig(seed=seed, T=iterations, M=paths)
    out = Path(out_dir)
    started = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[status]}"), console=console, transient=True) as progress:
        bar = progress.add_task("Phase A iterations", total=iterations, status="skeleton…")

        def tick(iteration: int, row: dict) -> None:
            progress.update(bar, completed=iteration,
                            status=f"pass {row['trajectory_pass_rate']:.3f} step {row['step_success_rate']:.3f} "
                                   f"edges {int(row['edges_retained'])}")

        try:
            phase, skeleton = build_graph(out, config, spec, workers=workers, force=force, on_iteration=tick)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from exc
    elapsed = time.perf_counter() - started
    _report(out, phase.graph, skeleton, phase.history, spec, config, phase.backend, not no_truth)
    console.print(f"done in {elapsed:.1f} s; run folder {out} (report.md, graph.json, graph.graphml, edges.duckdb)")


def _report(out: Path, graph, skeleton, history, spec: str, config, backend, with_truth: bool) -> None:
    from kopa.edge.report import render_markdown, success_figures, write_plots

    figures = success_figures(graph)
    truth = None
    if with_truth and backend.simulator is not None:
        from kopa.edge.truth_study import truth_report

        truth = truth_report(backend.simulator, skeleton, graph)
    write_plots(out / "plots", history, skeleton, graph)
    summary = {"backend": spec, "T": config.T, "M": config.M, "K": config.K, "Kx": config.Kx, "seed": config.seed}
    text = render_markdown(out.name, figures, history, truth, summary)
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "figures.json").write_bytes(orjson.dumps({"success": figures.model_dump(),
                                                     "truth": truth.model_dump() if truth else None},
                                                    option=orjson.OPT_INDENT_2))
    console.print(text)


@graph_group.command("show")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def graph_show(run_dir: str) -> None:
    """Print a finished run's report."""
    path = Path(run_dir) / "report.md"
    if not path.exists():
        raise click.UsageError(f"{run_dir} has no report yet (is the run finished?)")
    from rich.markdown import Markdown

    console.print(Markdown(path.read_text(encoding="utf-8")))


@graph_group.command("export")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "edgelist"]), default="json", show_default=True)
@click.option("--include-pruned", is_flag=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True)
def graph_export(run_dir: str, fmt: str, include_pruned: bool, output: str) -> None:
    """Export G* for downstream phases (Phase B synthesis)."""
    from kopa.edge.graph import ToolGraph

    graph = ToolGraph.load_json(Path(run_dir) / "graph.json")
    if not include_pruned:
        kept = ToolGraph(nodes=graph.nodes, meta=graph.meta)
        for e in graph.sorted_edges():
            if not e.pruned:
                kept.add(e)
        graph = kept
    if fmt == "json":
        graph.save_json(Path(output))
    elif fmt == "graphml":
        graph.save_graphml(Path(output))
    else:
        lines = [f"{e.source}\t{e.target}\t{e.alpha / (e.alpha + e.beta):.4f}" for _, e in sorted(graph.edges.items())]
        Path(output).write_text("\n".join(lines) + "\n", encoding="utf-8")
    console.print(f"{len(graph.edges)} edges → {output}")
