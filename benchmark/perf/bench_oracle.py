"""Time for all tasks × 4 rollouts with the oracle on the in-process simulator (target <= 30 s on 2 cores)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from kopa.eval.runner import RunConfig, run_bench
from kopa.eval.task import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    isolated_cache()
    started = time.perf_counter()
    from kopa.backends import open_backend

    open_backend("sim")  # build (or load) the world outside the timed part
    warm = time.perf_counter() - started
    out = Path(tempfile.mkdtemp(prefix="kopa-bench-perf-"))
    started = time.perf_counter()
    episodes = run_bench(RunConfig(policy="oracle", rollouts=args.rollouts), out, workers=args.workers)
    elapsed = time.perf_counter() - started
    passed = sum(e.score.passed for e in episodes)
    calls = sum(e.calls for e in episodes)
    report(f"oracle: {len(load_tasks())} tasks x {args.rollouts} rollouts, in-process simulator (target <= 30 s)", [
        ("episodes", f"{len(episodes)} ({passed} passed)"),
        ("wall time", f"{elapsed:.1f} s ({len(episodes) / elapsed:.1f} episodes/s, {calls / elapsed:,.0f} tool calls/s)"),
        ("world load/build before timing", f"{warm:.1f} s"),
        ("workers", str(args.workers)),
        ("peak RSS", f"{peak_rss_mb():.0f} MB"),
    ])


if __name__ == "__main__":
    main()
