"""The fault side of a study cell: a profile with a given environmental failure rate, and the rate the
fault log shows was realized.

Rate r of the realistic mix: every platform's (and the default level's) environmental rates of the shipped
`realistic` profile scaled by one factor per level, chosen so that attempt 0 of a request fails
environmentally with probability exactly r. Maintenance is drawn before the per-attempt kinds, so a level
with maintenance m and per-attempt total A fails attempt 0 with m·s + (1 − m·s)·A·s; the factor s solves
that quadratic. Scaling per level keeps the mix's proportions inside each platform and makes the share
the same on every platform, so the realized share does not depend on which tools Phase A happens to call.

A single kind at rate r: that kind alone, at r on every platform (default level only).
"""

from __future__ import annotations

import math
import threading
from collections import Counter

import httpx

from kopa.backends.base import ATTEMPT_EXTENSION
from kopa.backends.sim import to_sim_request
from sim.faults import (
    ATTEMPT_KINDS,
    PLATFORM_IDS,
    UNKNOWN_PLATFORM,
    FaultProfile,
    load_profile,
    request_fingerprint,
)

MIX = "mix"
DRIFT = "drift"
# Study kind → the fault kind it injects alone ("mix" and "drift" inject the realistic mix; drift also
# switches the simulator's drift epoch mid-run, kopa.study.cell).
SINGLE_KINDS = {"rate_limit": "rate_limit", "timeout": "timeout", "server_error": "server_error",
                "truncated": "truncated", "connection_reset": "connection_reset", "malformed": "malformed"}
KINDS = (MIX, *SINGLE_KINDS, DRIFT)
ALIASES = {"5xx": "server_error", "cut_body": "truncated", "rate-limit": "rate_limit", "cut-body": "truncated"}


def attempt_zero_failure(rates: dict[str, float]) -> float:
    """P[attempt 0 of a request meets any fault] for one level's resolved rates."""
    m = rates["maintenance"]
    return m + (1.0 - m) * sum(rates[k] for k in ATTEMPT_KINDS)


def scale_factor(maintenance: float, per_attempt: float, rate: float) -> float:
    """s with m·s + (1 − m·s)·A·s = r: the smaller root of m·A·s² − (m + A)·s + r = 0."""
    if rate == 0.0:
        return 0.0
    if maintenance + per_attempt == 0.0:
        raise ValueError("a level without environmental rates cannot be scaled to a positive rate")
    if maintenance * per_attempt == 0.0:
        return rate / (maintenance + per_attempt)
    a, b = maintenance * per_attempt, maintenance + per_attempt
    return (b - math.sqrt(b * b - 4.0 * a * rate)) / (2.0 * a)


def _level_toml(rates: dict[str, float]) -> list[str]:
    return [f"{k} = {rates[k]!r}" for k in sorted(rates)]


def profile_toml(kind: str, rate: float) -> str:
    """The TOML text of the profile a cell with this fault kind and rate (a share in [0, 1]) runs under."""
    base = load_profile("realistic")
    lines = [f"# kopa study pruning: {kind} at {rate:.0%} of first attempts failing environmentally.",
             f"description = {f'{kind} at rate {rate!r}'!r}",
             f"maintenance_attempts = {base.maintenance_attempts}",
             f"timeout_seconds = {base.timeout_seconds!r}", ""]
    if kind in (MIX, DRIFT):
        # Every platform whose rates are its own (a section, or its one key system's) gets them scaled.
        own = sorted(p for p in PLATFORM_IDS if base._rates(p, None) != base._rates(UNKNOWN_PLATFORM, None))
        for level, platform in [("default", None), *((f"platforms.{p}", p) for p in own)]:
            rates = base._rates(platform or "other", None)
            m = rates["maintenance"]
            per_attempt = sum(rates[k] for k in ATTEMPT_KINDS)
            s = scale_factor(m, per_attempt, rate)
            scaled: dict[str, float] = {k: rates[k] * s for k in ("maintenance", *ATTEMPT_KINDS)}
            scaled["latency"] = rates["latency"]
            lines += [f"[{level}]", *_level_toml(scaled), ""]
    elif kind in SINGLE_KINDS:
        rates = dict.fromkeys(("maintenance", *ATTEMPT_KINDS), 0.0)
        rates[SINGLE_KINDS[kind]] = rate
        rates["latency"] = base.default.latency or 0.0
        lines += ["[default]", *_level_toml(rates), ""]
    else:
        raise ValueError(f"unknown fault kind {kind!r}; valid: {', '.join(KINDS)}")
    return "\n".join(lines)


def check_profile(profile: FaultProfile, rate: float) -> None:
    """Every platform's attempt-0 failure probability is the rate asked for (a guard on the algebra)."""
    for platform in (UNKNOWN_PLATFORM, *PLATFORM_IDS):
        got = attempt_zero_failure(profile._rates(platform, None))
        if abs(got - rate) > 1e-9:
            raise ValueError(f"profile {profile.name}: platform {platform} fails attempt 0 at {got}, not {rate}")


class ArrivalCounter(httpx.BaseTransport):
    """Counts the requests that reach the fault injector, by (fingerprint, attempt): the denominator the
    fault log (which holds only the faulted arrivals) needs to give a realized rate."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.arrivals: Counter[tuple[str, int]] = Counter()
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        fingerprint = request_fingerprint(to_sim_request(request))
        attempt = int(request.extensions.get(ATTEMPT_EXTENSION) or 0)
        with self._lock:
            self.arrivals[(fingerprint, attempt)] += 1
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def realized_rate(arrivals: Counter[tuple[str, int]], fault_events: list) -> dict[str, float | int]:
    """The share of first attempts that met an injected fault: over arrivals, and over distinct requests.

    The fault log keeps each (fingerprint, attempt, kind) once; a fault decision is a pure function of
    those, so every arrival of a logged (fingerprint, 0) met the fault. Phase A sends many requests more
    than once (defaults, the value cache), and a repeated request meets the same fault at attempt 0
    every time, so the share over arrivals scatters around r more than the share over distinct requests."""
    faulted = {e.fingerprint for e in fault_events if e.attempt == 0}
    first = {fp: n for (fp, attempt), n in arrivals.items() if attempt == 0}
    total = sum(first.values())
    hit = sum(n for fp, n in first.items() if fp in faulted)
    distinct_hit = sum(fp in faulted for fp in first)
    return {"realized_rate": hit / total if total else 0.0,
            "realized_rate_distinct": distinct_hit / len(first) if first else 0.0,
            "first_attempts": total, "faulted_first_attempts": hit, "distinct_first_requests": len(first)}
