"""Family name → wire implementation (each family in its own module)."""

from __future__ import annotations

import importlib
from functools import cache

from kopa.wire.base import WireFamily

_FAMILY_CLASSES = {
    "dart": "kopa.wire.dart:DartWire",
    "krx": "kopa.wire.krx:KrxWire",
    "datagokr": "kopa.wire.datagokr:DataGoKrWire",
    "portal": "kopa.wire.portal:PortalWire",
    "seoul": "kopa.wire.seoul:SeoulWire",
    "ex": "kopa.wire.ex:ExWire",
    "law": "kopa.wire.law:LawWire",
    "hrd": "kopa.wire.hrd:HrdWire",
    "schoolinfo": "kopa.wire.schoolinfo:SchoolInfoWire",
}


@cache
def family_of(name: str) -> WireFamily:
    try:
        target = _FAMILY_CLASSES[name]
    except KeyError:
        raise KeyError(f"no wire family {name!r}; known: {sorted(_FAMILY_CLASSES)}") from None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)()
