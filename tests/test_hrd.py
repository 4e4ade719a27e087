"""HRD Korea end to end: HRD-Net / 고용24 훈련과정 (family hrd) and Q-Net 국가자격 (family datagokr).

Every call goes catalog tool → wire build → in-process simulator → wire parse; expected values come
from the world's tables (the simulator's truth), never from the answer under test.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from kopa.catalog.loader import load_catalog
from kopa.wire.registry import family_of
from sim.http import SimRequest
from sim.platforms.hrd import hrdnet as hrd_platform
from sim.platforms.hrd import qnet as qnet_platform
from sim.world.context import WorldConfig, WorldContext
from tests.wire import send

KEY = "hrd-test-key"
YEAR_2025 = {"srchTraStDt": "20250101", "srchTraEndDt": "20251231"}


def call(backend, name: str, args: dict, key: str | None = KEY, **overrides: str):
    return send(backend, name, args, key, **overrides)


def column(world, table: str, name: str) -> list:
    t = world.table(table)
    return t.cols[name].vocab[t.cols[name].codes].tolist()


# ---------------------------------------------------------------- HRD-Net / 고용24


def test_list_counts_the_date_window(backend, world):
    response, parsed = call(backend, "search_hrd_training_courses", {**YEAR_2025, "pageSize": 5})
    assert response.json().keys() == {"returnJSON"}  # JSON string inside JSON on the legacy host
    expected = sum("20250101" <= d <= "20251231" for d in column(world, "hrd_course_round", "stdt"))
    assert parsed.error is None
    assert parsed.total_count == expected > 100
    assert len(parsed.records) == 5 and parsed.page.total_pages == -(-expected // 5)
    assert all(r["traStartDate"].startswith("2025-") for r in parsed.records)
    assert all(r["trprId"].startswith("AIG") and len(r["trprId"]) == 17 for r in parsed.records)


def test_chain_course_name_to_detail_schedule_and_attendance(backend, world):
    titles = column(world, "hrd_course_round", "title")
    ids = column(world, "hrd_course_round", "trprId")
    stdt = column(world, "hrd_course_round", "stdt")
    name = titles[0]
    _, found = call(backend, "search_hrd_training_courses",
                    {"srchTraStDt": "20000101", "srchTraEndDt": "20301231", "srchTraProcessNm": name,
                     "pageSize": 100})
    assert found.total_count == sum(name in t for t in titles)
    first = found.records[0]
    _, detail = call(backend, "get_hrd_course_detail",
                     {"srchTrprId": first["trprId"], "srchTrprDegr": first["trprDegr"]})
    assert detail.records[0]["trprNm"] == first["title"] and detail.records[0]["inoNm"] == first["subTitle"]
    _, schedule = call(backend, "get_work24_course_schedule",
                       {"srchTrprId": first["trprId"], "srchTorgId": first["trainstCstId"]})
    assert schedule.total_count == ids.count(first["trprId"])
    assert [r["trprDegr"] for r in schedule.records] == [str(i) for i in range(1, ids.count(first["trprId"]) + 1)]
    # 출결: a round in training has one row per 수강신청 인원; a future round has none.
    today = world.config.today.strftime("%Y%m%d")
    ends = column(world, "hrd_course_round", "traEndDate")
    live = next(i for i in range(len(ids)) if stdt[i] <= today <= ends[i].replace("-", ""))
    row = world.table("hrd_course_round").rows(np.array([live]))[0]
    args = {"srchTrprId": row["trprId"], "srchTrprDegr": row["trprDegr"], "srchTorgId": row["trainstCstId"]}
    _, att = call(backend, "get_hrd_course_attendance", args)
    assert len(att.records) == row["regCourseMan"]
    assert {r["trneeSttusNm"] for r in att.records} <= {"훈련중", "중도탈락"}
    future = next(i for i in range(len(ids)) if stdt[i] > today)
    row = world.table("hrd_course_round").rows(np.array([future]))[0]
    _, none = call(backend, "get_hrd_course_attendance",
                   {"srchTrprId": row["trprId"], "srchTrprDegr": row["trprDegr"], "srchTorgId": row["trainstCstId"]})
    assert none.error.kind == "no_data" and none.error.error_class == "structural"


def test_region_type_and_sort_filters(backend, world):
    _, everything = call(backend, "search_hrd_training_courses", {**YEAR_2025, "srchTraArea1": "00"})
    _, plain = call(backend, "search_hrd_training_courses", YEAR_2025)
    assert everything.total_count == plain.total_count
    _, seoul = call(backend, "search_hrd_training_courses", {**YEAR_2025, "srchTraArea1": "11", "pageSize": 100})
    assert 0 < seoul.total_count < plain.total_count
    assert all(r["address"].startswith("서울특별시") for r in seoul.records)
    counts = [call(backend, "search_hrd_training_courses", {**YEAR_2025, "crseTracseSe": c})[1].total_count
              for c in ("C0061", "C0104", "C0061,C0104")]
    assert counts[0] > 0 and counts[0] + counts[1] == counts[2]
    _, by_size = call(backend, "search_hrd_training_courses",
                      {**YEAR_2025, "sort": "DESC", "sortCol": "TOT_FXNUM", "pageSize": 50})
    sizes = [int(r["yardMan"]) for r in by_size.records]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 30


def test_xml_is_euc_kr_and_parses_like_json(backend):
    args = {**YEAR_2025, "pageSize": 3}
    response, xml = call(backend, "search_hrd_training_courses", args, returnType="XML")
    assert response.headers["content-type"] == "text/xml;charset=EUC-KR"
    assert response.content.startswith(b'<?xml version="1.0" encoding="EUC-KR"?><HRDNet>')
    _, js = call(backend, "search_hrd_training_courses", args)
    assert xml.records == js.records and xml.total_count == js.total_count


def test_work24_answers_unwrapped(backend):
    response, parsed = call(backend, "search_work24_training_courses", {**YEAR_2025, "pageSize": 2})
    body = response.json()
    assert body["scn_cnt"] == parsed.total_count and len(body["srchList"]) == 2


@pytest.mark.parametrize(("case", "name", "args", "key", "expected"), [
    ("invalid_key", "search_hrd_training_courses", YEAR_2025, "invalid", ("auth", "invalid_key", "E01")),
    ("missing_key", "search_hrd_training_courses", YEAR_2025, None, ("auth", "missing_key", "E00")),
    ("missing_dates", "search_hrd_training_courses", {"srchTraStDt": "20250101"}, KEY,
     ("structural", "missing_param", "E10")),
    ("bad_date", "search_hrd_training_courses", {"srchTraStDt": "2025-01-01", "srchTraEndDt": "20251231"}, KEY,
     ("structural", "bad_param", "E11")),
    ("page_size_over_100", "search_hrd_training_courses", {**YEAR_2025, "pageSize": 101}, KEY,
     ("structural", "bad_param", "E11")),
    ("page_past_end", "search_hrd_training_courses", {**YEAR_2025, "pageNum": 999, "pageSize": 100}, KEY,
     ("structural", "page_out_of_range", "scn_cnt")),
    ("no_match", "search_hrd_training_courses", {**YEAR_2025, "srchTraProcessNm": "존재하지않는과정"}, KEY,
     ("structural", "no_data", "scn_cnt=0")),
    ("bad_trpr_id", "get_hrd_course_detail", {"srchTrprId": "AIG123", "srchTrprDegr": "1"}, KEY,
     ("structural", "bad_param", "E11")),
    ("unknown_trpr_id", "get_hrd_course_detail", {"srchTrprId": "AIG20259999999999", "srchTrprDegr": "1"}, KEY,
     ("structural", "no_data", "empty")),
    ("work24_missing_torg", "get_work24_course_detail", {"srchTrprId": "AIG20259999999999", "srchTrprDegr": "1"},
     KEY, ("structural", "missing_param", "E10")),
])
def test_hrd_errors(backend, snapshot, case, name, args, key, expected):
    response, parsed = call(backend, name, args, key)
    assert (parsed.error.error_class, parsed.error.kind, parsed.error.code) == expected
    assert parsed.records == []
    assert response.text == snapshot


def test_unknown_path_is_html_404(simulator, backend):
    answer = simulator.handle(SimRequest.from_parts("GET", "www.hrd.go.kr", "/jsp/HRDP/nosuch.jsp",
                                                    "authKey=k&returnType=JSON", {}))
    assert answer.status == 404 and answer.content_type.startswith("text/html")
    tool = load_catalog()["search_hrd_training_courses"]
    request = family_of("hrd").build(tool, YEAR_2025, KEY)
    request.url = request.url.copy_with(path="/jsp/HRDP/nosuch.jsp")
    parsed = family_of("hrd").parse(tool, YEAR_2025, backend.client().send(request))
    assert (parsed.error.error_class, parsed.error.kind) == ("structural", "unknown_service")


# ---------------------------------------------------------------- Q-Net


def _find_jm(backend, name: str) -> str:
    page = 1
    while True:
        _, parsed = call(backend, "list_qnet_qualifications", {"numOfRows": 50, "pageNo": page})
        for r in parsed.records:
            if r["jmfldnm"] == name:
                return r["jmcd"]
        if page >= parsed.page.total_pages:
            raise AssertionError(f"{name} not listed")
        page += 1


def test_qnet_chain_name_to_jmcd_to_info_schedule_fee_subjects(backend, world):
    response, listed = call(backend, "list_qnet_qualifications", {"numOfRows": 5})
    assert response.content.startswith(b"<?xml")  # the older host answers XML
    assert listed.total_count == world.table("qnet_jm").n_rows
    jm = _find_jm(backend, "정보처리기사")
    assert jm == "1320"
    _, info = call(backend, "get_qnet_qualification_info", {"jmCd": jm})
    assert [r["infogb"] for r in info.records] == ["개요", "수행직무", "진로 및 전망", "출제경향", "취득방법"]
    year = str(world.config.today.year)
    _, schedule = call(backend, "search_qnet_exam_schedules", {"jmCd": jm, "implYy": year})
    assert schedule.total_count >= 1
    assert all(r["description"].startswith(f"국가기술자격 기사, 산업기사 ({year}년도") for r in schedule.records)
    _, by_jm = call(backend, "get_qnet_exam_schedule_by_jm", {"jmCd": jm})
    assert {r["jmfldnm"] for r in by_jm.records} == {"정보처리기사"} and by_jm.total_count == schedule.total_count
    _, fee = call(backend, "get_qnet_exam_fee", {"jmCd": jm})
    assert [(r["infogb"], r["contents"]) for r in fee.records] == [("필기", "19,400원"), ("실기", "22,600원")]
    _, subjects = call(backend, "get_qnet_exam_subjects", {"jmCd": jm})
    assert next(r["kmNm"] for r in subjects.records if r["dtlTypNm"] == "필기") == "소프트웨어설계"
    assert subjects.total_count == 6


def test_qnet_grade_schedules_are_this_years(backend, world):
    year = str(world.config.today.year)
    counts = {}
    for tool in ("list_qnet_pe_exam_schedules", "list_qnet_mc_exam_schedules", "list_qnet_e_exam_schedules",
                 "list_qnet_c_exam_schedules"):
        _, parsed = call(backend, tool, {"numOfRows": 10})
        assert all(r["docregstartdt"].startswith(year) for r in parsed.records)
        counts[tool] = parsed.total_count
    assert list(counts.values()) == [3, 2, 3, 4]


def test_qnet_one_row_answer_is_an_object(backend):
    response, parsed = call(backend, "search_qnet_exam_schedules", {"qualgbCd": "C", "implYy": "2025",
                                                                   "numOfRows": 1})
    assert isinstance(response.json()["response"]["body"]["items"]["item"], dict)
    assert parsed.total_count == 2 and len(parsed.records) == 1


@pytest.mark.parametrize(("case", "name", "args", "key", "expected"), [
    ("unknown_jm", "get_qnet_qualification_info", {"jmCd": "0000"}, KEY, ("structural", "no_data", "03")),
    ("bad_jm", "get_qnet_exam_fee", {"jmCd": "13a0"}, KEY, ("structural", "bad_param", "10")),
    ("missing_jm", "get_qnet_exam_subjects", {}, KEY, ("structural", "missing_param", "11")),
    ("invalid_key", "search_qnet_exam_schedules", {"implYy": "2026"}, "invalid", ("auth", "invalid_key", "30")),
    ("schd_unknown_jm", "search_qnet_exam_schedules", {"jmCd": "0000"}, KEY, ("structural", "no_data", "03")),
])
def test_qnet_errors(backend, snapshot, case, name, args, key, expected):
    response, parsed = call(backend, name, args, key)
    assert (parsed.error.error_class, parsed.error.kind, parsed.error.code) == expected
    assert response.text == snapshot


def test_qnet_schedule_rejects_more_than_50_rows(backend):
    _, parsed = call(backend, "search_qnet_exam_schedules", {"numOfRows": 51})
    assert (parsed.error.error_class, parsed.error.kind, parsed.error.code) == ("structural", "bad_param", "930")


# ---------------------------------------------------------------- world


def test_tables_are_deterministic_and_sized():
    ctx = WorldContext(WorldConfig(seed=3, scale="small", today=dt.date(2026, 1, 30)))
    first = hrd_platform.tables(ctx) + qnet_platform.tables(ctx)
    again = hrd_platform.tables(WorldContext(ctx.config)) + qnet_platform.tables(WorldContext(ctx.config))
    assert [t.columns for t in first] == [t.columns for t in again]
    sizes = {t.name: t.n_rows for t in first}
    assert sizes["hrd_course_round"] > 500 and sizes["qnet_jm"] >= 80
    for table in first:
        for name, values in table.columns.items():
            assert len({type(v) for v in values}) == 1, (table.name, name)
