"""`faults:PROFILE[,seed=N]@INNER`: seeded faults as a transport wrapper around any backend.

Each decision is a pure function of (seed, key-independent request fingerprint, attempt number), taken by
the simulator's own `sim.faults.FaultDecider` — the same request identity and the same decision as
`kopa sim serve --faults`, so a profile and a seed inject the same faults in-process and over loopback.
The attempt number is the runtime's (it travels in the request's httpx extensions, never on the wire),
so the same faults fall on the same calls whatever the concurrency, the order or the number of workers;
a client that does not tell it gets the served simulator's count. Rate-limit and maintenance
answers are rendered in each service's own form by the simulator's families; timeouts, connection
resets, truncated and malformed bodies are made here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

import httpx
import orjson

from kopa.backends.base import ATTEMPT_EXTENSION
from kopa.backends.sim import to_httpx_response, to_sim_request
from kopa.catalog import load_catalog
from kopa.record.transports import canonical_of
from sim.faults import FaultCall, FaultDecider, FaultProfile, render_fault


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
    return {httpx.URL(t.base_url).host: t.auth.key_id for t in load_catalog() if t.auth is not None}


class FaultTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, profile: FaultProfile, seed: int, clock, log: FaultLog) -> None:
        self.inner = inner
        self.profile = profile
        self.seed = seed
        self.clock = clock
        self.log = log
        self.decider = FaultDecider(profile, seed)
        # Per-key quotas count calls, so which call is refused depends on order: profiles leave them off
        # unless a study wants them (then run with one worker for exact reproducibility).
        self._used: dict[str, int] = {}
        self._lock = threading.Lock()

    def _over_quota(self, host: str) -> bool:
        system = key_system_of_host().get(host)
        if not system:
            return False
        limit = self.profile.quotas.get(system)
        if limit is None:
            return False
        with self._lock:
            self._used[system] = self._used.get(system, 0) + 1
            return self._used[system] > limit

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        sim_request = to_sim_request(request)
        told = request.extensions.get(ATTEMPT_EXTENSION)
        call = self.decider.arrive(sim_request, None if told is None else int(told))
        if self._over_quota(request.url.host):
            self._record(call, "quota", request)
            return to_httpx_response(render_fault("rate_limit", sim_request))
        decision = call.decision
        if decision.kind is None:
            return self.inner.handle_request(request)
        self._record(call, decision.kind, request)
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
        response = to_httpx_response(render_fault(decision.kind, sim_request))
        if decision.retry_after is not None and "retry-after" not in response.headers:
            response.headers["Retry-After"] = f"{decision.retry_after:g}"
        return response

    def _record(self, call: FaultCall, kind: str, request: httpx.Request) -> None:
        # The URL as a cassette would show it (keys scrubbed, query sorted), for a person reading the log.
        self.log.add(FaultEvent(call.fingerprint, call.attempt, call.platform, kind, canonical_of(request).url))

    def close(self) -> None:
        self.inner.close()
