"""Every script in benchmark/perf runs to its end at a small size (the numbers are not checked: a perf
script asserts nothing, but one that crashes measures nothing). Run by `nox -s perf_smoke`, which CI runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.perf

PERF = Path(__file__).resolve().parents[1] / "benchmark" / "perf"
# Each script at a size that takes seconds; synth.py reads the G* edge_phase_a.py builds (test below).
SMALL = {
    "bench_oracle.py": ["--rollouts", "1"],
    "cli_start.py": ["--runs", "1"],
    "mcp_latency.py": ["--calls", "3"],
    "paging.py": ["--scale", "small"],
    "recording.py": ["--calls", "30", "--skip-large"],
    "rl_rollouts.py": ["-n", "1"],
    "scoring.py": ["--limit", "40"],
    "serve_load.py": ["--requests", "60"],
    "study_pruning.py": ["--sample", "1", "--workers", "1", "--out", "{tmp}/study"],
    "tool_calls.py": ["--calls", "200", "--scale", "small"],
    "world_build.py": ["--scale", "small"],
}
CHAINED = {"edge_phase_a.py", "synth.py"}


@pytest.fixture(scope="session")
def cache(tmp_path_factory) -> Path:
    """One cache per test process: the small world is built once, not by every script."""
    return tmp_path_factory.mktemp("perf-cache")


def _run(script: str, args: list[str], cache: Path, tmp: Path) -> str:
    env = {**os.environ, "KOPA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, str(PERF / script), *(a.format(tmp=tmp) for a in args)],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=900)
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stderr[-3000:]}"
    assert "== " in done.stdout, f"{script} printed no report:\n{done.stdout[-2000:]}"
    return done.stdout


def test_every_perf_script_has_a_smoke():
    assert {p.name for p in PERF.glob("*.py") if not p.name.startswith("_")} == set(SMALL) | CHAINED


@pytest.mark.parametrize("script", sorted(SMALL))
def test_a_perf_script_runs_at_a_small_size(script, cache, tmp_path):
    _run(script, SMALL[script], cache, tmp_path)


def test_phase_a_then_phase_b_run_at_a_small_size(cache, tmp_path):
    printed = _run("edge_phase_a.py", ["-T", "2", "-M", "10", "--backend", "sim", "--out", "{tmp}/edge"], cache, tmp_path)
    assert "retained / pruned edges" in printed
    printed = _run("synth.py", ["--graph", "{tmp}/edge", "-n", "4", "--out", "{tmp}/synth"], cache, tmp_path)
    assert "kept" in printed
