"""`kopa sim serve` under load and bad clients: no resets, no hangs, no keys in its log.

Everything runs on loopback against an in-process SimServer. Counts are bounded (500 clients once,
one connection per malformed case) and no assertion reads a clock: a timeout here only bounds how
long a broken server may hang a test before it fails.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from urllib.parse import quote, urlsplit

import pytest

from sim.http import SimRequest
from sim.redact import KEY_HEADERS, KEY_PARAMS, PATH_KEY_FAMILIES
from sim.serve import Limits, ServeError, SimServer

HANG = 30.0  # seconds before a client gives up on an answer (a hang fails the test, it never passes it)


def _request(target: str, *, host: str = "127.0.0.1", close: bool = True, extra: str = "") -> bytes:
    connection = "Connection: close\r\n" if close else ""
    return f"GET {target} HTTP/1.1\r\nHost: {host}\r\n{connection}{extra}\r\n".encode()


def _parse(raw: bytes) -> tuple[int, bytes]:
    head, sep, body = raw.partition(b"\r\n\r\n")
    assert sep, f"no complete answer: {raw[:200]!r}"
    status = int(head.split(b" ", 2)[1])
    lengths = [line.split(b":", 1)[1].strip() for line in head.split(b"\r\n")[1:]
               if line.lower().startswith(b"content-length:")]
    assert lengths and int(lengths[0]) == len(body), f"framing of {head!r} does not match {len(body)} bytes"
    return status, body


def _expected(simulator, target: str) -> tuple[int, bytes]:
    parts = urlsplit(target)
    response = simulator.handle(SimRequest.from_parts("GET", "127.0.0.1", parts.path, parts.query, {}))
    return response.status, response.body


def _exchange(port: int, data: bytes, *, half_close: bool) -> bytes:
    """Send, optionally half-close, read to the end: the server must answer and then close."""
    with socket.create_connection(("127.0.0.1", port), timeout=HANG) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def targets(simulator) -> list[str]:
    corps = simulator.world.table("dart_corp").cols["corp_code"].vocab.tolist()[:40]
    dart = [f"/opendart.fss.or.kr/api/company.json?crtfc_key=load-test-key&corp_code={c}" for c in corps]
    seoul = [f"/openapi.seoul.go.kr/load-test-key/json/SearchInfoBySubwayNameService/1/5/{quote(name)}"
             for name in ("서울역", "시청", "강남", "잠실", "홍대입구")]
    return dart + seoul


# ------------------------------------------------------------------------------------------ load


async def _client(port: int, data: bytes, half_close: bool, connected: list[int], go: asyncio.Event,
                  total: int) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        connected.append(1)
        if len(connected) == total:
            go.set()
        await go.wait()  # every client holds its connection open before any sends: all are concurrent
        writer.write(data)
        await writer.drain()
        if half_close:
            writer.write_eof()
        return await reader.read()
    finally:
        writer.close()


async def _crowd(port: int, requests: list[tuple[bytes, bool]]) -> list[bytes | BaseException]:
    connected: list[int] = []
    go = asyncio.Event()
    tasks = [_client(port, data, half, connected, go, len(requests)) for data, half in requests]
    return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=4 * HANG)


def _crowd_against(server: SimServer, simulator, targets: list[str], n: int) -> None:
    port = server.httpd.server_address[1]
    chosen = [targets[i % len(targets)] for i in range(n)]
    # One client in three sends its request and half-closes (shutdown(SHUT_WR)), as curl -N or a
    # harness reading to EOF does; the others ask for Connection: close.
    requests = [(_request(t), i % 3 == 0) for i, t in enumerate(chosen)]
    results = asyncio.run(_crowd(port, requests))
    failures = [r for r in results if isinstance(r, BaseException)]
    assert not failures, f"{len(failures)} of {n} clients failed: {sorted({type(f).__name__ for f in failures})}"
    expected = {t: _expected(simulator, t) for t in set(chosen)}
    wrong = [t for t, raw in zip(chosen, results, strict=True) if _parse(raw) != expected[t]]  # type: ignore[arg-type]
    assert not wrong, f"{len(wrong)} wrong answers, e.g. {wrong[0]}"
    assert all(status == 200 for status, _ in expected.values())


def test_500_concurrent_clients_half_closing_among_them_get_no_reset_and_right_answers(simulator, targets):
    with SimServer(simulator) as server:
        _crowd_against(server, simulator, targets, 500)


def test_clients_past_the_connection_bound_wait_in_the_backlog_not_reset(simulator, targets):
    with SimServer(simulator, limits=Limits(max_connections=8)) as server:
        _crowd_against(server, simulator, targets, 100)


# ------------------------------------------------------------------------------- bad framing

# Short timeouts so the stalling cases answer 408 quickly; what is asserted is the answer, not the time.
_STRICT = Limits(header_timeout=0.5, body_timeout=0.5, linger_timeout=0.5)

MALFORMED = [
    # (case, bytes sent, half-close after sending, expected status)
    ("negative Content-Length", b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", False, 400),
    ("non-numeric Content-Length", b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", False, 400),
    ("conflicting Content-Lengths",
     b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", False, 400),
    ("chunked body", b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", False, 400),
    ("short body, then half-close", b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc", True, 400),
    ("short body, held open", b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc", False, 408),
    ("headers never finished", b"GET / HTTP/1.1\r\nHost: h\r\n", False, 408),
    ("request line never finished", b"GET /opendart.fss.or.kr/api", False, 408),
    ("headers cut by half-close", b"GET / HTTP/1.1\r\nHost: h\r\n", True, 400),
    ("request line cut by half-close", b"GET /opendart.fss.or.kr/api", True, 400),
    ("bad request line", b"GARBAGE\r\n\r\n", False, 400),
    ("HTTP/0.9 request line", b"GET /\r\n\r\n", False, 400),
    ("unsupported version", b"GET / HTTP/2.0\r\nHost: h\r\n\r\n", False, 400),
    ("bad request target", b"GET http://[::1 HTTP/1.1\r\nHost: h\r\n\r\n", False, 400),
    ("two Host headers", b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", False, 400),
    ("request line too long", b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: h\r\n\r\n", False, 414),
    ("header line too long", b"GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", False, 431),
    ("too many headers",
     b"GET / HTTP/1.1\r\n" + b"".join(b"X-H%d: 1\r\n" % i for i in range(150)) + b"\r\n", False, 431),
    ("header block too large",
     b"GET / HTTP/1.1\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"a" * 1000) for i in range(90)) + b"\r\n", False, 431),
    ("body too large", b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 999999999999\r\n\r\n", False, 413),
]


@pytest.fixture(scope="module")
def strict_server(simulator):
    with SimServer(simulator, limits=_STRICT) as server:
        yield server


@pytest.mark.parametrize(("data", "half_close", "status"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_framing_is_answered_and_closed_then_serving_goes_on(strict_server, simulator, targets, data,
                                                                       half_close, status):
    port = strict_server.httpd.server_address[1]
    got, body = _parse(_exchange(port, data, half_close=half_close))  # an answer, then EOF: no hang, no reset
    assert got == status, body
    for target in targets[:2]:
        assert _parse(_exchange(port, _request(target), half_close=False)) == _expected(simulator, target)


def test_a_good_request_after_a_kept_alive_one_on_the_same_connection(strict_server, simulator, targets):
    # The reader's buffering must not lose or swallow a pipelined second request.
    port = strict_server.httpd.server_address[1]
    first, second = targets[0], targets[-1]
    raw = _exchange(port, _request(first, close=False) + _request(second), half_close=True)
    split = raw.index(b"HTTP/1.1", 1)
    assert _parse(raw[:split]) == _expected(simulator, first)
    assert _parse(raw[split:]) == _expected(simulator, second)


def test_one_empty_line_before_a_request_is_ignored(strict_server, simulator, targets):
    port = strict_server.httpd.server_address[1]
    assert _parse(_exchange(port, b"\r\n" + _request(targets[0]), half_close=True)) == _expected(simulator, targets[0])


def test_a_simulator_failure_is_a_500_not_a_dropped_connection(simulator, targets, monkeypatch, capsys):
    def fail(request):
        raise RuntimeError(f"simulated bug on {request.query}")

    monkeypatch.setattr(simulator, "handle", fail)
    with SimServer(simulator) as server:
        port = server.httpd.server_address[1]
        key = "BUGREPORTKEY1234567"
        status, _ = _parse(_exchange(port, _request(f"/opendart.fss.or.kr/api/company.json?crtfc_key={key}"),
                                     half_close=False))
    assert status == 500
    err = capsys.readouterr().err
    assert "RuntimeError" in err and key not in err


# ------------------------------------------------------------------------------------ keys


def _keyed_requests() -> list[tuple[str, bytes, bool]]:
    """(secret, request, half-close): every place a key travels, on good and on malformed requests."""
    s = {name: f"SECRET{name.upper()}0123456789" for name in
         ("dart", "datagokr", "neis", "hrd", "schoolinfo", "law", "ex", "seoul", "seoulhost", "krx", "bad", "cut")}
    encoded = "ENCODED+key/with==padding"
    return [
        (s["dart"], _request(f"/opendart.fss.or.kr/api/company.json?crtfc_key={s['dart']}&corp_code=1"), False),
        (encoded, _request("/apis.data.go.kr/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
                           f"?serviceKey={quote(encoded, safe='')}&numOfRows=1"), False),
        (s["datagokr"], _request(f"/openapi.q-net.or.kr/api/service/rest/x?ServiceKey={s['datagokr']}"), False),
        (s["neis"], _request(f"/open.neis.go.kr/hub/schoolInfo?KEY={s['neis']}&Type=json"), False),
        (s["hrd"], _request(f"/www.hrd.go.kr/jsp/HRDP/HRDPO00/HRDPOA60/HRDPOA60_1.jsp?authKey={s['hrd']}"), False),
        (s["schoolinfo"], _request(f"/www.schoolinfo.go.kr/openApi.do?apiKey={s['schoolinfo']}"), False),
        (s["law"], _request(f"/www.law.go.kr/DRF/lawSearch.do?OC={s['law']}&target=law"), False),
        (s["ex"], _request(f"/data.ex.co.kr/openapi/business/x?key={s['ex']}&type=json"), True),
        (s["seoul"], _request(f"/openapi.seoul.go.kr/{s['seoul']}/json/SearchInfoBySubwayNameService/1/5/x"), False),
        (s["seoulhost"], _request(f"/{s['seoulhost']}/json/SearchInfoBySubwayNameService/1/5/x",
                                  host="openapi.seoul.go.kr:8088"), True),
        (s["krx"], _request("/svc/apis/sto/stk_bydd_trd?basDd=20250102", host="data-dbg.krx.co.kr",
                            extra=f"AUTH_KEY: {s['krx']}\r\n"), False),
        (s["bad"], f"POST /opendart.fss.or.kr/api/list.json?crtfc_key={s['bad']} HTTP/1.1\r\nHost: h\r\n"
                   "Content-Length: nope\r\n\r\n".encode(), False),
        (s["cut"], f"GET /openapi.seoul.go.kr/{s['cut']}/json/x HTTP/1.1 junk\r\n\r\n".encode(), False),
    ]


def test_keys_never_appear_in_log_lines(simulator, capsys):
    cases = _keyed_requests()
    with SimServer(simulator, quiet=False, limits=_STRICT) as server:
        port = server.httpd.server_address[1]
        for _, data, half_close in cases:
            _parse(_exchange(port, data, half_close=half_close))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == len(cases), lines  # one line per request, each of them checked
    leaked = [(secret, line) for secret, _, _ in cases for line in lines
              if any(form in line for form in (secret, quote(secret, safe="")))]
    assert not leaked, leaked
    # Keys stood in the target of all but two (a header key; a request line too broken to log at all).
    assert sum("REDACTED" in line for line in lines) == len(cases) - 2


def test_simulator_scrubber_covers_what_kopa_scrubs(simulator):
    # sim may not import kopa, so its scrubber is its own; this keeps the two in step.
    from kopa.record.secrets import KEY_HEADERS as KOPA_HEADERS
    from kopa.record.secrets import KEY_PARAMS as KOPA_PARAMS
    from kopa.record.secrets import path_key_positions

    assert {p.lower() for p in KOPA_PARAMS} <= KEY_PARAMS
    assert {h.lower() for h in KOPA_HEADERS} <= KEY_HEADERS
    served = {host: PATH_KEY_FAMILIES[family] + 1 for host, family in simulator.host_family.items()
              if family in PATH_KEY_FAMILIES}  # kopa counts the empty segment before the leading slash
    assert served == path_key_positions()


# ------------------------------------------------------------------------------------ start


def test_a_port_in_use_is_one_error_naming_the_port(simulator):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ServeError, match=f"port {port} .*in use"):
            SimServer(simulator, port=port)


def test_kopa_sim_serve_on_a_port_in_use_ends_with_one_line_naming_it(world):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "kopa.cli", "sim", "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=300, env=dict(os.environ))
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and len(lines) == 1 and str(port) in lines[0], done.stderr
