"""Recording and replay, measured (prints numbers; asserts nothing).

1. The same traffic (small tool calls over several platforms) recorded from `kopa sim serve` on loopback
   into each cassette format, then replayed: calls/s side by side for our format (json.gz), plain JSON,
   vcrpy's default YAML, and the same calls live against the served simulator.
2. A >= 200,000-record paged fetch (서울 부동산 전월세, scale=full) recorded, then replayed in a fresh
   process: time and peak memory.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from _common import isolated_cache, report

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime
from sim.serve import SimServer

KEY_IDS = ("dart", "krx", "data_go_kr", "ex", "seoul", "neis", "schoolinfo", "hrd", "law", "assembly", "gg")


def traffic(backend, n: int) -> list[tuple[str, dict]]:
    """n distinct small calls over DART, 금융위 주식시세 and NEIS, drawn from the world's own codes."""
    world = backend.simulator.world
    corps = world.table("dart_corp").cols["corp_code"].vocab.tolist()
    stocks = [s for s in world.table("dart_corp").cols["stock_code"].vocab.tolist() if s.strip()]
    schools = world.table("neis_school").rows(range(min(200, world.row_counts["neis_school"])),
                                              ["ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE"])
    calls = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            calls.append(("get_dart_company_overview", {"corp_code": corps[i % len(corps)]}))
        elif kind == 1:
            calls.append(("get_stock_price_trend", {"likeSrtnCd": stocks[i % len(stocks)], "numOfRows": 10,
                                                    "pageNo": 1 + (i // len(stocks)) % 3}))
        else:
            s = schools[i % len(schools)]
            calls.append(("get_neis_class_info", {**s, "AY": "2025", "pSize": 20, "pIndex": 1 + i // len(schools)}))
    return calls


def run(backend, calls) -> float:
    runtime = ToolRuntime(backend)
    for platform in ("dart", "krx", "edu"):
        runtime.call("issue_api_key", {"platform": platform})
    started = time.perf_counter()
    for name, args in calls:
        runtime.call(name, args)
    return time.perf_counter() - started


REPLAY_CHILD = textwrap.dedent("""
    import sys, time
    from _common import peak_rss_mb
    from kopa.backends import open_backend
    from kopa.tools.paging import iter_pages
    from kopa.tools.runtime import ToolRuntime
    runtime = ToolRuntime(open_backend(sys.argv[1]))
    runtime.call("issue_api_key", {"platform": "seoul"})
    started = time.perf_counter()
    records = 0
    for page in iter_pages(runtime, "get_seoul_rent_contracts", {}, 1000):
        assert page.ok, page.error
        records += len(page.records)
    elapsed = time.perf_counter() - started
    print(records, f"{elapsed:.2f}", f"{peak_rss_mb():.0f}")
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--skip-large", action="store_true", help="skip the scale=full 200k-record part")
    args = parser.parse_args()
    isolated_cache()
    for key_id in KEY_IDS:
        os.environ.setdefault(f"KOPA_{key_id.upper()}_KEY", f"bench-{key_id}-key-000000")
    work = Path(tempfile.mkdtemp(prefix="kopa-rec-perf-"))
    sim_backend = open_backend("sim")
    calls = traffic(sim_backend, args.calls)
    rows = []
    with SimServer(sim_backend.simulator) as server:
        live = run(open_backend(f"live:{server.url}"), calls)
        rows.append(("live against kopa sim serve (loopback)", f"{len(calls) / live:,.0f} calls/s"))
        for fmt in ("json.gz", "json", "yaml"):
            target = work / fmt
            recorder = open_backend(f"record:{target},format={fmt}@live:{server.url}")
            rec_s = run(recorder, calls)
            recorder.observer.snapshot.close()
            replay_s = run(open_backend(f"replay:{target}"), calls)
            size = sum(p.stat().st_size for p in (target / "interactions").rglob("*") if p.is_file())
            rows.append((f"{fmt:8s} record / replay", f"{len(calls) / rec_s:,.0f} / {len(calls) / replay_s:,.0f} "
                                                     f"calls/s, cassettes {size / 2**20:.1f} MB"))
    report(f"{len(calls)} small calls: replay per cassette format vs live (vcrpy's default is yaml)", rows)
    if args.skip_large:
        return
    full = open_backend("sim:scale=full")
    target = work / "large"
    started = time.perf_counter()
    recorder = open_backend(f"record:{target}@sim:scale=full")
    runtime = ToolRuntime(recorder)
    runtime.call("issue_api_key", {"platform": "seoul"})
    from kopa.tools.paging import iter_pages

    records = sum(len(p.records) for p in iter_pages(runtime, "get_seoul_rent_contracts", {}, 1000))
    recorder.observer.snapshot.close()
    record_s = time.perf_counter() - started
    del full
    size = sum(p.stat().st_size for p in (target / "interactions").rglob("*") if p.is_file())
    here = str(Path(__file__).parent)
    out = subprocess.run([sys.executable, "-c", REPLAY_CHILD, f"replay:{target}"], capture_output=True, text=True,
                         check=True, cwd=here).stdout.split()
    snap = subprocess.run([sys.executable, "-c", REPLAY_CHILD, f"snapshot:{target}"], capture_output=True,
                          text=True, check=True, cwd=here).stdout.split()
    report("a >= 200,000-record paged fetch (get_seoul_rent_contracts, scale=full)", [
        ("records", f"{records:,} in 225 pages of 1,000"),
        ("record (incl. world load)", f"{record_s:.1f} s; cassettes {size / 2**20:.1f} MB, "
                                      f"snapshot {(target / 'snapshot.duckdb').stat().st_size / 2**20:.1f} MB"),
        ("replay from cassettes", f"{int(out[0]):,} records in {out[1]} s, peak RSS {out[2]} MB (fresh process)"),
        ("replay from the snapshot", f"{int(snap[0]):,} records in {snap[1]} s, peak RSS {snap[2]} MB"),
    ])


if __name__ == "__main__":
    main()
