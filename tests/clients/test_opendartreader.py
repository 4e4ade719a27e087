"""OpenDartReader (FinanceData.KR, requests + pandas), unmodified, against the served simulator."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.clients
# The package replaces its module with the OpenDartReader class itself.
OpenDartReader = pytest.importorskip("OpenDartReader")

KEY = "0123456789abcdef0123456789abcdef01234567"  # a well-formed 40-hex DART key
STOCK = "253160"  # 라이트론 (KOSDAQ) in the small world


@pytest.fixture()
def dart(route_requests, tmp_path, monkeypatch):
    # The library caches the corp-code archive under ./docs_cache; keep that out of the repository.
    monkeypatch.chdir(tmp_path)
    return OpenDartReader(KEY)


def test_corp_code_archive_loads_into_the_library(dart, runtime):
    # The constructor downloads corpCode.xml (a zip of CORPCODE.xml) and parses it with ElementTree.
    found = runtime.call("find_dart_corp_code", {"corp_name": "라이트론"})
    assert found.ok
    assert dart.find_corp_code(STOCK) == found.records[0]["corp_code"]
    assert dart.find_corp_code("라이트론") == found.records[0]["corp_code"]
    assert len(dart.corp_codes) > 100


def test_company_overview(dart, runtime):
    corp_code = dart.find_corp_code(STOCK)
    company = dart.company(STOCK)
    expected = runtime.call("get_dart_company_overview", {"corp_code": corp_code}).records[0]
    assert company["status"] == "000"
    assert {k: company[k] for k in expected} == expected


def test_disclosure_list_matches_the_tool(dart, runtime):
    corp_code = dart.find_corp_code(STOCK)
    df = dart.list(STOCK, start="2025-01-01", end="2026-03-01", final=False)
    tool = runtime.call("search_dart_disclosures", {"corp_code": corp_code, "bgn_de": "20250101",
                                                    "end_de": "20260301", "page_count": 100})
    assert tool.ok and len(df) == tool.total_count > 0
    assert list(df["rcept_no"]) == [r["rcept_no"] for r in tool.records]


def test_key_accounts_and_no_data(dart, runtime):
    corp_code = dart.find_corp_code(STOCK)
    df = dart.finstate(STOCK, 2024)
    tool = runtime.call("get_dart_single_company_key_accounts",
                        {"corp_code": corp_code, "bsns_year": "2024", "reprt_code": "11011"})
    assert tool.ok and len(df) == tool.total_count
    assert df.to_dict("records") == tool.records
    # status 013 (조회된 데이타가 없습니다): the library prints the envelope and returns an empty frame.
    assert dart.finstate(STOCK, 2015).empty


def test_invalid_key_raises_the_library_error(route_requests, tmp_path, monkeypatch):
    # corpCode.xml answers the XML <result><status>010</status>…; the library raises ValueError with it.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="010"):
        OpenDartReader("invalid")
