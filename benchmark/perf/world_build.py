"""World build time and peak memory at scale=full (targets <= 60 s and <= 2 GB), rows per table, the content
hash, and the first answers of the on-demand histories (years the world does not store: prices from 2010, DART
statements from 2015, 2015.. ridership, whole school years). The build runs in a child process, so its peak is
the build's alone; loading every table is measured here, apart."""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from sim.world.context import WorldConfig
from sim.world_file import read_world, world_path

BUILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from sim.world.context import WorldConfig
    from sim.world_file import write_world
    print(write_world(WorldConfig(seed=int(sys.argv[1]), scale=sys.argv[2]), Path(sys.argv[3])))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="full", choices=["small", "full"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    isolated_cache()
    config = WorldConfig(seed=args.seed, scale=args.scale)
    path = world_path(config)
    started = time.perf_counter()
    digest = subprocess.run([sys.executable, "-c", BUILD, str(args.seed), args.scale, str(path)], check=True,
                            capture_output=True, text=True).stdout.strip()
    build_s = time.perf_counter() - started
    build_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the only child so far
    started = time.perf_counter()
    world = read_world(Path(path))
    for name in world.tables:  # tables load lazily; load them all to time a full load
        world.table(name)
    load_s = time.perf_counter() - started
    history = _history_timings(world, args.scale)
    counts = world.row_counts
    biggest = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
    report(f"world build, seed={args.seed} scale={args.scale} (targets <= 60 s, <= 2 GB)", [
        ("build + write (a child process)", f"{build_s:.2f} s, peak RSS {build_peak:.0f} MB (target <= 2,048 MB)"),
        ("load of every table", f"{load_s:.2f} s"),
        ("tables / rows", f"{len(counts)} / {sum(counts.values()):,}"),
        ("largest tables", ", ".join(f"{name} {n:,}" for name, n in biggest)),
        ("file size", f"{Path(path).stat().st_size / 2**20:.1f} MB"),
        ("peak RSS, this process (every table loaded, histories answered)", f"{peak_rss_mb():.0f} MB"),
        ("content hash", digest),
        *history,
    ])


def _history_timings(world, scale: str) -> list[tuple[str, str]]:
    """First answers of a fresh simulator over the loaded world (nothing generated before), each timed."""
    from kopa.backends import open_backend
    from kopa.tools.runtime import ToolRuntime

    backend = open_backend(f"sim:scale={scale}")  # the world file just written, a simulator with nothing generated
    assert backend.simulator.world.content_hash == world.content_hash
    runtime = ToolRuntime(backend)
    for platform in ("dart", "krx", "edu", "seoul"):
        runtime.call("issue_api_key", {"platform": platform})
    school = world.table("neis_school")
    high = next(r for r in school.rows(school.select([]), ["ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE", "SCHUL_KND_SC_NM"])
                if r["SCHUL_KND_SC_NM"] == "고등학교")
    keys = {k: high[k] for k in ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")}
    calls = [
        ("KRX 유가증권 one day, ten years back", "get_krx_kospi_daily_trading", {"basDd": "20160129"}),
        ("금융위 one stock, 16 years, page 1", "get_stock_price_trend", {"likeSrtnCd": "005930"}),
        ("금융위 every stock on one day", "get_stock_price_trend", {"basDt": "20160129", "numOfRows": 1000}),
        ("DART key accounts 2016 반기", "get_dart_single_company_key_accounts",
         {"corp_code": "00126380", "bsns_year": "2016", "reprt_code": "11012"}),
        ("NEIS 시간표, a whole 학년도", "get_neis_high_school_timetable", {**keys, "AY": "2025"}),
        ("NEIS 급식, every 학년도 since 2015", "get_neis_school_meal_menu", keys),
        ("Seoul ridership, one day in 2016", "get_seoul_subway_ridership", {"USE_DT": "20160127"}),
    ]
    rows = []
    for label, tool, args in calls:
        started = time.perf_counter()
        result = runtime.call(tool, args)
        first = time.perf_counter() - started
        started = time.perf_counter()
        runtime.call(tool, args)
        again = time.perf_counter() - started
        rows.append((f"history: {label}", f"{first * 1000:.0f} ms first, {again * 1000:.1f} ms again "
                                          f"({result.total_count or 0:,} records, ok={result.ok})"))
    rows.append(("peak RSS after the histories", f"{peak_rss_mb():.0f} MB"))
    return rows


if __name__ == "__main__":
    main()
