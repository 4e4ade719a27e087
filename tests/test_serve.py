"""The same chain over the in-process simulator and over `kopa sim serve` on loopback."""

from __future__ import annotations

import httpx
import pytest

from kopa.backends import open_backend
from kopa.demo import CHAINS
from kopa.tools.runtime import ToolRuntime
from sim.serve import SimServer


@pytest.fixture(scope="module")
def served(simulator):
    with SimServer(simulator) as server:
        yield server


def _run(backend, chain):
    runtime = ToolRuntime(backend)
    results = []
    for step in chain.steps:
        results.append(runtime.call(step.tool, step.args(results)))
    return results


@pytest.mark.parametrize("chain", CHAINS, ids=lambda c: c.domain)
def test_chain_identical_in_process_and_over_loopback(backend, served, chain, monkeypatch):
    # The live backend reads keys from the environment; the served simulator accepts any valid-looking key.
    for key_id in ("dart", "krx", "data_go_kr", "ex", "seoul", "neis", "schoolinfo", "hrd", "law", "assembly", "gg"):
        monkeypatch.setenv(f"KOPA_{key_id.upper()}_KEY", f"test-{key_id}-key")
    local = _run(backend, chain)
    remote = _run(open_backend(f"live:{served.url}"), chain)
    assert all(r.ok for r in local), [r.error for r in local if not r.ok]
    assert [r.for_model() for r in local] == [r.for_model() for r in remote]


def test_served_simulator_routes_by_host_header(served):
    response = httpx.get(f"{served.url}/api/company.json", params={"crtfc_key": "k", "corp_code": "1"},
                         headers={"Host": "opendart.fss.or.kr"})
    assert response.json()["status"] == "100"


def test_serve_refuses_non_loopback(simulator):
    with pytest.raises(ValueError, match="loopback"):
        SimServer(simulator, host="0.0.0.0")
