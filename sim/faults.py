"""Fault injection, simulator side: profiles, the pure fault decision, and each service's fault answers.

A profile (`sim/profiles/<name>.toml`, or any TOML file) gives per-platform probabilities of each fault
kind, per-endpoint overrides by host + path prefix, the maintenance window length and per-key quotas.

`decide` is a pure function of (profile, seed, request fingerprint, attempt, host, path): every draw is
a SHA-256 of those values, never a shared random state, so the same faults come back whatever the
concurrency, the call order or the number of workers. `request_fingerprint` and `FaultDecider` are the
one request identity and the one decision that the in-process wrapper (kopa.backends.faults) and
`kopa sim serve` both use, so a profile and a seed inject the same faults over either.

- Maintenance is drawn once per fingerprint (not per attempt): a maintained request gets the
  maintenance answer on attempts 0 … k-1 (k = `maintenance_attempts`) and is served normally from
  attempt k on — a window that backoff can wait out.
- Every other kind is drawn per attempt from one uniform split into consecutive intervals, so on an
  attempt outside maintenance each kind occurs with exactly its configured probability.

`render_fault` gives the answer the real service sends for rate_limit, maintenance and server_error
(the transport wrapper simulates timeout, connection_reset, truncated and malformed itself).
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from sim.errors import SimInputError
from sim.families import load_family
from sim.http import SimRequest, SimResponse
from sim.redact import KEY_PARAMS, PATH_KEY_FAMILIES, REDACTED
from sim.registry import (
    KEY_SYSTEMS,
    PLATFORM_IDS,
    UNKNOWN_PLATFORM,
    endpoint_index,
    platform_of,
    route,
    single_key_system,
)
from sim.tomlspec import load_spec, shipped, spec_path

FaultKind = Literal["rate_limit", "maintenance", "server_error", "timeout", "connection_reset", "truncated",
                    "malformed"]
KINDS: tuple[FaultKind, ...] = ("rate_limit", "maintenance", "server_error", "timeout", "connection_reset",
                                "truncated", "malformed")
# Drawn per attempt, in this order, from one uniform (maintenance is drawn per fingerprint).
ATTEMPT_KINDS: tuple[FaultKind, ...] = tuple(k for k in KINDS if k != "maintenance")
# Kinds whose answer the simulator renders; the others are the transport's to simulate.
RENDERED_KINDS: tuple[FaultKind, ...] = ("rate_limit", "maintenance", "server_error")

PROFILE_DIR = Path(__file__).parent / "profiles"


class FaultProfileError(SimInputError):
    """A profile that cannot be loaded; the message names the file and the field."""


# ---------------------------------------------------------------- profile


class Rates(BaseModel):
    """Probabilities per fault kind (None = inherit from the level above) and a per-call latency."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rate_limit: float | None = Field(None, ge=0, le=1)
    maintenance: float | None = Field(None, ge=0, le=1)
    server_error: float | None = Field(None, ge=0, le=1)
    timeout: float | None = Field(None, ge=0, le=1)
    connection_reset: float | None = Field(None, ge=0, le=1)
    truncated: float | None = Field(None, ge=0, le=1)
    malformed: float | None = Field(None, ge=0, le=1)
    latency: float | None = Field(None, ge=0, description="seconds charged to the virtual clock per call")

    def over(self, base: dict[str, float]) -> dict[str, float]:
        """`base` with the values this level sets."""
        return {**base, **{k: v for k, v in self.model_dump().items() if v is not None}}


class EndpointOverride(Rates):
    """Rates for the requests to `host` whose path starts with `path_prefix` (longest prefix wins)."""

    host: str
    path_prefix: str = "/"


_ZERO: dict[str, float] = {**dict.fromkeys(KINDS, 0.0), "latency": 0.0}


class FaultProfile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    maintenance_attempts: int = Field(2, ge=1, le=20, description="attempts 0..k-1 of a maintained request")
    timeout_seconds: float = Field(30.0, gt=0, description="virtual seconds a timed-out attempt costs")
    default: Rates = Rates()
    # Rates a key issuer's services share (the data.go.kr gateway's code 22 quota answer): the level under
    # `platforms` for a platform whose tools all check that one key system.
    key_systems: dict[str, Rates] = Field(default_factory=dict)
    platforms: dict[str, Rates] = Field(default_factory=dict)
    overrides: list[EndpointOverride] = Field(default_factory=list)
    quotas: dict[str, int] = Field(default_factory=dict, description="key system → calls per quota window")
    quota_window_seconds: int = Field(86_400, gt=0)

    _resolved: dict[tuple[str, int], dict[str, float]] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> FaultProfile:
        unknown = sorted(set(self.platforms) - set(PLATFORM_IDS))
        if unknown:
            raise ValueError(f"platforms: unknown platform id(s) {unknown}; known: {list(PLATFORM_IDS)}")
        unknown = sorted(set(self.key_systems) - set(KEY_SYSTEMS))
        if unknown:
            raise ValueError(f"key_systems: unknown key system(s) {unknown}; known: {list(KEY_SYSTEMS)}")
        bad_keys = sorted(set(self.quotas) - set(KEY_SYSTEMS))
        if bad_keys:
            raise ValueError(f"quotas: unknown key system(s) {bad_keys}; known: {list(KEY_SYSTEMS)}")
        for system, limit in self.quotas.items():
            if limit < 1:
                raise ValueError(f"quotas.{system}: must be at least 1, got {limit}")
        for platform in (UNKNOWN_PLATFORM, *PLATFORM_IDS):
            _check_sum(self._rates(platform, None), f"platforms.{platform}")
        for i, over in enumerate(self.overrides):
            where = f"overrides[{i}] ({over.host}{over.path_prefix})"
            _check_sum(self._rates(platform_of(over.host, over.path_prefix), i), where)
        return self

    def _rates(self, platform: str, override: int | None) -> dict[str, float]:
        rates = self.default.over(_ZERO)
        if (system := single_key_system(platform)) in self.key_systems:
            rates = self.key_systems[system].over(rates)
        if platform in self.platforms:
            rates = self.platforms[platform].over(rates)
        if override is not None:
            rates = self.overrides[override].over(rates)
        return rates

    def _override_for(self, host: str, path: str) -> int | None:
        best, best_len = None, -1
        for i, over in enumerate(self.overrides):
            if over.host == host and path.startswith(over.path_prefix) and len(over.path_prefix) > best_len:
                best, best_len = i, len(over.path_prefix)
        return best

    def rates_for(self, host: str, path: str) -> dict[str, float]:
        """Resolved probabilities (and `latency`) for one request: default ← platform ← endpoint override."""
        host, path = route(host, path)
        key = (platform_of(host, path), -1 if (i := self._override_for(host, path)) is None else i)
        if key not in self._resolved:
            self._resolved[key] = self._rates(key[0], None if key[1] < 0 else key[1])
        return self._resolved[key]


def _check_sum(rates: dict[str, float], where: str) -> None:
    total = sum(rates[k] for k in ATTEMPT_KINDS)
    if total > 1.0 + 1e-12:
        raise ValueError(f"{where}: the per-attempt fault probabilities sum to {total:.4f} > 1")


def profile_path(name_or_path: str) -> Path:
    return spec_path(name_or_path, PROFILE_DIR)


def shipped_profiles() -> list[str]:
    return shipped(PROFILE_DIR)


def load_profile(name_or_path: str) -> FaultProfile:
    """A shipped profile by name (`realistic`) or a TOML file by path, validated."""
    return load_spec(name_or_path, PROFILE_DIR, FaultProfile, FaultProfileError, "fault profile")


def expected_rates(profile: FaultProfile) -> dict[str, dict[str, float]]:
    """platform → kind → probability that attempt 0 of a request (outside any endpoint override) gets
    that fault. Maintenance is drawn first, so the other kinds are scaled by (1 - maintenance)."""
    out: dict[str, dict[str, float]] = {}
    for platform in PLATFORM_IDS:
        rates = profile._rates(platform, None)
        out[platform] = _attempt_zero(rates)
    return out


def _attempt_zero(rates: dict[str, float]) -> dict[str, float]:
    m = rates["maintenance"]
    return {kind: (m if kind == "maintenance" else rates[kind] * (1.0 - m)) for kind in KINDS}


# ---------------------------------------------------------------- decision


@dataclass(frozen=True)
class FaultDecision:
    kind: FaultKind | None  # None = no fault
    retry_after: float | None  # seconds, when the service sends Retry-After (else None)
    delay: float  # simulated latency / timeout seconds to charge to the clock (0 if none)


def _uniform(*parts: object) -> float:
    """A uniform in [0, 1) that is a function of `parts` alone."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def decide(profile: FaultProfile, seed: int, fingerprint: str, attempt: int, host: str, path: str
           ) -> FaultDecision:
    """The fault (if any) for attempt `attempt` of the request `fingerprint`. Pure: no state, no clock."""
    rates = profile.rates_for(host, path)
    latency = rates["latency"]
    if (attempt < profile.maintenance_attempts and rates["maintenance"] > 0
            and _uniform(seed, fingerprint, "maintenance") < rates["maintenance"]):
        return FaultDecision("maintenance", None, latency)
    u = _uniform(seed, fingerprint, attempt, "fault")
    edge = 0.0
    for kind in ATTEMPT_KINDS:
        edge += rates[kind]
        if u < edge:
            retry_after = retry_after_of(host, path) if kind == "rate_limit" else None
            return FaultDecision(kind, retry_after, profile.timeout_seconds if kind == "timeout" else latency)
    return FaultDecision(None, None, latency)


def request_fingerprint(request: SimRequest) -> str:
    """The request's identity for fault decisions: method, real host, path and query pairs (sorted), body.

    Computed from the routed request, so the in-process transport (real host in the URL) and the served
    simulator (real host as the first path segment, loopback in Host) agree; the port, the scheme and
    the headers are left out because they differ between the two. Keys are left out too — query
    parameters named as keys (compared without case, as `sim.redact` does) and the path segment a
    family reads its key from — so the same call made with another key meets the same faults.
    """
    host, path = route(request.host, request.path)
    family = endpoint_index().host_family.get(host)
    position = PATH_KEY_FAMILIES.get(family) if family is not None else None
    if position is not None:
        segments = path.lstrip("/").split("/")
        if position < len(segments) and segments[position]:
            segments[position] = REDACTED
        path = "/" + "/".join(segments)
    query = sorted((k, v) for k, v in request.query if k.lower() not in KEY_PARAMS)
    body = hashlib.sha256(request.body).hexdigest() if request.body else None
    identity = orjson.dumps({"method": request.method.upper(), "host": host, "path": path, "query": query,
                             "body": body})
    return hashlib.sha256(identity).hexdigest()


@dataclass(frozen=True)
class FaultCall:
    """One arrival of a request at a fault injector: who it is, which attempt, what it gets."""

    fingerprint: str
    attempt: int
    platform: str
    decision: FaultDecision


class FaultDecider:
    """A profile and a seed, and the attempt number of each arrival of a request.

    A retrying client makes attempt n of a call only after attempts 0 … n-1 of it met environmental
    failures, and a new call of the same request starts again at 0. The in-process wrapper is told
    that number by the runtime (an httpx extension, never on the wire), so its decisions do not depend
    on the order of calls or the number of workers. Over HTTP nothing but the request reaches the
    server, so there it is counted the way it arises: per request identity, in order of arrival, the
    number of faults injected on that identity since it was last answered without one. For a client
    that retries injected faults only, the two numbers are the same, and so are the faults.
    """

    def __init__(self, profile: FaultProfile, seed: int) -> None:
        self.profile = profile
        self.seed = seed
        self._faulted: dict[str, int] = {}  # identity → faults in a row since its last clean answer
        self._lock = threading.Lock()

    def arrive(self, request: SimRequest, attempt: int | None = None) -> FaultCall:
        """The decision for this arrival of `request`: at `attempt` when the client tells it, else at
        the counted one."""
        fingerprint = request_fingerprint(request)
        host, path = route(request.host, request.path)
        with self._lock:
            if attempt is None:
                attempt = self._faulted.get(fingerprint, 0)
            decision = decide(self.profile, self.seed, fingerprint, attempt, host, path)
            if decision.kind is None:
                self._faulted.pop(fingerprint, None)  # the call is over: only open streaks are kept
            else:
                self._faulted[fingerprint] = attempt + 1
        return FaultCall(fingerprint, attempt, platform_of(host, path), decision)


def retry_after_of(host: str, path: str) -> float | None:
    """The Retry-After seconds the host's rate-limit answer carries (only KRX's HTTP 429 sends one)."""
    host, path = route(host, path)
    family = endpoint_index().host_family.get(host)
    if family is None:
        return None
    seconds = getattr(_family(family), "RETRY_AFTER", None)
    return None if seconds is None else float(seconds)


# ---------------------------------------------------------------- answers


@cache
def _family(name: str):
    return load_family(name)


# A gateway's error page, whatever the service behind it: the services sit behind nginx/Apache/WebtoB
# front ends whose 5xx pages are HTML, not the service's envelope.
_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Temporarily Unavailable"}


def gateway_error_page(status: int) -> SimResponse:
    reason = _REASONS[status]
    html = (f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n"
            f"<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
    return SimResponse(status, html.encode("ascii"), "text/html")


def _server_status(req: SimRequest) -> int:
    """500, 502 or 503, a function of the request alone (so a replayed fault renders identically)."""
    query = "&".join(f"{k}={v}" for k, v in req.query)
    digest = hashlib.sha256(f"{req.host}|{req.path}|{query}".encode()).digest()
    return (500, 502, 503)[digest[0] % 3]


def render_fault(kind: FaultKind, request: SimRequest) -> SimResponse:
    """The answer the real service gives on `request`'s host for a rendered fault kind."""
    if kind not in RENDERED_KINDS:
        raise ValueError(f"the simulator renders {list(RENDERED_KINDS)}; {kind!r} is the transport's to simulate")
    host, path = route(request.host, request.path)
    req = SimRequest(request.method, host, path, request.query, request.headers, request.body)
    if kind == "server_error":
        return gateway_error_page(_server_status(req))
    index = endpoint_index()
    family = index.host_family.get(req.host)
    if family is None:
        return gateway_error_page(503)
    return _family(family).render_fault(kind, req, index)
