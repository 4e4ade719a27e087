"""Placeholder: tables and endpoints of this platform are being written."""

from __future__ import annotations

from sim.endpoints import Endpoint
from sim.world.context import WorldContext
from sim.world.table import TableData


def tables(ctx: WorldContext) -> list[TableData]:
    return []


ENDPOINTS: list[Endpoint] = []
