"""`kopa edge graph build`: the skeleton, then T iterations of Phase A, into a resumable run folder.

runs/<name>/config.json            the resolved EdgeConfig, backend, faults (a changed config is refused)
runs/<name>/skeleton.json          G_0: every candidate edge with its prior
runs/<name>/checkpoint.json        the graph, value cache and history after the last completed iteration
runs/<name>/graph.json, .graphml   G*: the refined graph (networkx), after the last iteration
runs/<name>/edges.duckdb           edges (prior, posterior, attempts) and the attempt log, for SQL
                                   and `probe`, the held-out probe after convergence (kopa.edge.probe)
runs/<name>/report.md, plots/      the report
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson

from kopa.backends.base import Backend
from kopa.backends.spec import open_backend
from kopa.bank.hops import Seed, bank_seeds
from kopa.bank.model import load_bank
from kopa.catalog.loader import Catalog, load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.embed import HashingEmbedder
from kopa.edge.graph import ToolGraph, build_skeleton
from kopa.edge.phase_a import DYNAMIC_FIELDS as _DYNAMIC
from kopa.edge.phase_a import PathLog, PhaseA, ReplicaSpec, fork_workers_from
from kopa.edge.proposer import OfflineProposer
from kopa.errors import UserError
from kopa.executor import Executor, open_executor
from kopa.fileio import RunFolder, write_atomic, writes_run


def posterior_state(graph: ToolGraph) -> list[list]:
    """[source, target, α, β, attempts, successes, semantic, pruned, pruned_at] per edge, sorted."""
    return [[*key, *(getattr(graph.edges[key], f) for f in _DYNAMIC)] for key in sorted(graph.edges)]


def restore_posteriors(graph: ToolGraph, rows: list[list]) -> None:
    for row in rows:
        edge = graph.edges[(row[0], row[1])]
        for name, value in zip(_DYNAMIC, row[2:], strict=True):
            setattr(edge, name, value)


def config_digest(config: EdgeConfig, backend_spec: str, roles: dict[str, str] | None = None,
                  seeds: str | None = None) -> str:
    """The run folder's identity. LLM roles other than the offline defaults (`roles`: role → model) are
    part of it, so a folder built with one proposer never resumes with another; so is the digest of the
    question bank's handoffs it seeded (`seeds`), so a folder never resumes on another bank's skeleton."""
    payload: dict[str, Any] = {"config": config.model_dump(mode="json"), "backend": backend_spec}
    if roles:
        payload["roles"] = dict(sorted(roles.items()))
    if seeds:
        payload["seeds"] = seeds
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


class EdgeRunError(UserError, ValueError):
    """An EDGE run folder that cannot be used: another run's configuration, or another writer."""


class EdgeRun:
    def __init__(self, out_dir: Path, config: EdgeConfig, backend_spec: str, *, force: bool = False,
                 roles: dict[str, str] | None = None, seeds: str | None = None) -> None:
        self.out = out_dir
        self.config = config
        self.backend_spec = backend_spec
        manifest = {"config": config.model_dump(mode="json"), "backend": backend_spec,
                    **({"roles": roles} if roles else {}), **({"seeds": seeds} if seeds else {}),
                    "digest": config_digest(config, backend_spec, roles, seeds)}
        # the backend and roles are part of the identity: shown beside the configuration when they differ
        RunFolder(out_dir, what="an EDGE run", error=EdgeRunError).claim(manifest, body=orjson.dumps(manifest, option=orjson.OPT_INDENT_2), force=force,
                          stale=("checkpoint.json", "skeleton.json", "edges.duckdb"))

    def skeleton(self, build: Callable[[], ToolGraph]) -> ToolGraph:
        path = self.out / "skeleton.json"
        if path.exists():
            return ToolGraph.load_json(path)
        graph = build()
        graph.save_json(path)
        return graph

    def resume(self, phase: PhaseA) -> None:
        path = self.out / "checkpoint.json"
        if not path.exists():
            return
        state = orjson.loads(path.read_bytes())
        restore_posteriors(phase.graph, state["edges"])
        phase.cache = state["cache"]
        phase.iteration = state["iteration"]
        phase.history = state["history"]
        phase.starts_seen = {tool: (tries, answered) for tool, tries, answered in state.get("starts", [])}

    def checkpoint(self, phase: PhaseA, logs: list[PathLog]) -> None:
        """Only what Phase A changes (posteriors, counts, pruning), beside the static skeleton: a few MB
        written in milliseconds, where the whole graph with its plans would take seconds per iteration."""
        write_atomic(self.out / "checkpoint.json", orjson.dumps(
            {"iteration": phase.iteration, "cache": phase.cache, "history": phase.history,
             "edges": posterior_state(phase.graph),
             "starts": [[tool, *phase.starts_seen[tool]] for tool in sorted(phase.starts_seen)]},
            option=orjson.OPT_SORT_KEYS))
        self._log_attempts(phase.iteration, logs)

    def _log_attempts(self, iteration: int, logs: list[PathLog]) -> None:
        rows = [(iteration, log.path, i, s.edge[0] if s.edge else None, s.edge[1] if s.edge else None, s.tool,
                 s.outcome, s.kind, s.delta_alpha, s.delta_beta, s.records)
                for log in logs for i, s in enumerate(log.steps)]
        con = duckdb.connect(str(self.out / "edges.duckdb"))
        try:
            con.execute("CREATE TABLE IF NOT EXISTS attempts (iteration INTEGER, path INTEGER, step INTEGER, "
                        "source VARCHAR, target VARCHAR, tool VARCHAR, outcome VARCHAR, kind VARCHAR, "
                        "delta_alpha DOUBLE, delta_beta DOUBLE, records INTEGER)")
            con.execute("DELETE FROM attempts WHERE iteration = ?", [iteration])  # a resumed iteration
            if rows:
                cols = list(zip(*rows, strict=True))
                names = ["iteration", "path", "step", "source", "target", "tool", "outcome", "kind", "delta_alpha",
                         "delta_beta", "records"]
                con.register("_rows", {n: np.array(c, dtype=object) for n, c in zip(names, cols, strict=True)})
                con.execute("INSERT INTO attempts SELECT iteration::INTEGER, path::INTEGER, step::INTEGER, source, "
                            "target, tool, outcome, kind, delta_alpha::DOUBLE, delta_beta::DOUBLE, records::INTEGER "
                            "FROM _rows")
                con.unregister("_rows")
        finally:
            con.close()

    def finish(self, phase: PhaseA, skeleton: ToolGraph) -> None:
        """A finished run's outputs: G* (graph.json, graph.graphml, edges.duckdb), the validated value cache C
        (values.json: parameter → values a call answered with; what Phase B and APIGen fill first calls
        from) and the iterations' figures (history.json). checkpoint.json is Phase A's own resume state: no
        other phase reads it."""
        write_atomic(self.out / "values.json", orjson.dumps({"values": phase.cache}, option=orjson.OPT_SORT_KEYS))
        write_atomic(self.out / "history.json", orjson.dumps({"iterations": phase.history}))
        phase.graph.save_json(self.out / "graph.json")
        phase.graph.save_graphml(self.out / "graph.graphml")
        con = duckdb.connect(str(self.out / "edges.duckdb"))
        try:
            con.execute("DROP TABLE IF EXISTS edges")
            con.execute("CREATE TABLE edges (source VARCHAR, target VARCHAR, score DOUBLE, prior_alpha DOUBLE, "
                        "prior_beta DOUBLE, alpha DOUBLE, beta DOUBLE, attempts INTEGER, successes INTEGER, "
                        "semantic_successes INTEGER, pruned BOOLEAN, pruned_at INTEGER)")
            rows = []
            for key in sorted(phase.graph.edges):
                e, prior = phase.graph.edges[key], skeleton.edges[key]
                rows.append((e.source, e.target, e.score, prior.alpha, prior.beta, e.alpha, e.beta, e.attempts,
                             e.successes, e.semantic_successes, e.pruned, e.pruned_at))
            if rows:
                cols = list(zip(*rows, strict=True))
                names = ["source", "target", "score", "prior_alpha", "prior_beta", "alpha", "beta", "attempts",
                         "successes", "semantic_successes", "pruned", "pruned_at"]
                con.register("_e", {n: np.array(c, dtype=object) for n, c in zip(names, cols, strict=True)})
                con.execute("INSERT INTO edges SELECT source, target, score::DOUBLE, prior_alpha::DOUBLE, "
                            "prior_beta::DOUBLE, alpha::DOUBLE, beta::DOUBLE, attempts::INTEGER, successes::INTEGER, "
                            "semantic_successes::INTEGER, pruned::BOOLEAN, pruned_at::INTEGER FROM _e")
                con.unregister("_e")
        finally:
            con.close()


@writes_run("out_dir", what="an EDGE run", error=EdgeRunError, writer="another `kopa edge graph build`")
def build_graph(out_dir: Path, config: EdgeConfig, backend_spec: str = "sim", *, workers: int = 1,
                executor: Executor | None = None, force: bool = False, proposer=None, embedder=None,
                tools: list | None = None, on_iteration: Callable[[int, dict[str, Any]], None] | None = None,
                stop_after: int | None = None, filler: Callable[[str], Any] | None = None,
                roles: dict[str, str] | None = None) -> tuple[PhaseA, ToolGraph]:
    """The skeleton, then Phase A's iterations; path batches run on ``executor`` (default: the local one
    with ``workers`` processes — this process alone for 1). The graph does not depend on where they ran.
    `filler(today)` makes the first-call argument filler (default: the offline ArgumentFiller);
    `roles` names the non-default LLM roles for the run folder's digest (see config_digest)."""
    catalog = load_catalog()
    tools = tools if tools is not None else [t for t in catalog if t.family != "session"]
    seeds = bank_edges(catalog, {t.name for t in tools}, open_backend(backend_spec).today()) if config.bank else []
    digest = hashlib.sha256(orjson.dumps([s.__dict__ for s in seeds])).hexdigest() if seeds else None
    run = EdgeRun(out_dir, config, backend_spec, force=force, roles=roles, seeds=digest)
    backend: Backend = open_backend(backend_spec)
    owned = executor is None
    executor = executor or open_executor("local", workers=workers)
    try:
        if backend.observer is not None and not executor.in_process:
            raise UserError(f"{backend_spec}: a recording is written by one process; record with --workers 1 "
                            "and the local executor, then run on many from the recording (replay:DIR)")
        if filler is not None and not executor.in_process:
            # A worker's replica would fill first calls with the offline rules: another graph.
            raise UserError("an LLM filler runs in this process: use --workers 1 with the local executor "
                            "(its answers are cached, so a rerun is fast)")
        skeleton = run.skeleton(lambda: build_skeleton(tools, embedder or HashingEmbedder(),
                                                       proposer or OfflineProposer(), config, seeds=seeds))
        graph, replica = _phase_graph(out_dir / "skeleton.json", config, backend_spec)
        phase = PhaseA(graph, catalog, backend, config, replica=replica)
        if filler is not None:
            phase.filler = filler(backend.today().isoformat())
        run.resume(phase)
        if phase.iteration < config.T:
            fork_workers_from(phase, executor)
        while phase.iteration < config.T:
            if stop_after is not None and phase.iteration >= stop_after:
                break
            logs = phase.run_iteration(executor)
            run.checkpoint(phase, logs)
            if on_iteration is not None:
                on_iteration(phase.iteration, phase.history[-1])
    finally:
        if owned:
            executor.close()
    if phase.iteration >= config.T:
        run.finish(phase, skeleton)
    return phase, skeleton


def bank_edges(catalog: Catalog, tools: set[str], today: dt.date) -> list[Seed]:
    """The question bank's proposed edges between the graph's tools."""
    return [s for s in bank_seeds(load_bank(), catalog, today) if s.source in tools and s.target in tools]


def _phase_graph(path: Path, config: EdgeConfig, backend_spec: str) -> tuple[ToolGraph, ReplicaSpec]:
    """Phase A's own copy of the skeleton, and the spec of its replicas in worker processes: a worker
    keeps its replica while the key holds — the same config, backend and skeleton file, byte for byte."""
    path = path.resolve()
    data = path.read_bytes()
    key = hashlib.sha256(f"{config_digest(config, backend_spec)}\x1f{path}\x1f".encode()
                         + hashlib.sha256(data).digest()).hexdigest()
    spec = ReplicaSpec(key, str(path), backend_spec, config.model_dump(mode="json"))
    return ToolGraph.from_json_bytes(data), spec
