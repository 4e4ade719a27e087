"""`kopa study pruning` at its default grid: wall time, peak memory and calls per second (target: the whole
grid <= 20 min on 2 cores). Prints numbers; asserts nothing.

By default it prepares a study folder (skeleton, truth, profiles), times one unit alone, then runs an
evenly spaced sample of the grid's units on the local executor and extrapolates to the whole grid (the
units of one grid differ in cost: retries and faults change the number of calls). `--full` runs the
whole grid through `run_study` instead, which is the measurement the target is about.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from kopa.executor import open_executor
from kopa.study.cell import run_unit
from kopa.study.grid import StudyConfig, cells, units
from kopa.study.prepare import build_skeleton_once, write_profiles, write_truth_once
from kopa.study.pruning import open_folder, run_study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=24, help="units of the grid to time (evenly spaced)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="run the whole default grid")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    isolated_cache()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="kopa-study-perf-")) / "study"
    config = StudyConfig()
    all_units = units(config, out)
    started = time.perf_counter()
    if args.full:
        rows = run_study(out, config, workers=args.workers)
        elapsed = time.perf_counter() - started
        calls = sum(r["calls"] for r in rows or [])
        report(f"kopa study pruning, default grid, {len(all_units)} units, workers {args.workers}", [
            ("wall time", f"{elapsed:.0f} s (target <= 1,200 s on 2 cores)"),
            ("Phase A calls", f"{calls:,.0f} ({calls / elapsed:,.0f} calls/s)"),
            ("peak RSS (parent)", f"{peak_rss_mb():.0f} MB"),
            ("study folder", str(out)),
        ])
        return
    open_folder(out, config)
    skeleton = build_skeleton_once(out, config)
    write_truth_once(out, config, skeleton)
    write_profiles(out, {c.profile for c in cells(config)})
    prepared = time.perf_counter() - started
    t0 = time.perf_counter()
    one = run_unit(all_units[len(all_units) // 2])  # in this process: its cold world tables included
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_unit(all_units[len(all_units) // 2])
    warm = time.perf_counter() - t0
    step = max(1, len(all_units) // args.sample)
    sample = all_units[::step][: args.sample]
    pool = open_executor("local", workers=args.workers)
    t0 = time.perf_counter()
    try:
        results = pool.map(run_unit, sample)
    finally:
        pool.close()
    sampled = time.perf_counter() - t0
    calls = sum(r.metrics["calls"] for r in results)
    estimate = prepared + sampled * len(all_units) / len(sample)
    report(f"kopa study pruning, default grid: {len(cells(config))} cells, {len(all_units)} units, "
           f"{len(skeleton.nodes)} tools, {len(skeleton.edges):,} skeleton edges, T={config.T}, M={config.M}", [
        ("prepare (skeleton, truth, profiles)", f"{prepared:.1f} s"),
        ("one unit (cold / warm process)", f"{cold:.2f} s / {warm:.2f} s ({one.metrics['calls']:,} Phase A calls, "
                                           f"{one.unit_id})"),
        (f"{len(sample)} sampled units, workers {args.workers}", f"{sampled:.1f} s "
                                                                 f"({calls / sampled:,.0f} Phase A calls/s)"),
        ("per unit (sample wall / units x workers)", f"{sampled * args.workers / len(sample):.2f} s"),
        (f"whole grid, extrapolated at {args.workers} worker(s)", f"{estimate:.0f} s"),
        ("whole grid, extrapolated to 2 cores", f"{prepared + sampled * args.workers * len(all_units) / len(sample) / 2:.0f}"
                                                " s (target <= 1,200 s; assumes 2 workers scale linearly)"),
        ("peak RSS (this process)", f"{peak_rss_mb():.0f} MB"),
        ("study folder", str(out)),
    ])


if __name__ == "__main__":
    main()
