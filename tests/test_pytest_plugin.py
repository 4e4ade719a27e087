"""kopa's pytest plugin, loaded the way a user's suite loads it (its `pytest11` entry point, in a pytest of its
own): httpx (sync and async) and requests answered by the simulator and by a recording, with any key."""

from __future__ import annotations

import gzip

import pytest

pytest_plugins = ["pytester"]

USER_TESTS = '''
import asyncio

import httpx
import pytest
import requests

DART = "https://opendart.fss.or.kr/api/company.json"


def company(client_get, key):
    return client_get(DART, params={"crtfc_key": key, "corp_code": "00104083"})


def test_httpx(kopa_sim):
    answer = company(httpx.get, "my-own-key").json()
    assert answer["status"] == "000" and answer["corp_code"] == "00104083"
    assert kopa_sim.requests == [f"GET {DART}?crtfc_key=my-own-key&corp_code=00104083"]


def test_httpx_async(kopa_sim):
    async def get():
        async with httpx.AsyncClient() as client:
            return (await company(client.get, "another-key")).json()
    assert asyncio.run(get())["status"] == "000"


def test_requests(kopa_sim):
    response = company(requests.get, "yet-another-key")
    assert response.status_code == 200 and response.json()["status"] == "000"
    assert response.json()["corp_name"] == company(httpx.get, "k").json()["corp_name"]


@pytest.mark.kopa_world(seed=3)
def test_another_world(kopa_sim):
    assert "seed=3" in kopa_sim.backend.provenance


@pytest.mark.kopa_world(drift="default", epoch=1, faults="none", fault_seed=4)
def test_a_drifted_world_with_faults(kopa_sim):
    assert "drift=default epoch=1" in kopa_sim.backend.provenance and "faults=none seed=4" in kopa_sim.backend.provenance


def test_a_host_outside_the_catalog_is_not_answered(kopa_sim):
    assert not kopa_sim.serves("http://127.0.0.1:9/x")


@pytest.mark.kopa_recording("rec")
def test_recorded(kopa_recording):
    assert company(requests.get, "a-key-never-recorded").json()["status"] == "000"
    assert company(httpx.get, "and-another").json()["status"] == "000"


@pytest.mark.kopa_recording("rec")
def test_not_recorded(kopa_recording):
    httpx.get(DART, params={"crtfc_key": "k", "corp_code": "99999999"})
'''


def test_the_entry_point_answers_httpx_and_requests_from_the_simulator_and_a_recording(pytester):
    pytester.makepyfile(test_user=USER_TESTS)
    made = pytester.runpytest_subprocess("-k", "recorded and not not_recorded", "--kopa-record-from=sim", "-q")
    made.assert_outcomes(passed=1)  # the recording is made from the simulator
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=7, failed=1)  # replayed with other keys; the unrecorded one fails
    result.stdout.fnmatch_lines(["*ReplayMiss: request not in the cassettes*corp_code=99999999*nearest recorded*"])
    files = [p for p in (pytester.path / "rec").rglob("*") if p.is_file()]
    written = b"".join(gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in files)
    assert b"corp_code=00104083" in written  # the recorded request is there, without the key the test sent
    assert b"a-key-never-recorded" not in written


def test_a_world_marker_with_a_bad_option_is_a_usage_error(pytester):
    pytester.makepyfile(test_bad='''
import pytest

@pytest.mark.kopa_world(sead=3)
def test_it(kopa_sim):
    pass
''')
    result = pytester.runpytest_subprocess("-q")
    result.stdout.fnmatch_lines(["*unknown option sead*"])
    assert result.ret != 0


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch):
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
