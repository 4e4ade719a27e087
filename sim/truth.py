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


class EndpointTruth(BaseModel):
    host: str
    endpoint: str
    table: str
    param_entities: dict[str, str]  # wire parameter -> entity it filters on
    field_entities: dict[str, str]  # wire output field -> entity it carries


def _matches(ep: Endpoint, path: str, query: dict[str, str]) -> bool:
    key, _, key_query = ep.key.partition("?")
    if key_query and any(query.get(k) != v for k, v in parse_qsl(key_query)):
        return False
    stem = path.rstrip("/")
    for suffix in (".json", ".xml"):
        stem = stem.removesuffix(suffix)
    if stem == key or stem.endswith("/" + key):
        return True
    # Seoul's path-positional URLs carry the service name in the middle: /{KEY}/{TYPE}/{SERVICE}/{START}/…
    segments = stem.split("/")
    return ep.family == "seoul" and len(segments) > 3 and segments[3] == key


def endpoint_for_url(simulator: Simulator, url: str) -> Endpoint | None:
    """The endpoint a request URL (real host and path, query with fixed params) is answered by."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    candidates = [ep for (h, _), ep in simulator.endpoints.items() if h == host and _matches(ep, parts.path, query)]
    # The most specific key wins (e.g. "lawSearch.do?target=prec" over a plain "lawSearch.do").
    candidates.sort(key=lambda ep: -len(ep.key))
    return candidates[0] if candidates else None


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
