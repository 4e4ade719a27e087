"""Executors: an ordered map wherever units run, and the same bytes from Phase A and `kopa bench run`
whether their units ran in this process, in two local processes or on Ray (`ray.init(num_cpus=2)`)."""

from __future__ import annotations

import sys

import duckdb
import orjson
import pytest

from kopa.backends import open_backend
from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.run import build_graph
from kopa.errors import UserError
from kopa.eval.runner import RunConfig, generate
from kopa.executor import LocalExecutor, open_executor
from kopa.tools.runtime import RetryPolicy, ToolRuntime

# ---------------------------------------------------------------- the map itself


def _slow_square(n: int) -> int:
    """Earlier items take longer, so a pool finishes them last: the order must come from the items."""
    import time

    time.sleep(0.002 * (10 - n))
    return n * n


@pytest.mark.parametrize("workers", [1, 2])
def test_local_map_returns_results_in_item_order(workers):
    with LocalExecutor(workers) as executor:
        assert executor.in_process is (workers == 1)
        assert executor.map(_slow_square, list(range(10))) == [n * n for n in range(10)]
        assert executor.map(_slow_square, []) == []


def _pid(_: object) -> int:
    import os

    return os.getpid()


def test_local_pool_runs_even_a_single_unit_in_another_process():
    """Phase A runs one batch here and hands the executor the rest — one unit when workers = 2: that one
    must not end up in this process too (it would run under this process's GIL, not beside it)."""
    import os

    with LocalExecutor(2) as executor:
        assert executor.map(_pid, ["only"]) != [os.getpid()]


_KILLED_PARENT = """
import multiprocessing, sys, time
from kopa.executor import LocalExecutor
executor = LocalExecutor(2)
for _ in range(2):
    executor.submit(time.sleep, 600)  # two long units: both workers busy, as synthesis keeps them
time.sleep(0.5)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(600)
"""


def test_workers_exit_when_their_parent_is_killed():
    """kill -9 leaves a pool no chance to shut down: its workers notice their parent is gone and exit,
    instead of working on for nobody."""
    import os
    import signal
    import subprocess
    import time

    parent = subprocess.Popen([sys.executable, "-c", _KILLED_PARENT], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) >= 2 and all(_alive(pid) for pid in workers)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 60  # a bound on waiting for the event, not a speed the test asserts
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [pid for pid in workers if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their killed parent"


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie does not: it has exited and waits for its reaper)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_executor_names_and_options_are_checked():
    with pytest.raises(UserError, match="--address is for --executor ray"):
        open_executor("local", address="auto")
    with pytest.raises(UserError, match="valid: local, ray"):
        open_executor("dask")
    with pytest.raises(UserError, match="at least 1"):
        open_executor("local", workers=0)


def test_ray_missing_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(UserError, match=r"pip install 'kopa\[ray\]'") as caught:
        open_executor("ray", workers=2)
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------- faults do not depend on the process

# Dense faults (no quotas: those count calls, so they depend on order by design), so a few hundred
# calls meet many, on first attempts, on retries and on a request that arrives again.
DENSE_PROFILE = """
description = "dense faults for the executor tests"
maintenance_attempts = 2
timeout_seconds = 10.0
[default]
rate_limit = 0.08
maintenance = 0.03
server_error = 0.06
timeout = 0.06
connection_reset = 0.03
truncated = 0.02
malformed = 0.02
latency = 0.0
[quotas]
"""
RETRY = RetryPolicy(max_attempts=4, base_delay=0.001, max_delay=0.01)


def _calls(world, n: int) -> list[tuple[str, dict]]:
    corps = world.table("dart_corp").cols["corp_code"].vocab.tolist()
    out: list[tuple[str, dict]] = []
    for i in range(n):
        if i % 2:
            out.append(("search_dart_disclosures", {"corp_code": corps[i % len(corps)], "page_count": 1 + i % 5}))
        else:
            out.append(("list_seoul_bike_stations", {"START_INDEX": 1 + i, "END_INDEX": 3 + i}))
    return out


def _play_calls(item: tuple[str, list[tuple[str, dict]]]) -> list[tuple]:
    """A list of calls on a fresh runtime of `backend` in whatever process runs this: each call's end and
    every attempt's outcome."""
    backend_spec, calls = item
    runtime = ToolRuntime(open_backend(backend_spec), retry=RETRY)
    for platform in ("dart", "seoul"):
        runtime.call("issue_api_key", {"platform": platform})
    out = []
    for name, args in calls:
        result = runtime.call(name, args)
        out.append((result.ok, result.error.kind if result.error else None,
                    tuple((a.attempt, a.outcome, a.kind) for a in result.attempts)))
    return out


def test_fault_decisions_do_not_depend_on_which_process_made_an_earlier_request(world, tmp_path):
    """Every request arrives twice. In one process the second arrival follows the first on the same
    transport; on two processes the first arrivals run in one and the second arrivals in the other,
    reversed: each call must meet the same faults on the same attempts all the same, since a decision is
    a function of (seed, request, attempt) alone."""
    profile = tmp_path / "dense.toml"
    profile.write_text(DENSE_PROFILE, encoding="utf-8")
    spec = f"faults:{profile},seed=5@sim"
    first = _calls(world, 60)
    together = _play_calls((spec, first + first))
    with LocalExecutor(2) as executor:
        apart_first, apart_second = executor.map(_play_calls, [(spec, first), (spec, first[::-1])])
    assert apart_first == together[:60]
    assert apart_second[::-1] == together[60:]
    assert together[:60] == together[60:]  # a new call of a request starts at attempt 0 again
    faulted = [a for call in together for a in call[2] if a[1] == "environmental"]
    assert len(faulted) >= 20 and any(a[0] > 0 for a in faulted)  # faults met, some of them on retries


# ---------------------------------------------------------------- Phase A


PHASE_A_TOOLS = [t for t in load_catalog() if t.platform in ("assembly", "gg") and t.spec.real and t.family != "session"]
PHASE_A = EdgeConfig(T=2, M=20, seed=3)
PHASE_A_BACKEND = "faults:realistic,seed=2@sim"


def _phase_a(folder, executor=None):
    phase, _ = build_graph(folder, PHASE_A, PHASE_A_BACKEND, executor=executor, tools=PHASE_A_TOOLS)
    return phase


def _phase_a_outputs(folder) -> tuple[bytes, bytes, list[tuple]]:
    con = duckdb.connect(str(folder / "edges.duckdb"), read_only=True)
    try:
        attempts = con.execute("SELECT * FROM attempts ORDER BY iteration, path, step").fetchall()
    finally:
        con.close()
    return (folder / "graph.json").read_bytes(), (folder / "checkpoint.json").read_bytes(), attempts


@pytest.fixture(scope="module")
def phase_a_in_process(tmp_path_factory, _isolated_cache):
    folder = tmp_path_factory.mktemp("phase-a") / "one"
    _phase_a(folder)
    return _phase_a_outputs(folder)


def test_phase_a_in_process_run_did_real_work(phase_a_in_process):
    """The comparisons below mean something: paths ran, met faults, and the second iteration read what
    the first left (start arguments from the value cache, edges chosen from updated posteriors)."""
    _, _, attempts = phase_a_in_process
    outcomes = {row[6] for row in attempts}
    assert len(attempts) >= 40 and {"semantic", "structural", "environmental"} <= outcomes


@pytest.mark.parametrize("fork", [False, True])
@pytest.mark.parametrize("workers", [2, 3])
def test_phase_a_graph_is_byte_identical_on_local_processes(tmp_path, phase_a_in_process, workers, fork):
    """2 workers: this process runs one batch and a pool process the other; 3: two pool processes too.
    Spawned workers build their replica from the skeleton's file; forked ones (`kopa edge graph build
    --workers N`) hold this process's Phase A from before the first batch and never read the file."""
    with LocalExecutor(workers, fork=fork) as executor:
        _phase_a(tmp_path / "run", executor)
        sources = set(executor.map(_replica_source, list(range(4 * workers))))
    assert _phase_a_outputs(tmp_path / "run") == phase_a_in_process
    # every forked worker holds one from the start; a spawned one builds its own on its first batch
    assert (sources if fork else sources - {None}) == {"this process's Phase A" if fork else "the skeleton's file"}


def _replica_source(_: int) -> str | None:
    """In a pool worker: where its Phase A replica came from (None: it ran no batch)."""
    from kopa.edge import phase_a

    return phase_a._REPLICA[0].source if phase_a._REPLICA else None


def test_phase_a_refuses_to_record_from_several_processes(tmp_path):
    with LocalExecutor(2) as executor, pytest.raises(UserError, match="recording is written by one process"):
        build_graph(tmp_path / "rec", PHASE_A, f"record:{tmp_path / 'cassettes'}@sim", executor=executor,
                    tools=PHASE_A_TOOLS)


@pytest.mark.ray
def test_phase_a_graph_is_byte_identical_on_ray(tmp_path, phase_a_in_process):
    pytest.importorskip("ray")
    with open_executor("ray", workers=2) as executor:
        _phase_a(tmp_path / "ray", executor)
    assert _phase_a_outputs(tmp_path / "ray") == phase_a_in_process


# ---------------------------------------------------------------- kopa bench run


@pytest.fixture(scope="module")
def bench_config(tmp_path_factory) -> RunConfig:
    """Three tasks, two seeds, two rollouts under dense faults: retried calls and failed episodes too."""
    profile = tmp_path_factory.mktemp("profile") / "dense.toml"
    profile.write_text(DENSE_PROFILE, encoding="utf-8")
    return RunConfig(policy="oracle", backend=f"faults:{profile},seed=1@sim", rollouts=2, seeds=[0, 1],
                     only=["finance-001", "law-001", "education-004"])


def _bench_outputs(folder) -> tuple[bytes, dict[str, bytes]]:
    transcripts = {p.name: p.read_bytes() for p in sorted((folder / "transcripts").iterdir())}
    return (folder / "episodes.jsonl").read_bytes(), transcripts


@pytest.fixture(scope="module")
def bench_on_one_thread(tmp_path_factory, _isolated_cache, bench_config):
    folder = tmp_path_factory.mktemp("bench") / "one"
    episodes = generate(bench_config, folder, workers=1)
    assert len(episodes) == 12 and all(e.error is None and e.calls for e in episodes)
    outputs = _bench_outputs(folder)
    retried = [a for data in outputs[1].values() for r in orjson.loads(data)["results"] for a in r["attempts"]
               if a["outcome"] == "environmental"]
    assert len(retried) >= 5  # the comparisons below cover calls that met faults
    return outputs


def test_bench_episodes_are_byte_identical_on_threads_and_on_two_local_processes(tmp_path, bench_config,
                                                                                 bench_on_one_thread):
    generate(bench_config, tmp_path / "threads", workers=3)  # finished in any order, stored in the canonical one
    with LocalExecutor(2) as executor:
        generate(bench_config, tmp_path / "processes", executor=executor)
    assert _bench_outputs(tmp_path / "threads") == bench_on_one_thread
    assert _bench_outputs(tmp_path / "processes") == bench_on_one_thread


def test_bench_refuses_to_record_from_several_processes(tmp_path):
    config = RunConfig(policy="oracle", backend=f"record:{tmp_path / 'rec'}@sim", rollouts=1, only=["finance-001"])
    with LocalExecutor(2) as executor, pytest.raises(UserError, match="recording is written by one process"):
        generate(config, tmp_path / "run", executor=executor)


@pytest.mark.ray
def test_bench_episodes_are_byte_identical_on_ray(tmp_path, bench_config, bench_on_one_thread):
    pytest.importorskip("ray")
    with open_executor("ray", workers=2) as executor:
        generate(bench_config, tmp_path / "ray", executor=executor)
    assert _bench_outputs(tmp_path / "ray") == bench_on_one_thread


@pytest.mark.ray
def test_ray_address_nobody_answers_on_is_one_line():
    pytest.importorskip("ray")
    import socket

    with socket.socket() as probe:  # a loopback port that was free a moment ago: refused now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(UserError, match="no Ray cluster answers there") as caught:
        open_executor("ray", address=f"127.0.0.1:{port}")
    assert "\n" not in str(caught.value)
