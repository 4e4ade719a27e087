"""The long tail's endpoints join the simulator on first use: a fresh simulator has none of them built,
answers a long-tail request all the same, and threads that race to the first one all get it."""

from __future__ import annotations

import threading
import time

import pytest

from sim import longtail_service as longtail
from sim.app import Simulator
from sim.keys import KeyPolicy
from sim.world.context import WorldConfig
from sim.world_file import load_world


@pytest.fixture(scope="module")
def world():
    return load_world(WorldConfig())


def _a_long_tail_endpoint():
    return longtail.endpoints()[0]


def test_a_fresh_simulator_has_built_none_of_the_long_tail(world):
    simulator = Simulator(world, KeyPolicy(seed=0))
    ep = _a_long_tail_endpoint()
    assert ep.host in simulator.host_family  # routed from the start
    assert (ep.host, ep.key) not in simulator._endpoints
    assert simulator.endpoint(ep.host, ep.key) == ep
    assert len(simulator.endpoints) >= len(longtail.endpoints())


def test_threads_racing_to_the_first_long_tail_request_all_find_it(world, monkeypatch):
    everything = longtail.endpoints()

    def slowly():  # widen the window in which the endpoints are being added
        for i, ep in enumerate(everything):
            if i < 40:
                time.sleep(0.001)
            yield ep

    monkeypatch.setattr(longtail, "endpoints", slowly)
    simulator = Simulator(world, KeyPolicy(seed=0))
    wanted = everything[-1]
    start = threading.Barrier(8)
    found: list[object] = []

    def look() -> None:
        start.wait()
        found.append(simulator.endpoint(wanted.host, wanted.key))

    threads = [threading.Thread(target=look) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found == [wanted] * 8
