"""`kopa sim serve`: the simulator as an HTTP server on loopback.

Routes by Host header, or by a leading path segment naming the real host (what `live:URL` sends).
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import orjson

from sim.app import Simulator
from sim.faults import FaultDecision, FaultProfile, decide, render_fault
from sim.http import SimRequest


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Query parameters that carry keys: left out of the served simulator's request identity, so a fault
# falls on the same request whatever key the client uses.
_KEY_PARAMS = frozenset({"crtfc_key", "serviceKey", "ServiceKey", "KEY", "Key", "key", "OC", "authKey", "apiKey",
                         "AUTH_KEY"})


@dataclass
class ServedFaults:
    """Faults on the wire: real delays, real connection resets, bodies really cut short.

    Over HTTP the attempt number cannot travel with the request, so the server counts attempts per
    request identity itself (deterministic for a sequential client)."""

    profile: FaultProfile
    seed: int = 0
    time_scale: float = 1.0  # real seconds per simulated second (tests shrink delays)
    _attempts: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def decide(self, request: SimRequest) -> FaultDecision:
        query = sorted((k, v) for k, v in request.query if k not in _KEY_PARAMS)
        identity = hashlib.sha256(f"{request.method} {request.host}{request.path}?{query}".encode()).hexdigest()
        with self._lock:
            attempt = self._attempts.get(identity, 0)
            self._attempts[identity] = attempt + 1
        return decide(self.profile, self.seed, identity, attempt, request.host, request.path)


def make_handler(simulator: Simulator, *, quiet: bool = True, faults: ServedFaults | None = None
                 ) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes; with Nagle on, the second waits for a delayed ACK
        # (about 40 ms a request on loopback).
        disable_nagle_algorithm = True
        server_version = "kopa-sim"
        sys_version = ""

        def _serve(self) -> None:
            if self.path == "/_kopa/world":
                # Lets a client of the served simulator read its virtual clock and world identity.
                self._send(200, "application/json", orjson.dumps({
                    "config": simulator.world.config.model_dump(mode="json"),
                    "content_hash": simulator.world.content_hash}), {})
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            request = SimRequest.from_parts(self.command, self.headers.get("Host", ""), parts.path, parts.query,
                                            dict(self.headers.items()), body)
            decision = faults.decide(simulator.route(request)) if faults is not None else None
            if decision is not None and decision.kind is not None:
                self._fault(decision, request)
                return
            response = simulator.handle(request)
            self._send(response.status, response.content_type, response.body, response.headers)

        def _fault(self, decision: FaultDecision, request: SimRequest) -> None:
            assert faults is not None
            time.sleep(decision.delay * faults.time_scale)
            kind = decision.kind
            if kind in ("timeout", "connection_reset"):
                # A timeout: the answer never comes. A reset: RST instead of FIN (linger 0).
                if kind == "connection_reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            if kind in ("truncated", "malformed"):
                response = simulator.handle(request)
                body = response.body
                if kind == "malformed":
                    self._send(response.status, response.content_type, b"\x00<html>\xff\xfe garbled", {})
                    return
                # Announce the whole body, send half, hang up.
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: max(1, len(body) // 2)])
                self.close_connection = True
                return
            answer = render_fault(kind, simulator.route(request))
            headers = dict(answer.headers)
            if decision.retry_after is not None:
                headers.setdefault("Retry-After", f"{decision.retry_after:g}")
            self._send(answer.status, answer.content_type, answer.body, headers)

        def _send(self, status: int, content_type: str, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args) -> None:
            if not quiet:
                super().log_message(format, *args)

    return Handler


class SimServer:
    """A served simulator, startable in a background thread (tests, benchmarks) or in the foreground."""

    def __init__(self, simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True,
                 faults: ServedFaults | None = None) -> None:
        if not _is_loopback(host):
            raise ValueError(f"refusing to serve on {host}: the simulator binds loopback addresses only")
        self.httpd = ThreadingHTTPServer((host, port), make_handler(simulator, quiet=quiet, faults=faults))
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="kopa-sim-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
