"""The runtime checks a call against its tool's schema before any request, and never touches the backend
for a call the schema rules out (kopa.tools.arguments)."""

from __future__ import annotations

import httpx
import pytest

from kopa.catalog.formats import pattern_of
from kopa.catalog.loader import load_catalog
from kopa.tools.arguments import check_arguments
from kopa.tools.runtime import ToolRuntime

CATALOG = load_catalog()


@pytest.fixture()
def sent():
    return []


@pytest.fixture()
def untouched(backend, sent):
    """A runtime whose HTTP client records every request and answers none: a refused call sends nothing."""

    def refuse(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        raise AssertionError(f"sent {request.url}")

    runtime = ToolRuntime(backend, client=httpx.Client(transport=httpx.MockTransport(refuse)))
    for platform in ("dart", "krx", "seoul", "assembly"):
        assert runtime.call("issue_api_key", {"platform": platform}).ok
    return runtime


@pytest.mark.parametrize(
    ("tool", "args", "kind", "param"),
    [
        ("get_dart_company_overview", {}, "missing_param", "corp_code"),
        ("get_dart_company_overview", {"corp_code": ""}, "missing_param", "corp_code"),
        ("get_dart_company_overview", {"corp_code": "   "}, "missing_param", "corp_code"),
        ("get_dart_convertible_bond_issuance_decision", {"corp_code": "00104083", "bgn_de": "20260101"},
         "missing_param", "end_de"),
        ("find_dart_corp_code", {}, "missing_param", "corp_name"),  # a client-side filter
        ("get_dart_company_overview", {"corp_code": "1234"}, "bad_param", "corp_code"),  # pattern ^\d{8}$
        ("get_dart_company_overview", {"corp_code": "0010408３"}, "bad_param", "corp_code"),  # a full-width digit
        ("get_dart_company_overview", {"corp_code": "00104083\n"}, "bad_param", "corp_code"),
        ("get_dart_company_overview", {"corp_code": ["00104083"]}, "bad_param", "corp_code"),
        ("get_dart_single_company_key_accounts",
         {"corp_code": "00104083", "bsns_year": "2025", "reprt_code": "11015"}, "bad_param", "reprt_code"),
        ("search_dart_disclosures", {"pblntf_ty": "Z"}, "bad_param", "pblntf_ty"),  # enum
        ("search_dart_disclosures", {"page_no": "first"}, "bad_param", "page_no"),  # integer
        ("search_dart_disclosures", {"page_no": 1.5}, "bad_param", "page_no"),
        ("search_dart_disclosures", {"page_no": True}, "bad_param", "page_no"),
        ("get_stock_price_trend", {"basDt": "2026-01-29"}, "bad_param", "basDt"),
        ("get_krx_kosdaq_daily_trading", {}, "missing_param", "basDd"),
        ("get_seoul_subway_timetable", {}, "missing_param", "STATION_CD"),  # a path parameter
        ("search_member_proposed_bills", {"BILL_NAME": "법"}, "missing_param", "AGE"),
    ],
)
def test_calls_the_schema_rules_out_are_refused_without_sending(untouched, sent, tool, args, kind, param):
    result = untouched.call(tool, args)
    assert not result.ok and sent == []
    assert (result.error.error_class, result.error.kind, result.error.code) == ("structural", kind, kind)
    assert result.error.message.startswith(f"{param} is required" if kind == "missing_param" else f"{param}=")
    assert result.request is None and result.attempts == []


def test_the_refusal_names_what_the_schema_expects():
    tool = CATALOG["get_dart_company_overview"]
    refused = check_arguments(tool, {"corp_code": "1234"})
    assert pattern_of("corp_code") in refused.message and "corp_code format" in refused.message
    enum = check_arguments(CATALOG["search_dart_disclosures"], {"corp_cls": "X"})
    assert "must be one of Y, K, N, E" in enum.message


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_dart_company_overview", {"corp_code": "00104083"}),
        ("search_dart_disclosures", {}),  # paging parameters have defaults; nothing is required
        ("search_dart_disclosures", {"page_no": "2", "page_count": 5}),  # the CLI passes integers as text
        ("search_dart_disclosures", {"page_no": " 2 "}),
        ("search_dart_disclosures", {"corp_cls": ""}),  # an empty optional value counts as absent
        ("get_stock_price_trend", {"numOfRows": "99999999999999999999"}),  # ranges are the service's to judge
        ("get_stock_price_trend", {"numOfRows": -5}),
        ("get_seoul_subway_timetable", {"STATION_CD": "0222", "WEEK_TAG": "1", "INOUT_TAG": "1"}),
    ],
)
def test_calls_within_the_schema_pass(tool, args):
    assert check_arguments(CATALOG[tool], args) is None


def _required_without_default(tool) -> list[str]:
    return [p.name for p in tool.spec.params if p.required and p.default is None and not p.paging]


def test_only_parameters_nobody_fills_are_required_across_the_catalog():
    """Over every tool: an empty call is refused naming the first parameter that is required and has no
    default, and never names one the runtime or the wire fills itself (Seoul's required row window, paging
    parameters) nor the key, which travels outside the parameters."""
    seoul_windows = 0
    for name in CATALOG.tools:
        tool = CATALOG[name]
        if tool.family == "session":
            continue
        needed = _required_without_default(tool)
        refused = check_arguments(tool, {})
        if needed:
            assert refused is not None and refused.message.startswith(f"{needed[0]} is required"), name
        else:
            assert refused is None, (name, refused)
        filled = {p.name for p in tool.spec.params if p.required and p.name not in needed}
        seoul_windows += {"START_INDEX", "END_INDEX"} <= filled
        if tool.auth is not None:
            assert tool.auth.name not in {p.name for p in tool.spec.params}
    assert seoul_windows > 100


def test_a_seoul_call_without_its_row_window_is_sent_with_the_default_window(backend):
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "seoul"})
    result = runtime.call("search_seoul_subway_stations", {})
    assert result.ok and result.request is not None and "/1/100" in result.request


def test_keyed_calls_are_sent_with_the_key_the_runtime_holds(backend):
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    result = runtime.call("get_dart_company_overview", {"corp_code": "00104083"})
    assert result.ok and "crtfc_key=REDACTED" in result.request


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        # Session tools answer from the episode state and keep their own rules: add_watchlist_item's
        # name is optional to it (it stores ""), whatever the schema shows a model.
        ("add_watchlist_item", {"category": "stock", "code": "005930"}, None),
        ("remove_watchlist_item", {"category": "stock"}, "missing_param"),
        ("evaluate_expression", {}, "bad_expression"),
        ("get_current_date", {}, None),
    ],
)
def test_session_tools_keep_their_own_checks(untouched, sent, tool, args, expected):
    result = untouched.call(tool, args)
    assert (result.error.kind if result.error else None) == expected
    assert sent == []
