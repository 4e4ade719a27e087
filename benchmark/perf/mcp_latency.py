"""Tool listing and tool-call latency over MCP (stdio subprocess, and the SDK's in-memory client), beside
the same calls in-process (prints numbers; asserts nothing).

Over stdio each call crosses a JSON-RPC round trip through pipes to `kopa mcp serve`, whose ToolRuntime
answers from its own in-process simulator; in-memory the same server runs in this process behind the
SDK's memory streams, so the difference is the protocol's own cost. Per-call medians and p95 over
`--calls` calls of each kind, after a warm-up.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from collections.abc import Callable

from _common import isolated_cache, report

from kopa.backends import open_backend
from kopa.mcp.client import MCPConnection, parse_target
from kopa.mcp.server import KopaMCPServer
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


def _serve(*extra: str) -> MCPConnection:
    command = [sys.executable, "-m", "kopa.cli", "mcp", "serve", "--backend", "sim", *extra]
    return MCPConnection(parse_target(shlex.join(command)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200, help="Calls of each kind (median and p95 shown).")
    parser.add_argument("--platform", default="dart", help="The platform server to measure (tools/list size).")
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

    started = time.perf_counter()
    with _serve("--platform", args.platform) as stdio:
        first_list = time.perf_counter() - started
        _list_tools(stdio)
        stdio_list = _timed(lambda: _list_tools(stdio), 20)
        over_stdio = measure_connection(stdio, args.calls)
    with _serve() as everything:
        catalog_size = _list_tools(everything)
        catalog_list = _timed(lambda: _list_tools(everything), 5)

    rows.append(("stdio: start + initialize", f"{first_list * 1000:,.0f} ms"))
    rows.append((f"tools/list ({listed} tools, {args.platform})",
                 f"in-memory {memory_list[0]:.2f} ms · stdio {stdio_list[0]:.2f} ms (median)"))
    rows.append((f"tools/list ({catalog_size} tools, whole catalog)", f"stdio {catalog_list[0]:.0f} ms (median)"))
    for label in CALLS:
        rows.append((label, f"in-process {local[label][0]:.3f} ms (p95 {local[label][1]:.3f}) · "
                            f"in-memory MCP {in_memory[label][0]:.3f} ms (p95 {in_memory[label][1]:.3f}) · "
                            f"stdio MCP {over_stdio[label][0]:.3f} ms (p95 {over_stdio[label][1]:.3f})"))
    report(f"MCP latency beside in-process, {args.calls} calls each (median, p95)", rows)


if __name__ == "__main__":
    main()
