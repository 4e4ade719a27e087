"""Shared fixtures: a small simulated world built once per session into a temporary cache."""

from __future__ import annotations

import os

import pytest

from sim.world.context import WorldConfig


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    os.environ["KOPA_CACHE_DIR"] = str(tmp_path_factory.getbasetemp() / "kopa-cache")


@pytest.fixture(scope="session")
def world(_isolated_cache):
    from sim.world.build import load_world

    return load_world(WorldConfig(seed=0, scale="small"))


@pytest.fixture(scope="session")
def simulator(world):
    from sim.app import Simulator

    return Simulator(world)


@pytest.fixture(scope="session")
def backend(_isolated_cache):
    from kopa.backends import open_backend

    return open_backend("sim")
