"""`faults:PROFILE[,seed=N]@INNER`: seeded faults as a transport wrapper around any backend.

Each decision is a pure function of (seed, key-independent request fingerprint, attempt number) — the
attempt number travels in the request's httpx extensions (never on the wire) — so the same faults fall
on the same requests whatever the concurrency, the order or the number of workers. Rate-limit and
maintenance answers are rendered in each service's own form by the simulator's families; timeouts,
connection resets, truncated and malformed bodies are made here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

import httpx
import orjson

from kopa.backends.sim import to_httpx_response, to_sim_request
from kopa.backends.spec import ATTEMPT_EXTENSION
from kopa.record.transports import canonical_of
from sim.faults import FaultProfile, decide, platform_of, render_fault


@dataclass(frozen=True)
class FaultEvent:
    fingerprint: str
    attempt: int
    platform: str
    kind: str
    url: str


class FaultLog:
    """Every injected fault. Serialised sorted, so it is byte-identical across runs and worker counts."""

    def __init__(self) -> None:
        self._events: list[FaultEvent] = []
        self._lock = threading.Lock()

    def add(self, event: FaultEvent) -> None:
        with self._lock:
            self._events.append(event)

    def events(self) -> list[FaultEvent]:
        with self._lock:
            return sorted(set(self._events), key=lambda e: (e.fingerprint, e.attempt, e.kind))

    def to_jsonl(self) -> bytes:
        return b"".join(orjson.dumps(e.__dict__, option=orjson.OPT_SORT_KEYS) + b"\n" for e in self.events())

    def counts(self) -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for e in self.events():
            out[(e.platform, e.kind)] = out.get((e.platform, e.kind), 0) + 1
        return dict(sorted(out.items()))


@cache
def key_system_of_host() -> dict[str, str]:
    """host → the key system whose quota its calls count against (from the catalog's auth specs)."""
    from kopa.catalog import load_catalog

    return {httpx.URL(t.base_url).host: t.auth.key_id for t in load_catalog() if t.auth is not None}


class FaultTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, profile: FaultProfile, seed: int, clock, log: FaultLog) -> None:
        self.inner = inner
        self.profile = profile
        self.seed = seed
        self.clock = clock
        self.log = log
        # Per-key quotas count calls, so which call is refused depends on order: profiles leave them off
        # unless a study wants them (then run with one worker for exact reproducibility).
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def _over_quota(self, host: str) -> bool:
        system = key_system_of_host().get(host)
        limit = self.profile.quotas.get(system) if system else None
        if limit is None:
            return False
        with self._lock:
            self._used[system] = self._used.get(system, 0) + 1
            return self._used[system] > limit

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        canonical = canonical_of(request)
        attempt = int(request.extensions.get(ATTEMPT_EXTENSION, 0))
        host, path = request.url.host, request.url.path
        if self._over_quota(host):
            self.log.add(FaultEvent(canonical.fingerprint, attempt, platform_of(host, path), "quota", canonical.url))
            return to_httpx_response(render_fault("rate_limit", to_sim_request(request)))
        decision = decide(self.profile, self.seed, canonical.fingerprint, attempt, host, path)
        if decision.kind is None:
            return self.inner.handle_request(request)
        self.log.add(FaultEvent(canonical.fingerprint, attempt, platform_of(host, path), decision.kind,
                                canonical.url))
        self.clock.sleep(decision.delay)
        if decision.kind == "timeout":
            raise httpx.ReadTimeout("the service did not answer in time (injected)", request=request)
        if decision.kind == "connection_reset":
            raise httpx.RemoteProtocolError("connection reset by peer (injected)", request=request)
        if decision.kind in ("truncated", "malformed"):
            response = self.inner.handle_request(request)
            body = response.read()
            body = body[: max(1, len(body) // 2)] if decision.kind == "truncated" else b"\x00<html>\xff\xfe garbled"
            headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() != "content-length"]
            return httpx.Response(response.status_code, headers=headers, content=body)
        response = to_httpx_response(render_fault(decision.kind, to_sim_request(request)))
        if decision.retry_after is not None and "retry-after" not in response.headers:
            response.headers["Retry-After"] = f"{decision.retry_after:g}"
        return response

    def close(self) -> None:
        self.inner.close()
