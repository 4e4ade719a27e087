"""국가법령정보센터 DRF (family F) and 예금보험공사 KDIC (data.go.kr family), end to end through the sim
backend: build with the wire family, send over the in-process transport, parse, and compare with the
simulator's tables (its truth)."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
import pytest

from kopa.catalog.loader import load_catalog
from kopa.wire import family_of
from kopa.wire.base import Parsed
from sim.platforms.kdic import api as kdic_platform
from sim.platforms.law import api as law_platform
from sim.world.context import WorldConfig, WorldContext
from sim.world.table import Cond

OC = "lawsimuser"
SERVICE_KEY = "0" * 64


@pytest.fixture(scope="module")
def client(backend):
    with backend.client() as c:
        yield c


@pytest.fixture(scope="module")
def tables(backend):
    return backend.simulator.world.tables


def call(client: httpx.Client, name: str, args: dict[str, Any], key: str | None) -> tuple[httpx.Response, Parsed]:
    tool = load_catalog()[name]
    wire = family_of(tool.family)
    response = client.send(wire.build(tool, args, key))
    return response, wire.parse(tool, args, response)


def law(client, name, args, key=OC):
    return call(client, name, args, key)


def kdic(client, name, args, key=SERVICE_KEY):
    return call(client, name, args, key)


# ---------------------------------------------------------------- catalog ↔ simulator


def test_catalog_tool_counts_and_every_tool_has_an_endpoint(backend):
    catalog = load_catalog()
    # The platforms' own endpoints; their generated long tail (data.go.kr datasets) is in tests/test_longtail.py.
    law_tools = [t for t in catalog.by_platform("law") if t.spec.real]
    kdic_tools = [t for t in catalog.by_platform("kdic") if t.spec.real]
    assert len(law_tools) >= 12 and len(kdic_tools) >= 8
    sim = backend.simulator
    for tool in law_tools:
        service = tool.spec.path.rsplit("/", 1)[-1]
        assert sim.endpoint("www.law.go.kr", f"{service}?target={tool.spec.fixed['target']}"), tool.name
    for tool in kdic_tools:
        assert sim.endpoint("apis.data.go.kr", tool.spec.path), tool.name


def test_tables_are_deterministic_and_typed():
    ctx_a, ctx_b = (WorldContext(WorldConfig(seed=3, scale="small")) for _ in range(2))
    for module in (law_platform, kdic_platform):
        a, b = module.tables(ctx_a), module.tables(ctx_b)
        assert [t.columns for t in a] == [t.columns for t in b]
        for t in a:
            assert t.name.startswith(("law_", "kdic_"))
            for column, values in t.columns.items():
                assert len({type(v) for v in values}) == 1, (t.name, column)


# ---------------------------------------------------------------- law: chains


def test_law_name_to_mst_to_articles(client, tables):
    _, found = law(client, "search_current_laws", {"query": "산업안전보건"})
    assert found.error is None and found.total_count == len(found.records) >= 1
    first = found.records[0]
    assert first["현행연혁코드"] == "현행" and "산업안전보건" in first["법령명한글"]
    _, body = law(client, "get_law_text", {"MST": first["법령일련번호"]})
    articles = tables["law_article"]
    expected = articles.select([Cond("법령ID", "eq", first["법령ID"])])
    assert body.error is None and len(body.records) == len(expected)
    assert {r["조문여부"] for r in body.records} <= {"조문", "전문"}
    assert body.records[1]["조문제목"] == "목적"  # after the 제1장 heading
    # 법령ID and JO pick one 조문; 제3조 → 000300.
    _, one = law(client, "get_law_text", {"ID": first["법령ID"], "JO": "000300"})
    assert [(r["조문번호"], r["조문가지번호"]) for r in one.records] == [("3", "")]


def test_lawjosub_narrows_to_one_paragraph_as_a_lone_object(client, tables):
    articles = tables["law_article"]
    idx = articles.select([Cond("항", "contains", "②")])
    law_id, jo = articles.value(int(idx[0]), "법령ID"), articles.value(int(idx[0]), "jo")
    response, parsed = law(client, "get_law_provision", {"ID": law_id, "JO": jo, "HANG": "000200"})
    unit = response.json()["법령"]["조문"]["조문단위"]
    assert isinstance(unit, dict) and isinstance(unit["항"], dict)  # XML→JSON lone-element quirk
    assert parsed.records == [unit] and unit["항"]["항번호"] == "②"
    _, missing = law(client, "get_law_provision", {"ID": law_id, "JO": jo, "HANG": "009900"})
    assert missing.error is not None and missing.error.kind == "no_data"


def test_eflaw_lists_every_version_and_nw3_one_per_law(client):
    _, current = law(client, "search_current_laws", {"display": 1})
    _, versions = law(client, "search_laws_by_effective_date", {"display": 100})
    _, in_force = law(client, "search_laws_by_effective_date", {"nw": "3"})
    assert versions.total_count > 2 * current.total_count
    assert in_force.total_count == current.total_count
    law_id = versions.records[0]["법령ID"]
    _, history = law(client, "search_laws_by_effective_date", {"LID": law_id, "display": 100})
    assert len({r["법령일련번호"] for r in history.records}) == history.total_count >= 2
    assert {r["법령ID"] for r in history.records} == {law_id}
    assert [r["현행연혁코드"] for r in history.records].count("현행") == 1


def test_precedent_search_to_text(client):
    _, found = law(client, "search_court_precedents", {"query": "손해배상", "display": 5})
    assert found.error is None and found.total_count > 5 and len(found.records) == 5
    assert all("손해배상" in r["사건명"] for r in found.records)
    _, text = law(client, "get_court_precedent_text", {"ID": found.records[0]["판례일련번호"]})
    assert text.records[0]["판례정보일련번호"] == found.records[0]["판례일련번호"]
    assert " 제" in text.records[0]["참조조문"]


def test_admin_rule_ordinance_and_interpretation(client):
    _, rules = law(client, "search_admin_rules", {"display": 1})
    assert len(rules.records) == 1 and rules.total_count > 1
    _, rule = law(client, "get_admin_rule_text", {"ID": rules.records[0]["행정규칙일련번호"]})
    assert rule.records[0]["행정규칙명"] == rules.records[0]["행정규칙명"]
    _, ordin = law(client, "search_local_ordinances", {"query": "서울특별시 강남구"})
    assert ordin.total_count >= 1 and all(r["지자체기관명"] == "서울특별시 강남구" for r in ordin.records)
    _, expc = law(client, "search_legal_interpretations", {"display": 3})
    _, one = law(client, "get_legal_interpretation_text", {"ID": expc.records[0]["법령해석례일련번호"]})
    assert one.records[0]["안건명"] == expc.records[0]["안건명"]


def test_lone_search_row_is_an_object(client):
    response, parsed = law(client, "search_admin_rules", {"display": 1})
    assert isinstance(response.json()["AdmRulSearch"]["admrul"], dict)
    assert len(parsed.records) == 1


def test_xml_answer_parses_like_json(client):
    tool = load_catalog()["search_current_laws"]
    request = family_of("law").build(tool, {"query": "건축"}, OC)
    xml_request = httpx.Request("GET", request.url.copy_set_param("type", "XML"))
    response = client.send(xml_request)
    assert response.text.startswith("<?xml") and "<LawSearch>" in response.text
    parsed = family_of("law").parse(tool, {"query": "건축"}, response)
    _, as_json = law(client, "search_current_laws", {"query": "건축"})
    assert parsed.records == as_json.records


# ---------------------------------------------------------------- law: errors


@pytest.mark.parametrize("key", [None, "invalid"])
def test_law_bad_oc_is_auth_with_http_200(client, snapshot, key):
    response, parsed = law(client, "search_current_laws", {"query": "민법"}, key=key)
    assert response.status_code == 200
    assert parsed.error.error_class == "auth" and parsed.error.kind == "invalid_key"
    assert response.text == snapshot


def test_law_unknown_mst_and_malformed_id_are_no_data(client, snapshot):
    response, parsed = law(client, "get_law_text", {"MST": "100001"})
    assert parsed.error.error_class == "structural" and parsed.error.kind == "no_data"
    assert response.text == snapshot
    _, malformed = law(client, "get_law_text", {"ID": "abc"})
    assert malformed.error.kind == "no_data"


def test_law_search_no_data_and_page_past_end(client, snapshot):
    response, empty = law(client, "search_current_laws", {"query": "존재하지않는법령"})
    assert empty.error.kind == "no_data" and empty.total_count == 0
    assert response.text == snapshot
    _, all_laws = law(client, "search_current_laws", {"display": 100})
    _, past = law(client, "search_current_laws", {"display": 100, "page": all_laws.page.total_pages + 1})
    assert past.error.kind == "page_out_of_range" and past.total_count == all_laws.total_count


def test_law_unknown_target_is_unknown_service(client):
    response = client.get("https://www.law.go.kr/DRF/lawSearch.do", params={"OC": OC, "target": "nope",
                                                                          "type": "JSON"})
    parsed = family_of("law").parse(load_catalog()["search_current_laws"], {}, response)
    assert parsed.error.kind == "unknown_service" and parsed.error.error_class == "structural"


# ---------------------------------------------------------------- KDIC


def test_kdic_crpno_is_dart_jurir_no(tables):
    """Referential integrity: every 부보금융회사 is a DART company, and crpno/crno carry its jurir_no."""
    dart = tables["dart_corp"]
    dart_rows = dart.rows(dart.select([]), ["corp_name", "jurir_no"])
    jurir_of = {r["corp_name"]: r["jurir_no"] for r in dart_rows}
    for name in ("kdic_mngmt_bank", "kdic_mngmt_life", "kdic_mngmt_nonlife", "kdic_mngmt_invest"):
        t = tables[name]
        for row in t.rows(t.select([]), ["dvsnNm", "crpno"]):
            assert jurir_of[row["dvsnNm"]] == row["crpno"]
    bins = tables["kdic_fsc_bins"]
    for row in bins.rows(bins.select([]), ["fncoNm", "crno"]):
        assert jurir_of[row["fncoNm"]] == row["crno"]


def test_company_name_to_dart_jurir_no_to_kdic_management(client):
    _, banks = kdic(client, "list_kdic_insured_institutions", {"fncsecDscdNm": "은행", "numOfRows": 100})
    assert banks.error is None and banks.total_count == len(banks.records) >= 1
    name = banks.records[0]["fnccmpNm"]
    _, corps = call(client, "find_dart_corp_code", {"corp_name": name}, "d" * 40)
    corp_code = next(r["corp_code"] for r in corps.records if r["corp_name"] == name)
    _, overview = call(client, "get_dart_company_overview", {"corp_code": corp_code}, "d" * 40)
    jurir_no = overview.records[0]["jurir_no"]
    _, mngmt = kdic(client, "get_kdic_bank_management_status", {"crpno": jurir_no, "numOfRows": 100})
    assert mngmt.error is None and mngmt.total_count >= 2  # one row per published quarter
    assert {(r["dvsnNm"], r["crpno"]) for r in mngmt.records} == {(name, jurir_no)}
    _, bins = kdic(client, "get_fsc_insured_institution_info", {"crno": jurir_no})
    assert {r["binsFncoAraCdNm"] for r in bins.records} == {"은행"}
    assert {r["binsFncoAraCd"] for r in bins.records} == {"01"}


def test_kdic_management_ok_code_is_zero(client):
    response, parsed = kdic(client, "get_kdic_life_insurer_management_status", {"numOfRows": 1})
    assert response.json()["response"]["header"] == {"resultCode": "0", "resultMsg": "OK"}
    assert isinstance(response.json()["response"]["body"]["items"]["item"], dict)  # lone item
    assert parsed.error is None and len(parsed.records) == 1 and parsed.total_count > 1


def test_kdic_other_datasets_answer(client):
    for name, args in [("get_kdic_deposit_trend", {"fncsecDscdNm": "저축은행"}),
                       ("list_kdic_failed_institutions", {"fnccmpNm": "상호저축은행"}),
                       ("get_kdic_fund_raising_history", {}),
                       ("list_kdic_special_account_bonds", {"bndKdcdNm": "예금보험기금채권"}),
                       ("list_kdic_publications", {"title": "연차보고서"})]:
        _, parsed = kdic(client, name, args)
        assert parsed.error is None and parsed.total_count >= 1, name
    _, reports = kdic(client, "list_kdic_publications", {"numOfRows": 100})
    assert reports.total_count == 57


def test_kdic_missing_key_is_gateway_xml(client, snapshot):
    response, parsed = kdic(client, "list_kdic_insured_institutions", {}, key=None)
    assert parsed.error.error_class == "auth" and parsed.error.code == "30"
    assert response.text == snapshot


def test_kdic_bad_and_unknown_crpno(client, snapshot):
    response, bad = kdic(client, "get_kdic_bank_management_status", {"crpno": "12-34"})
    assert (bad.error.kind, bad.error.code) == ("bad_param", "10")
    assert response.text == snapshot
    response, unknown = kdic(client, "get_kdic_bank_management_status", {"crpno": "9999999999999"})
    assert (unknown.error.kind, unknown.error.code) == ("no_data", "03")
    assert response.text == snapshot


def test_kdic_page_past_end(client):
    _, first = kdic(client, "get_kdic_fund_raising_history", {"numOfRows": 100})
    _, past = kdic(client, "get_kdic_fund_raising_history", {"numOfRows": 100,
                                                              "pageNo": first.page.total_pages + 1})
    assert past.error.kind == "page_out_of_range" and past.total_count == first.total_count


def test_law_body_rows_decode_as_json():
    # 항 is stored as JSON text in the world and served as nested objects.
    ctx = WorldContext(WorldConfig(seed=0, scale="small"))
    articles = next(t for t in law_platform.tables(ctx) if t.name == "law_article")
    stored = [h for h in articles.columns["항"] if h]
    assert stored and all(isinstance(orjson.loads(h), list) for h in stored[:50])
