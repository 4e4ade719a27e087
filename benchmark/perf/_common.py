"""Shared helpers for the performance scripts: they print numbers and assert nothing."""

from __future__ import annotations

import os
import resource
import sys
import tempfile


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far. VmHWM, not getrusage's ru_maxrss: Linux carries
    ru_maxrss across fork+exec, so a child started by a large parent would report the parent's peak."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def isolated_cache() -> str:
    """Benchmarks use their own cache unless KOPA_CACHE_DIR is set, so a run measures a real build."""
    if "KOPA_CACHE_DIR" not in os.environ:
        os.environ["KOPA_CACHE_DIR"] = tempfile.mkdtemp(prefix="kopa-perf-")
    return os.environ["KOPA_CACHE_DIR"]


def pin_one_core() -> None:
    """Targets are stated per core: pin the process to one CPU where the OS allows it."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def report(title: str, rows: list[tuple[str, str]]) -> None:
    width = max(len(k) for k, _ in rows)
    print(f"== {title}")
    for key, value in rows:
        print(f"  {key.ljust(width)}  {value}")
    sys.stdout.flush()
