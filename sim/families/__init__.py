"""One module per envelope family: reads the family's request conventions (key, format, paging)
and renders its success and error envelopes."""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sim.http import SimRequest, SimResponse

# family name -> "module:Class"; each family lives in its own module.
_FAMILY_CLASSES = {
    "dart": "sim.families.dart:DartFamily",
    "krx": "sim.families.krx:KrxFamily",
    "datagokr": "sim.families.datagokr:DataGoKrFamily",
    "portal": "sim.families.portal:PortalFamily",
    "seoul": "sim.families.seoul:SeoulFamily",
    "ex": "sim.families.ex:ExFamily",
    "law": "sim.families.law:LawFamily",
    "hrd": "sim.families.hrd:HrdFamily",
    "schoolinfo": "sim.families.schoolinfo:SchoolInfoFamily",
}


class Family(Protocol):
    """What every family class is (`sim` is the Simulator, untyped here as in the family modules)."""

    @staticmethod
    def endpoint_key(req: SimRequest) -> str | None: ...

    def handle(self, req: SimRequest, sim: Any) -> SimResponse: ...

    def render_fault(self, kind: str, req: SimRequest, sim: Any) -> SimResponse: ...


@cache
def family_class(name: str) -> type[Family]:
    """The family's class: its `endpoint_key(req)` names the endpoint a request reaches, as it serves."""
    module, _, cls = _FAMILY_CLASSES[name].partition(":")
    return getattr(importlib.import_module(module), cls)


def load_family(name: str) -> Family:
    return family_class(name)()
