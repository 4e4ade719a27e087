"""Tool listing and tool-call latency over MCP — a stdio subprocess, Streamable HTTP on loopback, and the
SDK's in-memory client — beside the same calls in-process (prints numbers; asserts nothing).

Over stdio each call crosses a JSON-RPC round trip through pipes to `kopa mcp serve`, whose ToolRuntime
answers from its own in-process simulator; over HTTP each is a POST to a server (uvicorn, in a thread of
this process) with its answer on an event stream; in-memory the same server runs behind the SDK's memory
streams, so the difference is the protocol's own cost. Initialize is timed cold (stdio: a server start on an
empty cache, which builds the world; HTTP: the first session of a fresh server) and warm (stdio: a start on
the built world; HTTP: later sessions). Per-call medians and p95 over `--calls` calls of each kind, after a
warm-up.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial

from _common import isolated_cache, report

from kopa.backends import open_backend
from kopa.mcp.client import MCPConnection, parse_target
from kopa.mcp.server import KopaMCPServer, http_in_thread
from kopa.tools.runtime import ToolRuntime

CALLS = {
    "get_current_date": {},
    "find_dart_corp_code (1 record)": {"corp_name": "라이트론"},
    "get_dart_company_overview (1 record)": {"corp_code": "00104083"},
}


def _timed(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """(median, p95) milliseconds of n calls of fn."""
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(0.95 * len(samples)))]


def _name(label: str) -> str:
    return label.split(" ")[0]


def measure_runtime(runtime: ToolRuntime, n: int) -> dict[str, tuple[float, float]]:
    runtime.call("issue_api_key", {"platform": "dart"})
    out = {}
    for label, args in CALLS.items():
        _timed(lambda label=label, args=args: runtime.call(_name(label), args), 20)
        out[label] = _timed(lambda label=label, args=args: runtime.call(_name(label), args), n)
    return out


def measure_connection(connection: MCPConnection, n: int) -> dict[str, tuple[float, float]]:
    connection.call_tool("issue_api_key", {"platform": "dart"})
    out = {}
    for label, args in CALLS.items():
        _timed(lambda label=label, args=args: connection.call_tool(_name(label), args), 20)
        out[label] = _timed(lambda label=label, args=args: connection.call_tool(_name(label), args), n)
    return out


def _list_tools(connection: MCPConnection) -> int:
    return len(connection.list_tools(fresh=True))


def _serve(*extra: str, cache: str | None = None) -> MCPConnection:
    """A `kopa mcp serve` subprocess (its environment this one's, with `cache` as its cache folder)."""
    command = [sys.executable, "-m", "kopa.cli", "mcp", "serve", "--backend", "sim", *extra]
    target = parse_target(shlex.join(command))
    if cache is not None:
        target.env = {**target.env, "KOPA_CACHE_DIR": cache}
    return MCPConnection(target)


def _initialize(connect: Callable[[], MCPConnection]) -> float:
    """Seconds from nothing to a session that has listed its first page (what a host waits for)."""
    started = time.perf_counter()
    with connect() as connection:
        connection.portal.call(connection.client.list_tools)
        return time.perf_counter() - started


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200, help="Calls of each kind (median and p95 shown).")
    parser.add_argument("--platform", default="dart", help="The platform server to measure (tools/list size).")
    parser.add_argument("--sessions", type=int, default=10, help="Warm HTTP sessions timed (median shown).")
    args = parser.parse_args()
    isolated_cache()
    backend = open_backend("sim")
    rows: list[tuple[str, str]] = []

    local = measure_runtime(ToolRuntime(backend), args.calls)
    server = KopaMCPServer(backend, [args.platform])
    with MCPConnection(server.server) as memory:
        listed = _list_tools(memory)
        memory_list = _timed(lambda: _list_tools(memory), 20)
        in_memory = measure_connection(memory, args.calls)

    with tempfile.TemporaryDirectory(prefix="kopa-perf-cold-") as empty:
        stdio_cold = _initialize(lambda: _serve("--platform", args.platform, cache=empty))
    stdio_warm = _initialize(lambda: _serve("--platform", args.platform))
    with _serve("--platform", args.platform) as stdio:
        _list_tools(stdio)
        stdio_list = _timed(lambda: _list_tools(stdio), 20)
        over_stdio = measure_connection(stdio, args.calls)
    with _serve() as everything:
        catalog_size = _list_tools(everything)
        catalog_list = _timed(lambda: _list_tools(everything), 5)

    with http_in_thread(KopaMCPServer(backend)) as url:
        http_cold = _initialize(lambda: MCPConnection(url))
        http_warm = statistics.median(_initialize(lambda: MCPConnection(url)) for _ in range(args.sessions))
        with MCPConnection(url) as http:
            pages = [http.portal.call(http.client.list_tools)]
            while pages[-1].next_cursor:
                pages.append(http.portal.call(partial(http.client.list_tools, cursor=pages[-1].next_cursor)))
            http_list = _timed(lambda: _list_tools(http), 5)
            over_http = measure_connection(http, args.calls)

    rows.append(("initialize, cold", f"stdio {_ms(stdio_cold)} (start on an empty cache: builds the world) · "
                                     f"HTTP {_ms(http_cold)} (a fresh server's first session)"))
    rows.append(("initialize, warm", f"stdio {_ms(stdio_warm)} (start on the built world) · "
                                     f"HTTP {_ms(http_warm)} (median of {args.sessions} later sessions)"))
    rows.append((f"tools/list ({listed} tools, {args.platform})",
                 f"in-memory {memory_list[0]:.2f} ms · stdio {stdio_list[0]:.2f} ms (median)"))
    rows.append((f"tools/list ({catalog_size} tools, whole catalog, {len(pages)} pages)",
                 f"stdio {catalog_list[0]:.0f} ms · HTTP {http_list[0]:.0f} ms (median, every page)"))
    for label in CALLS:
        rows.append((label, f"in-process {local[label][0]:.3f} ms (p95 {local[label][1]:.3f}) · "
                            f"in-memory MCP {in_memory[label][0]:.3f} ms (p95 {in_memory[label][1]:.3f}) · "
                            f"stdio MCP {over_stdio[label][0]:.3f} ms (p95 {over_stdio[label][1]:.3f}) · "
                            f"HTTP MCP {over_http[label][0]:.3f} ms (p95 {over_http[label][1]:.3f})"))
    report(f"MCP latency beside in-process, {args.calls} calls each (median, p95)", rows)


if __name__ == "__main__":
    main()
