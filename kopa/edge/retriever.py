"""Dense retrieval of candidate edges (seed §5.2): per source tool, top-K same-domain and top-Kx
cross-domain targets by cosine(u's output-side embedding, v's input-side embedding).

Scoring all |V|² pairs with the proposer is infeasible; a 2,318 × 2,318 cosine matrix is not.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict

from kopa.catalog.models import Tool
from kopa.catalog.view import ToolView, as_view
from kopa.edge.embed import Embedder
from kopa.edge.signature import input_params, input_text, output_text


class Candidate(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    target: str
    similarity: float
    cross_domain: bool


SESSION_PLATFORM = "session"


def graph_tools(tools: Iterable[Tool | ToolView]) -> list[ToolView]:
    """The graph's nodes, as public views: every non-session tool, sorted by name (the tie-break order
    everywhere).

    Session tools (issue_api_key, calculator, watchlist) are plumbing of an episode, not data sources.
    """
    return sorted((v for v in map(as_view, tools) if v.platform != SESSION_PLATFORM), key=lambda t: t.name)


def retrieve(tools: Iterable[Tool | ToolView], embedder: Embedder, K: int = 15, Kx: int = 10) -> list[Candidate]:
    """Candidates in (source, rank) order; same-domain first, then cross-domain, per source."""
    nodes = graph_tools(tools)
    if not nodes:
        return []
    n = len(nodes)
    vectors = embedder.embed([output_text(t) for t in nodes] + [input_text(t) for t in nodes])
    out_vec, in_vec = vectors[:n], vectors[n:]
    sim = out_vec @ in_vec.T  # sim[u, v] = cos(O_u, I_v)

    domains = np.array([t.domain or "" for t in nodes], dtype=object)
    same = domains[:, None] == domains[None, :]
    is_target = np.array([bool(input_params(t)) for t in nodes])
    valid = is_target[None, :] & ~np.eye(n, dtype=bool)

    candidates: list[Candidate] = []
    for mask, k, cross in ((valid & same, K, False), (valid & ~same, Kx, True)):
        if k <= 0:
            continue
        masked = np.where(mask, sim, -np.inf)
        # Stable sort of -sim over name-sorted columns: equal similarities keep name order.
        order = np.argsort(-masked, axis=1, kind="stable")[:, :k]
        for u in range(n):
            for v in order[u]:
                if not mask[u, v]:
                    break
                candidates.append(Candidate(source=nodes[u].name, target=nodes[v].name,
                                            similarity=round(float(sim[u, v]), 6), cross_domain=cross))
    rank = {t.name: i for i, t in enumerate(nodes)}
    candidates.sort(key=lambda c: (rank[c.source], c.cross_domain))  # stable: keeps rank within a group
    return candidates
