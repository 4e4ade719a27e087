"""Measures no live-API study can take: precision and recall of the graphs against the simulator's true
bindings, and the proposer's calibration. This module asks `sim.truth` explicitly (DESIGN.md decision 2);
nothing that builds or refines graphs imports it."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel

from kopa.catalog.loader import load_catalog
from kopa.edge.graph import Edge, ToolGraph
from kopa.edge.plan import is_generic
from kopa.wire import family_of


class TruthReport(BaseModel):
    skeleton_precision: float
    g_star_precision: float
    pruned_precision: float
    g_star_recall: float  # share of the skeleton's true edges that survived pruning
    true_pairs: int  # (u, v) pairs among all tools with a same-entity output → input binding
    skeleton_recall: float  # share of those the retriever + proposer put in the skeleton
    calibration: list[tuple[float, float, int]]  # (s_e bin centre, share of edges truly bound, edges)


@cache
def _endpoint(simulator, name: str):
    from sim.truth import endpoint_for_url

    tool = load_catalog()[name]
    if tool.family == "session":
        return None
    request = family_of(tool.family).build(tool, {}, "truth-study-key")
    return endpoint_for_url(simulator, str(request.url))


@cache
def _tool_truth(simulator, name: str) -> tuple[dict[str, str], dict[str, str]] | None:
    from sim.truth import truth_of

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


def _true_pair(simulator, u: str, v: str) -> bool:
    source, target = _tool_truth(simulator, u), _tool_truth(simulator, v)
    if source is None or target is None:
        return False
    catalog = load_catalog()
    generic = {p.name for p in catalog[v].spec.params if is_generic(p)}
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
    return TruthReport(
        skeleton_precision=share(keys), g_star_precision=share(kept), pruned_precision=share(pruned),
        g_star_recall=(sum(truth[k] for k in kept) / len(true_in_skeleton)) if true_in_skeleton else 0.0,
        true_pairs=len(true_pairs), skeleton_recall=len(found) / len(true_pairs) if true_pairs else 0.0,
        calibration=bins)
