"""neispy (NEIS 교육정보 개방 포털, aiohttp), unmodified, against the served simulator."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

pytestmark = pytest.mark.clients
neispy = pytest.importorskip("neispy")
from neispy.error import AuthenticationKeyInvaild, DataNotFound  # noqa: E402

KEY = "0123456789abcdef0123456789abcdef"  # a well-formed 32-hex NEIS key
SCHOOL = {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7000930"}  # 덕화초등학교 in the small world


def run(key: str, call):
    async def go():
        async with neispy.Neispy(KEY=key, pSize=1000) as neis:
            try:
                return await call(neis)
            finally:
                await neis.session.close()

    return asyncio.run(go())


def test_school_info_parses_into_the_library_dataclasses(route_aiohttp, runtime):
    # SchoolInfoRow(**row) fails on any missing or extra field, so this pins the record shape too.
    info = run(KEY, lambda n: n.schoolInfo(SCHUL_NM="서울"))
    head, rows = info.schoolInfo
    tool = runtime.call("find_neis_school_code", {"SCHUL_NM": "서울"})
    assert tool.ok
    assert head.head[0].list_total_count == tool.total_count == len(rows.row)
    assert head.head[1].RESULT.CODE == "INFO-000"
    assert [vars(r) for r in rows.row] == tool.records


def test_meal_menu_for_a_month(route_aiohttp, runtime):
    args = {**SCHOOL, "MLSV_FROM_YMD": "20251201", "MLSV_TO_YMD": "20251231"}
    meals = run(KEY, lambda n: n.mealServiceDietInfo(**args))
    _, rows = meals.mealServiceDietInfo
    tool = runtime.call("get_neis_school_meal_menu", args)
    assert tool.ok and len(rows.row) == tool.total_count > len(tool.records) > 0
    # The tool answers its first page; the library asked for pSize=1000 and got every day in one.
    first = [(r.MLSV_YMD, r.DDISH_NM, r.CAL_INFO) for r in rows.row[: len(tool.records)]]
    assert first == [(r["MLSV_YMD"], r["DDISH_NM"], r["CAL_INFO"]) for r in tool.records]


def test_meals_and_timetable_ten_school_years_back(route_aiohttp, runtime):
    # Every school has 급식 and 시간표 for whole 학년도 since 2015.
    args = {**SCHOOL, "MLSV_FROM_YMD": "20160301", "MLSV_TO_YMD": "20160331"}
    _, meals = run(KEY, lambda n: n.mealServiceDietInfo(**args)).mealServiceDietInfo
    tool = runtime.call("get_neis_school_meal_menu", args)
    assert len(meals.row) == tool.total_count > 15
    first = [(r.MLSV_YMD, r.DDISH_NM) for r in meals.row[: len(tool.records)]]
    assert first == [(r["MLSV_YMD"], r["DDISH_NM"]) for r in tool.records]
    # 학년도 before 2023 live in the legacy elsTimetablebgs service, which neispy picks by the date; its
    # typed reader then looks for an "elsTimetable" root the legacy answer (rooted at its service name, as every
    # hub answer is) does not have, so the raw answer is read here.
    old_day = {**SCHOOL, "ALL_TI_YMD": "20160310"}
    raw = run(KEY, lambda n: n.get_elsTimetablebgs(dict(old_day)))
    lessons = [SimpleNamespace(**r) for r in raw["elsTimetablebgs"][1]["row"]]
    assert lessons and {r.AY for r in lessons} == {"2016"} and {r.ALL_TI_YMD for r in lessons} == {"20160310"}
    assert runtime.call("get_neis_elementary_timetable", old_day).error.code == "INFO-200"
    # A day of this 학년도, through neispy and through kopa's tool alike.
    new_day = {**SCHOOL, "ALL_TI_YMD": "20251201"}
    _, now = run(KEY, lambda n: n.elsTimetable(**new_day)).elsTimetable
    want = runtime.call("get_neis_elementary_timetable", new_day)
    assert len(now.row) == want.total_count > 0
    assert [(r.GRADE, r.CLASS_NM, r.PERIO, r.ITRT_CNTNT) for r in now.row[: len(want.records)]] == [
        (r["GRADE"], r["CLASS_NM"], r["PERIO"], r["ITRT_CNTNT"]) for r in want.records]
    # Both 학년도 list every class of the school.
    assert {(r.GRADE, r.CLASS_NM) for r in lessons} == {(r.GRADE, r.CLASS_NM) for r in now.row}


def test_no_data_and_invalid_key_raise_the_library_errors(route_aiohttp):
    # INFO-200 (해당하는 데이터가 없습니다) and ERROR-290 (인증키가 유효하지 않습니다) map to its exceptions.
    with pytest.raises(DataNotFound):
        run(KEY, lambda n: n.schoolInfo(SCHUL_NM="존재하지않는학교이름"))
    with pytest.raises(AuthenticationKeyInvaild):
        run("invalid", lambda n: n.schoolInfo(SCHUL_NM="서울"))
