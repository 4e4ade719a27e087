"""The same results under threads: KOPA-Bench's oracle on many threads with a tiny thread switch interval,
byte-identical to one thread, run after run.

Before each threaded run every lazily built piece of simulator state is dropped — each `functools` cache of
the `sim` modules (the world context, price series, the NEIS texts and layouts, the long-tail services…) and
the process's players (`kopa.executor`) — so the threads are the ones that build it, at once: a builder that
publishes a half-built value (the NEIS race of issue 29) shows up as a differing byte or an infrastructure
error. tests/test_sim_threads.py reproduces that race on its own. Phase A's probe, its one threaded stage,
gets the same treatment; its path batches and the benchmark on processes and on Ray are byte-identical in
tests/test_executor.py, Phase B's chunks on forked processes and on Ray in tests/test_synth.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kopa import executor
from kopa.eval.runner import RunConfig, run_bench

THREADS = 8
SWITCH_INTERVAL = 1e-6  # seconds: a thread switch after nearly every bytecode, where CPython allows
RUNS = 3
# every domain, a task or two each: NEIS's meals and timetables, KRX's generated prices, DART's filings…
ONLY = ["education", "finance-001", "finance-002", "district-001", "law-001", "traffic-001", "politics-001"]
OUTPUTS = ("episodes.jsonl", "scores.jsonl")


def _drop_lazy_state() -> int:
    """Clear every functools cache defined in a loaded `sim` module and the players of this process; how many
    caches were cleared (so the test can say it cleared something)."""
    cleared = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "sim" or name.startswith("sim.")):
            continue
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) == name and callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
                cleared += 1
    executor._CURRENT.clear()
    return cleared


def _outputs(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in OUTPUTS}


@pytest.fixture
def tiny_switch_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    yield
    sys.setswitchinterval(before)


def test_the_oracle_on_many_threads_from_a_cold_simulator_is_byte_identical_to_one_thread(
        tmp_path, _isolated_cache, tiny_switch_interval):
    config = RunConfig(policy="oracle", rollouts=2, only=ONLY)
    _drop_lazy_state()
    alone = run_bench(config, tmp_path / "one", workers=1)
    assert alone and all(s.score.passed for s in alone)  # the oracle passes every task it plays
    reference = _outputs(tmp_path / "one")
    for k in range(RUNS):
        assert _drop_lazy_state() >= 10  # the world context, the price series, NEIS's texts… were dropped
        threaded = run_bench(config, tmp_path / f"threads-{k}", workers=THREADS)
        assert [s.score.passed for s in threaded] == [s.score.passed for s in alone]
        assert _outputs(tmp_path / f"threads-{k}") == reference, f"run {k} on {THREADS} threads differs"


def test_the_phase_a_probe_on_many_threads_from_a_cold_simulator_equals_one_thread(
        tmp_path, _isolated_cache, tiny_switch_interval):
    """Phase A's path batches run in processes (byte-identical there and on Ray: tests/test_executor.py); its
    probe of the converged graph runs on threads, each with its own runtime over one simulator."""
    from kopa.catalog.loader import load_catalog
    from kopa.edge.config import EdgeConfig
    from kopa.edge.probe import run_probe
    from kopa.edge.run import build_graph

    catalog = load_catalog()
    tools = [t for t in catalog if t.platform in ("edu", "krx", "seoul") and t.spec.real and t.family != "session"]
    phase, _ = build_graph(tmp_path / "g", EdgeConfig(T=2, M=30, seed=7), "sim", tools=tools)
    _drop_lazy_state()
    alone = run_probe(phase, catalog, "sim", workers=1)
    assert len(alone) >= 20 and {r.outcome for r in alone} - {"ok"}  # edges probed, not all of them passing
    for k in range(RUNS):
        _drop_lazy_state()
        assert run_probe(phase, catalog, "sim", workers=THREADS) == alone, f"probe run {k} on {THREADS} threads"


def test_the_oracle_on_forked_workers_is_byte_identical_to_one_worker(tmp_path, _isolated_cache, pool_starts,
                                                                      monkeypatch):
    """`kopa bench run --workers 2` plays an offline policy on processes forked after the task set and the world
    are loaded (threads would share one core), and scores each episode there: the same bytes as one worker
    (which scores the stored episodes afterwards, `score_run`), the episodes really ran in forked processes,
    and this process scored none of them."""
    from click.testing import CliRunner

    from kopa.cli import main
    from kopa.eval import runner

    started = pool_starts
    common = ["bench", "run", "--policy", "oracle", "-n", "2", "--only", ",".join(ONLY)]
    one = CliRunner().invoke(main, [*common, "--workers", "1", "--out", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    assert started == []  # one worker: this process
    monkeypatch.setattr(runner, "score_run", lambda *a, **k: pytest.fail("the forked run scored in this process"))
    for k in range(2):
        executor._CURRENT.clear()  # the parent loads the player afresh, and its workers inherit it
        forked = CliRunner().invoke(main, [*common, "--workers", "2", "--out", str(tmp_path / f"forked-{k}")])
        assert forked.exit_code == 0, forked.output
        assert _outputs(tmp_path / f"forked-{k}") == _outputs(tmp_path / "one"), f"forked run {k} differs"
    assert started == ["fork", "fork"]
