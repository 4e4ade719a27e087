"""EDGE Phase A: skeleton tool-dependency graph (retrieve → propose → prior) and its refinement.

The names below are imported on first use (PEP 562): every `kopa` command imports `kopa.edge.cli`
to register `kopa edge`, and importing the graph (networkx) and embedder (numpy) here would cost every
command, `kopa call` included, about a fifth of a second.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kopa.edge.config import EdgeConfig
    from kopa.edge.embed import Embedder, HashingEmbedder
    from kopa.edge.filler import OpenAIFiller
    from kopa.edge.graph import Edge, ToolGraph, beta_cdf, build_skeleton, prior
    from kopa.edge.plan import ParamSource, compile_plan, is_generic
    from kopa.edge.proposer import EdgeProposer, OfflineProposer, OpenAIProposer, Proposal
    from kopa.edge.retriever import Candidate, retrieve
    from kopa.edge.signature import input_text, output_text, signature_text

_MODULE_OF = {
    "EdgeConfig": "config",
    "Embedder": "embed",
    "HashingEmbedder": "embed",
    "OpenAIFiller": "filler",
    "Edge": "graph",
    "ToolGraph": "graph",
    "beta_cdf": "graph",
    "build_skeleton": "graph",
    "prior": "graph",
    "ParamSource": "plan",
    "compile_plan": "plan",
    "is_generic": "plan",
    "EdgeProposer": "proposer",
    "OfflineProposer": "proposer",
    "OpenAIProposer": "proposer",
    "Proposal": "proposer",
    "Candidate": "retriever",
    "retrieve": "retriever",
    "input_text": "signature",
    "output_text": "signature",
    "signature_text": "signature",
}

__all__ = [
    "Candidate",
    "Edge",
    "EdgeConfig",
    "EdgeProposer",
    "Embedder",
    "HashingEmbedder",
    "OfflineProposer",
    "OpenAIFiller",
    "OpenAIProposer",
    "ParamSource",
    "Proposal",
    "ToolGraph",
    "beta_cdf",
    "build_skeleton",
    "compile_plan",
    "input_text",
    "is_generic",
    "output_text",
    "prior",
    "retrieve",
    "signature_text",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"kopa.edge.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])
