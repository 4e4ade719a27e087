"""One module per envelope family: reads the family's request conventions (key, format, paging)
and renders its success and error envelopes."""

from __future__ import annotations

import importlib

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


def load_family(name: str):
    module, _, cls = _FAMILY_CLASSES[name].partition(":")
    return getattr(importlib.import_module(module), cls)()
