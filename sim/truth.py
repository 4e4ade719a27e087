"""The simulator's hidden truth, behind an explicit API for studies and tests.

Which entity each wire parameter and output field carries is known here alone: tables annotate their
entity-carrying columns, endpoints bind parameters to columns. Graph and synthesis code never import
this module; studies that measure precision and recall against true bindings do, explicitly.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel

from sim.app import Simulator
from sim.endpoints import Endpoint
from sim.http import SimRequest
from sim.registry import endpoint_index, route


class EndpointTruth(BaseModel):
    host: str
    endpoint: str
    table: str
    param_entities: dict[str, str]  # wire parameter -> entity it filters on
    field_entities: dict[str, str]  # wire output field -> entity it carries


def endpoint_for_url(simulator: Simulator, url: str) -> Endpoint | None:
    """The endpoint a request URL (real host and path, query with fixed params) is answered by: resolved
    as the simulator resolves a request (its family names the endpoint's key), undrifted."""
    parts = urlsplit(url)
    host, path = route(parts.hostname or "", parts.path)
    request = SimRequest("GET", host, path, tuple(parse_qsl(parts.query, keep_blank_values=True)))
    found = endpoint_index().resolve(request)
    return simulator.endpoints.get((found.host, found.key), found) if found is not None else None


def truth_of(simulator: Simulator, endpoint: Endpoint) -> EndpointTruth:
    table = simulator.world.table(endpoint.table)
    entities = table.entities
    params = {p: entities[b.column] for p, b in endpoint.binds.items() if b.column in entities}
    if endpoint.columns is not None:
        fields = {wire: entities[col] for wire, col in endpoint.columns.items() if col in entities}
    else:
        names = endpoint.fields if endpoint.fields is not None else table.column_names
        fields = {c: entities[c] for c in names if c in entities}
    return EndpointTruth(host=endpoint.host, endpoint=endpoint.key, table=endpoint.table,
                         param_entities=params, field_entities=fields)
