"""EDGE Phase A at the paper's configuration (all tools, T = 100, M = 500) on the in-process simulator with
the `realistic` fault profile: wall time, peak memory and calls per second (target <= 5 min, <= 4 GB on 2
cores). Prints numbers; asserts nothing."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from kopa.edge.config import EdgeConfig
from kopa.edge.run import build_graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-T", type=int, default=100)
    parser.add_argument("-M", type=int, default=500)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", default="faults:realistic@sim")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    isolated_cache()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="kopa-edge-perf-"))
    started = time.perf_counter()
    stamps: list[float] = []
    phase, skeleton = build_graph(out, EdgeConfig(T=args.T, M=args.M), args.backend, workers=args.workers,
                                  on_iteration=lambda i, row: stamps.append(time.perf_counter()))
    elapsed = time.perf_counter() - started
    calls = sum(h["calls"] for h in phase.history)
    loop = stamps[-1] - (stamps[0] - (stamps[1] - stamps[0] if len(stamps) > 1 else 0)) if stamps else elapsed
    report(f"EDGE Phase A, {len(skeleton.nodes)} tools, T={args.T}, M={args.M}, backend {args.backend}", [
        ("wall time (skeleton + updates)", f"{elapsed:.1f} s (target <= 300 s)"),
        ("skeleton edges", f"{len(skeleton.edges):,}"),
        ("tool calls in the updates", f"{calls:,.0f} ({calls / loop:,.0f} calls/s)"),
        ("retained / pruned edges", f"{sum(not e.pruned for e in phase.graph.edges.values()):,} / "
                                    f"{sum(e.pruned for e in phase.graph.edges.values()):,}"),
        ("peak RSS", f"{peak_rss_mb():.0f} MB (target <= 4,096 MB)"),
        ("run folder", str(out)),
    ])


if __name__ == "__main__":
    main()
