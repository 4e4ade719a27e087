"""One unit of the pruning study: Phase A from the study's skeleton under one fault profile, rule,
retry policy and seed, measured against the truth the study folder holds.

A unit reads only files of the study folder (skeleton.json, truth.json, profiles/*.toml) and computes
the rest from scratch, so it runs the same in this process, a spawn worker or on a Ray node.

Drift: a drift unit serves epoch 0 of the drift scenario for the first T // 2 iterations and epoch 1
for the rest (each iteration opens its runtime on the backend of its epoch), and its held-out probe runs
on epoch 1 — the API as it stands when the graph is used. The truth is the undrifted one (what
kopa.edge.truth_study reads, and what the catalog documents); edges touching an endpoint the scenario
changes are counted apart (`drift_touched_*`, in every unit, so drift units compare with the others) as
well as in the totals.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import orjson
from pydantic import BaseModel

from kopa.backends.parsed import parse_backend
from kopa.catalog.loader import load_catalog
from kopa.edge.graph import ToolGraph
from kopa.edge.phase_a import PhaseA
from kopa.edge.probe import _probe_edge, probe_fault_spec, select_edges
from kopa.edge.report import probe_figures
from kopa.study.backends import open_unit_backend
from kopa.study.faults import ArrivalCounter, realized_rate
from kopa.study.grid import DRIFT_SCENARIO, RETRY_ATTEMPTS, StudyConfig, Unit
from kopa.tools.runtime import RetryPolicy, ToolRuntime

SUCCESS = ("semantic", "generic")


class UnitResult(BaseModel):
    """What a unit returns: its metrics (one flat dict of numbers), the attempted edges and the history."""

    unit_id: str
    metrics: dict[str, float | int]
    edges: list[tuple[str, str, int, int, bool, int | None]]  # source, target, attempts, successes, pruned, pruned_at
    history: list[dict[str, float]]


def backend_spec(config: StudyConfig, unit: Unit, *, epoch: int = 0) -> str:
    """The backend string the unit's backend is (kopa.study.backends opens it with a shared world)."""
    profile = unit.path / "profiles" / f"{unit.profile}.toml"
    inner = config.world
    if unit.drift and epoch > 0:
        inner = f"{inner}{',' if ':' in inner else ':'}drift={DRIFT_SCENARIO},epoch={epoch}"
    return f"faults:{profile},seed={unit.seed}@{inner}"


def open_backend_of(config: StudyConfig, unit: Unit, *, epoch: int = 0, fault_seed: int | None = None):
    return open_unit_backend(config.world, str(unit.path / "profiles" / f"{unit.profile}.toml"),
                             unit.seed if fault_seed is None else fault_seed,
                             DRIFT_SCENARIO if unit.drift else None, epoch)


def load_study_config(unit: Unit) -> StudyConfig:
    return StudyConfig.model_validate(orjson.loads((unit.path / "config.json").read_bytes())["config"])


def load_truth(unit: Unit) -> dict[tuple[str, str], tuple[bool, bool]]:
    """(source, target) → (truly bound, touches a drifted endpoint)."""
    rows = orjson.loads((unit.path / "truth.json").read_bytes())
    return {(r[0], r[1]): (bool(r[2]), bool(r[3])) for r in rows}


def run_unit(unit: Unit, *, iterations: int | None = None, timings: dict[str, float] | None = None) -> UnitResult:
    """One Phase A run of the grid and its metrics. `iterations` (fewer than T) and `timings` (filled with the
    seconds of the set-up, one iteration on average and the probe) are for timing a unit before a grid."""
    started = time.perf_counter()
    config = load_study_config(unit)
    edge_config = config.edge_config(unit.rule, unit.seed)
    catalog = load_catalog()
    epochs = (0, 1) if unit.drift else (0,)
    backends = {e: open_backend_of(config, unit, epoch=e) for e in epochs}
    counters = {}
    for e, backend in backends.items():
        counters[e] = ArrivalCounter(backend.transport)
        backend.transport = counters[e]
    policy = RetryPolicy(max_attempts=RETRY_ATTEMPTS[unit.retries])
    switch = config.T // 2  # drift: iterations after this one serve epoch 1
    graph = ToolGraph.load_json(unit.path / "skeleton.json")
    phase: PhaseA

    def runtime() -> ToolRuntime:
        epoch = 1 if unit.drift and phase.iteration >= switch else 0
        rt = ToolRuntime(backends[epoch], catalog=catalog, retry=policy)
        for platform in sorted(p for p in catalog.platforms if p != "session"):
            rt.call("issue_api_key", {"platform": platform})
        return rt

    phase = PhaseA(graph, catalog, backends[0], edge_config, runtime_factory=runtime)
    outcomes: Counter[str] = Counter()
    ready = time.perf_counter()
    for _ in range(config.T if iterations is None else iterations):
        logs = phase.run_iteration()
        outcomes.update(s.outcome for log in logs for s in log.steps)
    iterated = time.perf_counter()
    probe = held_out_probe(phase, catalog, config, unit, max(epochs))
    if timings is not None:
        timings.update(setup=ready - started, iteration=(iterated - ready) / max(1, iterations or config.T),
                       probe=time.perf_counter() - iterated, iterations=config.T)
    figures = probe_figures(phase.graph, probe, config.probe_repeats)
    events = [ev for b in backends.values() for ev in b.fault_log.events()]
    arrivals: Counter[tuple[str, int]] = Counter()
    for c in counters.values():
        arrivals.update(c.arrivals)

    truth = load_truth(unit)
    metrics: dict[str, float | int] = {
        **graph_metrics(phase.graph, truth, config.T, edge_config.n_min),
        **realized_rate(arrivals, events),
        "fault_events": len(events), "requests_after_drift": sum(counters[1].arrivals.values()) if unit.drift else 0, "calls": int(sum(h["calls"] for h in phase.history)),
        "environmental_steps": outcomes["environmental"] + outcomes["ignored"],
        "steps": sum(outcomes.values()),
        "step_success_first": phase.history[0]["step_success_rate"],
        "step_success_last": phase.history[-1]["step_success_rate"],
        "trajectory_pass_first": phase.history[0]["trajectory_pass_rate"],
        "trajectory_pass_last": phase.history[-1]["trajectory_pass_rate"],
        **{f"probe_{k}": v for k, v in figures.model_dump().items()},
    }
    edges = [(e.source, e.target, e.attempts, e.successes, e.pruned, e.pruned_at)
             for key, e in sorted(phase.graph.edges.items()) if e.attempts or e.pruned]
    return UnitResult(unit_id=unit.unit_id, metrics=metrics, edges=edges, history=phase.history)


def held_out_probe(phase: Any, catalog: Any, config: StudyConfig, unit: Unit, epoch: int) -> list:
    """kopa.edge.probe.run_probe on the unit's own backend (run_probe opens one from a backend string,
    which would load the world's tables again for every unit): the same edges, streams, derived fault
    seed (probe_fault_spec of the unit's backend string) and outcomes."""
    derived = probe_fault_spec(backend_spec(config, unit, epoch=epoch), phase.config.seed)
    fault_seed = parse_backend(derived).fault_seed
    prober = PhaseA(phase.graph, catalog, open_backend_of(config, unit, epoch=epoch, fault_seed=fault_seed),
                    phase.config)
    prober.cache = {k: list(v) for k, v in phase.cache.items()}
    runtime = prober._default_runtime()
    jobs = [(e, r) for e in select_edges(phase, config.probe_per_class) for r in range(config.probe_repeats)]
    return sorted((_probe_edge(prober, e, r, runtime) for e, r in jobs), key=lambda r: (r.source, r.target, r.repeat))


def graph_metrics(graph: Any, truth: dict[tuple[str, str], tuple[bool, bool]], T: int, n_min: int
                  ) -> dict[str, float | int]:
    """Pruning against the truth, and convergence. Shares are 0.0 where their denominator is empty."""
    keys = sorted(graph.edges)
    true = [k for k in keys if truth[k][0]]
    false = [k for k in keys if not truth[k][0]]
    pruned = {k for k in keys if graph.edges[k].pruned}
    retained = [k for k in keys if k not in pruned]
    drifted = [k for k in keys if truth[k][1]]
    wrongly = [k for k in true if k in pruned]
    kept_false = [k for k in false if k not in pruned]
    decided = [k for k in keys if graph.edges[k].attempts >= n_min]
    pruned_at = sorted(graph.edges[k].pruned_at for k in pruned)
    late = T - T // 4  # the last quarter of the iterations

    def share(n: int, d: int) -> float:
        return n / d if d else 0.0

    return {
        "skeleton_edges": len(keys), "true_edges": len(true), "false_edges": len(false),
        "attempted_edges": sum(graph.edges[k].attempts > 0 for k in keys), "edges_at_n_min": len(decided),
        "pruned_edges": len(pruned), "retained_edges": len(retained),
        "wrongly_pruned": len(wrongly), "wrongly_pruned_share": share(len(wrongly), len(true)),
        "false_retained": len(kept_false), "false_retained_share": share(len(kept_false), len(false)),
        "false_pruned": len(false) - len(kept_false),
        "g_star_precision": share(sum(truth[k][0] for k in retained), len(retained)),
        "g_star_recall": share(len(true) - len(wrongly), len(true)),
        "skeleton_precision": share(len(true), len(keys)),
        "pruned_precision": share(len(wrongly), len(pruned)),
        # Edges touching an endpoint the drift scenario changes, in every unit: drift units against the rest.
        "drift_touched_edges": len(drifted), "drift_touched_pruned": sum(k in pruned for k in drifted),
        "drift_touched_true_pruned": sum(k in pruned and truth[k][0] for k in drifted),
        "last_prune_iteration": pruned_at[-1] if pruned_at else 0,
        "pruned_last_quarter": sum(p > late for p in pruned_at),
        "pruned_last_quarter_share": share(sum(p > late for p in pruned_at), len(pruned_at)),
    }
