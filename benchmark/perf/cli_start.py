"""`kopa` start-up, end to end, as a user meets it: each command as a fresh process (prints numbers;
asserts nothing).

A shell chain runs one process per step, so what a step costs is what a fresh process costs: imports,
the catalog, the world, then the call itself. Each is set beside the bare import of the libraries a call
must load (`python -c "import click, httpx, pydantic, numpy, duckdb, orjson"`), measured in the same run,
round robin: the target (issue 23) is `kopa call` of a small tool on the in-process simulator within 1.5 x
that floor. Warm runs share one cache folder (compiled catalog and world already built); the cold column
is the first run in an empty one.
CPU time (user + system of the process) is printed beside wall time: on a busy machine it varies less.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

BARE = "import click, httpx, pydantic, numpy, duckdb, orjson"  # what `kopa call` cannot start without
COMMANDS: list[list[str]] = [
    ["--help"],
    ["tools", "show", "find_dart_corp_code"],
    ["call", "get_current_date"],
    ["call", "find_dart_corp_code", "corp_name=라이트론"],
]


def kopa_command() -> list[str]:
    """The installed console script beside this interpreter (what a user runs), else `python -m`."""
    script = Path(sys.executable).with_name("kopa")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kopa.cli"]


def run_once(argv: list[str], cache_dir: Path, pycache: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh `kopa` process (`argv` None: the bare import). Bytecode goes to
    `pycache`, written on the first run and read after, as for an installed wheel (pip compiles it),
    whatever PYTHONDONTWRITEBYTECODE says."""
    env = {**os.environ, "KOPA_CACHE_DIR": str(cache_dir), "PYTHONPYCACHEPREFIX": str(pycache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    command = [sys.executable, "-c", BARE] if argv == ["bare"] else [*kopa_command(), *argv]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):  # 1 is a typed tool error, still an answer
        raise SystemExit(f"kopa {' '.join(argv)} exited {proc.returncode}: {err.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="Warm runs per command (the median is shown).")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="kopa-perf-cli-"))
    try:
        pycache, warm_dir = root / "pycache", root / "warm"
        for argv in COMMANDS:  # bytecode, catalog cache and world for the warm runs
            run_once(argv, warm_dir, pycache)
        cold = {}
        for argv in COMMANDS:  # each command's first run in an empty kopa cache (bytecode warm)
            cold[" ".join(argv)] = run_once(argv, root / f"cold-{len(cold)}", pycache)[0]
        run_once(["bare"], warm_dir, pycache)
        samples: dict[str, list[tuple[float, float]]] = {" ".join(argv): [] for argv in [["bare"], *COMMANDS]}
        for _ in range(args.runs):  # round robin, so a burst of load elsewhere hits every command alike
            for argv in [["bare"], *COMMANDS]:
                samples[" ".join(argv)].append(run_once(argv, warm_dir, pycache))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    wall = {name: statistics.median(w for w, _ in runs) for name, runs in samples.items()}
    cpu = {name: statistics.median(c for _, c in runs) for name, runs in samples.items()}
    width = max(len(k) for k in wall) + 5
    rows = [(("python -c 'import …'" if name == "bare" else "kopa " + name).ljust(width),
             f"wall {wall[name]:6.3f} s {wall[name] / wall['bare']:5.2f}x   "
             f"cpu {cpu[name]:6.3f} s {cpu[name] / cpu['bare']:5.2f}x   "
             + ("" if name == "bare" else f"cold {cold[name]:6.3f} s"))
            for name in wall]
    report(f"kopa start-up: fresh processes, median of {args.runs} warm runs, ratio to the bare import of "
           f"click, httpx, pydantic, numpy, duckdb, orjson (target: kopa call <= 1.5x); cold = first run in "
           f"an empty cache", rows)


if __name__ == "__main__":
    main()
