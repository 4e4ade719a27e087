"""Schools shared by NEIS (교육정보 개방포털) and 학교알리미.

One row per school. NEIS knows a school by (ATPT_OFCDC_SC_CODE, 7-digit SD_SCHUL_CODE); 학교알리미 by
its own SCHUL_CODE (교육청 code + 7 digits, e.g. B100000465 — how the two relate is unconfirmed, so
the numbers are drawn independently). Names are a place stem + 학교급 and are unique within one
교육청 and 학교급 only, so a name search across the country returns several schools.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from sim.world.context import WorldContext
from sim.world.floats import sequential_sum
from sim.world.names import PLACE_STEMS, nfc
from sim.world.regions import SIDOS, sigungu_of

# Share of the nation's schools per 시도 (교육통계 2024, rounded).
_SIDO_SHARE = {
    "11": 11.4, "26": 5.1, "27": 3.8, "28": 4.4, "29": 2.6, "30": 2.5, "31": 2.1, "36": 1.4, "41": 21.0,
    "51": 5.4, "43": 4.3, "44": 6.1, "52": 6.2, "46": 7.1, "47": 7.7, "48": 8.1, "50": 1.6,
}
# (학교급명, 학교알리미 schulKndCode, NEIS timetable service stem, share, grades)
KINDS = [
    ("초등학교", "02", "els", 0.52, 6),
    ("중학교", "03", "mis", 0.27, 3),
    ("고등학교", "04", "his", 0.19, 3),
    ("특수학교", "05", "sps", 0.02, 6),
]
_SYLLABLES = list("대도매원신광명성송화동서남북금은월산양평안영정수문덕청학봉용운해중구진내상하오석계곡천호")
_ENG = {"초등학교": "Elementary", "중학교": "Middle", "고등학교": "High", "특수학교": "Special"}
_DOMAIN = {"초등학교": "es", "중학교": "ms", "고등학교": "hs", "특수학교": "sc"}
_HS_TYPES = [("일반고", 0.66), ("특성화고", 0.20), ("자율고", 0.07), ("특수목적고", 0.07)]


@dataclass(frozen=True)
class School:
    atpt_code: str
    atpt_name: str
    sd_code: str  # NEIS 행정표준코드 (7 digits)
    schul_code: str  # 학교알리미 학교코드
    name: str
    eng_name: str
    kind: str  # 초등학교 / 중학교 / 고등학교 / 특수학교
    kind_code: str  # 02 / 03 / 04 / 05
    timetable: str  # els / mis / his / sps
    grades: int
    sido_code: str
    sido_name: str
    sgg_code: str
    sgg_name: str
    fond: str  # 공립 / 사립 / 국립
    coedu: str  # 남여공학 / 남 / 여
    hs_type: str  # 고등학교일반전문구분 (일반고 …), "" below 고등학교
    zip: str
    road_addr: str
    road_detail: str
    tel: str
    fax: str
    homepage: str
    ju_org: str  # 관할조직명 (교육지원청)
    fond_ymd: str
    foas_memrd: str  # 개교기념일
    students: int  # 재학생 수 (기준)


def schools(ctx: WorldContext) -> list[School]:
    """The nationwide school list, built once per world."""
    if "schools" not in ctx._cache:
        ctx._cache["schools"] = _build(ctx)
    return ctx._cache["schools"]


def _stem_pool() -> tuple[list[str], np.ndarray]:
    """Common stems (weighted heavily: they recur in every 교육청) and two-syllable local stems."""
    local = [a + b for a in _SYLLABLES for b in _SYLLABLES if a != b]
    common = list(PLACE_STEMS)
    pool = common + [s for s in local if s not in common]
    weights = np.array([25.0] * len(common) + [1.0] * (len(pool) - len(common)))
    return pool, weights / weights.sum()


def _build(ctx: WorldContext) -> list[School]:
    total = ctx.n(600, 12_000)
    pool, weights = _stem_pool()
    share_sum = sequential_sum(_SIDO_SHARE.values())
    out: list[School] = []
    for sido_index, sido in enumerate(SIDOS):
        rng = ctx.rng("schools", sido.code)
        n = max(8, round(total * _SIDO_SHARE[sido.code] / share_sum))
        sggs = sigungu_of(sido.code)
        kinds = rng.choice(len(KINDS), n, p=[k[3] for k in KINDS])
        stems = np.empty(n, dtype=np.int64)
        for kind_index in range(len(KINDS)):
            members = np.flatnonzero(kinds == kind_index)
            stems[members] = rng.choice(len(pool), len(members), replace=False, p=weights)
        draws = _Draws(rng, n, len(sggs))
        for i in range(n):
            out.append(_school(draws, i, sido, sido_index, sggs[draws.sgg[i]], pool[stems[i]], KINDS[kinds[i]]))
    return out


class _Draws:
    """Every random value of one 시도's schools, drawn as arrays (one call per attribute, not per school)."""

    def __init__(self, rng: np.random.Generator, n: int, n_sgg: int) -> None:
        self.sgg = rng.integers(0, n_sgg, n).tolist()
        self.sd = rng.choice(100_000, n, replace=False).tolist()
        self.alimi = rng.choice(1_000_000, n, replace=False).tolist()
        self.fond = rng.choice(["공립", "사립", "국립"], n, p=[0.82, 0.175, 0.005]).tolist()
        self.coedu = rng.choice(["남여공학", "남", "여"], n, p=[0.7, 0.15, 0.15]).tolist()
        self.hs = rng.choice([t for t, _ in _HS_TYPES], n, p=[p for _, p in _HS_TYPES]).tolist()
        self.fond_ord = (dt.date(1920, 1, 1).toordinal() + rng.integers(0, 103 * 365, n)).tolist()
        self.nums = rng.integers(0, 10_000, (n, 6)).tolist()
        self.size = rng.normal(1.0, 0.45, n).tolist()


_STUDENTS = {"초등학교": 400, "중학교": 420, "고등학교": 500, "특수학교": 100}


def _school(d: _Draws, i: int, sido, sido_index: int, sgg, stem: str, kind_row: tuple) -> School:
    kind, kind_code, timetable, _, grades = kind_row
    name = nfc(stem + kind)
    fond = "공립" if kind == "초등학교" and d.fond[i] == "사립" and d.nums[i][5] % 5 else d.fond[i]
    fond_date = dt.date.fromordinal(d.fond_ord[i])
    a, b, c, e, f, _ = d.nums[i]
    area = "02" if sido.code == "11" else f"0{30 + sido_index}"
    sd_code = f"{70 + sido_index:02d}{d.sd[i]:05d}"
    return School(
        atpt_code=sido.atpt_code,
        atpt_name=sido.atpt_name,
        sd_code=sd_code,
        schul_code=f"{sido.atpt_code}{d.alimi[i]:07d}",
        name=name,
        eng_name=f"{stem} {_ENG[kind]} School",
        kind=kind,
        kind_code=kind_code,
        timetable=timetable,
        grades=grades,
        sido_code=sido.code,
        sido_name=sido.name,
        sgg_code=sgg.code,
        sgg_name=sgg.name,
        fond=fond,
        coedu="남여공학" if kind == "초등학교" else d.coedu[i],
        hs_type=d.hs[i] if kind == "고등학교" else "",
        zip=f"{1000 + a * 6:05d}",
        road_addr=f"{sido.name} {sgg.name} {stem}로 {1 + b % 300}",
        road_detail=f"/ {name}",
        tel=f"{area}-{100 + c % 900:03d}-{e:04d}",
        fax=f"{area}-{100 + e % 900:03d}-{f:04d}",
        homepage=f"http://s{sd_code}.{sido.atpt_code.lower()}.{_DOMAIN[kind]}.kr",
        ju_org=f"{sido.name}{sgg.name.split()[0][:-1] or sgg.name}교육지원청",
        fond_ymd=fond_date.strftime("%Y%m%d"),
        foas_memrd=fond_date.strftime("%Y%m%d"),
        students=int(max(8, _STUDENTS[kind] * d.size[i])),
    )
