"""`kopa sim serve` as a real process on loopback, used through the live backend."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def served(world):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kopa.cli", "sim", "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    # A bounded wait for the server to listen, generous enough for a loaded CI machine (a start is an
    # import, the catalog and the cached world); a server that exits instead fails at once.
    deadline = time.monotonic() + 120
    try:
        while True:
            try:
                httpx.get(f"{url}/_kopa/world", timeout=0.5)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    pytest.fail(f"kopa sim serve did not start: {proc.communicate()[0].decode()}")
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_served_world_is_the_cached_world(served, world):
    info = httpx.get(f"{served}/_kopa/world").json()
    assert info["content_hash"] == world.content_hash
    assert info["config"]["today"] == "2026-01-30"


def test_live_backend_through_the_served_simulator(served, monkeypatch):
    monkeypatch.setenv("KOPA_DART_KEY", "any-non-empty-key")
    runtime = ToolRuntime(open_backend(f"live:{served}"))
    assert runtime.state.current_date == "2026-01-30"  # the served simulator's virtual clock
    assert runtime.call("issue_api_key", {"platform": "dart"}).ok
    found = runtime.call("find_dart_corp_code", {"corp_name": "라이트론"})
    assert found.ok and found.records[0]["corp_name"] == "라이트론"


def test_live_on_a_served_simulator_needs_no_key_variable_and_the_real_hosts_name_it(served, monkeypatch):
    """The served simulator publishes the keys it issues: live:URL runs with no KOPA_*_KEY set; the real hosts
    (plain `live`) still name the variable to set."""
    monkeypatch.delenv("KOPA_DART_KEY", raising=False)
    runtime = ToolRuntime(open_backend(f"live:{served}"))
    assert runtime.call("issue_api_key", {"platform": "dart"}).ok
    assert runtime.call("find_dart_corp_code", {"corp_name": "라이트론"}).ok
    result = ToolRuntime(open_backend("live")).call("issue_api_key", {"platform": "dart"})
    assert result.error.error_class == "auth"
    assert "KOPA_DART_KEY" in result.error.message


def test_served_faults_name_their_profile_and_seed(world):
    """`--faults PROFILE,seed=N` reaches the server as that profile and seed (read with the backend parser)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kopa.cli", "sim", "serve", "--port", str(port),
                             "--faults", "harsh,seed=3", "--fault-time-scale", "0.001"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ))
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/_kopa/world", timeout=0.5)
                break
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=10)[0].decode()
    assert "faults: profile 'harsh', seed 3, time scale 0.001" in output, output
