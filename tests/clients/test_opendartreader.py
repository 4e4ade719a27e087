"""OpenDartReader (FinanceData.KR, requests + pandas), unmodified, against the served simulator."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.clients
# The package replaces its module with the OpenDartReader class itself.
OpenDartReader = pytest.importorskip("OpenDartReader")

KEY = "0123456789abcdef0123456789abcdef01234567"  # a well-formed 40-hex DART key
STOCK = "253160"  # 라이트론 (KOSDAQ) in the small world
SAMSUNG = "00126380"  # 삼성전자's real corp_code; the world holds it under its real codes


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
    # status 013 (조회된 데이타가 없습니다): the library prints the envelope and returns an empty frame. The
    # 2025 사업보고서 is due in March 2026, after the world's today (2026-01-30).
    assert dart.finstate(STOCK, 2025).empty


def test_a_key_validated_with_samsung_electronics(dart, runtime):
    # Clients and tutorials check a new key by asking for 삼성전자, corp_code 00126380 / stock code 005930.
    assert dart.find_corp_code("005930") == dart.find_corp_code("삼성전자") == SAMSUNG
    company = dart.company(SAMSUNG)
    assert company["status"] == "000"
    assert (company["corp_name"], company["stock_code"], company["jurir_no"]) == ("삼성전자", "005930", "1301110006246")
    assert company == {"status": "000", "message": "정상",
                       **runtime.call("get_dart_company_overview", {"corp_code": SAMSUNG}).records[0]}


def test_a_listed_annual_report_fetches_its_statements_and_sections(dart):
    # 공시검색's 사업보고서 (2019.12) — a decade back — and the statements and report sections filed with it
    # share its 접수번호.
    filed = dart.list(SAMSUNG, start="2020-01-01", end="2020-12-31", kind="A", final=False)
    annual = filed[filed["report_nm"] == "사업보고서 (2019.12)"]
    assert len(annual) == 1
    rcept_no = annual.iloc[0]["rcept_no"]
    statements = dart.finstate(SAMSUNG, 2019)
    assert not statements.empty and set(statements["rcept_no"]) == {rcept_no}
    dividends = dart.report(SAMSUNG, "배당", 2019)
    assert not dividends.empty and set(dividends["rcept_no"]) == {rcept_no}
    # The 연결 당기순이익 of the dividend section (백만원) is the statements' own.
    net = statements[(statements["fs_div"] == "CFS") & (statements["account_nm"] == "당기순이익")].iloc[0]
    section = dividends[dividends["se"] == "(연결)당기순이익(백만원)"].iloc[0]
    assert int(section["thstrm"].replace(",", "")) == int(net["thstrm_amount"].replace(",", "")) // 1_000_000
    # A quarterly report of the same year carries 누적금액 on its 손익 accounts.
    q3 = dart.finstate(SAMSUNG, 2019, reprt_code="11014")
    filed_q3 = dart.list(SAMSUNG, start="2019-10-01", end="2019-12-31", kind="A", final=False)
    assert set(q3["rcept_no"]) == set(filed_q3[filed_q3["report_nm"] == "분기보고서 (2019.09)"]["rcept_no"])
    # Its 누적금액 (thstrm_add_amount) on 손익 accounts is the sum of the three quarters' own amounts.
    quarters = [dart.finstate(SAMSUNG, 2019, reprt_code=code) for code in ("11013", "11012", "11014")]

    def amounts(frame, column):
        rows = frame[frame["sj_div"] == "IS"]
        return {(r.fs_div, r.account_nm): int(getattr(r, column).replace(",", "")) for r in rows.itertuples()}

    own = [amounts(frame, "thstrm_amount") for frame in quarters]
    assert amounts(q3, "thstrm_add_amount") == {k: sum(q[k] for q in own) for k in own[0]}


def test_every_ownership_filing_is_in_the_disclosure_list(dart):
    for stock in (STOCK, "005930"):
        listed = set(dart.list(stock, start="2015-01-01", end="2026-01-29", final=False)["rcept_no"])
        owners = dart.major_shareholders(stock)
        executives = dart.major_shareholders_exec(stock)
        filings = [*owners.get("rcept_no", []), *executives.get("rcept_no", [])]
        assert filings and set(filings) <= listed


def test_invalid_key_raises_the_library_error(route_requests, tmp_path, monkeypatch):
    # corpCode.xml answers the XML <result><status>010</status>…; the library raises ValueError with it.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="010"):
        OpenDartReader("invalid")
