"""EDGE Phase A hyperparameters. Defaults are the paper's values (seed §5.2).

Every field is read by the code it names (see each description); bounds are checked here so a bad value
is refused when the config is made, with the field's name, rather than surfacing as a NaN posterior or a
path loop that never runs. Bounds add no field, so the config digest of a run folder is unchanged.

`update_rule` and `sampler` were added after run folders were first written (LATER_FIELDS): each is left
out of every dump (config.json, the config digest) while it has its default, so a folder made before it
existed — or with the paper's rule and sampler — keeps its bytes and its digest; any other value is
written and changes both.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer

UpdateRule = Literal["asymmetric", "symmetric", "ignore"]
DEFAULT_UPDATE_RULE: UpdateRule = "asymmetric"
# Fields added since run folders were first written, with the default that reproduces what came before.
LATER_FIELDS: dict[str, Any] = {"update_rule": DEFAULT_UPDATE_RULE, "sampler": "paper"}


class EdgeConfig(BaseModel):
    """Every knob of skeleton construction and the execution-grounded loop, with the paper's defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # skeleton (kopa.edge.graph.build_skeleton)
    K: int = Field(15, ge=0, description="same-domain candidates kept per source tool")
    Kx: int = Field(10, ge=0, description="cross-domain candidates kept per source tool")
    s_min: float = Field(0.3, ge=0.0, le=1.0, description="feasibility threshold for an edge to enter the skeleton")
    kappa: float = Field(2.0, ge=0.0, description="prior strength: alpha = 1 + kappa s, beta = 1 + kappa (1 - s)")
    bank: bool = Field(True, description="also propose every handoff of the question bank's questions (kopa.bank) "
                                         "as a skeleton edge, verified by execution like the proposer's: the "
                                         "dependencies Phase B's questions need, which a top-K retriever misses")
    # execution-grounded loop (kopa.edge.run.build_graph, kopa.edge.phase_a.PhaseA)
    T: int = Field(100, ge=0, description="iterations")
    M: int = Field(500, ge=1, description="paths per iteration")
    eps_explore: float = Field(0.1, ge=0.0, le=1.0, description="uniform fallback probability of edge choice")
    tau: float = Field(0.5, ge=0.0, le=1.0, description="viability threshold of the success rate")
    eps_prune: float = Field(0.3, ge=0.0, le=1.0, description="prune when P[theta > tau] falls below this")
    n_min: int = Field(2, ge=0, description="attempts before an edge may be pruned")
    phi: int = Field(5, ge=1, description="fan-out budget (records a handoff may draw from)")
    # asymmetric updates (kopa.edge.phase_a.classify)
    alpha_semantic: float = Field(1.0, ge=0.0, description="alpha increment on a semantic success")
    alpha_generic: float = Field(0.3, ge=0.0, description="alpha increment on a generic-only success")
    beta_structural: tuple[float, float] = Field(
        (1.0, 1.5), description="beta increment range, structural: (no data for a well-formed binding, malformed binding)")
    beta_environmental: tuple[float, float] = Field(
        (0.1, 0.8), description="beta increment range, environmental: (rate limit, malformed envelope)")
    update_rule: UpdateRule = Field(
        DEFAULT_UPDATE_RULE, description="how classify reads an environmental failure: 'asymmetric' (the paper: "
        "a weak beta increment from beta_environmental), 'symmetric' (the structural increment of an untabled "
        "structural kind, the high end of beta_structural) or 'ignore' (no increment, and not an attempt)")
    seed: int = Field(0, description="path seed: names every path's random stream")
    sampler: Literal["paper", "coverage"] = Field(
        "paper", description="start-tool sampler (kopa.edge.phase_a): 'paper' draws starts uniformly and edges by "
                             "Thompson sampling; 'coverage' first sends each path down an edge still short of n_min "
                             "attempts (fewest attempts first), so every reachable edge is judged within the budget")
    max_path_len: int = Field(4, ge=1, description="tools per sampled path")

    @model_serializer(mode="wrap")
    def _without_later_defaults(self, handler: Any) -> dict[str, Any]:
        """Later fields at their defaults are not written, so digests and config.json files predating them hold."""
        data = handler(self)
        for name, default in LATER_FIELDS.items():
            if getattr(self, name) == default:
                data.pop(name, None)
        return data

    @field_validator("beta_structural", "beta_environmental")
    @classmethod
    def _a_range(cls, value: tuple[float, float]) -> tuple[float, float]:
        """A penalty range is (least, most): classify interpolates inside it, so a reversed or negative
        range would reward a failure or rank a rate limit above a malformed envelope."""
        low, high = value
        if not 0.0 <= low <= high:
            raise ValueError(f"a beta increment range is (low, high) with 0 <= low <= high, got {value}")
        return value
