"""Per-endpoint cardinality: how many records a call returns, unfiltered and per bound value."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from sim.app import Simulator


class EndpointStats(BaseModel):
    family: str
    host: str
    endpoint: str
    table: str
    unfiltered: int  # records with no optional filter (fixed conditions applied)
    key_param: str | None  # the first exact-match parameter
    distinct_values: int | None
    per_value_min: int | None
    per_value_median: float | None
    per_value_p90: float | None
    per_value_max: int | None


def endpoint_stats(simulator: Simulator) -> list[EndpointStats]:
    out = []
    for (host, key), ep in sorted(simulator.endpoints.items()):
        table = simulator.world.table(ep.table)
        base = table.select(list(ep.fixed))
        eq = next(((p, b) for p, b in ep.binds.items() if b.op == "eq"), None)
        stats: dict[str, Any] = dict(key_param=None, distinct_values=None, per_value_min=None,
                                     per_value_median=None, per_value_p90=None, per_value_max=None)
        if eq is not None and len(base):
            codes = table.cols[eq[1].column].codes[base]
            counts = np.bincount(codes)
            counts = counts[counts > 0]
            stats = dict(key_param=eq[0], distinct_values=len(counts), per_value_min=int(counts.min()),
                         per_value_median=float(np.median(counts)), per_value_p90=float(np.percentile(counts, 90)),
                         per_value_max=int(counts.max()))
        out.append(EndpointStats(family=ep.family, host=host, endpoint=key, table=ep.table,
                                 unfiltered=len(base), **stats))
    return out
