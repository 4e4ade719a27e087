"""pykrx-openapi (KRX Open API wrapper, requests), unmodified, against the served simulator."""

from __future__ import annotations

import datetime as dt

import pytest

pytestmark = pytest.mark.clients
pykrx_openapi = pytest.importorskip("pykrx_openapi")

DAY = "20260129"  # a trading day before the small world's today (2026-01-30)
HOLIDAY = "20260125"  # a Sunday


@pytest.fixture()
def krx(route_requests):
    # The library sends the key as an AUTH_KEY query parameter (the documented place is a header); the
    # simulator accepts either. A generous rate limit keeps the test from sleeping.
    return pykrx_openapi.KRXOpenAPI(api_key="0123456789ABCDEF0123456789ABCDEF01234567", rate_limit=1000)


def test_kospi_daily_trading_is_converted_from_the_simulator(krx, runtime):
    data = krx.get_stock_daily_trade(DAY)
    tool = runtime.call("get_krx_kospi_daily_trading", {"basDd": DAY})
    assert tool.ok and len(data["OutBlock_1"]) == tool.total_count > 0
    got, want = data["OutBlock_1"][0], tool.records[0]
    # The library converts by field-name pattern: dates to datetime, prices/amounts to float, volumes to int.
    assert got["BAS_DD"] == dt.datetime(2026, 1, 29)
    assert got["ISU_CD"] == want["ISU_CD"] and got["ISU_NM"] == want["ISU_NM"]
    assert got["TDD_CLSPRC"] == float(want["TDD_CLSPRC"].replace(",", ""))
    assert got["ACC_TRDVOL"] == int(want["ACC_TRDVOL"].replace(",", ""))


def test_kosdaq_issue_base_info(krx, runtime):
    data = krx.get_kosdaq_stock_base_info(DAY)
    tool = runtime.call("get_krx_kosdaq_issue_base_info", {"basDd": DAY})
    assert tool.ok
    assert [r["ISU_CD"] for r in data["OutBlock_1"]] == [r["ISU_CD"] for r in tool.records]
    # The library's own quirk, the same against the real service: "ISU_SRT_CD" contains "RT" (its rate
    # pattern), so the 6-digit short code comes back as a float without its leading zeros.
    assert data["OutBlock_1"][0]["ISU_SRT_CD"] == float(tool.records[0]["ISU_SRT_CD"])


def test_kospi_index_and_holiday(krx, runtime):
    data = krx.get_kospi_daily_trade(DAY)
    tool = runtime.call("get_krx_kospi_index_daily", {"basDd": DAY})
    assert tool.ok and [r["IDX_NM"] for r in data["OutBlock_1"]] == [r["IDX_NM"] for r in tool.records]
    # A non-trading day answers an empty OutBlock_1, which the library passes through.
    assert krx.get_stock_daily_trade(HOLIDAY) == {"OutBlock_1": []}


TEN_YEARS_BACK = "20160129"  # a Friday, ten years before the world's yesterday (2026-01-29)


def test_a_day_ten_years_back_and_yesterday_from_the_same_world(krx, runtime):
    old, new = krx.get_stock_daily_trade(TEN_YEARS_BACK), krx.get_stock_daily_trade(DAY)
    assert old["OutBlock_1"] and new["OutBlock_1"]
    assert {r["BAS_DD"] for r in old["OutBlock_1"]} == {dt.datetime(2016, 1, 29)}
    # The same companies on both days (the world's listed set), at their own prices each day.
    assert [r["ISU_CD"] for r in old["OutBlock_1"]] == [r["ISU_CD"] for r in new["OutBlock_1"]]
    samsung_old = next(r for r in old["OutBlock_1"] if r["ISU_CD"] == "005930")
    samsung_new = next(r for r in new["OutBlock_1"] if r["ISU_CD"] == "005930")
    assert samsung_old["ISU_NM"] == samsung_new["ISU_NM"] == "삼성전자"
    assert samsung_old["TDD_CLSPRC"] != samsung_new["TDD_CLSPRC"]
    # The 금융위 API of the same world answers the same close for that day.
    fsc = runtime.call("get_stock_price_trend", {"likeSrtnCd": "005930", "basDt": TEN_YEARS_BACK})
    assert float(fsc.records[0]["clpr"]) == samsung_old["TDD_CLSPRC"]
    # A day answers the same whatever was asked before it.
    assert krx.get_stock_daily_trade(TEN_YEARS_BACK) == old


def test_invalid_key_raises_authentication_error(route_requests):
    client = pykrx_openapi.KRXOpenAPI(api_key="invalid", rate_limit=1000)
    with pytest.raises(pykrx_openapi.exceptions.KRXAuthenticationError):
        client.get_stock_daily_trade(DAY)
