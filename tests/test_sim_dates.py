"""Dates as the services read them: a date that is not on the calendar gets the service's invalid-parameter
answer (the one a malformed date gets), a day after the world's today that a request asks about gets the
service's answer for no data, and one end of a range may lie ahead. Through kopa's tools, as an agent calls
them (APIGen's stage 2 sees exactly these answers)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from kopa.catalog.loader import load_catalog
from kopa.tools.results import ToolResult
from sim.endpoints import on_calendar
from tests.wire import send

IMPOSSIBLE = ("20261345", "20260230", "20250229", "20260100")

# tool, the other arguments, the date parameter: one per platform family whose requests name a day
DAYS = [
    ("get_krx_kospi_daily_trading", {}, "basDd"),  # KRX OpenAPI, generated on demand
    ("get_krx_kospi_issue_base_info", {}, "basDd"),  # issues listed as of the day (a stored table, `le`)
    ("get_stock_price_trend", {"likeSrtnCd": "005930"}, "basDt"),  # data.go.kr
    ("get_seoul_subway_ridership", {"START_INDEX": 1, "END_INDEX": 5}, "USE_DT"),  # 서울 열린데이터광장
    ("get_ex_ic_traffic", {"unitCode": "101"}, "sumDate"),  # 한국도로공사
]


@pytest.fixture(scope="module")
def today(backend) -> dt.date:
    return backend.simulator.today


def _answer(result: ToolResult) -> tuple[Any, ...]:
    error = result.error
    return (result.ok, result.total_count, result.records, error and (error.error_class, error.kind, error.code))


def test_on_calendar():
    assert on_calendar("20240229") and on_calendar("20261231") and on_calendar("19000101")
    assert not any(on_calendar(v) for v in (*IMPOSSIBLE, "2026013", "2026-1-3", "abcdefgh"))


@pytest.mark.parametrize(("tool", "args", "param"), DAYS, ids=[d[0] for d in DAYS])
def test_a_date_off_the_calendar_is_answered_as_a_malformed_one(backend, rt, tool, args, param):
    """The reference is the service's own answer to a malformed date, sent past kopa's argument checks
    (which refuse "2026-01-29" before it leaves, but pass 20261345: it is eight digits)."""
    key = backend.issue_key(load_catalog()[tool].auth.key_id)
    _, malformed = send(backend, tool, {**args, param: "2026-01-29"}, key)
    assert malformed.error is not None and malformed.error.kind in ("bad_param", "no_data")  # Seoul: INFO-200
    for value in IMPOSSIBLE:
        _, impossible = send(backend, tool, {**args, param: value}, key)
        assert (impossible.error, impossible.records) == (malformed.error, malformed.records), value
        result = rt.call(tool, {**args, param: value})  # and so an agent sees the service's refusal
        assert not result.ok and result.error is not None and result.error.code == malformed.error.code


@pytest.mark.parametrize(("tool", "args", "param"), DAYS, ids=[d[0] for d in DAYS])
def test_a_day_after_today_is_answered_as_a_day_with_no_data(rt, today, tool, args, param):
    nothing = _answer(rt.call(tool, {**args, param: "19000101"}))  # a real day long before any record
    for ahead in (1, 2, 365):
        assert _answer(rt.call(tool, {**args, param: f"{today + dt.timedelta(days=ahead):%Y%m%d}"})) == nothing


def test_today_still_has_data_where_the_future_has_none(rt, today):
    listed = rt.call("get_krx_kospi_issue_base_info", {"basDd": f"{today:%Y%m%d}"})
    assert listed.ok and listed.records  # as of today every listed issue; as of tomorrow none yet (above)
    before = rt.call("get_krx_kospi_issue_base_info", {"basDd": f"{today - dt.timedelta(days=400):%Y%m%d}"})
    assert before.ok and len(before.records) <= len(listed.records)


def test_a_range_may_end_ahead(rt, today):
    """A range's end is a bound, not a day asked about: filings up to 2099 are the filings up to today."""
    window = {"corp_code": "00126380", "bgn_de": f"{today - dt.timedelta(days=80):%Y%m%d}"}
    up_to_today = rt.call("search_dart_disclosures", {**window, "end_de": f"{today:%Y%m%d}"})
    far = rt.call("search_dart_disclosures", {**window, "end_de": "20991231"})
    assert up_to_today.ok and up_to_today.records and _answer(far) == _answer(up_to_today)
    wrong_end = rt.call("search_dart_disclosures", {**window, "end_de": "20260230"})
    assert not wrong_end.ok and wrong_end.error is not None and wrong_end.error.kind == "bad_param"
