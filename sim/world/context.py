"""What every world generator receives: the seed, the scale, the virtual 'today' and shared entities."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sim.world.companies import build_companies
from sim.world.rng import stream

Scale = Literal["small", "full"]


class WorldConfig(BaseModel):
    """A world is a pure function of this config (and the generator version)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = 0
    scale: Scale = "small"
    today: dt.date = Field(dt.date(2026, 1, 30), description="the virtual clock's date")

    def key(self) -> str:
        return f"s{self.seed}-{self.scale}-{self.today:%Y%m%d}"


@dataclass
class WorldContext:
    config: WorldConfig
    _cache: dict = field(default_factory=dict)

    @property
    def seed(self) -> int:
        return self.config.seed

    @property
    def today(self) -> dt.date:
        return self.config.today

    def rng(self, purpose: str, key: str = "") -> np.random.Generator:
        return stream(self.config.seed, purpose, key)

    def n(self, small: int, full: int) -> int:
        return small if self.config.scale == "small" else full

    @cached_property
    def trading_days(self) -> list[dt.date]:
        """Business days from 2025-01-02 up to the day before 'today' (data appears the next day)."""
        start = dt.date(2025, 1, 2)
        days = []
        d = start
        while d < self.today:
            if d.weekday() < 5 and (d.month, d.day) not in FIXED_HOLIDAYS:
                days.append(d)
            d += dt.timedelta(days=1)
        return days

    @cached_property
    def companies(self):
        return build_companies(self)


# 양력 고정 공휴일 (설날·추석 같은 음력 휴일은 근사하지 않는다: 거래일 수만 줄어들 뿐 무결성과 무관).
FIXED_HOLIDAYS = {(1, 1), (3, 1), (5, 5), (6, 6), (8, 15), (10, 3), (10, 9), (12, 25), (12, 31)}


def yyyymmdd(d: dt.date) -> str:
    return d.strftime("%Y%m%d")
