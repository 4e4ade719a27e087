"""Unmodified third-party clients under kopa's pytest plugin, as a user's own suite runs them: no key, no
network, no server — first against the in-process simulator (kopa_sim), then against a recording made of
those very calls (kopa_recording), replayed with other keys."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.clients
pytest.importorskip("lxml")
pytest.importorskip("PublicDataReader")
pytest.importorskip("OpenDartReader")
pytest_plugins = ["pytester"]

USER_TESTS = '''
import os

import pytest
import OpenDartReader
import PublicDataReader

KEY = os.environ.get("MY_KEY", "0123456789abcdef0123456789abcdef")


def ridership():
    return PublicDataReader.Transportation(KEY).read_data("지하철승하차", USE_DT="20260125")


def company(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the library caches the corp-code archive under ./docs_cache
    return OpenDartReader(KEY + "01234567").company("253160")


def test_simulated(kopa_sim, tmp_path, monkeypatch):
    assert len(ridership()) > 100
    assert company(tmp_path, monkeypatch)["status"] == "000"
    assert any("openapi.seoul.go.kr" in r for r in kopa_sim.requests)


@pytest.mark.kopa_recording("recordings/clients")
def test_recorded(kopa_recording, tmp_path, monkeypatch):
    frame = ridership()
    assert len(frame) > 100 and set(frame["사용일자"]) == {"20260125"}
    assert company(tmp_path, monkeypatch)["corp_name"]
'''


def test_publicdatareader_and_opendartreader_under_the_plugin(pytester, monkeypatch):
    pytester.makepyfile(test_user=USER_TESTS)
    pytester.runpytest_subprocess("-q", "--kopa-record-from=sim").assert_outcomes(passed=2)
    monkeypatch.setenv("MY_KEY", "fedcba9876543210fedcba9876543210")  # another key: the recording holds none
    replayed = pytester.runpytest_subprocess("-q", "-k", "recorded")
    replayed.assert_outcomes(passed=1)
