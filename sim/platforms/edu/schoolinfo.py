"""학교알리미 공시정보 Open API (www.schoolinfo.go.kr/openApi.do) — resultCode/list family (H).

One URL serves every 공시항목; `apiType` picks it, so each apiType is its own endpoint keyed
"openApi.do?apiType=NN". Rows are per school (and 공시연도): the whole 시군구 × 학교급 at once, no paging.
Columns are the generic `COL_*` of each 공시항목 (their meaning is in the catalog). The schools are
the shared list of `sim.world.schools`, so a NEIS school and its 학교알리미 record are the same school
under two unrelated codes.
"""

from __future__ import annotations

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.schools import School, schools
from sim.world.table import TableData

HOST = "www.schoolinfo.go.kr"
_HIDDEN = ("_SIDO_CODE", "_SGG_CODE", "_KND_CODE")
_ENT = {"SCHUL_CODE": "schoolinfo_code", "_SGG_CODE": "sigungu_code", "_SIDO_CODE": "sido_code"}
_SUBJECTS = ("국어", "수학", "영어", "사회", "과학")


def years(ctx: WorldContext) -> list[str]:
    """공시연도 served: the last three complete years (공시 runs May–September)."""
    return [str(ctx.today.year - k) for k in (3, 2, 1)]


def _order(all_schools: list[School]) -> list[School]:
    return sorted(all_schools, key=lambda s: (s.sgg_code, s.kind_code, s.schul_code))


def _base(s: School, year: str) -> tuple[str, ...]:
    return (s.schul_code, s.name, year, "N", s.sido_code, s.sgg_code, s.kind_code)


def _table(name: str, n_cols: int, rows: list[tuple]) -> TableData:
    names = ("SCHUL_CODE", "SCHUL_NM", "PBAN_YR", "PBAN_EXCP_YN", *_HIDDEN,
             *(f"COL_{i}" for i in range(1, n_cols + 1)))
    cols = {k: list(v) for k, v in zip(names, zip(*rows, strict=True), strict=True)} if rows else \
        {k: [] for k in names}
    return TableData(name, cols, dict(_ENT))


def tables(ctx: WorldContext) -> list[TableData]:
    rng = ctx.rng("schoolinfo")
    all_schools = _order(schools(ctx))
    yrs = years(ctx)
    draws = rng.integers(0, 1_000_000, (len(all_schools), len(yrs), 16)).tolist()
    basic, students, teachers, status, achieve = [], [], [], [], []
    for si, s in enumerate(all_schools):
        basic.append((*_base(s, yrs[-1]), s.kind, s.fond, s.sido_name, s.sgg_name, s.road_addr, s.tel,
                      s.homepage, s.coedu, s.fond_ymd))
        for yi, year in enumerate(yrs):
            d = draws[si][yi]
            total = max(s.grades, int(s.students * (0.94 + 0.03 * yi)))
            per_grade = [total // s.grades + (1 if g < total % s.grades else 0) for g in range(s.grades)]
            per_grade += [0] * (6 - s.grades)
            special = total if s.kind == "특수학교" else d[0] % max(2, total // 60)
            classes = min(8, max(1, round(total / s.grades / 30))) * s.grades
            teacher = [1, 1, d[1] % 2, 2 + classes // 6, classes + d[2] % 5, 1 + special // 8, 1, d[3] % 2,
                       1, d[4] % (1 + classes // 4)]
            students.append((*_base(s, year), *map(str, per_grade), str(special), str(total), str(classes),
                             f"{total / classes:.1f}"))
            teachers.append((*_base(s, year), *map(str, teacher), str(sum(teacher))))
            status.append((*_base(s, year), str(classes), str(total), str(sum(teacher)),
                           f"{total / sum(teacher):.1f}", f"{total / classes:.1f}"))
            if s.kind in ("중학교", "고등학교"):
                for k, subject in enumerate(_SUBJECTS):
                    mean = 55 + d[5 + k] % 300 / 10
                    shares = _shares(mean, d[10 + k % 5])
                    achieve.append((*_base(s, year), str(s.grades), subject, f"{mean:.1f}",
                                    f"{15 + d[5 + k] % 100 / 10:.1f}", *shares))
    return [_table("schoolinfo_basic", 9, basic), _table("schoolinfo_students", 10, students),
            _table("schoolinfo_teachers", 11, teachers), _table("schoolinfo_status", 5, status),
            _table("schoolinfo_achievement", 9, achieve)]


def _shares(mean: float, draw: int) -> tuple[str, ...]:
    """성취도 A–E 비율(%) that sum to 100 and lean with the mean."""
    a = max(5.0, mean - 50 + draw % 10)
    b = 22.0
    c = 20.0
    d = max(5.0, (100 - a - b - c) * 0.55)
    e = 100 - a - b - c - d
    return tuple(f"{v:.1f}" for v in (a, b, c, d, e))


_BINDS = {"sidoCode": Bind("_SIDO_CODE", pattern=r"\d{2}"), "sggCode": Bind("_SGG_CODE", pattern=r"\d{5}"),
          "schulKndCode": Bind("_KND_CODE", pattern=r"0[2-7]"), "pbanYr": Bind("PBAN_YR", pattern=r"\d{4}")}
# sidoCode/sggCode/schulKndCode are what the API guide marks 필수; pbanYr for every 공시항목 but 0.
_REQ = ("sidoCode", "sggCode", "schulKndCode")


def _ep(api_type: str, table: str, n_cols: int) -> Endpoint:
    fields = ("SCHUL_CODE", "SCHUL_NM", "PBAN_YR", "PBAN_EXCP_YN", *(f"COL_{i}" for i in range(1, n_cols + 1)))
    required = _REQ if api_type == "0" else (*_REQ, "pbanYr")
    return Endpoint("schoolinfo", HOST, f"openApi.do?apiType={api_type}", table, binds=dict(_BINDS),
                    required=required, fields=fields, options={"key_id": "schoolinfo", "recent_years": 3})


ENDPOINTS = [
    _ep("0", "schoolinfo_basic", 9),
    _ep("09", "schoolinfo_students", 10),
    _ep("21", "schoolinfo_achievement", 9),
    _ep("22", "schoolinfo_teachers", 11),
    _ep("62", "schoolinfo_status", 5),
]
