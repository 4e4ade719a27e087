"""The pruning study's grid: its configuration, its cells (coordinates) and the units that compute them.

A cell is one point of rates × kinds × rules × retries × seeds. A unit is one Phase A run; cells whose
runs are the same computation share one unit: at rate 0 every non-drift kind names the same fault-free
profile, so those cells differ only in a label (the rule and retries still get their own units, since
nothing but a measurement could show they change nothing). Units are small picklable models that carry
their coordinates and the study folder; everything else they read from files there.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from kopa.edge.config import EdgeConfig, UpdateRule
from kopa.study.faults import DRIFT, KINDS, MIX

Retries = Literal["on", "off"]

DEFAULT_RATES = (0, 5, 10, 20, 40)  # percent of first attempts failing environmentally
DEFAULT_KINDS = (MIX, "rate_limit", "timeout", "server_error", "truncated", DRIFT)
DEFAULT_RULES: tuple[UpdateRule, ...] = ("asymmetric", "symmetric", "ignore")
DEFAULT_RETRIES: tuple[Retries, ...] = ("off", "on")
DEFAULT_SEEDS = 5
# The tool set the default grid fits in 20 minutes on 2 cores with (benchmark/perf/study_pruning.py):
# the four platforms whose start tools fill without upstream values often enough for paths to reach
# most edges in a small budget (law), and whose endpoints the default drift scenario changes (DART
# company, KRX / 금융위 prices, NEIS schoolInfo).
DEFAULT_PLATFORMS = ("dart", "edu", "krx", "law")
DEFAULT_T = 14
DEFAULT_M = 150
DRIFT_SCENARIO = "default"
RETRY_ATTEMPTS = {"off": 1, "on": 5}  # RetryPolicy.max_attempts (5: the runtime's default policy)
PROBE_PER_CLASS = 100  # held-out probe: at most this many retained and this many pruned edges
PROBE_REPEATS = 2


class StudyConfig(BaseModel):
    """Everything a study folder's results depend on; a folder made with another one is refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rates: tuple[int, ...] = Field(DEFAULT_RATES, description="percent of first attempts failing environmentally")
    kinds: tuple[str, ...] = DEFAULT_KINDS
    rules: tuple[UpdateRule, ...] = DEFAULT_RULES
    retries: tuple[Retries, ...] = DEFAULT_RETRIES
    seeds: int = Field(DEFAULT_SEEDS, ge=1)
    T: int = Field(DEFAULT_T, ge=1)
    M: int = Field(DEFAULT_M, ge=1)
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS
    tools: tuple[str, ...] | None = Field(None, description="explicit tool names instead of platforms (tests)")
    world: str = Field("sim", description="the simulator backend string every cell's faults wrap")
    probe_per_class: int = Field(PROBE_PER_CLASS, ge=0)
    probe_repeats: int = Field(PROBE_REPEATS, ge=1)

    def edge_config(self, rule: UpdateRule, seed: int) -> EdgeConfig:
        """The paper's Phase A configuration, with the study's budget, rule and path seed."""
        return EdgeConfig(T=self.T, M=self.M, update_rule=rule, seed=seed)

    def digest(self) -> str:
        return hashlib.sha256(orjson.dumps(self.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)).hexdigest()


class Cell(BaseModel):
    """One point of the grid."""

    model_config = ConfigDict(frozen=True)

    rate: int  # percent
    kind: str
    rule: UpdateRule
    retries: Retries
    seed: int

    @property
    def profile(self) -> str:
        """The fault profile's name: at rate 0 every kind injects nothing, so they share one."""
        return "none-0" if self.rate == 0 else f"{MIX if self.kind == DRIFT else self.kind}-{self.rate}"

    @property
    def drift(self) -> bool:
        return self.kind == DRIFT

    @property
    def unit_id(self) -> str:
        return f"{self.profile}{'+drift' if self.drift else ''}.{self.rule}.retries-{self.retries}.seed-{self.seed}"


class Unit(BaseModel):
    """One Phase A run: what a worker needs (coordinates and the study folder), picklable."""

    model_config = ConfigDict(frozen=True)

    folder: str
    profile: str
    drift: bool
    rule: UpdateRule
    retries: Retries
    seed: int
    unit_id: str

    @property
    def path(self) -> Path:
        return Path(self.folder)


def cells(config: StudyConfig) -> list[Cell]:
    """The grid in its canonical order (the order of summary.json)."""
    return [Cell(rate=r, kind=k, rule=rule, retries=x, seed=s)
            for r in config.rates for k in config.kinds for rule in config.rules for x in config.retries
            for s in range(config.seeds)]


def units(config: StudyConfig, folder: Path) -> list[Unit]:
    """The distinct runs the grid needs, in the order of their first cell."""
    seen: dict[str, Unit] = {}
    for c in cells(config):
        if c.unit_id not in seen:
            seen[c.unit_id] = Unit(folder=str(folder), profile=c.profile, drift=c.drift, rule=c.rule,
                                   retries=c.retries, seed=c.seed, unit_id=c.unit_id)
    return list(seen.values())


def profile_kind_rate(profile: str) -> tuple[str, float]:
    kind, _, rate = profile.rpartition("-")
    return (MIX if kind == "none" else kind), int(rate) / 100.0


def check_kinds(kinds: tuple[str, ...]) -> None:
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown fault kind(s) {unknown}; valid: {', '.join(KINDS)}")
