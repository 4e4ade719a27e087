"""The tool-dependency graph G = (V, E) with feasibility-anchored Beta priors (seed §5.2).

Each edge u → v claims u's outputs bind v's inputs. It enters the skeleton when the proposer's s_e ≥
s_min, with α = 1 + κ s_e, β = 1 + κ (1 − s_e); execution evidence then moves (α, β), and an edge is
pruned when n_e ≥ n_min and P[θ_e > τ] < ε_prune.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

import networkx as nx
import orjson
from pydantic import BaseModel, ConfigDict

from kopa.bank.hops import Seed
from kopa.catalog.models import Tool
from kopa.catalog.view import ToolView
from kopa.edge.config import EdgeConfig
from kopa.edge.embed import Embedder
from kopa.edge.plan import ParamSource, compile_plan
from kopa.edge.proposer import EdgeProposer
from kopa.edge.retriever import graph_tools, retrieve
from kopa.fileio import write_atomic

FORMAT_VERSION = 1


# ---------------------------------------------------------------- Beta distribution

def _betacf(a: float, b: float, x: float, max_iter: int = 300, eps: float = 3e-16) -> float:
    """Continued fraction of the incomplete beta function (Numerical Recipes `betacf`, modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta I_x(a, b) = P[θ ≤ x] for θ ~ Beta(a, b)."""
    if a <= 0 or b <= 0:
        raise ValueError(f"Beta parameters must be positive, got a={a}, b={b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):  # the continued fraction converges fast on this side
        return min(1.0, max(0.0, front * _betacf(a, b, x) / a))
    return min(1.0, max(0.0, 1.0 - front * _betacf(b, a, 1.0 - x) / b))


def prior(score: float, kappa: float = 2.0) -> tuple[float, float]:
    """The feasibility-anchored prior: α = 1 + κ s_e, β = 1 + κ (1 − s_e)."""
    return 1.0 + kappa * score, 1.0 + kappa * (1.0 - score)


# ---------------------------------------------------------------- edges and the graph

class Edge(BaseModel):
    """One claimed dependency u → v with its plan and its Beta posterior (mutable: the loop updates it)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False)

    source: str
    target: str
    score: float
    alpha: float
    beta: float
    prior_alpha: float
    prior_beta: float
    similarity: float = 0.0
    cross_domain: bool = False
    bindings: dict[str, str] = {}
    defaults: dict[str, list[str]] = {}
    plan: dict[str, ParamSource] = {}
    rationale: str = ""
    attempts: int = 0
    successes: int = 0
    semantic_successes: int = 0
    pruned: bool = False
    pruned_at: int | None = None
    seeded: bool = False  # a handoff of the question bank proposed it (kopa.bank.hops), beside or instead of the proposer

    @property
    def key(self) -> tuple[str, str]:
        return self.source, self.target

    @property
    def mean(self) -> float:
        """Posterior mean α / (α + β)."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def prior_mean(self) -> float:
        return self.prior_alpha / (self.prior_alpha + self.prior_beta)

    def prob_above(self, tau: float) -> float:
        """P[θ_e > τ] under the current posterior."""
        return 1.0 - beta_cdf(tau, self.alpha, self.beta)

    def should_prune(self, n_min: int = 2, tau: float = 0.5, eps_prune: float = 0.3) -> bool:
        """prune(e) ⟺ n_e ≥ n_min ∧ P[θ_e > τ] < ε_prune."""
        return self.attempts >= n_min and self.prob_above(tau) < eps_prune


class ToolGraph:
    """Nodes (tool names) and edges keyed by (source, target). Iteration orders are sorted, so every
    consumer sees the same order whatever the insertion order."""

    def __init__(self, nodes: Iterable[str] = (), meta: dict | None = None) -> None:
        self._node_set: set[str] = set(nodes)
        self.nodes: list[str] = sorted(self._node_set)
        self.edges: dict[tuple[str, str], Edge] = {}
        self.meta: dict = dict(meta or {})
        self._out: dict[str, list[Edge]] | None = None

    def add(self, edge: Edge) -> None:
        self.edges[edge.key] = edge
        if edge.source not in self._node_set or edge.target not in self._node_set:
            self._node_set |= {edge.source, edge.target}
            self.nodes = sorted(self._node_set)
        self._out = None

    def __len__(self) -> int:
        return len(self.edges)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self.edges

    def sorted_edges(self) -> list[Edge]:
        return [self.edges[k] for k in sorted(self.edges)]

    def out_edges(self, u: str) -> list[Edge]:
        """u's outgoing edges (pruned ones included; callers filter), sorted by target."""
        if self._out is None:
            out: dict[str, list[Edge]] = {}
            for edge in self.sorted_edges():
                out.setdefault(edge.source, []).append(edge)
            self._out = out
        return list(self._out.get(u, []))

    def in_edges(self, v: str) -> list[Edge]:
        return [e for e in self.sorted_edges() if e.target == v]

    # ------------------------------------------------------------ export

    def to_networkx(self, include_pruned: bool = True) -> nx.DiGraph:
        graph = nx.DiGraph(**self.meta)
        graph.add_nodes_from(self.nodes)
        for edge in self.sorted_edges():
            if include_pruned or not edge.pruned:
                attrs = edge.model_dump(mode="json", exclude={"source", "target"})
                graph.add_edge(edge.source, edge.target, **attrs)
        return graph

    def to_json_bytes(self) -> bytes:
        body = {"format_version": FORMAT_VERSION, "meta": self.meta, "nodes": self.nodes,
                "edges": [e.model_dump(mode="json") for e in self.sorted_edges()]}
        return orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"

    def save_json(self, path: str | Path) -> Path:
        return write_atomic(Path(path), self.to_json_bytes())  # an interrupted save never leaves half a graph

    @classmethod
    def from_json_bytes(cls, data: bytes) -> ToolGraph:
        """The graph `to_json_bytes` wrote; anything else is a ValueError saying what is wrong."""
        body = orjson.loads(data)
        if not isinstance(body, dict):
            raise ValueError(f"a JSON {type(body).__name__}, not a graph object")
        if body.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"graph format version {body.get('format_version')!r}, expected {FORMAT_VERSION}")
        try:
            graph = cls(body["nodes"], meta=body.get("meta"))
            for raw in body["edges"]:
                graph.add(Edge.model_validate(raw))
        except (KeyError, TypeError, AttributeError) as exc:  # a field missing or of another shape
            raise ValueError(f"not the graph's shape ({type(exc).__name__}: {exc})") from exc
        return graph

    @classmethod
    def load_json(cls, path: str | Path) -> ToolGraph:
        path = Path(path)
        try:
            return cls.from_json_bytes(path.read_bytes())
        except ValueError as exc:  # orjson's JSONDecodeError is one
            raise ValueError(f"{path}: not a kopa tool graph: {exc}") from exc

    def save_graphml(self, path: str | Path) -> Path:
        """GraphML holds scalars only: dict-valued attributes (bindings, defaults, plan) go as JSON text."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        graph = nx.DiGraph()
        graph.add_nodes_from(self.nodes)
        for edge in self.sorted_edges():
            attrs = edge.model_dump(mode="json", exclude={"source", "target"})
            flat = {k: (json.dumps(v, ensure_ascii=False, sort_keys=True) if isinstance(v, dict) else v)
                    for k, v in attrs.items()}
            flat["pruned_at"] = -1 if flat["pruned_at"] is None else flat["pruned_at"]
            graph.add_edge(edge.source, edge.target, **flat)
        nx.write_graphml(graph, path, encoding="utf-8")
        return path


# ---------------------------------------------------------------- skeleton

def build_skeleton(tools: Iterable[Tool | ToolView], embedder: Embedder, proposer: EdgeProposer,
                   config: EdgeConfig | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   seeds: Iterable[Seed] = ()) -> ToolGraph:
    """retrieve → propose → keep s_e ≥ s_min with the prior; then the handoffs people's questions make
    (`seeds`: the question bank's, kopa.bank.hops) as edges too. Deterministic for a deterministic embedder
    and proposer. `progress(done, total)` is called after each proposal.

    A seeded edge binds what the bank's questions bind (a proposer's other bindings of the pair, which the
    questions do not make, are not claimed), and offers the values the questions pass for the target's
    other required arguments as its candidates; its score is the proposer's, raised to SEEDED_SCORE (a
    neutral prior: execution decides). Seeded edges are marked (`Edge.seeded`), and Phase A treats them as
    any other.

    Catalog tools are read through their public view (kopa.catalog.view) and only through it: the
    retriever, the proposer and the plans see what a model would see."""
    config = config or EdgeConfig()
    nodes = graph_tools(tools)
    by_name = {t.name: t for t in nodes}
    candidates = retrieve(nodes, embedder, K=config.K, Kx=config.Kx)
    graph = ToolGraph((t.name for t in nodes), meta={
        "embedder": getattr(embedder, "name", type(embedder).__name__),
        "proposer": getattr(proposer, "name", type(proposer).__name__),
        "K": config.K, "Kx": config.Kx, "s_min": config.s_min, "kappa": config.kappa,
        "candidates": len(candidates),
    })
    for i, cand in enumerate(candidates, 1):
        source, target = by_name[cand.source], by_name[cand.target]
        proposal = proposer.propose(source, target)
        if proposal.score >= config.s_min:
            a, b = prior(proposal.score, config.kappa)
            graph.add(Edge(source=cand.source, target=cand.target, score=proposal.score, alpha=a, beta=b,
                           prior_alpha=a, prior_beta=b, similarity=cand.similarity,
                           cross_domain=cand.cross_domain, bindings=proposal.bindings,
                           defaults=proposal.defaults, plan=compile_plan(target, proposal),
                           rationale=proposal.rationale))
        if progress is not None:
            progress(i, len(candidates))
    _seed(graph, by_name, proposer, config, seeds)
    return graph


SEEDED_SCORE = 0.5  # the prior of a seeded edge the proposer did not admit: Beta(2, 2) at κ = 2


def _seed(graph: ToolGraph, by_name: dict[str, ToolView], proposer: EdgeProposer, config: EdgeConfig,
          seeds: Iterable[Seed]) -> None:
    for seed in seeds:
        source, target = seed.source, seed.target
        if source not in by_name or target not in by_name or source == target:
            continue
        existing = graph.edges.get((source, target))
        proposal = proposer.propose(by_name[source], by_name[target])
        score = max(existing.score if existing is not None else proposal.score, SEEDED_SCORE)
        defaults = {**proposal.defaults, **{p: [*v, *[x for x in proposal.defaults.get(p, []) if x not in v]]
                                             for p, v in seed.stated.items()}}
        proposal = proposal.model_copy(update={"bindings": dict(seed.bindings), "defaults": defaults,
                                               "score": score})
        a, b = prior(score, config.kappa)
        said = ", ".join(f"{p}←{f}" for p, f in seed.bindings.items())
        graph.add(Edge(source=source, target=target, score=score, alpha=a, beta=b, prior_alpha=a, prior_beta=b,
                       similarity=existing.similarity if existing is not None else 0.0,
                       cross_domain=by_name[source].domain != by_name[target].domain,
                       bindings=dict(seed.bindings), defaults=defaults, plan=compile_plan(by_name[target], proposal),
                       rationale=f"a question of the bank hands {said}"
                                 + (f"; the proposer: {existing.rationale}" if existing is not None else ""),
                       seeded=True))
