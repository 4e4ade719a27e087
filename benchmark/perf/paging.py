"""Time and peak memory to page through a >= 200,000-record endpoint to its end at scale=full
(targets: <= 3 s, <= 400 MB).

The world is built first in a separate process (timed and reported apart: it is `world_build.py`'s
measure), so this process loads the cached build, as a user's second run does, and its peak is the load and
the paging alone."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from _common import current_rss_mb, isolated_cache, peak_rss_mb, report

from kopa.backends import open_backend
from kopa.tools.paging import iter_pages
from kopa.tools.runtime import ToolRuntime

DEFAULTS = {
    # tool: (arguments, page size as the service allows)
    "get_seoul_rent_contracts": ({}, 1000),
    "get_stock_price_trend": ({}, 1000),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", default=None, help="paged tool (default: the largest available)")
    parser.add_argument("--scale", default="full", choices=["small", "full"])
    args = parser.parse_args()
    isolated_cache()
    spec = f"sim:scale={args.scale}"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"from kopa.backends import open_backend; open_backend({spec!r})"],
                   check=True)  # the build (or a cached load, where KOPA_CACHE_DIR already holds it)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    backend = open_backend(spec)
    load_s = time.perf_counter() - started
    runtime = ToolRuntime(backend)
    tool = args.tool or next(t for t in DEFAULTS if t in runtime.catalog)
    call_args, size = DEFAULTS.get(tool, ({}, 1000))
    runtime.call("issue_api_key", {"platform": runtime.catalog[tool].platform})
    rss_before = current_rss_mb()
    started = time.perf_counter()
    records = pages = 0
    total = None
    for result in iter_pages(runtime, tool, call_args, size):
        if not result.ok:
            raise SystemExit(f"page {pages + 1} failed: {result.error}")
        pages += 1
        records += len(result.records)
        total = result.total_count
    elapsed = time.perf_counter() - started
    report(f"paging {tool} to its end, scale={args.scale} (targets <= 3 s, <= 400 MB)", [
        ("records fetched / total", f"{records:,} / {total:,}"),
        ("pages", f"{pages} of {size}"),
        ("paging time", f"{elapsed:.2f} s ({records / elapsed:,.0f} records/s)"),
        ("world build (another process, not in the peak)", f"{build_s:.2f} s"),
        ("world load (cached build)", f"{load_s:.2f} s"),
        ("RSS before paging", f"{rss_before:.0f} MB"),
        ("peak RSS (whole process)", f"{peak_rss_mb():.0f} MB"),
    ])


if __name__ == "__main__":
    main()
