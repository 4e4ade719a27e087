"""Shared fixtures: a small simulated world built once per session into a temporary cache."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from sim.world.context import WorldConfig

_COLLECTION_CACHE: list[str] = []


def pytest_configure(config):
    """Test modules load tasks and the catalog at collection, before any fixture runs: give that a
    temporary cache too, so a run never reads or writes the user's ~/.cache/kopa."""
    _COLLECTION_CACHE.append(tempfile.mkdtemp(prefix="kopa-collect-"))
    os.environ["KOPA_CACHE_DIR"] = _COLLECTION_CACHE[-1]


def pytest_unconfigure(config):
    for path in _COLLECTION_CACHE:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory):
    # xdist workers each get their own basetemp; share the parent so the world is built once per run
    # (worlds are written to a temporary file and renamed, so concurrent builders are safe).
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    os.environ["KOPA_CACHE_DIR"] = str(root / "kopa-cache")


@pytest.fixture(scope="session")
def world(_isolated_cache):
    from sim.world_file import load_world

    return load_world(WorldConfig(seed=0, scale="small"))


@pytest.fixture(scope="session")
def simulator(world):
    from sim.app import Simulator

    return Simulator(world)


@pytest.fixture(scope="session")
def backend(_isolated_cache):
    from kopa.backends import open_backend

    return open_backend("sim")


@pytest.fixture(scope="module")
def rt(backend):
    """A tool runtime on the session's simulator with a key issued for every keyed platform, as an agent's
    episode has after `issue_api_key` (one per test module: calls leave state, e.g. the call log)."""
    from kopa.tools.runtime import ToolRuntime

    runtime = ToolRuntime(backend)
    for platform in ("dart", "krx", "edu", "seoul", "ex"):
        runtime.call("issue_api_key", {"platform": platform})
    return runtime


@pytest.fixture
def pool_starts(monkeypatch) -> list[str]:
    """The start method of every process pool kopa's executor opens during the test ('fork', 'spawn'), in order:
    a test of forked workers checks that the pool really forked."""
    import concurrent.futures

    from kopa import executor

    started: list[str] = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    def spying_pool(*args, **kwargs):
        started.append(kwargs["mp_context"].get_start_method())
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(executor, "ProcessPoolExecutor", spying_pool)
    return started
