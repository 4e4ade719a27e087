"""Shared helpers for the performance scripts: they print numbers and assert nothing."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path


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


class TreePeak:
    """The peak of this process's and all its descendants' resident memory summed, sampled every `every`
    seconds on a thread: what the machine must hold at once (per-process peaks, summed, overstate it when
    the processes peak at different times). Linux /proc only; elsewhere it reports 0."""

    def __init__(self, every: float = 0.5) -> None:
        import threading

        self.every = every
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreePeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.peak_mb = max(self.peak_mb, _tree_rss_mb(os.getpid()))

    def __str__(self) -> str:
        return f"{self.peak_mb:.0f} MB (all processes at once, shared pages counted once, sampled every {self.every:g} s)"


def _resident_pages(pid: int) -> int:
    """Proportional set size in pages (a page shared by k processes counts 1/k in each: forked workers share
    their parent's pages until they write them), or the resident set where PSS is not available."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024 // os.sysconf("SC_PAGE_SIZE")
    except OSError:
        pass
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1])


def _tree_rss_mb(root: int) -> float:
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0.0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            rss[pid] = _resident_pages(pid)
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack += children.get(pid, [])
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def warm_world() -> float:
    """Build (or load) the in-process simulator's world once, before any timed variant; the seconds it took."""
    started = time.perf_counter()
    from kopa.backends import open_backend

    open_backend("sim")
    return time.perf_counter() - started


def timed_child(code: str, *args: object) -> tuple[list[str], float, TreePeak]:
    """Run `code` in a fresh Python process, as a user waits for it: the words it printed, its wall time, and
    the memory of it and its children at once."""
    with TreePeak() as peak:
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                             check=True).stdout.split()
        wall = time.perf_counter() - started
    return out, wall, peak


def side_by_side(child: str, variants: Sequence[tuple[str, int, str]], size: int, files: Sequence[str],
                 describe: Callable[[list[str], float, TreePeak], str]) -> list[tuple[str, str]]:
    """Each (name, workers, mode) variant of `child` (run as `child size workers mode out`) in a fresh process,
    after the world is built once outside them: a row each (`describe` of what it printed, its wall time and
    its memory), then whether `files` of every variant's `out` hold the same bytes."""
    warm = warm_world()
    root = Path(tempfile.mkdtemp(prefix="kopa-perf-variants-"))
    rows, outputs = [], []
    for name, workers, mode in variants:
        out = root / mode / str(workers)
        printed, wall, peak = timed_child(child, size, workers, mode, out)
        outputs.append(b"".join((out / f).read_bytes() for f in files))
        rows.append((name, describe(printed, wall, peak)))
    rows.append((f"same bytes ({', '.join(files)})", "yes" if len(set(outputs)) == 1 else "NO: the variants differ"))
    rows.append(("world load/build before timing", f"{warm:.1f} s"))
    return rows
