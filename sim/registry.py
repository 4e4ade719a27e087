"""The simulator's platforms, world-free, built from the declarations the platform packages make
(`sim/platforms/<id>/__init__.py`): host → envelope family, key system → key shape, a portal host's key
system, where the generated long tail's endpoints belong, and a request → (platform, endpoint).

The simulator, the fault layer, the truth API and `kopa sim serve` all resolve requests here;
`tests/test_platform_ids.py` checks the declarations against the catalog (platform ids, domains, the
key-issuance enum, every tool's key system and host) and the fault profiles.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from sim.declaration import KeyShape, PlatformDeclaration
from sim.endpoints import Endpoint
from sim.families import family_class
from sim.http import SimRequest
from sim.platforms import declarations, group_modules

UNKNOWN_PLATFORM = "other"  # a host or gateway path no platform serves; it gets a fault profile's default rates

# 공공데이터포털's gateway issues one key for every provider behind it; it is no catalog platform of its own.
GATEWAY_KEY_SHAPES: dict[str, KeyShape] = {"data_go_kr": KeyShape(64, "hex")}
DEFAULT_KEY_SHAPE = KeyShape(32, "hex")  # a key system no platform declares (a test world's own)

PLATFORMS: tuple[PlatformDeclaration, ...] = declarations()
PLATFORM_IDS: tuple[str, ...] = tuple(p.id for p in PLATFORMS)
DECLARED: dict[str, PlatformDeclaration] = {p.id: p for p in PLATFORMS}


def _merged(pairs: list[tuple[str, str]], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in pairs:
        if out.setdefault(key, value) != value:
            raise ValueError(f"{what} {key} declared twice: {out[key]}, {value}")
    return out


def _unique(pairs: list[tuple[str, str]], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, platform in pairs:
        if key in out:
            raise ValueError(f"{what} {key} claimed by two platforms: {out[key]}, {platform}")
        out[key] = platform
    return out


# key system → who issues it: one issuer each (a platform, or the data.go.kr gateway)
KEY_ISSUERS: dict[str, str] = _unique(
    [(k, p.id) for p in PLATFORMS for k in p.issues] + [(k, "gateway") for k in GATEWAY_KEY_SHAPES], "key system")
KEY_SHAPES: dict[str, KeyShape] = {**GATEWAY_KEY_SHAPES, **{k: s for p in PLATFORMS for k, s in p.issues.items()}}
KEY_SYSTEMS: tuple[str, ...] = tuple(KEY_SHAPES)
# Hosts several platforms share (apis.data.go.kr) must be answered by the same family in every declaration.
HOST_FAMILY: dict[str, str] = _merged([(h, f) for p in PLATFORMS for h, f in p.hosts.items()], "host")
PORTAL_HOST_KEY_SYSTEMS: dict[str, str] = _merged(
    [(h, k) for p in PLATFORMS for h, k in p.portal_hosts.items()], "portal host")
LONGTAIL_HOSTS: dict[str, str] = _unique([(h, p.id) for p in PLATFORMS for h in p.longtail_hosts], "long-tail host")
LONGTAIL_AGENCIES: dict[str, str] = _unique(
    [(a, p.id) for p in PLATFORMS for a in p.longtail_agencies], "long-tail agency")


def single_key_system(platform: str) -> str | None:
    """The one key system every tool of `platform` checks (None: several, or no such platform)."""
    systems = DECLARED[platform].key_systems if platform in DECLARED else ()
    return systems[0] if len(systems) == 1 else None


def key_shape(key_system: str) -> KeyShape:
    return KEY_SHAPES.get(key_system, DEFAULT_KEY_SHAPE)


def longtail_platform(host: str, key: str, unknown: str = UNKNOWN_PLATFORM) -> str:
    """The platform a generated long-tail endpoint belongs to: its host's, or on the data.go.kr gateway its
    agency's (the first path segment), as its catalog file says."""
    if host in LONGTAIL_HOSTS:
        return LONGTAIL_HOSTS[host]
    return LONGTAIL_AGENCIES.get(key.strip("/").split("/")[0], unknown)


def served_modules() -> tuple[tuple[str | None, ModuleType], ...]:
    """Every module with world tables and endpoints: (platform id, group module) for every declared API
    group, then the generated long tail (platform None: each of its endpoints belongs to the platform its
    host or gateway agency names, `longtail_platform`)."""
    # deferred, as group_modules defers the API modules: a start that serves nothing (`kopa call
    # get_current_date`) imports no endpoint module
    from sim import longtail_service

    return (*group_modules(), (None, longtail_service))


# ---------------------------------------------------------------- requests → endpoints


class EndpointIndex:
    """The simulator's endpoints without a world: (host, key) → Endpoint and its platform, and a request →
    the endpoint that answers it (`resolve`: the family names the key, as it does when it serves) — all a
    family needs to render a fault in the request's format, and what the truth API asks."""

    def __init__(self) -> None:
        self.endpoints: dict[tuple[str, str], Endpoint] = {}
        self.platforms: dict[tuple[str, str], str] = {}
        # host → path prefix (whole segments) → the platforms serving endpoints under it
        self.host_prefixes: dict[str, dict[str, set[str]]] = {}
        for owner, module in served_modules():
            for ep in module.ENDPOINTS:
                check_declared(ep, owner)
                platform = owner or longtail_platform(ep.host, ep.key)
                self.endpoints[(ep.host, ep.key)] = ep
                self.platforms[(ep.host, ep.key)] = platform
                prefixes = self.host_prefixes.setdefault(ep.host, {})
                for prefix in _prefixes(ep.key) if ep.key.startswith("/") else [""]:
                    prefixes.setdefault(prefix, set()).add(platform)

    @property
    def host_family(self) -> dict[str, str]:
        return HOST_FAMILY

    def endpoint(self, host: str, key: str) -> Endpoint | None:
        return self.endpoints.get((host, key))

    def resolve(self, req: SimRequest) -> Endpoint | None:
        """The endpoint a routed request reaches (None: a host or a path no endpoint serves)."""
        family = HOST_FAMILY.get(req.host)
        if family is None:
            return None
        key = family_class(family).endpoint_key(req)
        return self.endpoints.get((req.host, key)) if key is not None else None


def check_declared(ep: Endpoint, platform: str | None) -> None:
    """An endpoint is served on a host its platform declares, by the family declared there."""
    hosts = HOST_FAMILY if platform is None else DECLARED[platform].hosts
    if hosts.get(ep.host) != ep.family:
        raise ValueError(f"endpoint {ep.host} {ep.key} ({ep.family}) is on no host its platform "
                         f"{platform or 'long tail'} declares for that family: {hosts}")


def _prefixes(path: str) -> list[str]:
    """`/a/b/c` → ["", "/a", "/a/b", "/a/b/c"]."""
    parts = path.strip("/").split("/")
    return ["", *("/" + "/".join(parts[: i + 1]) for i in range(len(parts)))]


@cache
def endpoint_index() -> EndpointIndex:
    return EndpointIndex()


def route(host: str, path: str) -> tuple[str, str]:
    """(host, path) as the simulator routes them: `kopa sim serve` clients put the real host first in the
    path (`/opendart.fss.or.kr/api/list.json`)."""
    host = host.split(":")[0].lower()
    first, _, rest = path.lstrip("/").partition("/")
    if first.lower() in HOST_FAMILY:
        return first.lower(), "/" + rest
    return host, path


def platform_of(host: str, path: str) -> str:
    """The catalog platform a request belongs to. apis.data.go.kr serves several, told apart by the
    longest path prefix that only one platform's endpoints share (B190017 예보 → kdic, B490007 산업인력공단
    → hrd; under 1160100 금융위, GetStockSecuritiesInfoService → krx and GetFnCoBinsInfoService → kdic).
    A host or gateway path that no platform serves is `other`."""
    host, path = route(host, path)
    index = endpoint_index()
    known = index.resolve(SimRequest("GET", host, path))
    if known is not None:
        return index.platforms[(known.host, known.key)]
    # A path no endpoint serves: the platform whose endpoints alone share its longest prefix.
    prefixes = index.host_prefixes.get(host)
    if not prefixes:
        return UNKNOWN_PLATFORM
    for prefix in reversed(_prefixes(path.rstrip("/") or "/")):
        owners = prefixes.get(prefix)
        if owners is not None and len(owners) == 1:
            return next(iter(owners))
    return UNKNOWN_PLATFORM
