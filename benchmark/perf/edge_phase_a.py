"""EDGE Phase A at the paper's configuration (all tools, T = 100, M = 500) on the in-process simulator with
the `realistic` fault profile: wall time, peak memory of all processes and calls per second (target
<= 90 s and <= 2 GB on 2 cores, e.g. --workers 2). The simulated world is built first in another process
(timed and reported apart: `world_build.py` measures it), so the wall time is Phase A's, as on a user's
second run. Path batches run where --executor/--workers say (the
graph is the same either way). Prints numbers; asserts nothing.

Peak memory twice: all processes at once (this one and its descendants — pool workers, or Ray's workers and
services — sampled together, shared pages counted once: what the machine must hold), and the sum of every
process's own peak (VmHWM), read before the executor closes, where pages they share (forked workers' copy of
the world, Ray's object store) count once per process: an upper bound."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import TreePeak, isolated_cache, peak_rss_mb, report

from kopa.edge.config import EdgeConfig
from kopa.edge.run import build_graph
from kopa.executor import open_executor


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (from /proc: each process's parent is field 4 of its stat)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def peak_of(pid: int) -> float:
    """A process's own peak resident set (MB); 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def main() -> None:
    import os

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-T", type=int, default=100)
    parser.add_argument("-M", type=int, default=500)
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
    parser.add_argument("--address", default=None, help="a Ray cluster to join (--executor ray)")
    parser.add_argument("--workers", type=int, default=1, help="processes running path batches")
    parser.add_argument("--backend", default="faults:realistic@sim")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    isolated_cache()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="kopa-edge-perf-"))
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"from kopa.backends import open_backend; open_backend({args.backend!r})"],
                   check=True)  # the world's build (or a cached load, where KOPA_CACHE_DIR holds it), apart
    world_s = time.perf_counter() - started
    started = time.perf_counter()
    stamps: list[float] = []
    # as `kopa edge graph build` opens it: local workers forked once the skeleton is loaded
    with open_executor(args.executor, workers=args.workers, address=args.address, fork=True) as executor, \
            TreePeak() as at_once:
        phase, skeleton = build_graph(out, EdgeConfig(T=args.T, M=args.M), args.backend, executor=executor,
                                      on_iteration=lambda i, row: stamps.append(time.perf_counter()))
        elapsed = time.perf_counter() - started
        others = {pid: peak_of(pid) for pid in descendants(os.getpid())}
    own = peak_rss_mb()
    calls = sum(h["calls"] for h in phase.history)
    # The loop's time: from the end of the skeleton (one iteration's length before the first stamp); with
    # fewer than two iterations no length is known, and the whole run stands for it.
    loop = stamps[-1] - (stamps[0] - (stamps[1] - stamps[0])) if len(stamps) > 1 else elapsed
    largest = sorted(others.values(), reverse=True)[:4]
    report(f"EDGE Phase A, {len(skeleton.nodes)} tools, T={args.T}, M={args.M}, backend {args.backend}, "
           f"executor {args.executor} x {executor.workers}", [
        ("world build (another process, before)", f"{world_s:.1f} s (not in the wall time or the peak)"),
        ("wall time (skeleton + updates)", f"{elapsed:.1f} s (target <= 90 s on 2 cores)"),
        ("of which the T iterations", f"{loop:.1f} s ({loop / max(len(stamps), 1):.2f} s per iteration)"),
        ("skeleton edges", f"{len(skeleton.edges):,}"),
        ("tool calls in the updates", f"{calls:,.0f} ({calls / loop:,.0f} calls/s)"),
        ("retained / pruned edges", f"{sum(not e.pruned for e in phase.graph.edges.values()):,} / "
                                    f"{sum(e.pruned for e in phase.graph.edges.values()):,}"),
        ("peak RSS, this process", f"{own:.0f} MB"),
        ("peak RSS, other processes", f"{sum(others.values()):.0f} MB in {len(others)} "
                                      f"(largest {', '.join(f'{m:.0f}' for m in largest) or '-'})"),
        ("peak RSS, all processes", f"{own + sum(others.values()):.0f} MB (sum of peaks: forked workers' shared "
                                    "pages counted in each, an upper bound)"),
        ("peak memory, all processes at once", f"{at_once} (target <= 2,048 MB)"),
        ("run folder", str(out)),
    ])


if __name__ == "__main__":
    main()
