"""Full-scale worlds (slow: about a minute each build on 2 cores). Run with `nox -s slow`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def full_backend():
    return open_backend("sim:scale=full")


def test_largest_endpoint_holds_the_papers_handoff(full_backend):
    runtime = ToolRuntime(full_backend)
    runtime.call("issue_api_key", {"platform": "seoul"})
    result = runtime.call("get_seoul_rent_contracts", {"START_INDEX": 1, "END_INDEX": 1000})
    assert result.ok and len(result.records) == 1000
    assert result.total_count == 224_958


def test_content_hash_is_independent_of_the_process(full_backend, tmp_path):
    """Another process, another hash seed, another cache: the same world."""
    env = dict(os.environ, PYTHONHASHSEED="12345", KOPA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-m", "kopa.cli", "sim", "build", "--scale", "full"],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert f"content hash: {full_backend.simulator.world.content_hash}" in out
