"""Recording and replay, measured (prints numbers; asserts nothing).

1. The same traffic (small tool calls over several platforms) recorded from `kopa sim serve` on loopback
   into each cassette format, then replayed: calls/s side by side for the default layout (vcr: one vcrpy
   YAML cassette for the run), the older one-file-per-exchange formats (json.gz, json, yaml), vcrpy itself
   (one cassette, recording and replaying under the same runtime, its client opened once), and the same
   calls live against the served simulator — recording's overhead is record time over live time.
2. The same calls as 150 tests of 10, a cassette per test (how a test suite replays), each side's client
   opened once: kopa's replay of one recording holding the 150 unit cassettes, against `vcr.use_cassette`
   per test — under kopa's runtime, and with a bare httpx client that parses nothing (vcrpy's floor).
3. A >= 200,000-record paged fetch (서울 부동산 전월세, scale=full) recorded, then replayed in a fresh
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
from kopa.catalog import load_catalog
from kopa.tools.runtime import ToolRuntime
from kopa.wire import family_of
from sim.serve import SimServer

PER_TEST = 10  # calls per test in part 2
# vcrpy as a test suite configures it: keys kept out of the cassette, bodies stored decoded
VCR_OPTIONS = {"filter_query_parameters": ["crtfc_key", "serviceKey", "KEY"], "decode_compressed_response": True}

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


def vcr_run(cassette: Path, mode: str, url: str, calls, backend=None) -> float:
    """`calls` under one `vcr.use_cassette` through kopa's runtime on the live backend (vcrpy patches httpx's
    transport class, so a client opened before the cassette is served from it too): what a suite that wraps
    kopa in vcrpy pays."""
    import vcr

    with vcr.VCR(record_mode=mode, **VCR_OPTIONS).use_cassette(str(cassette)):
        return run(backend or open_backend(f"live:{url}"), calls)


def bare_requests(calls, url: str):
    """The HTTP requests kopa's runtime sends for `calls`, redirected to the served simulator as the live
    backend sends them, for a bare httpx client."""
    import httpx

    catalog = load_catalog()
    out = []
    base = httpx.URL(url)
    for name, args in calls:
        tool = catalog[name]
        request = family_of(tool.family).build(tool, args, os.environ[f"KOPA_{tool.auth.key_id.upper()}_KEY"])
        target = base.copy_with(raw_path=b"/" + request.url.host.encode("ascii") + request.url.raw_path)
        out.append(str(target))
    return out


def per_test(work: Path, url: str, calls) -> list[tuple[str, str]]:
    """Part 2: a cassette per test, recorded by each tool, then replayed test by test, each side's client opened
    once (kopa: one replay backend for the recording; vcrpy: one live backend under 150 use_cassette)."""
    import httpx
    import vcr

    from kopa.record.unit import cassette_unit

    tests = [calls[i:i + PER_TEST] for i in range(0, len(calls), PER_TEST)]
    recorder = open_backend(f"record:{work / 'kopa'}@live:{url}")
    live = open_backend(f"live:{url}")
    for i, chunk in enumerate(tests):
        with cassette_unit(f"test-{i:03d}"):
            run(recorder, chunk)
        vcr_run(work / f"vcr-{i}.yaml", "all", url, chunk, live)
    recorder.transport.close()
    recorder.observer.snapshot.close()
    replay = open_backend(f"replay:{work / 'kopa'}")
    started = time.perf_counter()
    for chunk in tests:
        run(replay, chunk)
    kopa_s = time.perf_counter() - started
    started = time.perf_counter()
    for i, chunk in enumerate(tests):
        vcr_run(work / f"vcr-{i}.yaml", "none", url, chunk, live)
    vcr_s = time.perf_counter() - started
    urls = [bare_requests(chunk, url) for chunk in tests]
    started = time.perf_counter()
    with httpx.Client() as client:
        for i, chunk_urls in enumerate(urls):
            with vcr.VCR(record_mode="none", **VCR_OPTIONS).use_cassette(str(work / f"vcr-{i}.yaml")):
                for target in chunk_urls:
                    client.get(target, headers={"User-Agent": "kopa/0.1", "Accept": "*/*"}).read()
    bare_s = time.perf_counter() - started
    n = len(calls)
    cassettes = len(list((work / "kopa" / "cassettes").glob("*.yaml")))
    return [(f"kopa replay (one backend, {cassettes} unit cassettes)", f"{n / kopa_s:,.0f} calls/s"),
            ("vcrpy replay (use_cassette per test, kopa's runtime)", f"{n / vcr_s:,.0f} calls/s"),
            ("vcrpy replay (use_cassette per test, bare httpx, no parsing)", f"{n / bare_s:,.0f} calls/s"),
            ("kopa / vcrpy", f"{vcr_s / kopa_s:.1f}x (same runtime), {bare_s / kopa_s:.1f}x (vcrpy's floor)")]


def _size(target: Path) -> float:
    """MB of cassettes in a recording, either layout."""
    files = [p for d in ("cassettes", "interactions") for p in (target / d).rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files) / 2**20


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
        replays: dict[str, float] = {}
        for fmt in ("vcr", "json.gz", "json", "yaml"):
            target = work / fmt
            recorder = open_backend(f"record:{target},format={fmt}@live:{server.url}")
            started = time.perf_counter()
            run(recorder, calls)
            recorder.transport.close()  # the unit cassette sealed: part of what recording costs
            recorder.observer.snapshot.close()
            rec_s = time.perf_counter() - started
            replay = open_backend(f"replay:{target}")  # opened once, outside the timing (as vcrpy's client)
            replays[fmt] = replay_s = run(replay, calls)
            rows.append((f"kopa {fmt:8s} record / replay", f"{len(calls) / rec_s:,.0f} / {len(calls) / replay_s:,.0f} "
                                                          f"calls/s, cassettes {_size(target):.1f} MB, recording "
                                                          f"{rec_s / live:.2f}x live"))
        cassette = work / "vcrpy.yaml"
        vcr_rec_s = vcr_run(cassette, "all", server.url, calls)
        vcr_replay_s = vcr_run(cassette, "none", server.url, calls)
        rows.append(("vcrpy (one yaml cassette) record / replay", f"{len(calls) / vcr_rec_s:,.0f} / "
                     f"{len(calls) / vcr_replay_s:,.0f} calls/s, cassette {cassette.stat().st_size / 2**20:.1f} MB"))
        rows.append(("kopa vcr / vcrpy (replay of one cassette)", f"{vcr_replay_s / replays['vcr']:.0f}x"))
        rows.append(("kopa json.gz (older layout) / vcrpy (replay)", f"{vcr_replay_s / replays['json.gz']:.0f}x"))
        report(f"{len(calls)} small calls, one recording: kopa per cassette format, vcrpy, and live", rows)
        report(f"the same calls as {len(calls) // PER_TEST} tests of {PER_TEST}, a cassette per test",
               per_test(work / "per-test", server.url, calls))
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
    recorder.transport.close()  # the run's cassette sealed
    recorder.observer.snapshot.close()
    record_s = time.perf_counter() - started
    del full
    size = _size(target) * 2**20
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
