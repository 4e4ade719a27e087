"""Measures no live-API study can take: precision and recall of the graphs against the simulator's true
bindings, and the proposer's calibration. This module asks `sim.truth` explicitly (DESIGN.md decision 2);
nothing that builds or refines graphs imports it."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel

from kopa.catalog.loader import _read_yaml, catalog_files, load_catalog
from kopa.catalog.view import view_of
from kopa.edge.config import EdgeConfig
from kopa.edge.graph import Edge, ToolGraph
from kopa.edge.plan import is_generic
from kopa.edge.retriever import graph_tools, retrieve
from kopa.wire import family_of
from sim.truth import endpoint_for_url, truth_of


class CalibrationBin(BaseModel):
    lo: float  # the bin is [lo, lo + 0.1), the last one [0.9, 1.0]
    edges: int
    mean_score: float
    true_rate: float  # share of the bin's edges truly bound


class Calibration(BaseModel):
    """How well s_e predicts that an edge is truly bound: the reliability curve over ten equal-width bins,
    the expected calibration error Σ_b (n_b / N) |mean s_e − true rate| over those bins, and the AUROC
    (the probability that a truly bound edge outscores a false one, ties counted half)."""

    edges: int
    positives: int
    ece: float
    auroc: float | None  # None when one class is empty
    bins: list[CalibrationBin]


def auroc(scores: list[float], labels: list[bool]) -> float | None:
    """Mann–Whitney AUROC with mid-ranks for ties."""
    n_pos = sum(labels)
    n_neg = len(labels) - n_pos
    if not n_pos or not n_neg:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    rank_sum = 0.0
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        mid = (i + j) / 2 + 1  # ranks are 1-based
        rank_sum += mid * sum(labels[order[k]] for k in range(i, j + 1))
        i = j + 1
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def calibration(scores: list[float], labels: list[bool], n_bins: int = 10) -> Calibration:
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")
    members: list[list[int]] = [[] for _ in range(n_bins)]
    for i, s in enumerate(scores):
        members[min(int(s * n_bins), n_bins - 1)].append(i)
    bins = [CalibrationBin(lo=b / n_bins, edges=len(ix), mean_score=sum(scores[i] for i in ix) / len(ix),
                           true_rate=sum(labels[i] for i in ix) / len(ix))
            for b, ix in enumerate(members) if ix]
    total = len(scores)
    ece = sum(b.edges / total * abs(b.mean_score - b.true_rate) for b in bins) if total else 0.0
    return Calibration(edges=total, positives=sum(labels), ece=ece, auroc=auroc(scores, labels), bins=bins)


@cache
def generated_tools() -> frozenset[str]:
    """Tools of the generated long tail: those its catalog files (`<platform>_longtail.yaml`) declare.
    The files are read raw (names only): the catalog has validated them already."""
    names: set[str] = set()
    for f in catalog_files():
        if f.stem.endswith("_longtail"):
            data = _read_yaml(f)
            assert isinstance(data, dict)  # a platform file, one the catalog has validated
            names.update(t["name"] for t in data["tools"])
    return frozenset(names)


def is_generated_edge(edge: Edge) -> bool:
    """An edge belongs to the long tail when either end is a generated tool."""
    generated = generated_tools()
    return edge.source in generated or edge.target in generated


class TruthReport(BaseModel):
    skeleton_precision: float
    g_star_precision: float
    pruned_precision: float
    g_star_recall: float  # share of the skeleton's true edges that survived pruning
    # (u, v) pairs among all graph tools with an output of u and a non-generic input of v of one entity
    # (values not compared): millions on the full catalog, where 시군구 codes are in thousands of tools
    true_pairs: int
    # share of those pairs that are skeleton edges: at most |E| / true_pairs, since the retriever shows the
    # proposer K + Kx targets per source — a measure of reach, not of the proposer
    skeleton_recall: float
    calibration: list[tuple[float, float, int]]  # (s_e bin centre, share of edges truly bound, edges)
    calibration_real: Calibration | None = None  # skeleton edges between documented (real) tools
    calibration_generated: Calibration | None = None  # skeleton edges touching a generated tool


@cache
def _endpoint(simulator, name: str):
    tool = load_catalog()[name]
    if tool.family == "session":
        return None
    request = family_of(tool.family).build(tool, {}, "truth-study-key")
    return endpoint_for_url(simulator, str(request.url))


@cache
def _tool_truth(simulator, name: str) -> tuple[dict[str, str], dict[str, str]] | None:
    endpoint = _endpoint(simulator, name)
    if endpoint is None:
        return None
    truth = truth_of(simulator, endpoint)
    return truth.param_entities, truth.field_entities


@cache
def _values(simulator, name: str, side: str, wire: str) -> frozenset[str]:
    """The distinct values an output field carries (side 'out') or an input filters on (side 'in'),
    over the rows the endpoint serves."""
    endpoint = _endpoint(simulator, name)
    table = simulator.world.table(endpoint.table)
    if side == "in":
        bind = endpoint.binds.get(wire)
        column = bind.column if bind is not None else None
    else:
        column = endpoint.columns.get(wire) if endpoint.columns else wire
    if column is None or column not in table.cols:
        return frozenset()
    rows = table.select(list(endpoint.fixed))
    col = table.cols[column]
    return frozenset(str(v) for v in col.text_vocab()[sorted(set(col.codes[rows].tolist()))])


OVERLAP = 0.5  # a binding truly works when most values the source hands on are values the target holds


def edge_is_true(simulator, edge: Edge) -> bool:
    """Every binding maps an output field to an input of the same entity (and there is one), and the
    values the source carries are, for the most part, values the target can answer for."""
    source, target = _tool_truth(simulator, edge.source), _tool_truth(simulator, edge.target)
    if source is None or target is None or not edge.bindings:
        return False
    params, _ = target
    _, fields = source
    for p, f in edge.bindings.items():
        if not params.get(p) or params.get(p) != fields.get(f):
            return False
        handed = _values(simulator, edge.source, "out", f)
        held = _values(simulator, edge.target, "in", p)
        if not handed or len(handed & held) < OVERLAP * len(handed):
            return False
    return True


@cache
def _generic_params(name: str) -> frozenset[str]:
    return frozenset(p.name for p in view_of(load_catalog()[name]).params if is_generic(p))


def _true_pair(simulator, u: str, v: str) -> bool:
    source, target = _tool_truth(simulator, u), _tool_truth(simulator, v)
    if source is None or target is None:
        return False
    generic = _generic_params(v)
    entities_in = {e for p, e in target[0].items() if p not in generic}
    return bool(entities_in & set(source[1].values()))


def truth_report(simulator, skeleton: ToolGraph, refined: ToolGraph) -> TruthReport:
    keys = sorted(skeleton.edges)
    truth = {k: edge_is_true(simulator, skeleton.edges[k]) for k in keys}
    kept = [k for k in keys if not refined.edges[k].pruned]
    pruned = [k for k in keys if refined.edges[k].pruned]

    def share(ks: list) -> float:
        return sum(truth[k] for k in ks) / len(ks) if ks else 0.0

    true_in_skeleton = [k for k in keys if truth[k]]
    tools = [t.name for t in load_catalog() if t.family != "session"]
    with_entities_out = [u for u in tools if (_tool_truth(simulator, u) or ({}, {}))[1]]
    with_entities_in = [v for v in tools if (_tool_truth(simulator, v) or ({}, {}))[0]]
    true_pairs = {(u, v) for u in with_entities_out for v in with_entities_in if u != v and _true_pair(simulator, u, v)}
    found = {k for k in keys if k in true_pairs}
    bins: list[tuple[float, float, int]] = []
    for lo in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        ks = [k for k in keys if lo <= skeleton.edges[k].score < lo + 0.1 or (lo == 0.9 and skeleton.edges[k].score == 1)]
        if ks:
            bins.append((round(lo + 0.05, 2), share(ks), len(ks)))
    generated = {k: is_generated_edge(skeleton.edges[k]) for k in keys}
    by_origin = {}
    for origin in (False, True):
        ks = [k for k in keys if generated[k] == origin]
        by_origin[origin] = calibration([skeleton.edges[k].score for k in ks], [truth[k] for k in ks]) if ks else None
    return TruthReport(
        calibration_real=by_origin[False], calibration_generated=by_origin[True],
        skeleton_precision=share(keys), g_star_precision=share(kept), pruned_precision=share(pruned),
        g_star_recall=(sum(truth[k] for k in kept) / len(true_in_skeleton)) if true_in_skeleton else 0.0,
        true_pairs=len(true_pairs), skeleton_recall=len(found) / len(true_pairs) if true_pairs else 0.0,
        calibration=bins)


class SkeletonCut(BaseModel):
    """What s_min does to the retrieved candidates of one origin: the skeleton it keeps, how precise that
    is, and the truly bound candidates it drops (Phase A never sees them again)."""

    s_min: float
    skeleton_edges: int  # candidates with s_e ≥ s_min
    skeleton_true: int  # of those, truly bound
    true_below: int  # truly bound candidates with s_e < s_min

    @property
    def precision(self) -> float:
        return self.skeleton_true / self.skeleton_edges if self.skeleton_edges else 0.0

    @property
    def recall(self) -> float:
        """Share of the retrieved truly bound candidates that enter the skeleton."""
        total = self.skeleton_true + self.true_below
        return self.skeleton_true / total if total else 0.0


def skeleton_cut(scores: list[float], labels: list[bool], s_min: float) -> SkeletonCut:
    kept = [y for x, y in zip(scores, labels, strict=True) if x >= s_min]
    return SkeletonCut(s_min=s_min, skeleton_edges=len(kept), skeleton_true=sum(kept),
                       true_below=sum(y for x, y in zip(scores, labels, strict=True) if x < s_min))


class ProposerCalibration(BaseModel):
    """The proposer's calibration over every retrieved candidate (those below s_min included: a
    candidate the proposer turns down is a claim too), for documented and generated tools apart, with
    the skeleton s_min cuts from each."""

    proposer: str
    candidates: int
    real: Calibration | None
    generated: Calibration | None
    real_cut: SkeletonCut | None = None
    generated_cut: SkeletonCut | None = None


def proposer_calibration(simulator, tools, embedder, proposer, config=None) -> ProposerCalibration:
    """Retrieve and propose every candidate of `tools` (no Phase A run) and score each proposal against
    the truth: a candidate is truly bound when its bindings are (`edge_is_true`)."""
    config = config or EdgeConfig()
    nodes = graph_tools(tools)
    by_name = {t.name: t for t in nodes}
    rows: dict[bool, tuple[list[float], list[bool]]] = {False: ([], []), True: ([], [])}
    candidates = retrieve(nodes, embedder, K=config.K, Kx=config.Kx)
    for cand in candidates:
        proposal = proposer.propose(by_name[cand.source], by_name[cand.target])
        edge = Edge(source=cand.source, target=cand.target, score=proposal.score, alpha=1.0, beta=1.0,
                    prior_alpha=1.0, prior_beta=1.0, bindings=proposal.bindings)
        scores, labels = rows[is_generated_edge(edge)]
        scores.append(proposal.score)
        labels.append(edge_is_true(simulator, edge))
    parts: dict[str, Any] = {}
    for origin, flag in (("real", False), ("generated", True)):
        scores, labels = rows[flag]
        parts[origin] = calibration(scores, labels) if scores else None
        parts[f"{origin}_cut"] = skeleton_cut(scores, labels, config.s_min) if scores else None
    return ProposerCalibration(proposer=getattr(proposer, "name", type(proposer).__name__),
                               candidates=len(candidates), **parts)
