"""교육데이터 end to end: NEIS over the portal family (A), 학교알리미 over the resultCode/list family (H)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import httpx
import pytest

from kopa.catalog.loader import Catalog, load_platform_file
from kopa.wire.base import Parsed
from kopa.wire.registry import family_of
from sim.endpoints import Bind, Endpoint
from sim.http import SimRequest
from sim.world.context import WorldConfig, WorldContext

CATALOG = Catalog([load_platform_file(Path(__file__).parents[1] / "kopa/catalog/data/edu.yaml")])
NEIS = "https://open.neis.go.kr/hub"


@pytest.fixture(scope="module")
def client(backend):
    with backend.client() as c:
        yield c


def call(backend, client, name: str, args: dict[str, Any], key: str | None = "issued") -> tuple[Parsed, httpx.Response]:
    tool = CATALOG[name]
    if key == "issued":
        key = backend.issue_key(tool.auth.key_id)
    wire = family_of(tool.family)
    response = client.send(wire.build(tool, args, key))
    return wire.parse(tool, args, response), response


def a_school(backend, client, stem: str = "중앙", kind: str = "초등학교") -> dict:
    parsed, _ = call(backend, client, "find_neis_school_code", {"SCHUL_NM": stem, "SCHUL_KND_SC_NM": kind})
    assert parsed.error is None
    return parsed.records[0]


def test_catalog_has_the_education_tools():
    assert len(CATALOG.tools) >= 14
    assert CATALOG["get_schoolinfo_student_count"].family == "schoolinfo"
    assert CATALOG["get_schoolinfo_student_count"].auth.name == "apiKey"
    assert CATALOG["get_neis_school_meal_menu"].auth.name == "KEY"


def test_school_name_search_spans_several_offices(backend, client):
    parsed, response = call(backend, client, "find_neis_school_code", {"SCHUL_NM": "중앙"})
    assert parsed.error is None and response.url.path == "/hub/schoolInfo"
    assert parsed.total_count == len(parsed.records) > 1
    assert all("중앙" in r["SCHUL_NM"] for r in parsed.records)
    assert len({r["ATPT_OFCDC_SC_CODE"] for r in parsed.records}) > 1
    assert all(len(r["SD_SCHUL_CODE"]) == 7 for r in parsed.records)


def test_school_codes_chain_to_meals_and_schedule(backend, client):
    school = a_school(backend, client)
    keys = {k: school[k] for k in ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")}
    meals, _ = call(backend, client, "get_neis_school_meal_menu", {**keys, "MLSV_YMD": "202512"})
    # One 중식 for every school day of December before 겨울방학 (12월 24일): weekdays but 성탄절 (and a
    # 석식 as well at the high schools that serve one).
    december = [dt.date(2025, 12, d) for d in range(1, 24)]
    school_days = sum(1 for d in december if d.weekday() < 5)
    lunches = [r for r in meals.records if r["MMEAL_SC_CODE"] == "2"]
    assert meals.error is None and len(lunches) == school_days == 17
    assert {r["SCHUL_NM"] for r in meals.records} == {school["SCHUL_NM"]}
    assert all(r["MLSV_YMD"].startswith("202512") and "<br/>" in r["DDISH_NM"] for r in meals.records)
    # The virtual today (2026-01-30) falls in 겨울방학: no menu, as live.
    today, _ = call(backend, client, "get_neis_school_meal_menu", {**keys, "MLSV_YMD": "20260130"})
    assert (today.error.error_class, today.error.kind, today.error.code) == ("structural", "no_data", "INFO-200")
    schedule, _ = call(backend, client, "get_neis_school_schedule",
                       {**keys, "AA_FROM_YMD": "20250801", "AA_TO_YMD": "20250831"})
    assert {r["EVENT_NM"] for r in schedule.records} >= {"광복절", "2학기 개학식"}


def test_paging_and_sample_mode(backend, client):
    parsed, _ = call(backend, client, "search_neis_academies", {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 50})
    assert parsed.total_count > 50 and len(parsed.records) == 50 and parsed.page.total_pages > 1
    last = parsed.page.total_pages
    tail, _ = call(backend, client, "search_neis_academies",
                   {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 50, "pIndex": last})
    assert 0 < len(tail.records) <= 50 and tail.total_count == parsed.total_count
    past, _ = call(backend, client, "search_neis_academies",
                   {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 50, "pIndex": last + 1})
    assert past.error.code == "INFO-200"
    sample, _ = call(backend, client, "search_neis_academies", {"ATPT_OFCDC_SC_CODE": "B10", "pSize": 100}, key=None)
    assert sample.error is None and len(sample.records) == 5 and sample.total_count == parsed.total_count


@pytest.mark.parametrize(("args", "key", "expected"), [
    ({"ATPT_OFCDC_SC_CODE": "B10"}, "invalid", ("auth", "invalid_key", "ERROR-290")),
    ({}, "issued", ("structural", "missing_param", "ERROR-300")),
    ({"ATPT_OFCDC_SC_CODE": "B10", "pSize": 1001}, "issued", ("structural", "bad_param", "ERROR-336")),
    ({"ATPT_OFCDC_SC_CODE": "B10", "pIndex": "first"}, "issued", ("structural", "bad_param", "ERROR-333")),
    ({"ATPT_OFCDC_SC_CODE": "Z99"}, "issued", ("structural", "no_data", "INFO-200")),
    ({"ATPT_OFCDC_SC_CODE": "seoul"}, "issued", ("structural", "no_data", "INFO-200")),
])
def test_portal_errors(backend, client, args, key, expected, snapshot):
    parsed, response = call(backend, client, "search_neis_academies", args, key=key)
    err = parsed.error
    assert (err.error_class, err.kind, err.code) == expected
    assert response.status_code == 200 and response.text == snapshot


def test_unknown_service_and_xml(backend, client, snapshot):
    key = backend.issue_key("neis")
    unknown = client.get(f"{NEIS}/noSuchService", params={"KEY": key, "Type": "json"})
    tool = CATALOG["find_neis_school_code"]
    parsed = family_of("portal").parse(tool, {}, unknown)
    assert (parsed.error.kind, parsed.error.code) == ("unknown_service", "ERROR-310")
    xml_error = client.get(f"{NEIS}/schoolInfo", params={"KEY": "invalid"})  # Type defaults to xml
    assert xml_error.text == snapshot
    assert family_of("portal").parse(tool, {}, xml_error).error.code == "ERROR-290"
    args = {"SCHUL_NM": "중앙", "Type": "xml"}
    as_xml, response = call(backend, client, "find_neis_school_code", args)
    as_json, _ = call(backend, client, "find_neis_school_code", {"SCHUL_NM": "중앙"})
    assert response.text.startswith("<?xml") and as_xml.records == as_json.records
    assert as_xml.total_count == as_json.total_count


def test_portal_options_for_other_portals(world):
    """열린국회정보's WAF and sample key, 경기데이터드림's case-insensitive names, on a test endpoint."""
    from sim.app import Simulator

    sim = Simulator(world)
    for host, opts in (("waf.test", {"require_user_agent": True, "invalid_keys": ("sample",), "key_id": "assembly"}),
                       ("fold.test", {"fold_case": True, "key_id": "gg"})):
        sim.endpoints[(host, "SCHOOLS")] = Endpoint(
            "portal", host, "SCHOOLS", "neis_school", binds={"SCHUL_NM": Bind("SCHUL_NM", "contains")},
            fields=("SD_SCHUL_CODE", "SCHUL_NM"), options=opts)
        sim.host_family[host] = "portal"
    bare = sim.handle(SimRequest.from_parts("GET", "waf.test", "/portal/openapi/SCHOOLS", "KEY=k&Type=json", {}))
    assert (bare.status, bare.body) == (400, b"Bad Request.")
    ua = {"User-Agent": "kopa-test"}
    sample = sim.handle(SimRequest.from_parts("GET", "waf.test", "/portal/openapi/SCHOOLS", "KEY=sample&Type=json", ua))
    assert b"ERROR-290" in sample.body
    folded = sim.handle(SimRequest.from_parts("GET", "fold.test", "/SCHOOLS",
                                              "key=k&type=json&psize=3&schul_nm=%EC%A4%91%EC%95%99", ua))
    body = httpx.Response(200, content=folded.body).json()["SCHOOLS"]
    assert body[0]["head"][1]["RESULT"]["CODE"] == "INFO-000" and len(body[1]["row"]) <= 3
    assert all("중앙" in r["SCHUL_NM"] for r in body[1]["row"])


def test_schoolinfo_student_count_chain(backend, client):
    """시도·시군구 → sggCode → 학교알리미 학생수 (e.g. 제주 중학교 특수학급 학생수)."""
    args = {"pbanYr": "2025", "sidoCode": "50", "sggCode": "50110", "schulKndCode": "03"}
    parsed, response = call(backend, client, "get_schoolinfo_student_count", args)
    assert response.url.params["apiType"] == "09" and parsed.error is None
    assert parsed.records and all(r["PBAN_YR"] == "2025" and r["SCHUL_CODE"].startswith("T10") for r in parsed.records)
    for r in parsed.records:
        assert int(r["COL_8"]) == sum(int(r[f"COL_{g}"]) for g in range(1, 7))
        assert 0 <= int(r["COL_7"]) <= int(r["COL_8"])
    elementary, _ = call(backend, client, "get_schoolinfo_academic_achievement", {**args, "schulKndCode": "02"})
    assert (elementary.error.error_class, elementary.error.kind) == ("structural", "no_data")


@pytest.mark.parametrize(("args", "key", "expected"), [
    ({"pbanYr": "2021"}, "issued", ("structural", "bad_param", "E004")),
    ({"sggCode": "5011"}, "issued", ("structural", "bad_param", "E003")),
    ({"sggCode": None}, "issued", ("structural", "missing_param", "E002")),
    ({}, "invalid", ("auth", "invalid_key", "E001")),
])
def test_schoolinfo_errors(backend, client, args, key, expected, snapshot):
    base = {"pbanYr": "2025", "sidoCode": "50", "sggCode": "50110", "schulKndCode": "03"}
    parsed, response = call(backend, client, "get_schoolinfo_student_count", {**base, **args}, key=key)
    err = parsed.error
    assert (err.error_class, err.kind, err.code) == expected
    assert response.text == snapshot


def test_tables_are_deterministic():
    from sim.platforms.edu import neis, schoolinfo

    def build():
        ctx = WorldContext(WorldConfig(seed=3, scale="small"))
        return [(t.name, t.columns) for t in (*neis.tables(ctx), *schoolinfo.tables(ctx))]

    first, second = build(), build()
    assert first == second
    for _, columns in first:
        for values in columns.values():
            assert len({type(v) for v in values}) <= 1
