"""The tool runtime over the in-process simulator: the paper's worked example and the error classes."""

from __future__ import annotations

import datetime as dt

import pytest

from kopa.tools.runtime import ToolRuntime
from kopa.wire import family_of


@pytest.fixture()
def runtime(backend):
    rt = ToolRuntime(backend)
    for platform in ("dart", "krx"):
        assert rt.call("issue_api_key", {"platform": platform}).ok
    return rt


def test_corp_code_lookup_feeds_the_convertible_bond_report(runtime):
    found = runtime.call("find_dart_corp_code", {"corp_name": "라이트론"})
    assert found.ok and found.total_count == 1
    corp_code = found.records[0]["corp_code"]
    assert len(corp_code) == 8 and corp_code.isdigit()
    cb = runtime.call("get_dart_convertible_bond_issuance_decision",
                      {"corp_code": corp_code, "bgn_de": "20260101", "end_de": "20260131"})
    assert cb.ok
    assert cb.records[0]["corp_name"] == "라이트론"
    floor = int(cb.records[0]["act_mktprcfl_cvprc_lwtrsprc"].replace(",", ""))
    price = int(cb.records[0]["cv_prc"].replace(",", ""))
    assert floor == round(price * 0.7 / 5) * 5


def test_price_series_is_paged_like_the_real_api(runtime):
    stock = runtime.call("find_dart_corp_code", {"corp_name": "라이트론"}).records[0]["stock_code"]
    page1 = runtime.call("get_stock_price_trend", {"likeSrtnCd": stock, "numOfRows": 10, "pageNo": 1})
    assert page1.ok and len(page1.records) == 10
    # Every trading day from 2010-01-04 to the day before the world's today (2026-01-30): weekdays less the
    # fixed public holidays the simulated calendar knows.
    holidays = {(1, 1), (3, 1), (5, 5), (6, 6), (8, 15), (10, 3), (10, 9), (12, 25), (12, 31)}
    days = [dt.date(2010, 1, 4) + dt.timedelta(days=k) for k in range((dt.date(2026, 1, 30) - dt.date(2010, 1, 4)).days)]
    total = sum(1 for d in days if d.weekday() < 5 and (d.month, d.day) not in holidays)
    pages = -(-total // 10)
    assert page1.total_count == total and page1.page.total_pages == pages
    assert page1.records[0]["basDt"] == "20260129"
    last = runtime.call("get_stock_price_trend", {"likeSrtnCd": stock, "numOfRows": 10, "pageNo": pages})
    assert 1 <= len(last.records) <= 10 and last.records[-1]["basDt"] == "20100104"
    past = runtime.call("get_stock_price_trend", {"likeSrtnCd": stock, "numOfRows": 10, "pageNo": pages + 1})
    assert not past.ok
    assert (past.error.error_class, past.error.kind) == ("structural", "page_out_of_range")


def test_missing_key_issuance_is_an_auth_error(backend):
    rt = ToolRuntime(backend)
    result = rt.call("get_dart_company_overview", {"corp_code": "00104083"})
    assert (result.error.error_class, result.error.kind, result.error.code) == ("auth", "invalid_key", "010")
    fsc = rt.call("get_stock_price_trend", {"likeSrtnCd": "253160"})
    assert (fsc.error.error_class, fsc.error.code) == ("auth", "30")
    krx = rt.call("get_krx_kosdaq_daily_trading", {"basDd": "20260129"})
    assert (krx.error.error_class, krx.error.code) == ("auth", "401")


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("get_dart_company_overview", {"corp_code": "99999999"}, ("structural", "no_data", "013")),
        ("search_dart_disclosures", {"corp_code": "00104083", "page_no": 999}, ("structural", "no_data", "013")),
        ("get_stock_price_trend", {"likeSrtnCd": "999999"}, ("structural", "no_data", "03")),
        ("get_krx_kosdaq_daily_trading", {"basDd": "20260125"}, ("structural", "no_data", "empty")),
        ("find_dart_corp_code", {"corp_name": "존재하지않는회사명"}, ("structural", "no_data", "no_match")),
    ],
)
def test_service_errors_are_classified(runtime, tool, args, expected):
    result = runtime.call(tool, args)
    assert not result.ok
    assert (result.error.error_class, result.error.kind, result.error.code) == expected


# Values the schema's patterns rule out: the runtime refuses them before sending (tests/test_required_params.py),
# so what the services themselves answer to them is checked on the wire, without the runtime.
@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("get_dart_company_overview", {"corp_code": "1234"}, ("structural", "bad_param", "100")),
        ("get_stock_price_trend", {"basDt": "2026-01-29"}, ("structural", "bad_param", "10")),
        ("get_krx_kosdaq_daily_trading", {"basDd": "2026"}, ("structural", "bad_param", "400")),
    ],
)
def test_malformed_values_get_the_services_own_answer_on_the_wire(runtime, backend, tool, args, expected):
    refused = runtime.call(tool, args)
    assert (refused.error.kind, refused.request, refused.attempts) == ("bad_param", None, [])
    spec = runtime.catalog[tool]
    wire = family_of(spec.family)
    response = backend.client().send(wire.build(spec, args, backend.issue_key(spec.auth.key_id)))
    error = wire.parse(spec, args, response).error
    assert (error.error_class, error.kind, error.code) == expected


def test_unknown_arguments_are_refused_before_sending(runtime):
    result = runtime.call("get_dart_company_overview", {"corp_code": "00104083", "company": "x"})
    assert result.error.kind == "bad_param" and result.request is None


def test_keys_never_appear_in_results_or_state(runtime, backend):
    result = runtime.call("get_dart_company_overview", {"corp_code": "00104083"})
    key = backend.issue_key("dart")
    assert key not in result.model_dump_json()
    assert "crtfc_key=REDACTED" in result.request
    assert key not in runtime.state.canonical().decode()


def test_state_hash_is_canonical(backend):
    a, b = ToolRuntime(backend), ToolRuntime(backend)
    a.call("issue_api_key", {"platform": "dart"})
    a.call("issue_api_key", {"platform": "krx"})
    b.call("issue_api_key", {"platform": "krx"})
    b.call("issue_api_key", {"platform": "dart"})
    assert a.state.hash() == b.state.hash()
    assert a.state.hash() != ToolRuntime(backend).state.hash()
