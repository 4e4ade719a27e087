"""Key policy: default accepts any non-empty key but the documented invalid ones; strict accepts only issued keys."""

from __future__ import annotations

import pytest

from kopa.backends import open_backend
from kopa.tools.runtime import ToolRuntime
from sim.keys import INVALID_KEYS, KeyPolicy

AUTH_ERRORS = {
    # tool, arguments, the service's invalid-key answer as the runtime classifies it
    "dart": ("get_dart_company_overview", {"corp_code": "00104083"}, "010"),
    "krx": ("get_krx_kospi_daily_trading", {"basDd": "20260129"}, "401"),
    "seoul": ("find_seoul_subway_station_code", {"START_INDEX": 1, "END_INDEX": 5, "STATION_NM": "시청"}, "INFO-100"),
    "gg": ("find_gg_sigun_code", {"SIGUN_NM": "수원시"}, "ERROR-290"),
    "assembly": ("list_bill_vote_results", {"AGE": "22"}, "ERROR-290"),
}


def test_default_policy():
    policy = KeyPolicy(seed=0)
    assert policy.check("dart", "anything-at-all") == "ok"
    assert policy.check("dart", "") == "missing"
    assert policy.check("dart", None) == "missing"
    assert all(policy.check("dart", k) == "invalid" for k in INVALID_KEYS)


def test_strict_policy_accepts_only_issued_or_listed_keys():
    policy = KeyPolicy(seed=0, strict=True, allowed=frozenset({"listed-key"}))
    assert policy.check("dart", policy.issue("dart")) == "ok"
    assert policy.check("dart", "listed-key") == "ok"
    assert policy.check("dart", policy.issue("krx")) == "invalid"  # a key of another key system
    assert policy.check("dart", "made-up") == "invalid"


def test_issued_keys_have_each_services_shape():
    policy = KeyPolicy(seed=0)
    assert len(policy.issue("dart")) == 40
    assert policy.issue("ex").isdigit()
    assert policy.issue("krx").isupper()


@pytest.mark.parametrize("platform", sorted(AUTH_ERRORS))
def test_strict_backend_rejects_unissued_keys_with_the_real_error(platform):
    backend = open_backend("sim", strict_keys=True)
    tool, args, code = AUTH_ERRORS[platform]
    issued = ToolRuntime(backend)
    issued.call("issue_api_key", {"platform": platform})
    assert issued.call(tool, args).ok
    forged = ToolRuntime(backend)
    for key_id in forged.catalog.key_ids(platform):
        forged.state.store_key(key_id, "forged-but-well-formed-key-0123456789")
    result = forged.call(tool, args)
    assert (result.error.error_class, result.error.code) == ("auth", code)
