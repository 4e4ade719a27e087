"""Small tool calls per second, in-process on the simulator, on one core (target ≥ 2,000/s)."""

from __future__ import annotations

import argparse
import time

from _common import isolated_cache, pin_one_core, report

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--scale", default="small", choices=["small", "full"])
    args = parser.parse_args()
    isolated_cache()
    pin_one_core()
    backend = open_backend(f"sim:scale={args.scale}")
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    runtime.call("issue_api_key", {"platform": "krx"})
    corp = backend.simulator.world.table("dart_corp")
    codes = corp.cols["corp_code"].vocab.tolist()
    stocks = [s for s in corp.cols["stock_code"].vocab.tolist() if s.strip()]
    mixes = {
        "get_dart_company_overview (1 record)": lambda i: ("get_dart_company_overview",
                                                           {"corp_code": codes[i % len(codes)]}),
        "get_stock_price_trend (1 page of 10)": lambda i: ("get_stock_price_trend",
                                                           {"likeSrtnCd": stocks[i % len(stocks)]}),
    }
    rows = []
    for label, make in mixes.items():
        for i in range(200):  # warm-up: indexes are built lazily on first use
            runtime.call(*make(i))
        started = time.perf_counter()
        ok = 0
        for i in range(args.calls):
            ok += runtime.call(*make(i)).ok
        elapsed = time.perf_counter() - started
        rows.append((label, f"{args.calls / elapsed:,.0f} calls/s ({ok}/{args.calls} ok, {elapsed:.2f}s)"))
    report(f"tool calls in-process, one core, scale={args.scale} (target >= 2,000 calls/s)", rows)


if __name__ == "__main__":
    main()
