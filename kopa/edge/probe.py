"""A held-out probe of the converged graph: each edge executed afresh, after Phase A has decided pruning.

The in-run execution rates of skeleton / G* / pruned edges come from the very attempts that decided which
edges to prune, so "pruned edges rarely execute" holds there by construction. The probe measures the same
thing on evidence pruning never saw: every edge of the skeleton (or a seeded sample of at most
`per_class` retained and `per_class` pruned edges) is executed `repeats` times — a fresh call of its
source with arguments from the probe's own stream ("edge-probe", never Phase A's "edge-phase-a"), then the
edge's binding through Phase A's own `_bind` and `classify` — on a freshly opened backend whose fault seed
is derived from the run's with a named purpose, so the probe does not replay the faults that struck the
attempts. Its outcomes are written to the `probe` table of edges.duckdb and never reach a posterior.

Determinism: each probe attempt draws from its own stream (seed, "edge-probe", "u→v#r") and reads the
value cache as Phase A left it; results are sorted by edge and repeat, so they are the same whatever the
number of workers (chunked as Phase A chunks its paths, one runtime per worker).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import orjson

from kopa.backends.parsed import parse_backend
from kopa.backends.spec import open_backend
from kopa.catalog.loader import Catalog
from kopa.edge.graph import Edge
from kopa.edge.phase_a import PhaseA, classify
from kopa.rng import stream
from kopa.tools.runtime import ToolRuntime

SUCCESS = ("semantic", "generic")
DEFAULT_PER_CLASS = 500  # 2 × 500 edges × 2 repeats ≈ 4k calls: seconds beside the paper run's ~150k
DEFAULT_REPEATS = 2  # two tries, so "never succeeded" is not just one minus the success rate


@dataclass(frozen=True)
class ProbeResult:
    source: str
    target: str
    pruned: bool  # the edge's class: pruned by Phase A, or retained in G*
    repeat: int
    source_outcome: str  # the source call's outcome; "unfilled" when its required inputs could not be filled
    outcome: str  # the edge's outcome (classify's), or "unreached" when the source gave no records
    kind: str | None
    source_args: str  # JSON, so a reader (and the tests) can see the probe's arguments are its own
    target_args: str

    @property
    def reached(self) -> bool:
        return self.outcome != "unreached"

    @property
    def succeeded(self) -> bool:
        return self.outcome in SUCCESS


def probe_fault_spec(backend_spec: str, seed: int) -> str:
    """The backend string with its outermost fault seed replaced by one derived from (run seed, original
    fault seed) under the purpose "edge-probe-faults"; a backend without faults is returned as it is."""
    spec = parse_backend(backend_spec)
    if spec.kind != "faults":
        return backend_spec
    old = spec.layers[0].option("seed") or "0"  # as written: the stream's name
    return str(spec.with_fault_seed(int(stream(seed, "edge-probe-faults", old).integers(2**31))))


def select_edges(phase: PhaseA, per_class: int | None) -> list[Edge]:
    """Every edge, or a seeded sample of at most `per_class` per class (retained, pruned), in key order."""
    chosen: list[Edge] = []
    for pruned in (False, True):
        keys = sorted(k for k, e in phase.graph.edges.items() if e.pruned == pruned)
        if per_class is not None and len(keys) > per_class:
            rng = stream(phase.config.seed, "edge-probe-sample", "pruned" if pruned else "retained")
            picked = sorted(int(i) for i in rng.choice(len(keys), size=per_class, replace=False))
            keys = [keys[i] for i in picked]
        chosen += [phase.graph.edges[k] for k in keys]
    return sorted(chosen, key=lambda e: (e.source, e.target))


def _probe_edge(prober: PhaseA, edge: Edge, repeat: int, runtime: ToolRuntime) -> ProbeResult:
    rng = stream(prober.config.seed, "edge-probe", f"{edge.source}\u2192{edge.target}#{repeat}")
    args = prober.filler.fill(prober.catalog[edge.source], prober.cache, rng)
    if args is None:
        return ProbeResult(edge.source, edge.target, edge.pruned, repeat, "unfilled", "unreached", None, "null", "null")
    result = runtime.call(edge.source, args)
    source_outcome = classify(result, upstream_bound=False, config=prober.config)[0]
    source_args = orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()
    if not result.records:
        return ProbeResult(edge.source, edge.target, edge.pruned, repeat, source_outcome, "unreached", None,
                           source_args, "null")
    target_args, bound = prober._bind(edge, result.records, rng, args)
    outcome, kind, _, _ = classify(runtime.call(edge.target, target_args), upstream_bound=bound, config=prober.config)
    return ProbeResult(edge.source, edge.target, edge.pruned, repeat, source_outcome, outcome, kind, source_args,
                       orjson.dumps(target_args, option=orjson.OPT_SORT_KEYS, default=str).decode())


def run_probe(phase: PhaseA, catalog: Catalog, backend_spec: str, *, per_class: int | None = DEFAULT_PER_CLASS,
              repeats: int = DEFAULT_REPEATS, workers: int = 1) -> list[ProbeResult]:
    """Probe the converged graph of `phase` (read only: no posterior, count or cache of it changes)."""
    backend = open_backend(probe_fault_spec(backend_spec, phase.config.seed))
    # A second PhaseA over the same graph lends the probe Phase A's argument filler, binding and runtime
    # set-up; its cache is a copy, and it never runs an iteration, so nothing of `phase` is written.
    prober = PhaseA(phase.graph, catalog, backend, phase.config)
    prober.cache = {k: list(v) for k, v in phase.cache.items()}
    jobs = [(e, r) for e in select_edges(phase, per_class) for r in range(repeats)]

    def work(chunk: list[tuple[Edge, int]]) -> list[ProbeResult]:
        runtime = prober._default_runtime()
        return [_probe_edge(prober, e, r, runtime) for e, r in chunk]

    if workers <= 1:
        results = work(jobs)
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = [r for part in pool.map(work, [jobs[w::workers] for w in range(workers)]) for r in part]
    return sorted(results, key=lambda r: (r.source, r.target, r.repeat))


def save_probe(out_dir: Path, results: list[ProbeResult]) -> None:
    """The `probe` table of edges.duckdb: one row per probe attempt, replaced whole on every probe."""
    names = ["source", "target", "pruned", "repeat", "source_outcome", "outcome", "kind", "source_args",
             "target_args"]
    con = duckdb.connect(str(out_dir / "edges.duckdb"))
    try:
        con.execute("DROP TABLE IF EXISTS probe")
        con.execute("CREATE TABLE probe (source VARCHAR, target VARCHAR, pruned BOOLEAN, repeat INTEGER, "
                    "source_outcome VARCHAR, outcome VARCHAR, kind VARCHAR, source_args VARCHAR, target_args VARCHAR)")
        if results:
            cols = {n: np.array([getattr(r, n) for r in results], dtype=object) for n in names}
            con.register("_p", cols)
            con.execute("INSERT INTO probe SELECT source, target, pruned::BOOLEAN, repeat::INTEGER, source_outcome, "
                        "outcome, kind, source_args, target_args FROM _p")
            con.unregister("_p")
    finally:
        con.close()
