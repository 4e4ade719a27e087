"""EDGE Phase A hyperparameters. Defaults are the paper's values (seed §5.2)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EdgeConfig(BaseModel):
    """Every knob of skeleton construction and the execution-grounded loop, with the paper's defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # skeleton
    K: int = Field(15, description="same-domain candidates kept per source tool")
    Kx: int = Field(10, description="cross-domain candidates kept per source tool")
    s_min: float = Field(0.3, description="feasibility threshold for an edge to enter the skeleton")
    kappa: float = Field(2.0, description="prior strength: alpha = 1 + kappa s, beta = 1 + kappa (1 - s)")
    # execution-grounded updates
    T: int = Field(100, description="iterations")
    M: int = Field(500, description="paths per iteration")
    eps_explore: float = Field(0.1, description="uniform fallback probability of edge choice")
    tau: float = Field(0.5, description="viability threshold of the success rate")
    eps_prune: float = Field(0.3, description="prune when P[theta > tau] falls below this")
    n_min: int = Field(2, description="attempts before an edge may be pruned")
    phi: int = Field(5, description="fan-out budget (records a handoff may draw from)")
    alpha_semantic: float = Field(1.0, description="alpha increment on a semantic success")
    alpha_generic: float = Field(0.3, description="alpha increment on a generic-only success")
    beta_structural: tuple[float, float] = Field((1.0, 1.5), description="beta increment range, structural")
    beta_environmental: tuple[float, float] = Field((0.1, 0.8), description="beta increment range, environmental")
    seed: int = 0
    max_path_len: int = Field(4, description="tools per sampled path")
