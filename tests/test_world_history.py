"""History on demand: years of series generated per request, the same whatever was asked before, and one
identity per filing across DART's APIs."""

from __future__ import annotations

import datetime as dt

from kopa.tools.runtime import ToolRuntime
from sim.world.context import WorldConfig, WorldContext
from sim.world.prices import trading_days


def _fresh_runtime() -> ToolRuntime:
    """A new backend: a simulator with an empty history cache over the same world file."""
    from kopa.backends import open_backend

    runtime = ToolRuntime(open_backend("sim"))
    assert not runtime.backend.simulator.history._items
    for platform in ("dart", "krx", "edu", "seoul"):
        runtime.call("issue_api_key", {"platform": platform})
    return runtime


CALLS = [
    ("get_krx_kospi_daily_trading", {"basDd": "20160129"}),
    ("get_stock_price_trend", {"likeSrtnCd": "005930", "beginBasDt": "20150101", "endBasDt": "20150201"}),
    ("get_dart_single_company_key_accounts", {"corp_code": "00126380", "bsns_year": "2016", "reprt_code": "11012"}),
    ("get_seoul_subway_ridership", {"USE_DT": "20160127", "END_INDEX": 50}),
]


def test_a_date_answers_the_same_whatever_was_asked_before(world):
    forward, backward = _fresh_runtime(), _fresh_runtime()
    ahead = [forward.call(name, args).records for name, args in CALLS]
    behind = [backward.call(name, args).records for name, args in reversed(CALLS)][::-1]
    assert all(ahead) and ahead == behind


def test_a_later_world_keeps_the_past_as_it_was():
    from sim.platforms.dart import filings as dart_filings
    from sim.world import prices

    now, later = WorldContext(WorldConfig()), WorldContext(WorldConfig(today=dt.date(2026, 9, 30)))
    samsung_now = next(c for c in now.companies if c.corp_code == "00126380")
    samsung_later = next(c for c in later.companies if c.corp_code == "00126380")
    day = prices.day_index("20160129")
    assert prices.series(now, samsung_now)[:, : day + 1].tolist() == prices.series(later, samsung_later)[
        :, : day + 1].tolist()
    assert len(trading_days(later.today)) > len(trading_days(now.today))
    old = dart_filings.filing(now, "00126380", 2019, "11011")
    again = dart_filings.filing(later, "00126380", 2019, "11011")
    assert (old.rcept_no, old.rcept_dt) == (again.rcept_no, again.rcept_dt)
    assert dart_filings.key_account_rows(now, old) == dart_filings.key_account_rows(later, again)
    # the 2025 사업보고서, due in March 2026, is filed in the later world only
    assert dart_filings.filing(now, "00126380", 2025, "11011") is None
    assert dart_filings.filing(later, "00126380", 2025, "11011") is not None


def test_prices_cover_2010_to_yesterday(rt):
    first = rt.call("get_krx_kospi_daily_trading", {"basDd": "20100104"})
    yesterday = rt.call("get_krx_kospi_daily_trading", {"basDd": "20260129"})
    assert first.ok and yesterday.ok and len(first.records) == len(yesterday.records) > 0
    assert rt.call("get_krx_kospi_daily_trading", {"basDd": "20091230"}).records == []  # before the history
    assert rt.call("get_krx_kospi_daily_trading", {"basDd": "20260130"}).records == []  # today: not yet published


def test_every_listed_periodic_report_is_served_under_its_rcept_no(rt, world):
    corp = world.table("dart_corp")
    codes = [*corp.cols["corp_code"].vocab.tolist()[:12], "00126380"]
    checked = 0
    for code in codes:
        listed = rt.call("search_dart_disclosures", {"corp_code": code, "bgn_de": "20150101", "end_de": "20260129",
                                                     "pblntf_ty": "A", "page_count": 100})
        for report in listed.records if listed.ok else []:
            kind, period = report["report_nm"].split(" (")
            year, month = period.rstrip(")").split(".")
            reprt = {"사업보고서": "11011", "반기보고서": "11012"}.get(kind) or {"03": "11013", "09": "11014"}[month]
            args = {"corp_code": code, "bsns_year": year, "reprt_code": reprt}
            accounts = rt.call("get_dart_single_company_key_accounts", args)
            sections = rt.call("get_dart_total_stock_status", args)
            assert accounts.ok and {r["rcept_no"] for r in accounts.records} == {report["rcept_no"]}, report
            assert sections.ok and {r["rcept_no"] for r in sections.records} == {report["rcept_no"]}, report
            checked += 1
    assert checked > 40  # 삼성전자 alone files 4 reports a year since 2015


def test_every_ownership_filing_is_listed(rt, world):
    stock = world.table("dart_major_stock")
    executive = world.table("dart_exec_stock")
    for table in (stock, executive):
        rows = table.rows(table.select([]), ["corp_code", "rcept_no"])
        assert rows
        for row in rows[:15]:
            listed = rt.call("search_dart_disclosures", {"corp_code": row["corp_code"], "bgn_de": "20150101",
                                                         "end_de": "20260129", "pblntf_ty": "D", "page_count": 100})
            assert row["rcept_no"] in {r["rcept_no"] for r in listed.records}


def test_well_known_companies_agree_across_dart_krx_and_fsc(rt):
    for corp_code, stock_code, name in (("00126380", "005930", "삼성전자"), ("00164779", "000660", "SK하이닉스"),
                                        ("00401731", "066570", "LG전자"), ("00164742", "005380", "현대자동차"),
                                        ("00266961", "035420", "NAVER"), ("00258801", "035720", "카카오")):
        company = rt.call("get_dart_company_overview", {"corp_code": corp_code}).records[0]
        assert (company["corp_name"], company["stock_code"], company["corp_cls"]) == (name, stock_code, "Y")
        found = rt.call("find_dart_corp_code", {"corp_name": name}).records
        assert [r["corp_code"] for r in found if r["corp_name"] == name] == [corp_code]
        base = rt.call("get_krx_kospi_issue_base_info", {"basDd": "20260129"}).records
        isin = next(r["ISU_CD"] for r in base if r["ISU_SRT_CD"] == stock_code)
        fsc = rt.call("get_stock_price_trend", {"likeSrtnCd": stock_code, "basDt": "20260129"}).records[0]
        krx = rt.call("get_krx_kospi_daily_trading", {"basDd": "20260129"}).records
        day = next(r for r in krx if r["ISU_CD"] == stock_code)
        assert (fsc["itmsNm"], fsc["isinCd"], fsc["clpr"]) == (name, isin, day["TDD_CLSPRC"])
    samsung = rt.call("get_dart_company_overview", {"corp_code": "00126380"}).records[0]
    assert (samsung["jurir_no"], samsung["bizr_no"]) == ("1301110006246", "1248100998")


def test_every_school_has_whole_school_years(rt, world):
    schools = world.table("neis_school")
    rows = schools.rows(schools.select([]), ["ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE", "SCHUL_KND_SC_NM"])
    middle = [r for r in rows if r["SCHUL_KND_SC_NM"] == "중학교"][-1]
    keys = {k: middle[k] for k in ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")}
    year = rt.call("get_neis_school_meal_menu", {**keys, "MLSV_FROM_YMD": "20240301", "MLSV_TO_YMD": "20241231",
                                                  "MMEAL_SC_CODE": "2"})
    # 1학기 3월 4일–7월 24일 and 2학기 8월 18일–12월 23일 of 2024: weekdays less the fixed holidays
    holidays = {(1, 1), (3, 1), (5, 5), (6, 6), (8, 15), (10, 3), (10, 9), (12, 25), (12, 31)}
    spans = ((dt.date(2024, 3, 4), dt.date(2024, 7, 24)), (dt.date(2024, 8, 19), dt.date(2024, 12, 23)))
    days = [a + dt.timedelta(days=k) for a, b in spans for k in range((b - a).days + 1)]
    assert year.total_count == sum(1 for d in days if d.weekday() < 5 and (d.month, d.day) not in holidays)
    week = rt.call("get_neis_middle_school_timetable", {**keys, "TI_FROM_YMD": "20250901", "TI_TO_YMD": "20250905"})
    assert week.ok and {r["ALL_TI_YMD"] for r in week.records} <= {f"2025090{d}" for d in range(1, 6)}


def test_the_world_stays_small(world):
    # the stored samples of the series are weeks, not years
    counts = world.row_counts
    assert counts["stock_daily_price"] <= 20 * 200
    assert counts["dart_account"] < 5_000 and counts["seoul_subway_stats"] < 2_000
    assert sum(counts.values()) < 400_000


def test_indices_and_etps_cover_2010_too(rt, world):
    for tool in ("get_krx_kospi_index_daily", "get_krx_etf_daily_trading", "get_krx_etn_daily_trading"):
        old, new = rt.call(tool, {"basDd": "20160129"}), rt.call(tool, {"basDd": "20260129"})
        assert old.ok and new.ok and len(old.records) == len(new.records) > 0
        assert {r["BAS_DD"] for r in old.records} == {"20160129"}
        assert rt.call(tool, {"basDd": "20160130"}).records == []  # a Saturday
    # the stored sample is the same series: its last day answers as the endpoint does
    sample = world.table("krx_index_daily")
    last = sample.rows(sample.select([]), ["BAS_DD", "IDX_NM", "CLSPRC_IDX"])[0]
    served = rt.call("get_krx_kospi_index_daily", {"basDd": last["BAS_DD"]}).records
    assert {"BAS_DD": last["BAS_DD"], "IDX_NM": served[0]["IDX_NM"], "CLSPRC_IDX": served[0]["CLSPRC_IDX"]} == last
