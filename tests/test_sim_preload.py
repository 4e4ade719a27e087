"""Tables read before workers fork (`Simulator.preload`, through `kopa.tools.preload.preload_calls`): the tables a
task set's golden calls read, loaded once in the parent, are the tables its episodes then read — checked against
the tables a fresh simulator loads while the oracle actually plays the tasks."""

from __future__ import annotations

import dataclasses

from kopa.backends import open_backend
from kopa.catalog import load_catalog
from kopa.eval.environment import Environment
from kopa.eval.policies.offline import OraclePolicy
from kopa.eval.task import load_targets, load_tasks
from kopa.tools.preload import preload_calls
from sim.world_file import LazyTables, read_index

ONLY = ("education-001", "finance-001", "district-001", "law-001", "traffic-001", "politics-001")


def _fresh_backend():
    """A backend whose world has loaded no table yet (the process's shared tables left alone)."""
    world = open_backend("sim").simulator.world
    index = read_index(world.path)
    tables = LazyTables(world.path, index.columns, index.row_counts)
    return open_backend("sim", world=dataclasses.replace(world, tables=tables)), tables


def test_preloading_the_golden_calls_loads_the_tables_the_oracle_reads(_isolated_cache):
    tasks = [t for t in load_tasks() if t.id in ONLY]
    targets = load_targets()
    played, read = _fresh_backend()
    for task in tasks:
        target = targets[task.id]
        OraclePolicy().run(task, Environment(task, played, budget=target.max_allowed_calls),
                           target, 0)
    preloaded, loaded = _fresh_backend()
    count = preload_calls(preloaded, [(c.tool, c.arguments) for t in tasks for c in targets[t.id].calls],
                          load_catalog())
    assert len(read._loaded) >= 10  # the oracle read tables of every domain
    assert set(loaded._loaded) <= set(read._loaded)  # nothing it will not read
    # every table but one: the law service's detail answer reads the articles beside its own table, which the
    # endpoint does not name (a worker loads that one itself)
    assert set(read._loaded) - set(loaded._loaded) == {"law_article"}
    assert count >= len(loaded._loaded)  # a history endpoint's generated rows are named but not stored


def test_nothing_is_preloaded_on_a_backend_without_an_in_process_simulator(monkeypatch):
    monkeypatch.setenv("KOPA_TODAY", "2026-01-30")  # so opening the live backend asks no server for its date
    live = open_backend("live:http://127.0.0.1:9")  # nothing is sent: preloading only builds requests
    assert preload_calls(live, [("find_dart_corp_code", {"corp_name": "삼성전자"})], load_catalog()) == 0
