"""EDGE Phase A: execution-grounded updates of the skeleton graph (seed §5.2).

Each iteration samples M paths on the backend. A path starts at a tool whose required inputs the argument
filler can fill, then follows out-edges chosen by Thompson sampling from the Beta posteriors (with an
ε-uniform fallback), filling each target's parameters from its compiled plan. Outcomes update the edge
posteriors asymmetrically, by the config's increments (paper defaults: semantic success α += 1.0,
generic-only success α += 0.3, structural failure β += 1.0–1.5, environmental failure β += 0.1–0.8);
after each iteration an edge with n_e ≥ n_min and P[θ_e > τ] < ε_prune is pruned.

The `coverage` sampler (EdgeConfig.sampler) changes only where paths go: each path is first sent down a
scheduled edge still short of n_min attempts (PhaseA.coverage_schedule), then continues to the least-tried
out-edge while one is short of n_min; updates and pruning are the paper's.

Determinism: a path's randomness is drawn from its own stream (seed, iteration, path); every path of an
iteration reads the posteriors and the value cache as they stood when the iteration began, and the
iteration's updates are applied afterwards in a canonical order — so the result is the same whatever the
number of workers, and a run resumed from any completed iteration ends where an uninterrupted one does.

Where paths run: in this process, or as batches on an executor (kopa.executor: local processes, Ray). A
batch (:class:`PathBatch`) is a picklable unit carrying that very snapshot — the posteriors and the value
cache as the iteration began — beside the iteration number and its path indices; the process running it
holds a replica of this Phase A (catalog, backend, skeleton), built once per process from a
:class:`ReplicaSpec` and cached, and returns the batch's path logs, which this process applies. On
local processes this process is one of the workers: it runs the first batch itself, on its own state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kopa.backends.base import Backend
from kopa.backends.spec import open_backend
from kopa.catalog.loader import Catalog, load_catalog
from kopa.catalog.models import Tool
from kopa.catalog.view import ParamView, ToolViews
from kopa.edge.config import EdgeConfig
from kopa.edge.fill import Given, OneOf, Source, first_value
from kopa.edge.graph import Edge, ToolGraph
from kopa.edge.plan import dated_value, is_generic
from kopa.executor import Executor, LocalExecutor
from kopa.rng import stream
from kopa.tools.results import ToolResult
from kopa.tools.runtime import RetryPolicy, ToolRuntime

# Where each error kind sits inside its class's configured β range (0 = the low end, 1 = the high end).
# The paper gives only the ranges; the position says how much the failure tells about the binding.
# Structural: "no data" for a well-formed value may be the value, not the edge (low end); anything else
# (bad or unknown parameter, unknown code) means the binding itself is malformed (high end).
# Environmental: a rate limit happens whatever the binding (low end); a malformed envelope is the most
# likely to have been provoked by what was sent (high end); an unknown kind sits where a 5xx does.
STRUCTURAL_POSITION = {"no_data": 0.0, "page_out_of_range": 0.0}
STRUCTURAL_DEFAULT_POSITION = 1.0
ENVIRONMENTAL_POSITION = {"rate_limit": 0.0, "maintenance": 1 / 7, "timeout": 2 / 7, "connection": 2 / 7,
                          "server_error": 4 / 7, "malformed": 1.0}
ENVIRONMENTAL_DEFAULT_POSITION = 4 / 7
# The outcome of an environmental failure under update_rule "ignore": no evidence, and not an attempt.
IGNORED = "ignored"


def in_range(bounds: tuple[float, float], position: float) -> float:
    """low·(1 − p) + high·p: the ends come out exactly (p = 0 gives low, p = 1 gives high), and with
    the paper's (0.1, 0.8) every tabled position lands exactly on its tenth (0.2, 0.3, 0.5), so the
    default graph is the same float for float as when these values were literals."""
    low, high = bounds
    return low * (1.0 - position) + high * position


@dataclass(frozen=True)
class StepOutcome:
    edge: tuple[str, str] | None  # None for the path's first call
    tool: str
    outcome: str  # semantic | generic | structural | environmental | auth
    kind: str | None
    delta_alpha: float
    delta_beta: float
    records: int


@dataclass
class PathLog:
    iteration: int
    path: int
    steps: list[StepOutcome] = field(default_factory=list)
    observed: dict[str, list[str]] = field(default_factory=dict)  # field name → values seen (value cache)

    @property
    def passed(self) -> bool:
        return bool(self.steps) and all(s.outcome in ("semantic", "generic") for s in self.steps)


class ArgumentFiller:
    """First-tool arguments without any upstream output: enums, defaults, dates from the virtual 'today',
    and values already seen in successful answers (the validated cache C). Returns None when a required
    parameter cannot be filled, so the path starts elsewhere. It reads the tool's public view only: a date
    is a parameter documented as one (kopa.edge.plan.date_form), not a format identifier."""

    name = "offline-rules"

    def __init__(self, today: str) -> None:
        self.today = today.replace("-", "")
        self.view = ToolViews()

    def fill(self, tool: Tool, cache: dict[str, list[str]], rng: np.random.Generator) -> dict[str, Any] | None:
        args: dict[str, Any] = {}
        for p in self.view(tool).params:
            if is_generic(p) or not p.required:
                continue
            value = self._value(p, cache, rng)
            if value is None:
                return None
            args[p.name] = value
        return args

    def _value(self, p: ParamView, cache: dict[str, list[str]], rng: np.random.Generator) -> Any:
        return first_value(self._sources(p, cache), rng)

    def _sources(self, p: ParamView, cache: dict[str, list[str]]) -> Iterator[Source]:
        """Phase A's precedence: any value its cache saw may open a probe (a wrong one is evidence)."""
        yield OneOf(p.enum or ())
        yield Given(p.default)
        yield Given(dated_value(p, self.today))
        yield OneOf(cache.get(p.name) or ())
        yield Given(1 if p.type == "integer" else None)


def classify(result: ToolResult, upstream_bound: bool, config: EdgeConfig) -> tuple[str, str | None, float, float]:
    """(outcome, kind, Δα, Δβ): the paper's asymmetric update with the config's magnitudes.

    A call with records is a success: semantic when an upstream value was bound (a non-generic input
    carried it), else generic-only, which proves less. A failure is read by its error class: a
    structural one is evidence against the binding, an environmental one only weakly (it strikes right
    and wrong bindings alike), an auth one none at all. A call that answers without records and without
    an error found nothing for the bound value: structural "no_data".

    `config.update_rule` changes only how an environmental failure is read (the pruning study compares
    them, kopa.study.pruning):

    - asymmetric (default, the paper): Δβ from `beta_environmental` at the kind's position;
    - symmetric: penalised like a structural failure — exactly the increment of a structural failure of
      an untabled kind (a bad parameter, an unknown code), `beta_structural` at
      STRUCTURAL_DEFAULT_POSITION, i.e. its high end (1.5 by default); the outcome stays "environmental";
    - ignore: Δα = Δβ = 0 and the outcome is IGNORED, which update_posterior does not count as an
      attempt, so it does not bring the edge nearer n_min either.
    """
    if result.ok and result.records:
        if upstream_bound:
            return "semantic", None, config.alpha_semantic, 0.0
        return "generic", None, config.alpha_generic, 0.0
    error = result.error
    kind = error.kind if error else "no_data"
    if error is not None and error.error_class == "environmental":
        if config.update_rule == "ignore":
            return IGNORED, kind, 0.0, 0.0
        if config.update_rule == "symmetric":
            return "environmental", kind, 0.0, in_range(config.beta_structural, STRUCTURAL_DEFAULT_POSITION)
        position = ENVIRONMENTAL_POSITION.get(kind, ENVIRONMENTAL_DEFAULT_POSITION)
        return "environmental", kind, 0.0, in_range(config.beta_environmental, position)
    if error is not None and error.error_class == "auth":
        return "auth", kind, 0.0, 0.0  # the key, not the binding: no evidence about the edge
    position = STRUCTURAL_POSITION.get(kind, STRUCTURAL_DEFAULT_POSITION)
    return "structural", kind, 0.0, in_range(config.beta_structural, position)


def thompson_choice(out: list[Edge], rng: np.random.Generator, eps_explore: float) -> tuple[Edge, bool]:
    """(chosen edge, whether the ε fallback chose it) among a node's live out-edges.

    With probability ε a uniform edge — the floor on exploration that keeps a cold-start edge from
    never being tried; otherwise one draw θ̃_e ~ Beta(α_e, β_e) per edge and the largest wins, so an
    edge is followed with the posterior probability that it is the best, and a little-tried edge with a
    wide posterior keeps being explored. The uniform number is drawn first whatever ε is, so a path's
    stream is consumed the same way for every ε.
    """
    if not out:
        raise ValueError("no out-edge to choose from")
    if rng.random() < eps_explore:
        return out[int(rng.integers(len(out)))], True
    draws = [rng.beta(e.alpha, e.beta) for e in out]
    return out[int(np.argmax(draws))], False


def update_posterior(edge: Edge, step: StepOutcome) -> None:
    """One attempt's evidence on its edge: the increments classify computed, and the counts (an IGNORED
    outcome is no attempt: it must not bring the edge to n_min without evidence)."""
    edge.alpha += step.delta_alpha
    edge.beta += step.delta_beta
    edge.attempts += step.outcome != IGNORED
    edge.successes += step.outcome in ("semantic", "generic")
    edge.semantic_successes += step.outcome == "semantic"


# The edge fields Phase A changes; everything else in an edge is the skeleton's.
DYNAMIC_FIELDS = ("alpha", "beta", "attempts", "successes", "semantic_successes", "pruned", "pruned_at")


@dataclass(frozen=True)
class ReplicaSpec:
    """What another process needs to rebuild a Phase A: the skeleton's file (absolute, so a Ray worker
    with another working directory finds it), the backend string and the config. ``key`` names the run
    (its config digest, the skeleton's path and a hash of its bytes): a worker process keeps the replica
    of the key it last saw."""

    key: str
    skeleton: str
    backend: str
    config: dict[str, Any]


class PhaseA:
    def __init__(self, graph: ToolGraph, catalog: Catalog, backend: Backend, config: EdgeConfig,
                 runtime_factory: Callable[[], ToolRuntime] | None = None,
                 replica: ReplicaSpec | None = None) -> None:
        """``replica`` lets path batches run in other processes (run_iteration on an executor that is
        not in-process); without it they run here."""
        self.graph = graph
        self.catalog = catalog
        self.backend = backend
        self.config = config
        self.filler = ArgumentFiller(backend.today().isoformat())
        self.cache: dict[str, list[str]] = {}
        self.iteration = 0
        self.history: list[dict[str, float]] = []
        self.replica = replica
        self._runtime_factory = runtime_factory or self._default_runtime
        self._starts = sorted({e.source for e in graph.edges.values()})
        self._schedule: tuple[int, list[tuple[Edge, ...]]] | None = None
        # start tool → (paths started there, of which its call answered with records); the coverage
        # sampler stops sending paths to a source that never answers
        self.starts_seen: dict[str, tuple[int, int]] = {}
        self._pruning_scanned = False  # set after _apply's first pass over every edge

    def _default_runtime(self) -> ToolRuntime:
        runtime = ToolRuntime(self.backend, catalog=self.catalog, retry=RetryPolicy(max_attempts=1))
        for platform in sorted(p for p in self.catalog.platforms if p != "session"):
            runtime.call("issue_api_key", {"platform": platform})
        return runtime

    # ------------------------------------------------------------ one path

    def _choose_edge(self, u: str, rng: np.random.Generator) -> Edge | None:
        out = [e for e in self.graph.out_edges(u) if not e.pruned]
        if not out:
            return None
        if self.config.sampler == "coverage":
            short = [e for e in out if e.attempts < self.config.n_min]
            if short:  # the least-tried first; ties broken by the path's own stream
                fewest = min(e.attempts for e in short)
                short = [e for e in short if e.attempts == fewest]
                return short[int(rng.integers(len(short)))]
        return thompson_choice(out, rng, self.config.eps_explore)[0]

    def coverage_schedule(self, iteration: int) -> list[tuple[Edge, ...]]:
        """The `coverage` sampler's routes for this iteration's paths, in path order: for every live edge
        u → v short of n_min attempts, the edges a path takes first to try it — (u → v) itself when u can
        start a path, else (w → u, u → v) through the in-edge of u most often executed from a startable w;
        edges with no such route wait until one appears. The least-tried first, ties in an order drawn
        afresh each iteration (so an edge whose route keeps failing does not hold a slot forever).

        A source can start a path when the filler fills its required inputs and it answered with records
        as a start (or has been tried fewer than n_min times). The schedule is a function of the posteriors,
        value cache and start counts as the iteration began, which every path (and every worker's replica)
        reads alike; it is computed once per iteration."""
        if self._schedule is not None and self._schedule[0] == iteration:
            return self._schedule[1]
        probe = stream(self.config.seed, "edge-coverage-fill")  # fill() fails or not whatever it draws
        startable: dict[str, bool] = {}

        def can_start(tool: str) -> bool:
            if tool not in startable:
                tries, answered = self.starts_seen.get(tool, (0, 0))
                startable[tool] = ((answered > 0 or tries < self.config.n_min)
                                   and self.filler.fill(self.catalog[tool], self.cache, probe) is not None)
            return startable[tool]

        approach: dict[str, Edge | None] = {}  # u → the in-edge a path reaches u by, when u cannot start

        def approach_to(tool: str) -> Edge | None:
            if tool not in approach:
                ways = [e for e in self.graph.in_edges(tool) if not e.pruned and e.successes and can_start(e.source)]
                approach[tool] = max(ways, key=lambda e: (e.successes / e.attempts, e.successes, e.source),
                                     default=None)
            return approach[tool]

        routes: list[tuple[Edge, ...]] = []
        for key in sorted(self.graph.edges):
            edge = self.graph.edges[key]
            if edge.pruned or edge.attempts >= self.config.n_min:
                continue
            if can_start(edge.source):
                routes.append((edge,))
            elif (via := approach_to(edge.source)) is not None:
                routes.append((via, edge))
        order = stream(self.config.seed, "edge-coverage", str(iteration)).permutation(len(routes))
        schedule = sorted((routes[int(i)] for i in order), key=lambda r: r[-1].attempts)  # stable: ties keep the draw
        self._schedule = (iteration, schedule)
        return schedule

    def _start(self, iteration: int, index: int, rng: np.random.Generator
               ) -> tuple[str, dict[str, Any], list[Edge]] | None:
        """(start tool, its arguments, the edges the path must take first, in order)."""
        if self.config.sampler == "coverage":
            schedule = self.coverage_schedule(iteration)
            if index < len(schedule):
                route = schedule[index]
                args = self.filler.fill(self.catalog[route[0].source], self.cache, rng)
                if args is not None:
                    return route[0].source, args, list(route)
        for _ in range(8):  # a start tool whose required inputs can be filled
            candidate = self._starts[int(rng.integers(len(self._starts)))]
            args = self.filler.fill(self.catalog[candidate], self.cache, rng)
            if args is not None:
                return candidate, args, []
        return None

    def _bind(self, edge: Edge, records: list[dict], rng: np.random.Generator,
              context: dict[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
        """The target's arguments: its plan's upstream fields from one record, a guess for a required input
        with candidates, and — for a required input still open — the value the path's earlier calls gave a
        parameter of that name (`context`: the city a bus route was searched in is the city its stops are
        asked in, as a caller carries it over)."""
        # A high-cardinality handoff: take one of the first φ records (the paper's fan-out budget).
        record = records[int(rng.integers(min(len(records), self.config.phi)))]
        required = {p.name for p in self.catalog[edge.target].spec.params if p.required}
        args: dict[str, Any] = {}
        bound = False
        for param, source in sorted(edge.plan.items()):
            if source.kind == "UPSTREAM" and source.field and source.field in record:
                value = record[source.field]
                if value not in (None, ""):
                    args[param] = value
                    bound = True
            elif source.kind == "CLARIFY" and source.values and param in required:
                # Only a required input is guessed; an optional filter left unbound is simply not sent,
                # as a caller would (a guessed optional filter mostly narrows the answer to nothing).
                args[param] = source.values[int(rng.integers(len(source.values)))]
        for param in sorted(required - args.keys()):
            if context and context.get(param) not in (None, ""):
                args[param] = context[param]
        return args, bound

    def run_path(self, iteration: int, index: int, runtime: ToolRuntime) -> PathLog:
        rng = stream(self.config.seed, "edge-phase-a", f"{iteration}:{index}")
        log = PathLog(iteration, index)
        chosen = self._start(iteration, index, rng)
        if chosen is None:
            return log
        start, args, route = chosen
        result = runtime.call(start, args)
        outcome, kind, da, db = classify(result, upstream_bound=False, config=self.config)
        log.steps.append(StepOutcome(None, start, outcome, kind, da, db, len(result.records)))
        self._observe(log, result)
        current, records = start, result.records
        context = dict(args)
        for _ in range(self.config.max_path_len - 1):
            if not records:
                break
            edge = route.pop(0) if route else self._choose_edge(current, rng)
            if edge is None:
                break
            args, bound = self._bind(edge, records, rng, context)
            context.update(args)
            result = runtime.call(edge.target, args)
            outcome, kind, da, db = classify(result, upstream_bound=bound, config=self.config)
            log.steps.append(StepOutcome((edge.source, edge.target), edge.target, outcome, kind, da, db,
                                         len(result.records)))
            self._observe(log, result)
            if outcome not in ("semantic", "generic"):
                break
            current, records = edge.target, result.records
        return log

    def _observe(self, log: PathLog, result: ToolResult) -> None:
        for record in result.records[: self.config.phi]:
            for name, value in record.items():
                if isinstance(value, str) and 0 < len(value) <= 40:
                    log.observed.setdefault(name, []).append(value)

    # ------------------------------------------------------------ one iteration

    def run_paths(self, iteration: int, indices: list[int]) -> list[PathLog]:
        """The paths ``indices`` of ``iteration`` on this process's graph, cache and one runtime."""
        runtime = self._runtime_factory()
        return [self.run_path(iteration, i, runtime) for i in indices]

    def run_iteration(self, executor: Executor | None = None) -> list[PathLog]:
        """One iteration's M paths, here (no executor, or an in-process one: no copy of anything) or as
        one batch per executor worker; then its updates, applied here in path order."""
        iteration = self.iteration + 1
        indices = list(range(self.config.M))
        if executor is None or executor.in_process:
            logs = self.run_paths(iteration, indices)
        else:
            if self.replica is None:
                raise ValueError("path batches on another process need the PhaseA's replica spec")
            logs = sorted(self._run_batches(executor, self.replica, iteration, indices), key=lambda g: g.path)
        self._apply(logs, iteration)
        self.iteration = iteration
        return logs

    def _run_batches(self, executor: Executor, replica: ReplicaSpec, iteration: int, indices: list[int]
                     ) -> list[PathLog]:
        """One batch per worker, interleaved (every batch gets paths of every kind; the result does not
        depend on it). When this process is one of the workers it runs the first batch itself, on its
        own graph and cache — the very state the snapshot holds — while the executor runs the rest."""
        workers = min(executor.workers, len(indices))
        parts = [indices[w::workers] for w in range(workers)]
        here = parts.pop(0) if executor.caller_is_a_worker else []
        snapshot = snapshot_posteriors(self.graph) if parts else {}
        batches = [PathBatch(replica, iteration, tuple(part), snapshot, self.cache, self.starts_seen)
                   for part in parts]
        with ThreadPoolExecutor(1) as waiter:  # waits on the executor while this thread runs paths
            elsewhere = waiter.submit(executor.map, run_path_batch, batches)
            logs = self.run_paths(iteration, here) if here else []
            return logs + [log for part in elsewhere.result() for log in part]

    def _apply(self, logs: list[PathLog], iteration: int) -> None:
        deltas: dict[tuple[str, str], list[StepOutcome]] = defaultdict(list)
        for log in logs:  # logs are in path order: a canonical order whatever the workers did
            for step in log.steps:
                if step.edge is not None:
                    deltas[step.edge].append(step)
        for key in sorted(deltas):
            edge = self.graph.edges[key]
            for step in deltas[key]:
                update_posterior(edge, step)
        # The pruning test reads only an edge's own posterior and counts: an edge this iteration left alone
        # got "keep" from the same test before, so after a first full pass only updated edges are asked.
        # (0.09 s a pass over the paper's 27,548 edges, paid serially every iteration otherwise.)
        keys = sorted(deltas) if self._pruning_scanned else sorted(self.graph.edges)
        self._pruning_scanned = True
        for key in keys:
            edge = self.graph.edges[key]
            if not edge.pruned and edge.should_prune(self.config.n_min, self.config.tau, self.config.eps_prune):
                edge.pruned = True
                edge.pruned_at = iteration
        for log in logs:
            if log.steps:  # the path's first call: was its start tool able to answer?
                tries, answered = self.starts_seen.get(log.steps[0].tool, (0, 0))
                self.starts_seen[log.steps[0].tool] = (tries + 1, answered + (log.steps[0].records > 0))
        for log in logs:
            for name, values in log.observed.items():
                bucket = self.cache.setdefault(name, [])
                for v in values:
                    if v not in bucket and len(bucket) < 50:
                        bucket.append(v)
        steps = [s for log in logs for s in log.steps]
        self.history.append({
            "iteration": iteration,
            "trajectory_pass_rate": float(np.mean([log.passed for log in logs if log.steps] or [False])),
            "step_success_rate": float(np.mean([s.outcome in ("semantic", "generic") for s in steps] or [False])),
            "edges_retained": float(sum(not e.pruned for e in self.graph.edges.values())),
            "calls": float(len(steps)),
        })


# ---------------------------------------------------------------- path batches (picklable units)


@dataclass(frozen=True)
class PathBatch:
    """Some paths of one iteration, with the state every path of that iteration reads."""

    replica: ReplicaSpec
    iteration: int
    paths: tuple[int, ...]
    posteriors: dict[str, list[Any]]  # DYNAMIC_FIELDS, one list each, edges in sorted key order
    cache: dict[str, list[str]]
    starts_seen: dict[str, tuple[int, int]]  # the coverage sampler's start counts


def snapshot_posteriors(graph: ToolGraph) -> dict[str, list[Any]]:
    """The edges' dynamic fields as columns (compact to pickle: one list of floats or ints per field)."""
    edges = [graph.edges[key] for key in sorted(graph.edges)]
    return {name: [getattr(e, name) for e in edges] for name in DYNAMIC_FIELDS}


class Replica:
    """A worker process's Phase A for one run, and the snapshot its graph holds now: a new snapshot sets
    only the values that differ (an iteration changes a few thousand of the 45,834 edges' fields; setting
    all of them cost 0.17 s per batch). The graph ends equal to the snapshot either way."""

    def __init__(self, spec: ReplicaSpec, phase: PhaseA | None = None) -> None:
        """Built from the spec (a spawned or remote worker reads the skeleton's file), or around `phase`, a
        Phase A of the same spec that this process already holds (workers forked from it share it)."""
        self.key = spec.key
        self.source = "the skeleton's file" if phase is None else "this process's Phase A"
        self.phase = phase if phase is not None else PhaseA(
            ToolGraph.load_json(spec.skeleton), load_catalog(), open_backend(spec.backend),
            EdgeConfig.model_validate(spec.config), replica=spec)
        graph = self.phase.graph
        self._edges = [graph.edges[key] for key in sorted(graph.edges)]
        self._held = snapshot_posteriors(graph)

    def restore(self, columns: dict[str, list[Any]]) -> None:
        for name, values in columns.items():
            if len(values) != len(self._edges):
                raise ValueError(f"a posterior snapshot of {len(values)} edges for a graph of {len(self._edges)}")
            held = self._held[name]
            for i in [i for i, (old, new) in enumerate(zip(held, values, strict=True)) if old != new]:
                setattr(self._edges[i], name, values[i])
            self._held[name] = values


# This process's replica. One at a time — a worker serves one run's batches after another.
_REPLICA: list[Replica] = []


def replica_of(spec: ReplicaSpec) -> Replica:
    """The replica a worker process runs batches on, built on its first batch of a run."""
    if _REPLICA and _REPLICA[0].key == spec.key:
        return _REPLICA[0]
    _REPLICA.clear()  # the previous run's replica goes before this one is built: one in memory at a time
    _REPLICA.append(Replica(spec))
    return _REPLICA[0]


def fork_workers_from(phase: PhaseA, executor: Executor) -> None:
    """Start `executor`'s forked workers now, each holding `phase` as its replica: they skip reading the
    skeleton (2–3 s for the paper's 27,588 edges), the catalog and the world, and share this process's pages
    until they write them. Called before the first path batch, while this process runs nothing else, so no
    thread of it is forked mid-work; the replica is dropped here once the workers hold their copies."""
    if phase.replica is None or not isinstance(executor, LocalExecutor) or not executor.fork or executor.in_process:
        return
    _REPLICA.clear()
    _REPLICA.append(Replica(phase.replica, phase))
    try:
        # every worker forked here; this process runs one batch of each iteration itself (_run_batches)
        executor.start(processes=executor.workers - 1)
    finally:
        _REPLICA.clear()


def run_path_batch(batch: PathBatch) -> list[PathLog]:
    """A batch on this process's replica, as of the snapshot it carries (a pure function of the batch)."""
    replica = replica_of(batch.replica)
    replica.restore(batch.posteriors)
    replica.phase.cache = batch.cache
    replica.phase.starts_seen = batch.starts_seen
    replica.phase._schedule = None  # a schedule is a function of the state just restored
    return replica.phase.run_paths(batch.iteration, list(batch.paths))
