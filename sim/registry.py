"""The simulator's platforms as declarations, world-free: which catalog platform each `sim/platforms` module
serves, the key systems each platform's services check and the shape of the keys each issues, the portal
hosts' key systems, and where the generated long tail's endpoints belong.

Faults (a request's platform), keys (issuing and checking), the portal family (a host's key) and the tests
read these tables instead of keeping copies; `tests/test_platform_ids.py` checks them against the catalog
(platform ids, the key-issuance enum, every tool's key system) and the fault profiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Alphabet = Literal["hex", "HEX", "digits", "lower"]


@dataclass(frozen=True)
class KeyShape:
    """Length and alphabet of the keys a key system issues."""

    length: int
    alphabet: Alphabet


# Key systems: one per issuer of keys. data.go.kr's gateway issues one key for every provider behind it.
KEY_SHAPES: dict[str, KeyShape] = {
    "dart": KeyShape(40, "hex"),
    "krx": KeyShape(40, "HEX"),
    "data_go_kr": KeyShape(64, "hex"),
    "ex": KeyShape(10, "digits"),
    "seoul": KeyShape(32, "hex"),
    "neis": KeyShape(32, "hex"),
    "schoolinfo": KeyShape(32, "hex"),
    "hrd": KeyShape(32, "hex"),
    "law": KeyShape(10, "lower"),
    "assembly": KeyShape(32, "hex"),
    "gg": KeyShape(32, "hex"),
}
DEFAULT_KEY_SHAPE = KeyShape(32, "hex")  # a key system no platform declares (a test world's own)


@dataclass(frozen=True)
class PlatformDeclaration:
    id: str  # the catalog's platform id
    modules: tuple[str, ...]  # the sim/platforms modules whose endpoints it serves
    key_systems: tuple[str, ...]  # the key systems its tools' services check (KEY_SHAPES)
    portal_hosts: dict[str, str] = field(default_factory=dict)  # a portal-family host → the key system it checks
    longtail_hosts: tuple[str, ...] = ()  # hosts whose generated long-tail endpoints are its own
    longtail_agencies: tuple[str, ...] = ()  # data.go.kr gateway agency codes of its long-tail endpoints


PLATFORMS: tuple[PlatformDeclaration, ...] = (
    PlatformDeclaration("dart", ("dart",), ("dart",)),
    # KRX Open API, and 금융위원회's 주식시세 on the data.go.kr gateway
    PlatformDeclaration("krx", ("krx", "fsc"), ("krx", "data_go_kr")),
    PlatformDeclaration("kdic", ("kdic",), ("data_go_kr",), longtail_agencies=("1160100",)),
    PlatformDeclaration("ex", ("ex",), ("ex", "data_go_kr"), longtail_agencies=("1613000",)),
    PlatformDeclaration("seoul", ("seoul",), ("seoul",), longtail_hosts=("openapi.seoul.go.kr",)),
    PlatformDeclaration("edu", ("neis", "schoolinfo"), ("neis", "schoolinfo"),
                        portal_hosts={"open.neis.go.kr": "neis"}),
    # HRD-Net / 고용24, and 한국산업인력공단's Q-Net on the data.go.kr gateway
    PlatformDeclaration("hrd", ("hrd", "qnet"), ("hrd", "data_go_kr"), longtail_agencies=("1342000",)),
    PlatformDeclaration("law", ("law",), ("law", "data_go_kr"), longtail_agencies=("1170000",)),
    PlatformDeclaration("assembly", ("assembly",), ("assembly", "data_go_kr"),
                        portal_hosts={"open.assembly.go.kr": "assembly"}, longtail_hosts=("open.assembly.go.kr",),
                        longtail_agencies=("9710000",)),
    PlatformDeclaration("gg", ("gg",), ("gg", "data_go_kr"), portal_hosts={"openapi.gg.go.kr": "gg"},
                        longtail_hosts=("openapi.gg.go.kr",), longtail_agencies=("1741000",)),
)

PLATFORM_IDS: tuple[str, ...] = tuple(p.id for p in PLATFORMS)
KEY_SYSTEMS: tuple[str, ...] = tuple(KEY_SHAPES)
MODULE_PLATFORM: dict[str, str] = {m: p.id for p in PLATFORMS for m in p.modules}
PORTAL_HOST_KEY_SYSTEMS: dict[str, str] = {h: k for p in PLATFORMS for h, k in p.portal_hosts.items()}
LONGTAIL_HOSTS: dict[str, str] = {h: p.id for p in PLATFORMS for h in p.longtail_hosts}
LONGTAIL_AGENCIES: dict[str, str] = {a: p.id for p in PLATFORMS for a in p.longtail_agencies}


def key_shape(key_system: str) -> KeyShape:
    return KEY_SHAPES.get(key_system, DEFAULT_KEY_SHAPE)


def longtail_platform(host: str, key: str, unknown: str = "other") -> str:
    """The platform a generated long-tail endpoint belongs to: its host's, or on the data.go.kr gateway its
    agency's (the first path segment), as its catalog file says."""
    if host in LONGTAIL_HOSTS:
        return LONGTAIL_HOSTS[host]
    return LONGTAIL_AGENCIES.get(key.strip("/").split("/")[0], unknown)
