"""EDGE Phase A: skeleton tool-dependency graph (retrieve → propose → prior) and its refinement."""

from kopa.edge.config import EdgeConfig
from kopa.edge.embed import Embedder, HashingEmbedder
from kopa.edge.graph import Edge, ToolGraph, beta_cdf, build_skeleton, prior
from kopa.edge.plan import ParamSource, compile_plan, is_generic
from kopa.edge.proposer import EdgeProposer, OfflineProposer, OpenAIProposer, Proposal
from kopa.edge.retriever import Candidate, retrieve
from kopa.edge.signature import input_text, output_text, signature_text

__all__ = [
    "Candidate",
    "Edge",
    "EdgeConfig",
    "EdgeProposer",
    "Embedder",
    "HashingEmbedder",
    "OfflineProposer",
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
