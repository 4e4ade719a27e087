"""NEIS 교육정보 개방포털 (open.neis.go.kr/hub/{SERVICE}) — portal family (A).

Every school-level table is keyed by (ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE) from `sim.world.schools`.
Dated data covers a plausible window only, to keep full-scale tables near 150k rows: 급식 for the last
school days before 겨울방학 (the virtual today, 2026-01-30, falls in 방학, so "today's menu" is
INFO-200 as it would be live), a dozen 학사일정 events per school for 학년도 2025, and 시간표 for one
school week of a subset of schools.
"""

from __future__ import annotations

import datetime as dt
import functools

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import FIXED_HOLIDAYS, WorldContext, yyyymmdd
from sim.world.regions import SIDOS, SIGUNGU
from sim.world.rng import stable_int, stream
from sim.world.schools import School, schools
from sim.world.table import TableData

HOST = "open.neis.go.kr"
AY = "2025"
LOAD_DTM = "20251226"
ATPT = r"[A-Z]\d{2}"
SD = r"\d{7}"
YMD_PREFIX = r"\d{4,8}"  # NEIS matches date filters as prefixes (YYYY, YYYYMM or YYYYMMDD)
_KEYS = ("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_NM", "SD_SCHUL_CODE", "SCHUL_NM")
_ENT = {"ATPT_OFCDC_SC_CODE": "atpt_code", "SD_SCHUL_CODE": "school_code"}
# The last school days of 2학기 before 겨울방학 (방학식 2025-12-24 in this world).
_WINTER_BREAK = dt.date(2025, 12, 24)


def school_days(count: int) -> list[str]:
    days: list[str] = []
    d = _WINTER_BREAK - dt.timedelta(days=1)
    while len(days) < count:
        if d.weekday() < 5 and d != dt.date(2025, 12, 25):
            days.append(d.strftime("%Y%m%d"))
        d -= dt.timedelta(days=1)
    return sorted(days)


def _key_columns(rows: list[School]) -> dict[str, list[str]]:
    return {"ATPT_OFCDC_SC_CODE": [s.atpt_code for s in rows], "ATPT_OFCDC_SC_NM": [s.atpt_name for s in rows],
            "SD_SCHUL_CODE": [s.sd_code for s in rows], "SCHUL_NM": [s.name for s in rows]}


def _order(all_schools: list[School]) -> list[School]:
    """The service's order: by 교육청 then school code."""
    return sorted(all_schools, key=lambda s: (s.atpt_code, s.sd_code))


# ---------------------------------------------------------------- schoolInfo
def school_table(ctx: WorldContext) -> TableData:
    rows = _order(schools(ctx))
    cols = _key_columns(rows)
    cols.update({
        "ENG_SCHUL_NM": [s.eng_name for s in rows],
        "SCHUL_KND_SC_NM": [s.kind for s in rows],
        "LCTN_SC_NM": [s.sido_name for s in rows],
        "JU_ORG_NM": [s.ju_org for s in rows],
        "FOND_SC_NM": [s.fond for s in rows],
        "ORG_RDNZC": [s.zip for s in rows],
        "ORG_RDNMA": [s.road_addr for s in rows],
        "ORG_RDNDA": [s.road_detail for s in rows],
        "ORG_TELNO": [s.tel for s in rows],
        "HMPG_ADRES": [s.homepage for s in rows],
        "COEDU_SC_NM": [s.coedu for s in rows],
        "ORG_FAXNO": [s.fax for s in rows],
        "HS_SC_NM": [s.hs_type for s in rows],
        "INDST_SPECL_CCCCL_EXST_YN": ["Y" if s.hs_type == "특성화고" else "N" for s in rows],
        "HS_GNRL_BUSNS_SC_NM": [("전문계" if s.hs_type == "특성화고" else "일반계") if s.hs_type else "그 외"
                                for s in rows],
        "SPCLY_PURPS_HS_ORD_NM": ["외국어계열" if s.hs_type == "특수목적고" else "" for s in rows],
        "ENE_BFE_SEHF_SC_NM": ["후기" if s.kind == "고등학교" and s.hs_type == "일반고" else
                               ("전기" if s.kind == "고등학교" else "") for s in rows],
        "DGHT_SC_NM": ["주간" for _ in rows],
        "FOND_YMD": [s.fond_ymd for s in rows],
        "FOAS_MEMRD": [s.foas_memrd for s in rows],
        "LOAD_DTM": [LOAD_DTM for _ in rows],
        "_SGG_CODE": [s.sgg_code for s in rows],  # hidden: the 시군구 the school lies in
    })
    return TableData("neis_school", cols, {**_ENT, "_SGG_CODE": "sigungu_code"})


# ---------------------------------------------------------------- mealServiceDietInfo
_RICE = ["쌀밥", "흑미밥", "현미밥", "보리밥", "잡곡밥", "기장밥", "카레라이스", "볶음밥", "비빔밥"]
_SOUP = ["쇠고기미역국 (5.6.16)", "된장찌개 (5.6.9)", "김치찌개 (9.10)", "어묵국 (1.5.6)", "콩나물국 (5)",
         "북엇국 (1.5)", "순두부찌개 (5.6.9)", "육개장 (5.6.16)", "감자국 (5)", "떡국 (1.5.6.16)"]
_MAIN = ["돈육불고기 (5.6.10.13)", "닭갈비 (5.6.13.15)", "고등어구이 (7)", "제육볶음 (5.6.10)",
         "치킨까스 (1.2.5.6.15)", "함박스테이크 (1.2.5.6.10.16)", "갈비찜 (5.6.16)", "오징어볶음 (5.6.17)",
         "떡갈비 (5.6.10.16)", "닭강정 (1.5.6.15)"]
_SIDE = ["시금치나물 (5.6)", "계란말이 (1)", "감자채볶음", "어묵볶음 (1.5.6)", "멸치볶음 (5.6)",
         "숙주나물 (5)", "잡채 (5.6)", "두부조림 (5.6)", "오이무침 (5.6)", "콩나물무침 (5)"]
_KIMCHI = ["배추김치 (9)", "깍두기 (9)", "총각김치 (9)", "열무김치 (9)"]
_DESSERT = ["요구르트 (2)", "귤", "사과", "바나나", "우유 (2)", "식혜", "요플레 (2)", ""]
_ORPLC = "쌀 : 국내산<br/>김치류 : 국내산<br/>고춧가루(김치류) : 국내산<br/>쇠고기(종류) : 국내산(한우)" \
         "<br/>돼지고기 : 국내산<br/>닭고기 : 국내산<br/>오리고기 : 국내산<br/>쇠고기 식육가공품 : 국내산"
_MEALS = {"2": "중식", "3": "석식"}


_NTR = ("탄수화물(g) : {:.1f}<br/>단백질(g) : {:.1f}<br/>지방(g) : {:.1f}<br/>비타민A(R.E) : {:.1f}"
        "<br/>칼슘(mg) : {:.1f}<br/>철분(mg) : {:.1f}")
_MEAL_FIELDS = (*_KEYS, "MMEAL_SC_CODE", "MMEAL_SC_NM", "MLSV_YMD", "MLSV_FGR", "DDISH_NM", "ORPLC_INFO",
                "CAL_INFO", "NTR_INFO", "MLSV_FROM_YMD", "MLSV_TO_YMD", "LOAD_DTM")


def meal_table(ctx: WorldContext) -> TableData:
    """The stored sample: every school's last school days before 겨울방학 of 학년도 2025."""
    days = set(school_days(ctx.n(15, 10)))
    rows = []
    for s in _order(schools(ctx)):
        rows += _meal_rows(ctx, s, int(AY), days)
    return TableData("neis_meal", _columns(_MEAL_FIELDS, rows), dict(_ENT))


@functools.cache
def _meal_text() -> dict[str, list[str]]:
    """The 3,000 calorie and nutrient texts, built once per process. Built whole before it is returned (and
    cached): a dict filled key by key in place let a second thread of `kopa bench run` see it half-built
    (KeyError: 'ntr')."""
    return {"cal": [f"{550 + k / 10:.1f} Kcal" for k in range(3000)],
            "ntr": [_NTR.format(*(c * (550 + k / 10) for c in (0.15, 0.045, 0.03, 0.3, 0.4, 0.005)))
                    for k in range(3000)]}


def _has_dinner(ctx: WorldContext, s: School) -> bool:
    return s.kind == "고등학교" and stable_int(ctx.seed, "neis-dinner", s.sd_code) % 10 < 3


def _meal_rows(ctx: WorldContext, s: School, year: int, only: set[str] | None = None) -> list[tuple]:
    """One school's 급식 of one 학년도, from a stream named by the school and the year."""
    days = [d for d, _ in school_calendar(year) if only is None or d in only]
    if not days:
        return []
    text = _meal_text()
    picks = stream(ctx.seed, "neis-meal", f"{s.atpt_code}{s.sd_code}:{year}").integers(0, 10_000, (_MAX_DAYS, 2, 7))
    index = {d: i for i, (d, _) in enumerate(school_calendar(year))}
    keys = (s.atpt_code, s.atpt_name, s.sd_code, s.name)
    rows = []
    for m, code in enumerate(("2", "3") if _has_dinner(ctx, s) else ("2",)):
        fgr = str(s.students if code == "2" else s.students // 3)
        for day in days:
            p = picks[index[day], m].tolist()
            dishes = [_RICE[p[0] % 9], _SOUP[p[1] % 10], _MAIN[p[2] % 10], _SIDE[p[3] % 10], _KIMCHI[p[4] % 4]]
            if _DESSERT[p[5] % 8]:
                dishes.append(_DESSERT[p[5] % 8])
            k = p[6] % 3000
            rows.append((*keys, code, _MEALS[code], day, fgr, "<br/>".join(dishes), _ORPLC, text["cal"][k],
                         text["ntr"][k], day, day, LOAD_DTM))
    rows.sort(key=lambda r: (r[6], r[4]))  # by date, then 조식/중식/석식
    return rows


def _columns(names: tuple[str, ...], rows: list[tuple]) -> dict[str, list]:
    if not rows:
        return {k: [] for k in names}
    return {k: list(v) for k, v in zip(names, zip(*rows, strict=True), strict=True)}


# ---------------------------------------------------------------- SchoolSchedule
# (event, date, 수업공제일구분, grades it concerns ("all" / "1" / "last" / "exam"))
_EVENTS = [
    ("입학식", "20250304", "해당없음", "1"), ("1학기 개학식", "20250304", "해당없음", "all"),
    ("어린이날", "20250505", "공휴일", "all"), ("1학기 중간고사", "20250428", "해당없음", "exam"),
    ("1학기 기말고사", "20250707", "해당없음", "exam"), ("여름방학식", "20250725", "해당없음", "all"),
    ("광복절", "20250815", "공휴일", "all"), ("2학기 개학식", "20250818", "해당없음", "all"),
    ("2학기 중간고사", "20251013", "해당없음", "exam"), ("한글날", "20251009", "공휴일", "all"),
    ("2학기 기말고사", "20251208", "해당없음", "exam"), ("성탄절", "20251225", "공휴일", "all"),
    ("겨울방학식", "20251224", "해당없음", "all"), ("졸업식", "20260109", "해당없음", "last"),
]


_SCHEDULE_FIELDS = (*_KEYS, "AY", "DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "SBTR_DD_SC_NM", "AA_YMD", "EVENT_NM",
                    "EVENT_CNTNT", "ONE_GRADE_EVENT_YN", "TW_GRADE_EVENT_YN", "THREE_GRADE_EVENT_YN",
                    "FR_GRADE_EVENT_YN", "FIV_GRADE_EVENT_YN", "SIX_GRADE_EVENT_YN", "LOAD_DTM")
_RECESS = ("20250502", "20250605", "20251010")


def _grade_flags(scope: str, grades: int) -> tuple[str, ...]:
    """Y/N per grade 1..6; grades a school does not have are "*" (as NEIS prints them)."""
    out = []
    for g in range(1, 7):
        on = scope in ("all", "exam") or (scope == "1" and g == 1) or (scope == "last" and g == grades)
        out.append("*" if g > grades else ("Y" if on else "N"))
    return tuple(out)


def schedule_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("neis_schedule")
    all_schools = _order(schools(ctx))
    recess = rng.integers(0, len(_RECESS), len(all_schools)).tolist()
    flags = {(scope, g): _grade_flags(scope, g) for scope in ("all", "exam", "1", "last") for g in (3, 6)}
    rows = []
    for s, r in zip(all_schools, recess, strict=True):
        keys = (s.atpt_code, s.atpt_name, s.sd_code, s.name)
        events = [e for e in _EVENTS if e[3] != "exam" or s.kind in ("중학교", "고등학교")]
        md = s.foas_memrd[4:]
        events.append(("개교기념일", f"2025{md}" if md >= "0302" else f"2026{md}", "휴업일", "all"))
        events.append(("재량휴업일", _RECESS[r], "휴업일", "all"))
        for name, ymd, sbtr, scope in sorted(events, key=lambda e: e[1]):
            rows.append((*keys, AY, "주간", s.kind, sbtr, ymd, name, "", *flags[(scope, s.grades)], LOAD_DTM))
    return TableData("neis_schedule", _columns(_SCHEDULE_FIELDS, rows), dict(_ENT))


# ---------------------------------------------------------------- classInfo / 계열 / 학과
_VOCATIONAL = {"공업계": ["기계과", "전자과", "건축과"], "상업계": ["회계과", "경영과", "금융과"],
               "농업계": ["원예과", "식품가공과"], "가사계": ["조리과", "미용과"]}
_SPECIAL = {"외국어계": ["영어과", "중국어과"], "과학계": ["과학과"], "예술계": ["음악과", "미술과"]}


def tracks(s: School, rng: np.random.Generator) -> list[tuple[str, str]]:
    """(계열, 학과) pairs a school offers; only 고등학교 have 계열/학과."""
    if s.kind != "고등학교":
        return []
    if s.hs_type == "특성화고":
        ords = list(_VOCATIONAL)
        chosen = ords[int(rng.integers(len(ords)))]
        return [(chosen, d) for d in _VOCATIONAL[chosen]]
    if s.hs_type == "특수목적고":
        ords = list(_SPECIAL)
        chosen = ords[int(rng.integers(len(ords)))]
        return [(chosen, d) for d in _SPECIAL[chosen]]
    return [("일반계", "일반과")]


def class_layout(ctx: WorldContext) -> list[tuple[School, list[tuple[str, str]], list[tuple[int, str, str]]]]:
    """Per school: its (계열, 학과) and its classes (grade, class name, 학과)."""
    key = "neis_class_layout"
    if key not in ctx._cache:
        rng = ctx.rng("neis_class")
        out = []
        for s in _order(schools(ctx)):
            offered = tracks(s, rng)
            per_grade = min(8, max(1, round(s.students / s.grades / 30)))
            classes = []
            for g in range(1, s.grades + 1):
                for c in range(1, per_grade + 1):
                    dep = offered[(c - 1) % len(offered)][1] if offered else ""
                    classes.append((g, str(c), dep))
            out.append((s, offered, classes))
        ctx._cache[key] = out
    return ctx._cache[key]


_CLASS_FIELDS = (*_KEYS, "AY", "GRADE", "DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM",
                 "CLASS_NM", "LOAD_DTM")
_MAJOR_FIELDS = (*_KEYS, "DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM", "LOAD_DTM")
_AFLCO_FIELDS = (*_KEYS, "DGHT_CRSE_SC_NM", "ORD_SC_NM", "LOAD_DTM")
_ROOM_FIELDS = (*_KEYS, "AY", "GRADE", "SEM", "SCHUL_CRSE_SC_NM", "DGHT_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM",
                "CLRM_NM", "LOAD_DTM")


def class_tables(ctx: WorldContext) -> list[TableData]:
    classes_rows, major, aflco, room = [], [], [], []
    for s, offered, classes in class_layout(ctx):
        keys = (s.atpt_code, s.atpt_name, s.sd_code, s.name)
        ord_of = {d: o for o, d in offered}
        for g, c, dep in classes:
            classes_rows.append((*keys, AY, str(g), "주간", s.kind, ord_of.get(dep, ""), dep, c, LOAD_DTM))
        for o in dict.fromkeys(o for o, _ in offered):
            aflco.append((*keys, "주간", o, LOAD_DTM))
        for o, d in offered:
            major.append((*keys, "주간", o, d, LOAD_DTM))
        if s.kind == "고등학교":
            for sem in ("1", "2"):
                for g, c, dep in classes:
                    room.append((*keys, AY, str(g), sem, s.kind, "주간", ord_of.get(dep, ""), dep,
                                 f"{g}학년 {c}반", LOAD_DTM))
    return [TableData("neis_class", _columns(_CLASS_FIELDS, classes_rows), dict(_ENT)),
            TableData("neis_major", _columns(_MAJOR_FIELDS, major), dict(_ENT)),
            TableData("neis_aflco", _columns(_AFLCO_FIELDS, aflco), dict(_ENT)),
            TableData("neis_classroom", _columns(_ROOM_FIELDS, room), dict(_ENT))]


# ---------------------------------------------------------------- 시간표
_SUBJECTS = {
    "els": ["국어", "수학", "사회", "과학", "영어", "체육", "음악", "미술", "도덕", "실과", "창의적 체험활동"],
    "mis": ["국어", "수학", "영어", "사회", "역사", "과학", "기술・가정", "체육", "음악", "미술", "정보", "도덕"],
    "his": ["문학", "수학Ⅰ", "영어Ⅰ", "통합사회", "통합과학", "한국사", "물리학Ⅰ", "화학Ⅰ", "생명과학Ⅰ",
            "지구과학Ⅰ", "체육", "음악", "미술", "정보", "확률과 통계"],
}


def _timetable_names(level: str) -> tuple[str, ...]:
    his = level == "his"
    return (*_KEYS, "AY", "SEM", "ALL_TI_YMD", "DGHT_CRSE_SC_NM", *(("ORD_SC_NM", "DDDEP_NM") if his else ()),
            "GRADE", *(("CLRM_NM",) if his else ()), "CLASS_NM", "PERIO", "ITRT_CNTNT", "LOAD_DTM")


def _timetable_fields(level: str) -> tuple[str, ...]:
    """The served record: 초등학교 시간표 has no 주야과정명 (DGHT_CRSE_SC_NM) in the real answer (the field
    list of the spec and neispy's ElsTimeTableRow); the table keeps it for the filter."""
    names = _timetable_names(level)
    return tuple(n for n in names if not (level == "els" and n == "DGHT_CRSE_SC_NM"))


def _layout_of(ctx: WorldContext) -> dict[tuple[str, str], tuple]:
    key = "neis_layout_by_school"
    if key not in ctx._cache:
        ctx._cache[key] = {(item[0].atpt_code, item[0].sd_code): item for item in class_layout(ctx)}
    return ctx._cache[key]


def _timetable_rows(ctx: WorldContext, item: tuple, year: int, only: set[str] | None = None) -> list[tuple]:
    """One school's 시간표 of one 학년도 (every class, every school day), from a stream named by both."""
    s, offered, classes = item
    level = s.timetable
    if level not in _SUBJECTS:
        return []
    calendar = school_calendar(year)
    subjects = _SUBJECTS[level]
    picks = stream(ctx.seed, "neis-timetable", f"{s.atpt_code}{s.sd_code}:{year}").integers(
        0, len(subjects), (_MAX_DAYS, max(1, len(classes)), 7))
    his = level == "his"
    keys = (s.atpt_code, s.atpt_name, s.sd_code, s.name)
    ord_of = {d: o for o, d in offered}
    rows = []
    for di, (day, sem) in enumerate(calendar):
        if only is not None and day not in only:
            continue
        long_day = day[-1] in "13579"
        day_picks = picks[di].tolist()
        for ci, (g, c, dep) in enumerate(classes):
            periods = {"els": 4 + (g > 2) + (g > 4), "mis": 6 + long_day, "his": 7}[level]
            extra = (ord_of.get(dep, ""), dep, str(g), f"{g}학년 {c}반") if his else (str(g),)
            for p in range(periods):
                rows.append((*keys, str(year), sem, day, "주간", *extra, c, str(p + 1),
                             subjects[day_picks[ci][p]], LOAD_DTM))
    return rows


def timetable_tables(ctx: WorldContext) -> list[TableData]:
    """The stored samples: one school week of a subset of schools; the endpoints serve every school's
    every 학년도 on demand (TimetableHistory)."""
    days = set(school_days(5))
    layout = class_layout(ctx)
    out = []
    for level, share in (("els", ctx.n(15, 160)), ("mis", ctx.n(10, 110)), ("his", ctx.n(10, 110))):
        rng = ctx.rng("neis_timetable", level)
        members = [item for item in layout if item[0].timetable == level]
        chosen = sorted(rng.choice(len(members), min(share, len(members)), replace=False).tolist())
        rows = []
        for i in chosen:
            rows += _timetable_rows(ctx, members[i], int(AY), days)
        out.append(TableData(f"neis_timetable_{level}", _columns(_timetable_names(level), rows), dict(_ENT)))
    return out


# ---------------------------------------------------------------- 학년도 calendar and on-demand history
FIRST_SCHOOL_YEAR = 2015
_MAX_DAYS = 260  # draws per school-year cover more days than any calendar has, so shapes never change


@functools.lru_cache(maxsize=64)
def school_calendar(year: int) -> tuple[tuple[str, str], ...]:
    """(YYYYMMDD, 학기) of every school day of 학년도 `year`: 1학기 from the first school day of March to the
    day before 여름방학 (7월 25일), 2학기 from 8월 18일 to the day before 겨울방학 (12월 24일); weekdays less the
    fixed public holidays (and 3·1절's substitute Monday). Every school shares it (plausible, simplified)."""
    off = set(FIXED_HOLIDAYS)
    first = dt.date(year, 3, 2)
    if dt.date(year, 3, 1).weekday() >= 5:  # 3·1절 on a weekend: the Monday after is a substitute holiday
        first = dt.date(year, 3, 1) + dt.timedelta(days=7 - dt.date(year, 3, 1).weekday())
        first += dt.timedelta(days=1)
    out = []
    for sem, start, end in (("1", first, dt.date(year, 7, 24)), ("2", dt.date(year, 8, 18), dt.date(year, 12, 23))):
        d = start
        while d <= end:
            if d.weekday() < 5 and (d.month, d.day) not in off:
                out.append((yyyymmdd(d), sem))
            d += dt.timedelta(days=1)
    return tuple(out)


def _date_bounds(args: dict[str, str], exact: str, prefix: bool, lo_name: str, hi_name: str) -> tuple[str, str]:
    lo, hi = "00000000", "99999999"
    if args.get(exact):
        v = args[exact]
        lo, hi = (v.ljust(8, "0"), v.ljust(8, "9")) if prefix else (v, v)
    if args.get(lo_name):
        lo = max(lo, args[lo_name])
    if args.get(hi_name):
        hi = min(hi, args[hi_name])
    return lo, hi


def _years(ctx: WorldContext, lo: str, hi: str) -> tuple[int, ...]:
    """학년도 whose school days (March to December) meet [lo, hi], up to the current one."""
    return tuple(y for y in range(FIRST_SCHOOL_YEAR, ctx.today.year + 1)
                 if f"{y}0301" <= hi and f"{y}1231" >= lo and f"{y}0301" <= yyyymmdd(ctx.today))


class MealHistory:
    """mealServiceDietInfo: every school's 급식 of every 학년도 since 2015, generated per school and year."""

    name = "neis_meal"

    def scope(self, ctx: WorldContext, args: dict[str, str]):
        lo, hi = _date_bounds(args, "MLSV_YMD", True, "MLSV_FROM_YMD", "MLSV_TO_YMD")
        key = (args["ATPT_OFCDC_SC_CODE"], args["SD_SCHUL_CODE"])
        if key not in _layout_of(ctx):
            return None
        return key, _years(ctx, lo, hi)

    def generate(self, ctx: WorldContext, scope) -> TableData:
        key, years = scope
        s = _layout_of(ctx)[key][0]
        rows = [r for y in years for r in _meal_rows(ctx, s, y)]
        return TableData(self.name, _columns(_MEAL_FIELDS, rows), dict(_ENT))


LEGACY_UNTIL = 2022  # 학년도 up to 2022 are served by the legacy …Timetablebgs services (neispy switches too)


class TimetableHistory:
    """els/mis/hisTimetable (학년도 2023 on) and their legacy …bgs services (2015–2022): every class's 시간표 of
    every 학년도 (AY or the dates pick the years; a request naming neither gets the service's latest 학년도 —
    the simulator's choice, unconfirmed)."""

    def __init__(self, level: str, legacy: bool = False) -> None:
        self.level = level
        self.name = f"neis_timetable_{level}"
        self.legacy = legacy

    def _served(self, years: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(y for y in years if (y <= LEGACY_UNTIL) == self.legacy)

    def scope(self, ctx: WorldContext, args: dict[str, str]):
        key = (args["ATPT_OFCDC_SC_CODE"], args["SD_SCHUL_CODE"])
        item = _layout_of(ctx).get(key)
        if item is None or item[0].timetable != self.level:
            return None
        lo, hi = _date_bounds(args, "ALL_TI_YMD", False, "TI_FROM_YMD", "TI_TO_YMD")
        every = self._served(_years(ctx, "00000000", "99999999"))
        if args.get("AY"):
            years = tuple(y for y in every if str(y) == args["AY"])
        elif (lo, hi) != ("00000000", "99999999"):
            years = self._served(_years(ctx, lo, hi))
        else:
            years = every[-1:]
        return key, years

    def generate(self, ctx: WorldContext, scope) -> TableData:
        key, years = scope
        item = _layout_of(ctx)[key]
        rows = [r for y in years for r in _timetable_rows(ctx, item, y)]
        return TableData(self.name, _columns(_timetable_names(self.level), rows), dict(_ENT))


# ---------------------------------------------------------------- acaInsTiInfo
_REALMS = [("입시.검정 및 보습", "보통교과", ["보습", "진학지도", "논술"], 0.55),
           ("국제화", "외국어", ["영어", "중국어", "일본어"], 0.15),
           ("예능(대)", "예능", ["음악", "미술", "무용"], 0.15),
           ("기예(대)", "기예", ["바둑", "요리", "미용"], 0.05),
           ("독서실", "독서실", ["독서실"], 0.05),
           ("종합(대)", "종합", ["종합"], 0.05)]
_ACA_HEADS = ["대치", "명문", "으뜸", "스마트", "리더스", "하이", "수재", "공감", "탑", "바른", "열린", "최상위"]
_ACA_TAILS = {"보통교과": "수학학원", "외국어": "어학원", "예능": "음악학원", "기예": "교습소", "독서실": "독서실",
              "종합": "학원"}


def academy_table(ctx: WorldContext) -> TableData:
    rng = ctx.rng("neis_academy")
    total = ctx.n(1_500, 30_000)
    # 교육 특구 (양천구 목동, 강남구 대치동, 서초구) hold far more academies; then 서울, 경기.
    weights = np.array([12.0 if g.code in ("11470", "11680", "11650") else
                        (3.0 if g.sido == "11" else (2.0 if g.sido == "41" else 1.0)) for g in SIGUNGU])
    sgg_idx = np.sort(rng.choice(len(SIGUNGU), total, p=weights / weights.sum())).tolist()
    realm_idx = rng.choice(len(_REALMS), total, p=[r[3] for r in _REALMS]).tolist()
    nums = rng.integers(0, 1_000_000, (total, 8)).tolist()
    sido_of = {s.code: s for s in SIDOS}
    seq: dict[str, int] = {}
    rows = []
    for gi, ri, n in zip(sgg_idx, realm_idx, nums, strict=True):
        g = SIGUNGU[gi]
        sido = sido_of[g.sido]
        realm, ord_nm, courses, _ = _REALMS[ri]
        seq[g.code] = seq.get(g.code, 0) + 1
        course = courses[n[0] % len(courses)]
        est = dt.date(1995 + n[1] % 31, 1 + n[2] % 12, 1 + n[3] % 28).strftime("%Y%m%d")
        head = _ACA_HEADS[n[4] % len(_ACA_HEADS)]
        name = f"{head}{course if course not in ('독서실', '종합') else ''}{_ACA_TAILS[ord_nm]}"
        rows.append((sido.atpt_code, sido.atpt_name, g.name, "교습소" if ord_nm == "기예" else "학원",
                     f"{g.code}{seq[g.code]:05d}", name, est, est, "휴원" if n[5] % 100 < 6 else "개원", "", "",
                     str((2 + n[6] % 38) * 5), str((1 + n[7] % 29) * 3), realm, ord_nm, f"{ord_nm}(중등)",
                     course, f"{course}:{(10 + n[5] % 50) * 10_000}", "Y", "N", f"{1000 + n[6] % 62000:05d}",
                     f"{sido.name} {g.name} {head}로 {1 + n[7] % 400}", f"{1 + n[3] % 8}층", LOAD_DTM, g.code))
    return TableData("neis_academy", _columns((*_ACADEMY_FIELDS, "_SGG_CODE"), rows),
                     {"ATPT_OFCDC_SC_CODE": "atpt_code", "_SGG_CODE": "sigungu_code", "ACA_ASNUM": "academy_code"})


def tables(ctx: WorldContext) -> list[TableData]:
    return [school_table(ctx), meal_table(ctx), schedule_table(ctx), *class_tables(ctx),
            *timetable_tables(ctx), academy_table(ctx)]


# ---------------------------------------------------------------- endpoints
_SCHOOL_BINDS = {"ATPT_OFCDC_SC_CODE": Bind("ATPT_OFCDC_SC_CODE", pattern=ATPT),
                 "SD_SCHUL_CODE": Bind("SD_SCHUL_CODE", pattern=SD)}
_REQ = ("ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE")
# Without KEY the hub serves the sample quota: at most 5 rows whatever pSize says (observed live).
_OPTS = {"key_id": "neis", "keyless_sample": True}


def _ep(service: str, table: str, binds: dict[str, Bind], fields: tuple[str, ...] | None = None,
        required: tuple[str, ...] = _REQ, history=None) -> Endpoint:
    # The official spec pages mark 시도교육청코드/행정표준코드 필수 for school-level services; schoolInfo
    # takes every filter optionally.
    return Endpoint("portal", HOST, service, table, binds={**_SCHOOL_BINDS, **binds}, required=required,
                    fields=fields, max_page_size=1000, options=dict(_OPTS), history=history)


_SCHOOL_FIELDS = ("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_NM", "SD_SCHUL_CODE", "SCHUL_NM", "ENG_SCHUL_NM",
                  "SCHUL_KND_SC_NM", "LCTN_SC_NM", "JU_ORG_NM", "FOND_SC_NM", "ORG_RDNZC", "ORG_RDNMA",
                  "ORG_RDNDA", "ORG_TELNO", "HMPG_ADRES", "COEDU_SC_NM", "ORG_FAXNO", "HS_SC_NM",
                  "INDST_SPECL_CCCCL_EXST_YN", "HS_GNRL_BUSNS_SC_NM", "SPCLY_PURPS_HS_ORD_NM",
                  "ENE_BFE_SEHF_SC_NM", "DGHT_SC_NM", "FOND_YMD", "FOAS_MEMRD", "LOAD_DTM")
_ACADEMY_FIELDS = ("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_NM", "ADMST_ZONE_NM", "ACA_INSTI_SC_NM", "ACA_ASNUM",
                   "ACA_NM", "ESTBL_YMD", "REG_YMD", "REG_STTUS_NM", "CAA_BEGIN_YMD", "CAA_END_YMD",
                   "TOFOR_SMTOT", "DTM_RCPTN_ABLTY_NMPR_SMTOT", "REALM_SC_NM", "LE_ORD_NM", "LE_CRSE_LIST_NM",
                   "LE_CRSE_NM", "PSNBY_THCC_CNTNT", "THCC_OTHBC_YN", "BRHS_ACA_YN", "FA_RDNZC", "FA_RDNMA",
                   "FA_RDNDA", "LOAD_DTM")
_TI = {"AY": Bind("AY", pattern=r"\d{4}"), "SEM": Bind("SEM", pattern=r"[12]"),
       "ALL_TI_YMD": Bind.any_date("ALL_TI_YMD"), "TI_FROM_YMD": Bind.any_date("ALL_TI_YMD", "ge"),
       "TI_TO_YMD": Bind.any_date("ALL_TI_YMD", "le"), "GRADE": Bind("GRADE", pattern=r"\d{1,2}"),
       "CLASS_NM": Bind("CLASS_NM"), "PERIO": Bind("PERIO", pattern=r"\d{1,2}"),
       "DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM")}

ENDPOINTS = [
    # SCHUL_NM is matched as a substring (a LIKE search on the hub; plausible, unconfirmed).
    _ep("schoolInfo", "neis_school",
        {"SCHUL_NM": Bind("SCHUL_NM", "contains"), "SCHUL_KND_SC_NM": Bind("SCHUL_KND_SC_NM"),
         "LCTN_SC_NM": Bind("LCTN_SC_NM"), "FOND_SC_NM": Bind("FOND_SC_NM")}, _SCHOOL_FIELDS, required=()),
    _ep("mealServiceDietInfo", "neis_meal",
        {"MMEAL_SC_CODE": Bind("MMEAL_SC_CODE", pattern=r"[123]"),
         "MLSV_YMD": Bind("MLSV_YMD", "prefix", YMD_PREFIX),
         "MLSV_FROM_YMD": Bind.any_date("MLSV_YMD", "ge"), "MLSV_TO_YMD": Bind.any_date("MLSV_YMD", "le")},
        _MEAL_FIELDS, history=MealHistory()),
    _ep("SchoolSchedule", "neis_schedule",
        {"DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM"), "SCHUL_CRSE_SC_NM": Bind("SCHUL_CRSE_SC_NM"),
         "AA_YMD": Bind("AA_YMD", "prefix", YMD_PREFIX),
         "AA_FROM_YMD": Bind.any_date("AA_YMD", "ge"), "AA_TO_YMD": Bind.any_date("AA_YMD", "le")}),
    *(_ep(f"{level}Timetable{'bgs' if legacy else ''}", f"neis_timetable_{level}", binds, _timetable_fields(level),
          history=TimetableHistory(level, legacy))
      for level, binds in (("els", _TI), ("mis", _TI),
                           ("his", {**_TI, "ORD_SC_NM": Bind("ORD_SC_NM"), "DDDEP_NM": Bind("DDDEP_NM"),
                                    "CLRM_NM": Bind("CLRM_NM")}))
      for legacy in (False, True)),
    _ep("classInfo", "neis_class",
        {"AY": Bind("AY", pattern=r"\d{4}"), "GRADE": Bind("GRADE", pattern=r"\d{1,2}"),
         "DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM"), "SCHUL_CRSE_SC_NM": Bind("SCHUL_CRSE_SC_NM"),
         "ORD_SC_NM": Bind("ORD_SC_NM"), "DDDEP_NM": Bind("DDDEP_NM")}),
    _ep("schoolMajorinfo", "neis_major",
        {"DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM"), "ORD_SC_NM": Bind("ORD_SC_NM")}),
    _ep("schulAflcoinfo", "neis_aflco", {"DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM")}),
    _ep("tiClrminfo", "neis_classroom",
        {"AY": Bind("AY", pattern=r"\d{4}"), "GRADE": Bind("GRADE", pattern=r"\d{1,2}"),
         "SEM": Bind("SEM", pattern=r"[12]"), "SCHUL_CRSE_SC_NM": Bind("SCHUL_CRSE_SC_NM"),
         "DGHT_CRSE_SC_NM": Bind("DGHT_CRSE_SC_NM"), "ORD_SC_NM": Bind("ORD_SC_NM"),
         "DDDEP_NM": Bind("DDDEP_NM")}),
    Endpoint("portal", HOST, "acaInsTiInfo", "neis_academy",
             binds={"ATPT_OFCDC_SC_CODE": Bind("ATPT_OFCDC_SC_CODE", pattern=ATPT),
                    "ADMST_ZONE_NM": Bind("ADMST_ZONE_NM"), "ACA_ASNUM": Bind("ACA_ASNUM", pattern=r"\d{10}"),
                    "REALM_SC_NM": Bind("REALM_SC_NM"), "LE_ORD_NM": Bind("LE_ORD_NM"),
                    "LE_CRSE_NM": Bind("LE_CRSE_NM"), "ACA_NM": Bind("ACA_NM", "contains")},
             required=("ATPT_OFCDC_SC_CODE",), fields=_ACADEMY_FIELDS, max_page_size=1000, options=dict(_OPTS)),
]
