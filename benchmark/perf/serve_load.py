"""`kopa sim serve` under concurrent clients, measured (prints numbers; asserts nothing).

The server runs as `kopa sim serve` in its own process, so the load generator (asyncio connections in
this process) does not share its interpreter lock. At 1, 50 and 500 concurrent clients, two ways:

- keep-alive: each client sends its share of the requests one after another on one connection;
- a connection per request, one client in three half-closing (shutdown(SHUT_WR)) after sending: the
  pattern that met connection resets when the listen backlog was 5.

Each row: requests per second, p50 and p99 latency (from connect or send to the whole answer), and the
count of resets and of other errors (no answer, bad framing, a status other than 200).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request

from _common import report

from sim.world.context import WorldConfig
from sim.world_file import load_world

LEVELS = (1, 50, 500)
ANSWER_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _request(target: str, *, close: bool) -> bytes:
    connection = "Connection: close\r\n" if close else ""
    return f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{connection}\r\n".encode()


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.resets = 0
        self.errors = 0

    def fail(self, exc: BaseException) -> None:
        if isinstance(exc, ConnectionResetError):
            self.resets += 1
        else:
            self.errors += 1


async def _read_answer(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    lengths = [int(line.split(b":", 1)[1]) for line in lines if line.lower().startswith(b"content-length:")]
    if not lengths:
        raise ValueError("answer without Content-Length")
    await reader.readexactly(lengths[0])
    return int(lines[0].split(b" ", 2)[1])


async def _keepalive_client(port: int, targets: list[str], tally: Tally) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        tally.fail(exc)
        return
    try:
        for target in targets:
            started = time.perf_counter()
            writer.write(_request(target, close=False))
            await writer.drain()
            status = await asyncio.wait_for(_read_answer(reader), ANSWER_TIMEOUT)
            tally.latencies.append(time.perf_counter() - started)
            if status != 200:
                tally.errors += 1
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        tally.fail(exc)
    finally:
        writer.close()


async def _per_request_client(port: int, targets: list[str], clients: int, index: int, tally: Tally) -> None:
    for i, target in enumerate(targets):
        half_close = (i * clients + index) % 3 == 0  # one request in three, at every level
        started = time.perf_counter()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(_request(target, close=not half_close))
                await writer.drain()
                if half_close:
                    writer.write_eof()
                status = await asyncio.wait_for(_read_answer(reader), ANSWER_TIMEOUT)
            finally:
                writer.close()
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            tally.fail(exc)
            continue
        tally.latencies.append(time.perf_counter() - started)
        if status != 200:
            tally.errors += 1


async def _level(port: int, targets: list[str], clients: int, total: int, mode: str) -> tuple[Tally, float]:
    per_client = max(1, total // clients)
    shares = [[targets[(c * per_client + i) % len(targets)] for i in range(per_client)] for c in range(clients)]
    tally = Tally()
    if mode == "keep-alive":
        jobs = [_keepalive_client(port, share, tally) for share in shares]
    else:
        jobs = [_per_request_client(port, share, clients, c, tally) for c, share in enumerate(shares)]
    started = time.perf_counter()
    await asyncio.gather(*jobs)
    return tally, time.perf_counter() - started


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _wait_listening(url: str, proc: subprocess.Popen, deadline: float) -> None:
    while True:
        try:
            urllib.request.urlopen(f"{url}/_kopa/world", timeout=1).read()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                sys.exit(f"kopa sim serve did not start: {proc.communicate()[0].decode(errors='replace')}")
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="Requests per row (split among the clients).")
    args = parser.parse_args()

    world = load_world(WorldConfig(seed=0, scale="small"))  # the world `kopa sim serve` serves by default
    corps = world.table("dart_corp").cols["corp_code"].vocab.tolist()
    targets = [f"/opendart.fss.or.kr/api/company.json?crtfc_key=perf-key&corp_code={c}" for c in corps[:500]]

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([sys.executable, "-m", "kopa.cli", "sim", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ))
    try:
        _wait_listening(url, proc, time.monotonic() + 300)
        asyncio.run(_level(port, targets, 1, 20, "keep-alive"))  # warm: the table loads on first use
        rows = []
        for mode in ("keep-alive", "connection per request, 1 in 3 half-closing"):
            for clients in LEVELS:
                tally, elapsed = asyncio.run(_level(port, targets, clients, args.requests, mode))
                done = len(tally.latencies)
                rows.append((f"{mode}, {clients} client{'s' if clients > 1 else ''}",
                             f"{done / elapsed:8,.0f} req/s   p50 {_percentile(tally.latencies, 0.50) * 1e3:7.1f} ms"
                             f"   p99 {_percentile(tally.latencies, 0.99) * 1e3:7.1f} ms"
                             f"   resets {tally.resets}   errors {tally.errors}   ({done} answered)"))
        report(f"kopa sim serve on loopback, {args.requests} requests a row (get_dart_company_overview)", rows)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
