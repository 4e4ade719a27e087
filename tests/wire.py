"""One tool call on the wire, past kopa's own argument checks: what the service answers to what was sent."""

from __future__ import annotations

from typing import Any

import httpx

from kopa.catalog.loader import load_catalog
from kopa.wire.base import Parsed
from kopa.wire.registry import family_of


def send(backend: Any, name: str, args: dict[str, Any], key: str | None, **overrides: str
         ) -> tuple[httpx.Response, Parsed]:
    """Build `name`'s request for `args` with `key`, send it on `backend`, parse the answer; `overrides` replace
    fixed wire parameters (e.g. returnType=XML)."""
    tool = load_catalog()[name]
    wire = family_of(tool.family)
    request = wire.build(tool, args, key)
    for param, value in overrides.items():
        request.url = request.url.copy_set_param(param, value)
    response = backend.client().send(request)
    return response, wire.parse(tool, args, response)
