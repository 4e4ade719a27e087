"""DART 주요사항보고서/정기보고서/지분공시/재무 and KRX 지수·ETP·신주인수권 breadth, end to end through the backend.

Ground truth (which company has which event) is read from the simulator's world tables, as studies do.
"""

from __future__ import annotations

import numpy as np
import pytest

from kopa.catalog.loader import load_catalog
from kopa.wire.registry import family_of
from sim.platforms.dart import api as sim_dart

KEY = "0123456789abcdef0123456789abcdef01234567"


def call(backend, tool_name: str, args: dict):
    tool = load_catalog()[tool_name]
    wire = family_of(tool.family)
    response = backend.client().send(wire.build(tool, args, KEY))
    return wire.parse(tool, args, response), response


def table_rows(simulator, name: str) -> list[dict]:
    table = simulator.world.table(name)
    return table.rows(np.arange(table.n_rows))


def test_catalog_counts():
    catalog = load_catalog()
    assert len(catalog.by_platform("dart")) >= 5 + 25
    assert len(catalog.by_platform("krx")) >= 7 + 6


@pytest.mark.parametrize("api", list(sim_dart._MAJOR))
def test_major_report_answers_with_catalog_fields(backend, simulator, api):
    tool_name = sim_dart._MAJOR[api][0]
    event = table_rows(simulator, f"dart_major_{api}")[0]
    parsed, _ = call(backend, tool_name, {"corp_code": event["corp_code"], "bgn_de": "20150101",
                                          "end_de": "20261231"})
    assert parsed.error is None
    assert event["rcept_no"] in {r["rcept_no"] for r in parsed.records}
    expected = [f.name for f in load_catalog()[tool_name].spec.output]
    assert list(parsed.records[0]) == expected


def test_major_event_window_and_list_agree(backend, simulator):
    event = table_rows(simulator, "dart_major_piicDecsn")[0]
    day = event["rcept_dt"]
    args = {"corp_code": event["corp_code"], "bgn_de": day, "end_de": day}
    parsed, _ = call(backend, "get_dart_paid_in_capital_increase_decision", args)
    assert [r["rcept_no"] for r in parsed.records] == [event["rcept_no"]]
    assert parsed.records[0]["nstk_ostk_cnt"].replace(",", "").isdigit() or parsed.records[0]["nstk_ostk_cnt"] == "-"
    listed, _ = call(backend, "search_dart_disclosures", {**args, "page_count": 100})
    assert ("주요사항보고서(유상증자결정)", event["rcept_no"]) in {(r["report_nm"], r["rcept_no"])
                                                              for r in listed.records}


def test_major_report_errors(backend, snapshot):
    parsed, response = call(backend, "get_dart_treasury_stock_acquisition_decision",
                            {"corp_code": "99999999", "bgn_de": "20250101", "end_de": "20251231"})
    assert (parsed.error.error_class, parsed.error.kind, parsed.error.code) == ("structural", "no_data", "013")
    assert response.text == snapshot
    parsed, _ = call(backend, "get_dart_treasury_stock_acquisition_decision",
                     {"corp_code": "1234", "bgn_de": "20250101", "end_de": "20251231"})
    assert (parsed.error.kind, parsed.error.code) == ("bad_param", "100")
    tool = load_catalog()["get_dart_company_merger_decision"]
    args = {"corp_code": "00104083", "bgn_de": "20250101", "end_de": "20251231"}
    response = backend.client().send(family_of("dart").build(tool, args, "invalid"))
    assert family_of("dart").parse(tool, args, response).error.error_class == "auth"


def test_anchor_company_keeps_its_single_convertible_bond(backend, world):
    parsed, _ = call(backend, "get_dart_convertible_bond_issuance_decision",
                     {"corp_code": "00104083", "bgn_de": "20260112", "end_de": "20260112"})
    assert [r["corp_name"] for r in parsed.records] == ["라이트론"]


def test_periodic_reports_agree_with_each_other_and_krx(backend, simulator):
    krx = {r["stock_code"]: r for r in table_rows(simulator, "krx_issue_base")}
    corp = next(r for r in table_rows(simulator, "dart_corp") if r["stock_code"].strip())
    args = {"corp_code": corp["corp_code"], "bsns_year": "2024", "reprt_code": "11011"}
    total, _ = call(backend, "get_dart_total_stock_status", args)
    common = next(r for r in total.records if r["se"] == "보통주")
    assert common["istc_totqy"].replace(",", "") == krx[corp["stock_code"]]["list_shrs"]
    holders, _ = call(backend, "get_dart_largest_shareholders", args)
    assert holders.records[0]["relate"] == "최대주주 본인" and holders.records[-1]["nm"] == "계"
    execs, _ = call(backend, "get_dart_executive_status", args)
    assert execs.records[0]["nm"] == corp["ceo_nm"]
    key, _ = call(backend, "get_dart_single_company_key_accounts", args)
    assert holders.records[0]["rcept_no"] == key.records[0]["rcept_no"]
    for tool in ("get_dart_dividend_info", "get_dart_employee_status", "get_dart_minority_shareholders"):
        parsed, _ = call(backend, tool, args)
        assert parsed.error is None and parsed.records[0]["stlm_dt"] == "2024-12-31"
    # Every periodic report filed since 2015 is served, under the 접수번호 공시검색 lists for it.
    older, _ = call(backend, "get_dart_dividend_info", {**args, "bsns_year": "2019"})
    listed, _ = call(backend, "search_dart_disclosures", {"corp_code": corp["corp_code"], "bgn_de": "20200101",
                                                          "end_de": "20200430", "page_count": 100})
    annual_2019 = [r["rcept_no"] for r in listed.records if r["report_nm"] == "사업보고서 (2019.12)"]
    assert older.error is None and [older.records[0]["rcept_no"]] == annual_2019
    not_yet, _ = call(backend, "get_dart_dividend_info", {**args, "bsns_year": "2025"})
    assert not_yet.error.code == "013"  # the 2025 사업보고서 is due after the world's today (2026-01-30)


def test_full_statements_carry_the_key_accounts(backend, simulator):
    corp = next(r for r in table_rows(simulator, "dart_corp") if r["stock_code"].strip())
    args = {"corp_code": corp["corp_code"], "bsns_year": "2024", "reprt_code": "11011"}
    full, _ = call(backend, "get_dart_full_financial_statements", {**args, "fs_div": "CFS"})
    key, _ = call(backend, "get_dart_single_company_key_accounts", args)
    key_cfs = {r["account_nm"]: r["thstrm_amount"].replace(",", "") for r in key.records if r["fs_div"] == "CFS"}
    by_name = {r["account_nm"]: r["thstrm_amount"] for r in full.records}
    assert by_name["자산총계"] == key_cfs["자산총계"] and by_name["자본총계"] == key_cfs["자본총계"]
    assert {r["sj_div"] for r in full.records} == {"BS", "IS", "CF"}


def test_multi_company_accounts(backend, simulator):
    codes = [r["corp_code"] for r in table_rows(simulator, "dart_corp") if r["stock_code"].strip()][:3]
    parsed, _ = call(backend, "get_dart_multi_company_key_accounts",
                     {"corp_code": ",".join(codes), "bsns_year": "2024", "reprt_code": "11011"})
    assert {r["corp_code"] for r in parsed.records} == set(codes)
    too_many, _ = call(backend, "get_dart_multi_company_key_accounts",
                       {"corp_code": ",".join([codes[0]] * 101), "bsns_year": "2024", "reprt_code": "11011"})
    assert too_many.error.code == "021"


def test_ownership_reports(backend, simulator):
    major = table_rows(simulator, "dart_major_stock")[0]
    parsed, _ = call(backend, "get_dart_major_shareholding_reports", {"corp_code": major["corp_code"]})
    assert major["rcept_no"] in {r["rcept_no"] for r in parsed.records}
    ele = table_rows(simulator, "dart_exec_stock")[0]
    parsed, _ = call(backend, "get_dart_executive_shareholding_reports", {"corp_code": ele["corp_code"]})
    assert parsed.records[0]["rcept_dt"][4] == "-"  # elestock alone writes YYYY-MM-DD


def last_trading_day(simulator) -> str:
    return table_rows(simulator, "krx_index_daily")[0]["BAS_DD"]


def test_krx_indices_follow_the_market(backend, simulator):
    day = last_trading_day(simulator)
    kospi, _ = call(backend, "get_krx_kospi_index_daily", {"basDd": day})
    names = [r["IDX_NM"] for r in kospi.records]
    assert names[:2] == ["코스피", "코스피 200"] and {r["IDX_CLSS"] for r in kospi.records} == {"KOSPI"}
    stocks, _ = call(backend, "get_krx_kospi_daily_trading", {"basDd": day})
    cap = sum(int(r["MKTCAP"]) for r in stocks.records)
    assert abs(int(kospi.records[0]["MKTCAP"]) - cap) <= 1
    krx, _ = call(backend, "get_krx_krx_index_daily", {"basDd": day})
    assert krx.records[0]["IDX_NM"] == "KRX 300"


def test_krx_holiday_and_bad_day(backend, snapshot):
    for tool in ("get_krx_kosdaq_index_daily", "get_krx_etf_daily_trading", "get_krx_etn_daily_trading",
                 "get_krx_warrant_daily_trading", "get_krx_rights_certificate_daily_trading"):
        parsed, response = call(backend, tool, {"basDd": "20260125"})  # a Sunday
        assert response.json() == {"OutBlock_1": []}
        assert parsed.error.kind == "no_data"
    parsed, response = call(backend, "get_krx_etf_daily_trading", {"basDd": "2026-01-23"})
    assert (response.status_code, parsed.error.kind) == (400, "bad_param")
    assert response.text == snapshot


def test_etps_and_warrants_link_to_stocks(backend, simulator):
    day = last_trading_day(simulator)
    etf, _ = call(backend, "get_krx_etf_daily_trading", {"basDd": day})
    stock_codes = {r["stock_code"] for r in table_rows(simulator, "krx_issue_base")}
    assert etf.records and not {r["ISU_CD"] for r in etf.records} & stock_codes
    etn, _ = call(backend, "get_krx_etn_daily_trading", {"basDd": day})
    assert etn.records and all(r["INDIC_VAL_AMT"].isdigit() for r in etn.records)
    warrant = table_rows(simulator, "krx_sw_daily")[0]
    parsed, _ = call(backend, "get_krx_warrant_daily_trading", {"basDd": warrant["BAS_DD"]})
    row = next(r for r in parsed.records if r["ISU_CD"] == warrant["ISU_CD"])
    assert row["TARSTK_ISU_SRT_CD"] in stock_codes and row["ISU_CD"] not in stock_codes
    prices, _ = call(backend, "get_stock_price_trend",
                     {"basDt": warrant["BAS_DD"], "likeSrtnCd": row["TARSTK_ISU_SRT_CD"], "numOfRows": 5})
    assert prices.records[0]["clpr"] == row["TARSTK_ISU_PRSNT_PRC"]
    bw = table_rows(simulator, "dart_major_bdwtIsDecsn")
    issuers = {r["corp_name"] for r in bw if r["bdwt_div_atn"] == "분리"}
    assert row["TARSTK_ISU_NM"] in issuers


def test_shared_codes_across_platforms(simulator):
    fsc = {}
    table = simulator.world.table("stock_daily_price")
    for r in table.rows(np.arange(min(table.n_rows, 500)), ["srtnCd", "isinCd"]):
        fsc[r["srtnCd"]] = r["isinCd"]
    base = table_rows(simulator, "krx_issue_base")
    dart_codes = {r["stock_code"] for r in table_rows(simulator, "dart_corp")}
    for r in base:
        assert r["stock_code"] in dart_codes
        if r["stock_code"] in fsc:
            assert fsc[r["stock_code"]] == r["isin"]
