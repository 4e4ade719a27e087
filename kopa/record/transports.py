"""Record, replay and snapshot as httpx transports (DESIGN.md decision 1)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit

import httpx

from kopa.errors import UserError
from kopa.record.cassette import Exchange
from kopa.record.fingerprint import CanonicalRequest, canonical_request
from kopa.record.snapshot import Snapshot


class ReplayMiss(UserError, LookupError):
    """A request that was never recorded. Not an HTTP failure: the run asked for something the
    recording does not hold, and silently failing it as 'environmental' would hide that. A user error
    (record the missing call, or replay another recording), so the CLI prints its one line: the request
    and the nearest recorded one."""


def canonical_of(request: httpx.Request) -> CanonicalRequest:
    return canonical_request(request.method, str(request.url), dict(request.headers), request.content)


def response_of(exchange: Exchange) -> httpx.Response:
    return httpx.Response(exchange.status, headers=exchange.headers, content=exchange.body,
                          extensions={"reason_phrase": exchange.reason.encode("latin-1", "replace")})


def nearest(line: str, recorded: list[tuple[str, str]]) -> str:
    """The recorded request closest to `line` ("METHOD URL"), and how they differ."""
    method, _, url = line.partition(" ")
    want = urlsplit(url)
    want_q = dict(parse_qsl(want.query, keep_blank_values=True))
    best: tuple[tuple[int, int, int], str, str] | None = None
    for rec_method, rec_url in recorded:
        got = urlsplit(rec_url)
        got_q = dict(parse_qsl(got.query, keep_blank_values=True))
        diff = sorted(k for k in want_q.keys() | got_q.keys() if want_q.get(k) != got_q.get(k))
        score = (int(rec_method != method) + int(got.netloc != want.netloc) * 4, int(got.path != want.path), len(diff))
        if best is None or score < best[0]:
            detail = ", ".join(f"{k}={want_q.get(k, '∅')} vs {got_q.get(k, '∅')}" for k in diff[:5])
            if got.path != want.path:
                detail = f"path {want.path} vs {got.path}" + (f"; {detail}" if detail else "")
            best = (score, f"{rec_method} {rec_url}", detail)
    if best is None:
        return "nothing is recorded"
    return f"nearest recorded: {best[1]}" + (f" (differs: {best[2]})" if best[2] else "")


class CassetteLayout(Protocol):
    """What the transports need of a recording's cassettes: one per unit (UnitCassettes, the default) or one per
    exchange (CassetteStore, the older layout and the compressed option)."""

    root: Path

    def serve(self, canonical: CanonicalRequest) -> Exchange | None: ...

    def reuse(self, canonical: CanonicalRequest) -> Exchange | None: ...

    def save(self, canonical: CanonicalRequest, request_headers: dict[str, str], status: int, reason: str,
             headers: list[tuple[str, str]], body: bytes, metadata: dict[str, Any]) -> Exchange: ...

    def lines(self) -> list[tuple[str, str]]: ...

    def close(self) -> None: ...


class RecordingTransport(httpx.BaseTransport):
    """Sends through `inner` and writes every exchange, keys scrubbed, before returning it.

    The run sees exactly what was written (the scrubbed exchange), so a replay reproduces it byte for
    byte. An exchange already in the cassettes is served from them: a rerun after an interrupted
    recording records only what is missing.
    """

    def __init__(self, inner: httpx.BaseTransport, store: CassetteLayout, snapshot: Snapshot | None,
                 captured_at: Callable[[], str], provenance: str) -> None:
        self.inner = inner
        self.store = store
        self.snapshot = snapshot
        self.captured_at = captured_at
        self.provenance = provenance
        self.recorded = 0
        self.reused = 0
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        canonical = canonical_of(request)
        found = self.store.reuse(canonical)
        if found is not None:
            with self._lock:
                self.reused += 1
            return response_of(found)
        response = self.inner.handle_request(request)
        response.read()
        when = self.captured_at()
        written = self.store.save(canonical, dict(request.headers), response.status_code, response.reason_phrase,
                                  list(response.headers.multi_items()), response.content,
                                  metadata={"captured_at": when, "backend": self.provenance})
        if self.snapshot is not None:
            self.snapshot.add_http(written, when)
        with self._lock:
            self.recorded += 1
        return response_of(written)

    def close(self) -> None:
        self.store.close()
        self.inner.close()


class ReplayTransport(httpx.BaseTransport):
    """Serves HTTP-exact from cassettes. It holds no connection pool and opens no socket."""

    def __init__(self, store: CassetteLayout) -> None:
        self.store = store
        self._recorded: list[tuple[str, str]] | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        canonical = canonical_of(request)
        found = self.store.serve(canonical)
        if found is None:
            raise ReplayMiss(f"request not in the cassettes at {self.store.root}: {canonical.line()}; "
                             f"{nearest(canonical.line(), self._recorded_lines())}")
        return response_of(found)

    def _recorded_lines(self) -> list[tuple[str, str]]:
        if self._recorded is None:
            self._recorded = self.store.lines()
        return self._recorded


class SnapshotTransport(httpx.BaseTransport):
    """Serves tool calls from a DuckDB snapshot's recorded HTTP, through the same parsers."""

    def __init__(self, path: Path | str) -> None:
        self.snapshot = Snapshot(path, read_only=True)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        canonical = canonical_of(request)
        exchange = self.snapshot.http(canonical.fingerprint)
        if exchange is None:
            raise ReplayMiss(f"request not in the snapshot {self.snapshot.path}: {canonical.line()}; "
                             f"{nearest(canonical.line(), self.snapshot.request_lines())}")
        return response_of(exchange)

    def close(self) -> None:
        self.snapshot.close()
