"""`kopa sim serve`: the simulator as an HTTP server on loopback.

Routes by Host header, or by a leading path segment naming the real host (what `live:URL` sends).

It has to hold up under what a test harness or a careless client does to it: hundreds of clients at
once (a listen backlog and a thread per connection, bounded), clients that send a request and half-close,
clients that stall or lie about their framing. Every request is read against deadlines (headers, body)
and its framing checked before the simulator sees it; a bad one gets a 400 (408 when it stalls, 413/414/431
when too large) and the connection is closed gracefully, so the client reads the answer instead of a
reset. Log lines never carry keys (`sim.redact`).
"""

from __future__ import annotations

import contextlib
import errno
import http.client
import ipaddress
import re
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import orjson

from sim.app import Simulator
from sim.errors import SimInputError
from sim.faults import FaultDecider, FaultDecision, FaultProfile, render_fault
from sim.http import SimRequest
from sim.redact import Redactor, scrub_line
from sim.registry import KEY_SYSTEMS


class ServeError(SimInputError):
    """The served simulator cannot start where it was asked to (address not loopback, port in use or
    not allowed): an input error like any other, so the CLI prints its message, which names the address
    and the port, as one line."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Limits:
    """How long and how much a connection may take. Defaults suit a person or a harness on loopback;
    tests shrink the timeouts to see them fire."""

    idle_timeout: float = 30.0  # a kept-alive connection with no new request is closed (no answer)
    header_timeout: float = 10.0  # request line and headers, from their first byte
    body_timeout: float = 30.0  # the whole body, from the end of the headers
    write_timeout: float = 30.0  # each send to a client that does not read
    linger_timeout: float = 2.0  # after a rejection, unread input is drained this long before closing
    max_request_line: int = 65536  # 414 beyond (http.server's own limit)
    max_header_bytes: int = 65536  # 431 beyond (request line excluded)
    max_body: int = 1 << 20  # 413 beyond; the simulated services take their arguments in the query
    max_connections: int = 1024  # handler threads at once; more wait, accepted later, in the backlog
    backlog: int = 1024  # the kernel's queue of connections not yet accepted


@dataclass
class ServedFaults:
    """Faults on the wire: real delays, real connection resets, bodies really cut short.

    Decisions come from `sim.faults.FaultDecider`, with the same request identity as the in-process
    `faults:` wrapper; the attempt number, which cannot travel with the request, is counted per identity
    as a retrying client makes it. So a profile and a seed inject the same faults over either, and
    `log` keeps every injected one so that the two can be compared."""

    profile: FaultProfile
    seed: int = 0
    time_scale: float = 1.0  # real seconds per simulated second (tests shrink delays)
    _decider: FaultDecider = field(init=False, repr=False)
    # One row per distinct injected fault (as the in-process FaultLog keeps them): repeats add nothing.
    _injected: set[tuple[str, int, str, str]] = field(default_factory=set, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self._decider = FaultDecider(self.profile, self.seed)

    def decide(self, request: SimRequest) -> FaultDecision:
        call = self._decider.arrive(request)
        if call.decision.kind is not None:
            with self._lock:
                self._injected.add((call.fingerprint, call.attempt, call.platform, call.decision.kind))
        return call.decision

    def log(self) -> list[tuple[str, int, str, str]]:
        """(fingerprint, attempt, platform, kind) of every injected fault, sorted as the in-process log."""
        with self._lock:
            return sorted(self._injected, key=lambda r: (r[0], r[1], r[3]))


class _TooLarge(Exception):
    """The current phase of a request read past its byte budget."""


class _Reader:
    """The connection's read side, against one deadline and one byte budget per phase.

    A socket timeout bounds each recv, so a client trickling a byte at a time would hold its thread
    for ever; a deadline bounds the whole phase (headers, body) however the bytes arrive. It offers
    what `http.client.parse_headers` and the handler use: `readline(limit)` and `read(n)`."""

    _CHUNK = 65536

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buf = bytearray()
        self.deadline = 0.0
        self.budget = 0
        self.eof = False

    def phase(self, seconds: float, budget: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.budget = budget

    def _fill(self) -> bool:
        """One recv into the buffer; False at end of input."""
        if self.eof:
            return False
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("read deadline passed")
        self._sock.settimeout(remaining)
        chunk = self._sock.recv(self._CHUNK)
        if not chunk:
            self.eof = True
            return False
        self._buf += chunk
        return True

    def wait(self) -> bool:
        """Until a byte is buffered (True) or the client has closed its side (False)."""
        return bool(self._buf) or self._fill()

    def _take(self, n: int) -> bytes:
        if n > self.budget:
            raise _TooLarge
        out = bytes(self._buf[:n])
        del self._buf[:n]
        self.budget -= n
        return out

    def readline(self, limit: int = -1) -> bytes:
        scanned = 0
        while True:
            i = self._buf.find(b"\n", scanned)
            if i >= 0 and (limit < 0 or i < limit):
                return self._take(i + 1)
            if 0 <= limit <= len(self._buf):
                return self._take(limit)
            if len(self._buf) > self.budget:
                raise _TooLarge
            scanned = len(self._buf)
            if not self._fill():
                return self._take(len(self._buf))

    def read(self, n: int) -> bytes:
        while len(self._buf) < n and self._fill():
            pass
        return self._take(min(n, len(self._buf)))

    def drain(self, seconds: float, cap: int) -> None:
        """Read and drop input until the client closes, `seconds` pass or `cap` bytes arrive."""
        self._buf.clear()
        self.phase(seconds, cap)
        dropped = 0
        with contextlib.suppress(OSError):
            while dropped <= cap and self._fill():
                dropped += len(self._buf)
                self._buf.clear()

    def close(self) -> None:
        self._buf.clear()


# method SP request-target SP HTTP-version (RFC 9112 §3), HTTP/1.x only.
_REQUEST_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e\x80-\xff]+) (HTTP/1\.[01])\r?\n")
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")


def make_handler(simulator: Simulator, *, quiet: bool = True, faults: ServedFaults | None = None,
                 limits: Limits = Limits()) -> type[BaseHTTPRequestHandler]:
    redactor = Redactor(simulator.host_family)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two writes; with Nagle on, the second waits for a delayed ACK
        # (about 40 ms a request on loopback).
        disable_nagle_algorithm = True
        server_version = "kopa-sim"
        sys_version = ""
        rbufsize = 0  # the socket file http.server opens is replaced by a _Reader

        rfile: _Reader  # type: ignore[assignment]
        _body = b""
        _answered = False
        _linger = False
        _logged_line = "-"
        _secrets: frozenset[str] = frozenset()
        # http.server's own, undeclared in typeshed: the header lines send_header has buffered, and the
        # table that escapes control characters in a logged line
        _headers_buffer: list[bytes]
        _control_char_table: dict[int, str]

        def setup(self) -> None:
            super().setup()
            self.rfile.close()
            self.rfile = _Reader(self.connection)

        def finish(self) -> None:
            if self._linger:
                # A rejected request may have left input unread; closing on it would send a reset that
                # can overtake the answer. Stop writing, drop what still comes for a moment, then close.
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_WR)
                self.rfile.drain(limits.linger_timeout, limits.max_body)
            self.rfile.close()

        def handle(self) -> None:
            self.close_connection = False
            try:
                while not self.close_connection:
                    self.handle_one_request()
            except OSError:
                # The client reset or stopped reading mid-exchange: nobody is left to answer.
                self.close_connection = True
                self._linger = False

        def handle_one_request(self) -> None:
            reader = self.rfile
            self.close_connection = True
            self.request_version = "HTTP/1.1"  # an early rejection still goes out framed
            self.command = ""
            self._answered = False
            self._logged_line = "-"
            self._secrets = frozenset()
            reader.phase(limits.idle_timeout, 0)
            try:
                if not reader.wait():
                    return  # the client closed its side between requests
            except TimeoutError:
                return  # an idle kept-alive connection: closed without an answer, as is usual
            try:
                if not self._read_head() or not self._read_body():
                    return
            except TimeoutError:
                self._reject(HTTPStatus.REQUEST_TIMEOUT, "request not received in time")
                return
            except _TooLarge:
                self._reject(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request head too large")
                return
            self.connection.settimeout(limits.write_timeout)
            method = getattr(self, "do_" + self.command, None)
            if method is None:
                self._reject(HTTPStatus.NOT_IMPLEMENTED, "only GET and POST are served")
                return
            method()

        def _read_head(self) -> bool:
            """Request line and headers, checked; False once a rejection has been sent."""
            reader = self.rfile
            reader.phase(limits.header_timeout, limits.max_request_line + 1)
            raw = reader.readline(limits.max_request_line + 1)
            if raw in (b"\r\n", b"\n"):  # RFC 9112 §2.2: one empty line before a request is ignored
                reader.budget = limits.max_request_line + 1
                raw = reader.readline(limits.max_request_line + 1)
            if len(raw) > limits.max_request_line:
                self._reject(HTTPStatus.REQUEST_URI_TOO_LONG, "request line too long")
                return False
            if not raw.endswith(b"\n"):
                self._reject(HTTPStatus.BAD_REQUEST, "incomplete request line")
                return False
            match = _REQUEST_LINE.fullmatch(raw)
            if match is None:
                self._reject(HTTPStatus.BAD_REQUEST, "bad request line")
                return False
            command, target, version = (g.decode("iso-8859-1") for g in match.groups())
            self.command, self.request_version = command, version
            self.raw_requestline = raw
            self.requestline = raw.rstrip(b"\r\n").decode("iso-8859-1")
            # A target starting with // is a path here, not a network location (as http.server reads it).
            self.path = "/" + target.lstrip("/") if target.startswith("//") else target
            reader.phase(limits.header_timeout, limits.max_header_bytes)
            try:
                self.headers = http.client.parse_headers(reader, _class=self.MessageClass)
            except (http.client.HTTPException, _TooLarge):  # a line too long, too many or too much
                self._reject(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large")
                return False
            if reader.eof:  # the headers' closing empty line never came
                self._reject(HTTPStatus.BAD_REQUEST, "incomplete headers")
                return False
            try:
                urlsplit(self.path)
            except ValueError:
                self._reject(HTTPStatus.BAD_REQUEST, "bad request target")
                return False
            host = self.headers.get("Host", "")
            self._secrets = frozenset(redactor.secrets(self.path, host, dict(self.headers.items())))
            self._logged_line = f"{command} {redactor.target(self.path, host)} {version}"
            if len(self.headers.get_all("Host") or []) > 1:
                self._reject(HTTPStatus.BAD_REQUEST, "more than one Host header")
                return False
            tokens = {t.strip().lower() for t in self.headers.get("Connection", "").split(",")}
            self.close_connection = "close" in tokens or (version == "HTTP/1.0" and "keep-alive" not in tokens)
            return True

        def _read_body(self) -> bool:
            """The body as Content-Length frames it; False once a rejection has been sent."""
            if self.headers.get_all("Transfer-Encoding"):
                self._reject(HTTPStatus.BAD_REQUEST, "Transfer-Encoding is not accepted; send Content-Length")
                return False
            values = {v.strip() for raw in self.headers.get_all("Content-Length") or [] for v in raw.split(",")}
            if not values:
                self._body = b""
                return True
            value = values.pop()
            if values or not _CONTENT_LENGTH.fullmatch(value):
                self._reject(HTTPStatus.BAD_REQUEST, "bad Content-Length")
                return False
            length = int(value)
            if length > limits.max_body:
                self._reject(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body over {limits.max_body} bytes")
                return False
            if length and self.headers.get("Expect", "").lower() == "100-continue":
                self.send_response_only(HTTPStatus.CONTINUE)
                self.end_headers()
            self.rfile.phase(limits.body_timeout, length)
            self._body = self.rfile.read(length)
            if len(self._body) < length:
                self._reject(HTTPStatus.BAD_REQUEST, f"body ended after {len(self._body)} of {length} bytes")
                return False
            return True

        def _serve(self) -> None:
            try:
                self._answer()
            except OSError:
                raise  # the client went away: handle() closes quietly
            except Exception:
                # A simulator bug must not drop the connection (a client would retry it as a network
                # fault): log it, keys scrubbed, and answer 500 if nothing has gone out yet.
                sys.stderr.write(scrub_line(traceback.format_exc(), self._secrets))
                if getattr(self, "_headers_buffer", None):  # an answer begun but not yet sent: discard it
                    self._headers_buffer = []
                    self._answered = False
                if self._answered:
                    self.close_connection = True
                else:
                    self._reject(HTTPStatus.INTERNAL_SERVER_ERROR, "the simulator failed on this request")

        def _answer(self) -> None:
            if self.path == "/_kopa/world":
                # Lets a client of the served simulator read its virtual clock and world identity, and the keys
                # it issues (derived from the world's seed; accepted under --strict-keys too), so `live:URL`
                # needs no KOPA_*_KEY variable. Simulated keys open nothing real, and this answers loopback only.
                self._send(200, "application/json", orjson.dumps({
                    "config": simulator.world.config.model_dump(mode="json"),
                    "content_hash": simulator.world.content_hash,
                    "keys": {"strict": simulator.keys.strict,
                             "issued": {k: simulator.keys.issue(k) for k in KEY_SYSTEMS}}}), {})
                return
            parts = urlsplit(self.path)
            request = SimRequest.from_parts(self.command, self.headers.get("Host", ""), parts.path, parts.query,
                                            dict(self.headers.items()), self._body)
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
            assert kind is not None  # _answer hands on only a decision of a fault
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

        def _reject(self, status: HTTPStatus, reason: str) -> None:
            """Answer a request that will not reach the simulator, and close the connection after it."""
            body = f"{status.value} {status.phrase}: {reason}\n".encode()
            self.log_message('"%s" %d %d %s', self._logged_line, status.value, len(body), reason)
            self.connection.settimeout(limits.write_timeout)
            self.send_response_only(status)
            self.send_header("Server", self.version_string())
            self.send_header("Date", self.date_time_string())
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            self._linger = True

        def send_response_only(self, code: int, message: str | None = None) -> None:
            self._answered = self._answered or code >= 200  # a 100 Continue is not the answer
            super().send_response_only(code, message)

        def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
            # http.server's own error page echoes the raw request line; ours names the status only.
            self._reject(HTTPStatus(code), HTTPStatus(code).phrase.lower())

        do_GET = _serve
        do_POST = _serve

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            self.log_message('"%s" %s %s', self._logged_line, int(code), size)

        def log_message(self, format: str, *args) -> None:
            # Every line goes through here, so every line is scrubbed: by position where the request
            # was parsed (_logged_line), by value and by name in whatever else the line says.
            if quiet:
                return
            message = scrub_line(format % args, self._secrets).translate(self._control_char_table)
            sys.stderr.write(f"{self.address_string()} - - [{self.log_date_time_string()}] {message}\n")

    return Handler


class _Server(ThreadingHTTPServer):
    """A thread per connection, at most `max_connections` at once.

    At capacity the accept loop waits for a connection to end (each ends within its timeouts), and
    further clients wait in the listen backlog, accepted late but never reset."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], limits: Limits) -> None:
        self.request_queue_size = limits.backlog
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        self.closing = False
        super().__init__(address, handler)

    def server_bind(self) -> None:
        # http.server resolves the bound address's fully qualified name, which can stall on a resolver;
        # a loopback server has no use for it.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]  # type: ignore[assignment]

    def process_request(self, request, client_address) -> None:
        while not self._slots.acquire(timeout=0.5):
            if self.closing:
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class SimServer:
    """A served simulator, startable in a background thread (tests, benchmarks) or in the foreground."""

    def __init__(self, simulator: Simulator, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True,
                 faults: ServedFaults | None = None, limits: Limits = Limits()) -> None:
        if not _is_loopback(host):
            raise ServeError(f"refusing to serve on {host}: the simulator binds loopback addresses only")
        handler = make_handler(simulator, quiet=quiet, faults=faults, limits=limits)
        try:
            self.httpd = _Server((host, port), handler, limits)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ServeError(f"port {port} on {host} is already in use: stop what serves there "
                                 f"or choose another with --port") from exc
            if exc.errno == errno.EACCES:
                raise ServeError(f"port {port} on {host} is not open to this user (ports below 1024 need "
                                 f"privileges): choose another with --port") from exc
            raise ServeError(f"cannot serve on {host} port {port}: {exc.strerror or exc}") from exc
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        assert isinstance(host, str)  # a bound socket's own address (getsockname) names its host as text
        return f"http://{host}:{port}"

    def start(self) -> SimServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="kopa-sim-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.closing = True
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
