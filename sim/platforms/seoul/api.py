"""서울 열린데이터광장 (openapi.seoul.go.kr:8088): 부동산 전월세가, 지하철·버스 승하차, 지하철역·시간표,
버스노선·정류소, 따릉이, 문화행사, 공영주차장, 상권 영역·추정매출.

Entities the services share: 자치구 CGG_CD = 행정표준 시군구코드 (regions.py), 법정동 STDG_CD within a
구, STATION_CD (역코드) → 시간표, SUB_STA_NM + LINE_NUM → 승하차, BUS_ROUTE_NO → BUS_ROUTE_ID → 정류소 →
승하차, TRDAR_CD (상권코드) → 추정매출. tbLnOpendataRentV is the project's largest table (224,958 rows at
scale `full`) and is generated column-wise with numpy.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.names import PLACE_STEMS, SURNAMES
from sim.world.regions import sigungu_of
from sim.world.rng import stream
from sim.world.table import TableData

HOST = "openapi.seoul.go.kr"
RENT_ROWS_FULL = 224_958
RENT_ROWS_SMALL = 3_000

# 법정동 per 자치구, in the order of the 법정동코드 table. STDG_CD is modelled as 10100, 10200, … in this
# order (the real codes follow the same order with occasional gaps).
DONGS = {
    "11110": "청운동 사직동 삼청동 혜화동 평창동 부암동 명륜1가 숭인동",
    "11140": "무교동 명동1가 신당동 황학동 중림동 회현동1가 필동1가",
    "11170": "후암동 용산동2가 이태원동 한남동 서빙고동 이촌동 원효로1가 청파동1가",
    "11200": "상왕십리동 하왕십리동 행당동 응봉동 금호동1가 옥수동 성수동1가 송정동",
    "11215": "중곡동 능동 구의동 광장동 자양동 화양동 군자동",
    "11230": "신설동 용두동 제기동 전농동 답십리동 장안동 청량리동 회기동 휘경동 이문동",
    "11260": "면목동 상봉동 중화동 묵동 망우동 신내동",
    "11290": "성북동 돈암동 안암동 보문동1가 정릉동 길음동 종암동 월곡동 장위동 석관동",
    "11305": "미아동 번동 수유동 우이동",
    "11320": "쌍문동 방학동 창동 도봉동",
    "11350": "월계동 공릉동 하계동 상계동 중계동",
    "11380": "수색동 녹번동 불광동 갈현동 구산동 대조동 응암동 역촌동 신사동 증산동 진관동",
    "11410": "충정로2가 합동 미근동 냉천동 천연동 북아현동 홍제동 남가좌동 북가좌동 연희동 홍은동 창천동",
    "11440": "아현동 공덕동 신공덕동 도화동 용강동 대흥동 염리동 신수동 서교동 합정동 망원동 연남동 성산동 상암동",
    "11470": "신정동 목동 신월동",
    "11500": "염창동 등촌동 화곡동 가양동 마곡동 내발산동 외발산동 공항동 방화동 개화동",
    "11530": "신도림동 구로동 가리봉동 고척동 개봉동 오류동 궁동 온수동 천왕동 항동",
    "11545": "가산동 독산동 시흥동",
    "11560": "영등포동 여의도동 당산동 도림동 문래동 양평동 신길동 대림동",
    "11590": "노량진동 상도동 흑석동 사당동 대방동 신대방동",
    "11620": "봉천동 신림동 남현동",
    "11650": "방배동 양재동 우면동 원지동 잠원동 반포동 서초동 내곡동",
    "11680": "역삼동 개포동 청담동 삼성동 대치동 신사동 논현동 압구정동 세곡동 일원동 수서동 도곡동",
    "11710": "잠실동 신천동 풍납동 송파동 석촌동 삼전동 가락동 문정동 장지동 방이동 오금동 거여동 마천동",
    "11740": "명일동 고덕동 상일동 길동 둔촌동 암사동 성내동 천호동 강일동",
}

# 지하철 호선별 역 (서울 구간, 운행 순서).
LINES = {
    1: "서울역 시청 종각 종로3가 종로5가 동대문 신설동 제기동 청량리 회기 외대앞 신이문 석계 광운대 월계 녹천 "
       "창동 방학 도봉 도봉산 남영 용산 노량진 대방 신길 영등포 신도림 구로 구일 개봉 오류동 온수",
    2: "시청 을지로입구 을지로3가 을지로4가 동대문역사문화공원 신당 상왕십리 왕십리 한양대 뚝섬 성수 건대입구 구의 "
       "강변 잠실나루 잠실 잠실새내 종합운동장 삼성 선릉 역삼 강남 교대 서초 방배 사당 낙성대 서울대입구 봉천 신림 "
       "신대방 구로디지털단지 대림 신도림 문래 영등포구청 당산 합정 홍대입구 신촌 이대 아현 충정로",
    3: "구파발 연신내 불광 녹번 홍제 무악재 독립문 경복궁 안국 종로3가 을지로3가 충무로 동대입구 약수 금호 옥수 "
       "압구정 신사 잠원 고속터미널 교대 남부터미널 양재 매봉 도곡 대치 학여울 대청 일원 수서 가락시장 경찰병원 오금",
    4: "불암산 상계 노원 창동 쌍문 수유 미아 미아사거리 길음 성신여대입구 한성대입구 혜화 동대문 동대문역사문화공원 "
       "충무로 명동 회현 서울역 숙대입구 삼각지 신용산 이촌 동작 총신대입구(이수) 사당",
    5: "방화 개화산 김포공항 송정 마곡 발산 우장산 화곡 까치산 신정 목동 오목교 양평 영등포구청 영등포시장 신길 여의도 "
       "여의나루 마포 공덕 애오개 충정로 서대문 광화문 종로3가 을지로4가 동대문역사문화공원 청구 신금호 행당 왕십리 "
       "마장 답십리 장한평 군자 아차산 광나루 천호 강동 길동 굽은다리 명일 고덕 상일동",
    6: "응암 역촌 불광 독바위 연신내 구산 새절 증산 디지털미디어시티 월드컵경기장 마포구청 망원 합정 상수 광흥창 대흥 "
       "공덕 효창공원앞 삼각지 녹사평 이태원 한강진 버티고개 약수 청구 신당 동묘앞 창신 보문 안암 고려대 월곡 상월곡 "
       "돌곶이 석계 태릉입구 화랑대 봉화산",
    7: "장암 도봉산 수락산 마들 노원 중계 하계 공릉 태릉입구 먹골 중화 상봉 면목 사가정 용마산 중곡 군자 어린이대공원 "
       "건대입구 뚝섬유원지 청담 강남구청 학동 논현 반포 고속터미널 내방 이수 남성 숭실대입구 상도 장승배기 "
       "신대방삼거리 보라매 신풍 대림 남구로 가산디지털단지 철산 광명사거리 천왕 온수",
    8: "암사 천호 강동구청 몽촌토성 잠실 석촌 송파 가락시장 문정 장지 복정",
    9: "개화 김포공항 공항시장 신방화 마곡나루 양천향교 가양 증미 등촌 염창 신목동 선유도 당산 국회의사당 여의도 샛강 "
       "노량진 노들 흑석 동작 구반포 신반포 고속터미널 사평 신논현 언주 선정릉 삼성중앙 봉은사 종합운동장",
}
ENG = {"서울역": "Seoul Station", "강남": "Gangnam", "시청": "City Hall", "잠실": "Jamsil", "홍대입구": "Hongik Univ."}


def _days_back(ctx: WorldContext, lag: int, count: int) -> list[dt.date]:
    """`count` days ending `lag` days before today (the portal publishes 승하차 a few days late)."""
    last = ctx.today - dt.timedelta(days=lag)
    return [last - dt.timedelta(days=i) for i in range(count)][::-1]


def _gu() -> list[tuple[str, str]]:
    return [(s.code, s.name) for s in sigungu_of("11")]


# ---------------------------------------------------------------- 부동산 전월세가 (vectorised)

_USAGES = np.array(["아파트", "연립다세대", "오피스텔", "단독다가구"])
_APT_TAILS = ["아파트", "래미안", "자이", "푸르지오", "힐스테이트", "e편한세상", "롯데캐슬", "아이파크", "SK뷰", "센트레빌"]


def _buildings(ctx: WorldContext) -> dict[str, np.ndarray]:
    """The building pool contracts draw from: one row per building, with its 구, 동, 지번 and usage."""
    rng = ctx.rng("seoul", "rent-buildings")
    gus = _gu()
    n = ctx.n(600, 24_000)
    gu_idx = rng.integers(0, len(gus), n)
    dong_counts = np.array([len(DONGS[c].split()) for c, _ in gus])
    dong_idx = (rng.random(n) * dong_counts[gu_idx]).astype(int)
    usage_idx = rng.choice(4, n, p=[0.42, 0.26, 0.14, 0.18])
    stems = np.array(PLACE_STEMS)
    tails = np.array(_APT_TAILS)
    stem = stems[rng.integers(0, len(stems), n)]
    tail = tails[rng.integers(0, len(tails), n)]
    dong_names = np.array([DONGS[gus[g][0]].split()[d] for g, d in zip(gu_idx, dong_idx, strict=True)])
    apt = np.char.add(np.char.add(np.char.replace(dong_names, "동", ""), stem), tail)
    villa = np.char.add(stem, np.array(["빌라", "하우스", "맨션", "빌"])[rng.integers(0, 4, n)])
    offi = np.char.add(stem, np.array(["오피스텔", "타워", "스위트", "레지던스"])[rng.integers(0, 4, n)])
    name = np.where(usage_idx == 0, apt, np.where(usage_idx == 1, villa, np.where(usage_idx == 2, offi, "")))
    return {
        "gu": gu_idx,
        "dong": dong_idx,
        "dong_name": dong_names.astype(object),
        "usage": usage_idx,
        "name": name.astype(object),
        "lotno": rng.choice(np.array([1, 2, 3]), n, p=[0.95, 0.03, 0.02]),
        "mno": np.char.zfill(rng.integers(1, 1800, n).astype(str), 4).astype(object),
        "sno": np.char.zfill(np.where(rng.random(n) < 0.55, 0, rng.integers(1, 90, n)).astype(str), 4).astype(object),
        "arch_yr": (1978 + (rng.beta(2.2, 1.6, n) * 47).astype(int)).astype(str).astype(object),
        "floors": np.where(usage_idx == 0, rng.integers(5, 36, n), rng.integers(2, 16, n)),
        "area_base": np.array([84.9, 45.0, 28.0, 60.0])[usage_idx],
    }


def _pool(values: list[str]) -> np.ndarray:
    """An object array to fancy-index: materialising 225k strings from a small pool is a pointer copy."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _amount_text(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Integers as text where mask holds, "" elsewhere (종전 보증금/임대료 exist for 갱신 contracts only)."""
    out = np.full(len(values), "", dtype=object)
    out[mask] = values[mask].astype(np.int64).astype(str).astype(object)
    return out


def _rent(ctx: WorldContext) -> TableData:
    """Contracts drawn over the building pool; rows are ordered (integer indices first, strings last)."""
    rng = ctx.rng("seoul", "rent")
    n = ctx.n(RENT_ROWS_SMALL, RENT_ROWS_FULL)
    b = _buildings(ctx)
    gus = _gu()
    # 계약일: 2025-01-01 .. yesterday, denser in recent months; 접수연도 follows the 계약일.
    first = dt.date(2025, 1, 1)
    span = (ctx.today - first).days
    days = [yyyymmdd(first + dt.timedelta(days=i)) for i in range(span)]
    pick = rng.integers(0, len(b["gu"]), n)
    day_off = np.minimum((rng.beta(1.3, 1.0, n) * span).astype(int), span - 1)
    order = np.lexsort((pick, day_off))[::-1]  # newest contract first, as the portal lists them
    pick, day_off = pick[order], day_off[order]
    gu_idx, usage = b["gu"][pick], b["usage"][pick]
    wolse = rng.random(n) < np.array([0.38, 0.55, 0.78, 0.62])[usage]
    centi_area = np.clip(np.round(b["area_base"][pick] * rng.lognormal(0.0, 0.28, n) * 100), 1000, 39_999)
    area = centi_area / 100
    # 강남3구 and 용산 are dearer; 보증금 and 월세 in 만원.
    premium = np.where(np.isin(gu_idx, [i for i, (c, _) in enumerate(gus) if c in ("11650", "11680", "11710",
                                                                                   "11170")]), 1.6, 1.0)
    jeonse = np.round(area * 520 * premium * rng.lognormal(0.0, 0.25, n), -2).astype(np.int64)
    deposit = np.where(wolse, np.round(jeonse * rng.uniform(0.03, 0.4, n), -2), jeonse).astype(np.int64)
    deposit = np.maximum(deposit, 100)
    monthly = np.where(wolse, np.maximum(20, np.round((jeonse - deposit) * 0.004 + rng.normal(0, 8, n))), 0)
    renewal = rng.random(n) < 0.32
    floor_no = np.where(usage == 3, 0, 1 + (rng.random(n) * b["floors"][pick]).astype(int))
    lotno = b["lotno"][pick]
    columns = {
        "RCPT_YR": _pool([d[:4] for d in days])[day_off],
        "CGG_CD": _pool([c for c, _ in gus])[gu_idx], "CGG_NM": _pool([nm for _, nm in gus])[gu_idx],
        "STDG_CD": _pool([str(10100 + 100 * i) for i in range(20)])[b["dong"][pick]],
        "STDG_NM": b["dong_name"][pick], "LOTNO_SE": _pool(["", "1", "2", "3"])[lotno],
        "LOTNO_SE_NM": _pool(["", "대지", "산", "블럭"])[lotno],
        "MNO": b["mno"][pick], "SNO": b["sno"][pick],
        "FLR": _pool([""] + [str(i) for i in range(1, 40)])[floor_no],
        "CTRT_DAY": _pool(days)[day_off], "RENT_SE": _pool(["전세", "월세"])[wolse.astype(int)],
        "RENT_AREA": _pool([f"{i / 100:.2f}" for i in range(40_000)])[centi_area.astype(int)],
        "GRFE": deposit, "RTFE": monthly.astype(np.int64), "BLDG_NM": b["name"][pick],
        "ARCH_YR": b["arch_yr"][pick], "BLDG_USG": _pool(_USAGES.tolist())[usage],
        # 계약기간 as the portal writes it ("25.03~27.03"): two years from the contract month.
        "CTRT_PRD": _pool([f"{d[2:4]}.{d[4:6]}~{int(d[2:4]) + 2:02d}.{d[4:6]}" for d in days])[day_off],
        "NEW_UPDT_YN": _pool(["신규", "갱신"])[renewal.astype(int)],
        "CTRT_UPDT_USE_YN": _pool(["", "사용"])[(renewal & (rng.random(n) < 0.6)).astype(int)],
        "BFR_GRFE": _amount_text(np.round(deposit * rng.uniform(0.85, 1.0, n), -1), renewal),
        "BFR_RTFE": _amount_text(np.round(monthly * rng.uniform(0.9, 1.0, n)), renewal),
    }
    return TableData("seoul_rent", columns,
                     entities={"CGG_CD": "sigungu_code", "CGG_NM": "sigungu_name", "STDG_CD": "stdg_code",
                               "STDG_NM": "stdg_name", "BLDG_NM": "building_name"})


# ---------------------------------------------------------------- 지하철

def _stations() -> list[tuple[str, str, str, str]]:
    """(STATION_CD, STATION_NM, LINE_NUM as 01호선, FR_CODE); codes follow line 2's real 0201/201 scheme."""
    out = []
    for line, names in LINES.items():
        for seq, name in enumerate(names.split(), start=1):
            out.append((f"{line:02d}{seq:02d}", name, f"{line:02d}호선", f"{line}{seq:02d}"))
    return out


def _subway_tables(ctx: WorldContext) -> list[TableData]:
    st = _stations()
    info = TableData("seoul_subway_station", {
        "STATION_CD": [s[0] for s in st], "STATION_NM": [s[1] for s in st],
        "STATION_NM_ENG": [ENG.get(s[1], "") for s in st], "LINE_NUM": [s[2] for s in st],
        "FR_CODE": [s[3] for s in st], "STATION_NM_CHN": ["" for _ in st], "STATION_NM_JPN": ["" for _ in st],
    }, entities={"STATION_CD": "subway_station_code", "STATION_NM": "subway_station_name", "FR_CODE": "subway_fr_code"})
    return [info, _timetable(ctx, st), _subway_stats(ctx, st)]


def _timetable(ctx: WorldContext, st: list[tuple[str, str, str, str]]) -> TableData:
    """SearchSTNTimeTableByIDService: trains per station × 요일(1 평일, 2 토요일, 3 휴일/일요일) × 상하행."""
    per = ctx.n(4, 36)
    n_st = len(st)
    s_idx = np.repeat(np.arange(n_st), 6 * per)
    week = np.tile(np.repeat(np.array(["1", "2", "3"]), 2 * per), n_st)
    inout = np.tile(np.repeat(np.array(["1", "2"]), per), 3 * n_st)
    k = np.tile(np.arange(per), 6 * n_st)
    minutes = 5 * 60 + 30 + (k * (18 * 60 // per)) + (s_idx % 7)
    hhmmss = np.char.add(np.char.add(np.char.zfill((minutes // 60).astype(str), 2), ":"),
                         np.char.add(np.char.zfill((minutes % 60).astype(str), 2), ":00"))
    lines = {ln: names.split() for ln, names in LINES.items()}
    line_of = np.array([int(s[0][:2]) for s in st])[s_idx]
    first = np.array([lines[ln][0] for ln in line_of])
    last = np.array([lines[ln][-1] for ln in line_of])
    up = inout == "1"
    codes = np.array([s[0] for s in st])
    train_no = np.char.add(np.char.mod("%d", line_of), np.char.zfill((k + 1).astype(str), 3))
    return TableData("seoul_subway_timetable", {
        "LINE_NUM": np.array([s[2] for s in st])[s_idx], "FR_CODE": np.array([s[3] for s in st])[s_idx],
        "STATION_CD": codes[s_idx], "STATION_NM": np.array([s[1] for s in st])[s_idx], "TRAIN_NO": train_no,
        "ARRIVETIME": hhmmss, "LEFTTIME": hhmmss, "ORIGINSTATION": np.where(up, last, first),
        "DESTSTATION": np.where(up, first, last), "SUBWAYSNAME": np.where(up, last, first),
        "SUBWAYENAME": np.where(up, first, last), "WEEK_TAG": week, "INOUT_TAG": inout,
        "FL_FLAG": np.full(len(s_idx), "0"), "EXPRESS_YN": np.full(len(s_idx), "G"),
        "BRANCH_LINE": np.full(len(s_idx), ""),
    }, entities={"STATION_CD": "subway_station_code", "STATION_NM": "subway_station_name"})


RIDERSHIP_START = dt.date(2015, 1, 1)  # the card data the portal serves begins with 2015
RIDERSHIP_LAG = 3  # days: the portal publishes 승하차 a few days late
_STATS_COLS = ("USE_DT", "LINE_NUM", "SUB_STA_NM", "RIDE_PASGR_NUM", "ALIGHT_PASGR_NUM", "WORK_DT")


def _ridership_day(ctx: WorldContext, st: list[tuple[str, str, str, str]], day: dt.date) -> list[tuple]:
    """One day's rows, from a stream named by the day: any day answers the same whenever it is asked."""
    base = stream(ctx.seed, "seoul-subway-base").lognormal(9.6, 0.7, len(st))
    rng = stream(ctx.seed, "seoul-subway-ridership", yyyymmdd(day))
    weekend = 0.6 if day.weekday() >= 5 else 1.0
    # 2020–2021: the pandemic years rode about a third less; a slow growth otherwise.
    era = 0.68 if dt.date(2020, 3, 1) <= day <= dt.date(2021, 12, 31) else 1.0 + 0.004 * (day.year - 2015)
    ride = (base * weekend * era * rng.uniform(0.9, 1.1, len(st))).astype(int)
    alight = (ride * rng.uniform(0.9, 1.1, len(st))).astype(int)
    work = yyyymmdd(day + dt.timedelta(days=RIDERSHIP_LAG))
    return [(yyyymmdd(day), f"{int(s[2][:2])}호선", s[1], r, a, work)
            for s, r, a in zip(st, ride.tolist(), alight.tolist(), strict=True)]


def _stats_table(rows: list[tuple]) -> TableData:
    return TableData("seoul_subway_stats", {c: [r[i] for r in rows] for i, c in enumerate(_STATS_COLS)},
                     entities={"SUB_STA_NM": "subway_station_name"})


def _subway_stats(ctx: WorldContext, st: list[tuple[str, str, str, str]]) -> TableData:
    """CardSubwayStatsNew's stored sample (the last days); the endpoint answers any day from 2015 on demand.
    One row per (사용일자, 호선, 역), LINE_NUM as the card data spells it (1호선)."""
    rows = []
    for d in _days_back(ctx, RIDERSHIP_LAG, ctx.n(3, 31)):
        rows += _ridership_day(ctx, st, d)
    return _stats_table(rows)


class SubwayRidershipHistory:
    """CardSubwayStatsNew by 사용일자 (USE_DT is required): 2015-01-01 up to a few days before today."""

    name = "seoul_subway_stats"

    def scope(self, ctx: WorldContext, args: dict[str, str]):
        try:
            day = dt.datetime.strptime(args["USE_DT"], "%Y%m%d").date()
        except ValueError:
            return None
        last = ctx.today - dt.timedelta(days=RIDERSHIP_LAG)
        return day if RIDERSHIP_START <= day <= last else None

    def generate(self, ctx: WorldContext, day: dt.date) -> TableData:
        return _stats_table(_ridership_day(ctx, _stations(), day))


# ---------------------------------------------------------------- 버스

_ROUTE_TYPES = [("간선", 0.35), ("지선", 0.45), ("광역", 0.05), ("순환", 0.02), ("마을", 0.13)]


def _bus_tables(ctx: WorldContext) -> list[TableData]:
    rng = ctx.rng("seoul", "bus")
    n_routes, n_stops = ctx.n(60, 300), ctx.n(800, 6000)
    gus = _gu()
    stop_gu = rng.integers(0, len(gus), n_stops)
    stop_names = [f"{DONGS[gus[g][0]].split()[int(rng.integers(0, len(DONGS[gus[g][0]].split())))]}"
                  f"{['주민센터', '사거리', '시장', '초등학교', '역', '아파트', '우체국', '공원'][int(rng.integers(0, 8))]}"
                  for g in stop_gu]
    stop_id = [str(100_000_001 + 3 * i) for i in range(n_stops)]
    ars = [f"{int(gus[g][0][2:4]) % 25 + 1:02d}{100 + i % 900:03d}" for i, g in enumerate(stop_gu)]
    kinds = rng.choice(len(_ROUTE_TYPES), n_routes, p=[p for _, p in _ROUTE_TYPES])
    route_rows, station_rows = [], []
    used: set[str] = set()
    for i in range(n_routes):
        kind = _ROUTE_TYPES[int(kinds[i])][0]
        no = _route_no(rng, kind, used)
        route_id = str(100_100_001 + 7 * i)
        length = int(rng.integers(20, 70))
        stops = rng.choice(n_stops, length, replace=False)
        st, ed = stop_names[int(stops[0])], stop_names[int(stops[-1])]
        route_rows.append((route_id, no, f"{no}번({st}~{ed})", kind, st, ed, "0430", "2300",
                           str(int(rng.integers(6, 25))), f"{SURNAMES[i % len(SURNAMES)]}진운수"))
        for ordinal, s in enumerate(stops.tolist(), start=1):
            station_rows.append((route_id, no, str(ordinal), stop_id[s], ars[s], stop_names[s]))
    routes = TableData("seoul_bus_route", _columns(
        ["BUS_ROUTE_ID", "BUS_ROUTE_NO", "BUS_ROUTE_NM", "ROUTE_TYPE", "ST_STA_NM", "ED_STA_NM", "FIRST_BUS_TM",
         "LAST_BUS_TM", "TERM", "CORP_NM"], route_rows),
        entities={"BUS_ROUTE_ID": "bus_route_id", "BUS_ROUTE_NO": "bus_route_no"})
    stations = TableData("seoul_bus_route_station", _columns(
        ["BUS_ROUTE_ID", "BUS_ROUTE_NO", "STA_ORD", "STND_BSST_ID", "BSST_ARS_NO", "BUS_STA_NM"], station_rows),
        entities={"BUS_ROUTE_ID": "bus_route_id", "BUS_ROUTE_NO": "bus_route_no", "STND_BSST_ID": "bus_stop_id",
                  "BSST_ARS_NO": "bus_ars_no"})
    return [routes, stations, _bus_stats(ctx, route_rows, station_rows)]


def _route_no(rng: np.random.Generator, kind: str, used: set[str]) -> str:
    while True:
        if kind == "간선":
            no = str(int(rng.integers(100, 800)))
        elif kind == "지선":
            no = str(int(rng.integers(1000, 7800)))
        elif kind == "광역":
            no = str(int(rng.integers(9000, 9800)))
        elif kind == "순환":
            no = f"{int(rng.integers(1, 9)):02d}"
        else:
            no = f"{['강남', '마포', '서초', '종로', '성북'][int(rng.integers(0, 5))]}{int(rng.integers(1, 20)):02d}"
        if no not in used:
            used.add(no)
            return no


def _bus_stats(ctx: WorldContext, routes: list[tuple], stations: list[tuple]) -> TableData:
    rng = ctx.rng("seoul", "bus-stats")
    days = _days_back(ctx, 3, ctx.n(2, 5))
    names = {r[0]: r[2] for r in routes}
    m = len(stations)
    st = np.array(stations)
    base = rng.lognormal(4.5, 1.0, m)
    cols: dict[str, list] = {c: [] for c in ("USE_DT", "BUS_ROUTE_ID", "BUS_ROUTE_NO", "BUS_ROUTE_NM",
                                               "STND_BSST_ID", "BSST_ARS_NO", "BUS_STA_NM", "RIDE_PASGR_NUM",
                                               "ALIGHT_PASGR_NUM", "WORK_DT")}
    route_nm = [names[r] for r in st[:, 0].tolist()]
    for d in days:
        factor = 0.65 if d.weekday() >= 5 else 1.0
        ride = (base * factor * rng.uniform(0.8, 1.2, m)).astype(int)
        cols["USE_DT"] += [yyyymmdd(d)] * m
        cols["BUS_ROUTE_ID"] += st[:, 0].tolist()
        cols["BUS_ROUTE_NO"] += st[:, 1].tolist()
        cols["BUS_ROUTE_NM"] += route_nm
        cols["STND_BSST_ID"] += st[:, 3].tolist()
        cols["BSST_ARS_NO"] += st[:, 4].tolist()
        cols["BUS_STA_NM"] += st[:, 5].tolist()
        cols["RIDE_PASGR_NUM"] += ride.tolist()
        cols["ALIGHT_PASGR_NUM"] += (ride * rng.uniform(0.7, 1.3, m)).astype(int).tolist()
        cols["WORK_DT"] += [yyyymmdd(d + dt.timedelta(days=3))] * m
    return TableData("seoul_bus_stats", cols, entities={"BUS_ROUTE_ID": "bus_route_id",
                                                        "BUS_ROUTE_NO": "bus_route_no",
                                                        "STND_BSST_ID": "bus_stop_id", "BSST_ARS_NO": "bus_ars_no"})


def _columns(names: list[str], rows: list[tuple]) -> dict[str, list]:
    return {c: [r[i] for r in rows] for i, c in enumerate(names)}


# ---------------------------------------------------------------- 따릉이, 문화행사, 주차장, 상권

def _bikes(ctx: WorldContext) -> TableData:
    rng = ctx.rng("seoul", "bike")
    n = ctx.n(300, 2700)
    stems = [s for names in DONGS.values() for s in names.split()]
    rows = []
    for i in range(n):
        racks = int(rng.choice([10, 15, 20, 25]))
        rows.append((str(racks), f"{i + 101}. {stems[i % len(stems)]} {['주민센터 앞', '사거리', '역 1번출구 앞', '공원 입구'][i % 4]}",
                     str(int(rng.integers(0, racks + 8))), str(int(rng.integers(0, 160))),
                     f"{37.45 + rng.random() * 0.22:.8f}", f"{126.82 + rng.random() * 0.33:.8f}", f"ST-{i + 4}"))
    return TableData("seoul_bike_station", _columns(
        ["rackTotCnt", "stationName", "parkingBikeTotCnt", "shared", "stationLatitude", "stationLongitude",
         "stationId"], rows), entities={"stationId": "bike_station_id"})


_EVENT_KINDS = ["전시/미술", "클래식", "콘서트", "뮤지컬/오페라", "연극", "국악", "교육/체험", "축제-문화/예술", "기타"]


def _events(ctx: WorldContext) -> TableData:
    rng = ctx.rng("seoul", "events")
    n = ctx.n(200, 1500)
    gus = _gu()
    rows = []
    for i in range(n):
        kind = _EVENT_KINDS[int(rng.integers(0, len(_EVENT_KINDS)))]
        gu = gus[int(rng.integers(0, len(gus)))][1]
        start = ctx.today + dt.timedelta(days=int(rng.integers(-60, 60)))
        end = start + dt.timedelta(days=int(rng.integers(0, 90)))
        stem = PLACE_STEMS[i % len(PLACE_STEMS)]
        free = rng.random() < 0.4
        rows.append((kind, gu, f"[{gu}] {stem} {kind.split('/')[0]} {i + 1}", f"{start:%Y-%m-%d}~{end:%Y-%m-%d}",
                     f"{gu}{['문화회관', '구민회관', '아트홀', '도서관'][i % 4]}", gu, "누구나",
                     "무료" if free else f"{int(rng.integers(1, 9)) * 5000}원", "무료" if free else "유료",
                     f"{start:%Y-%m-%d} 00:00:00.0", f"{end:%Y-%m-%d} 00:00:00.0"))
    return TableData("seoul_cultural_event", _columns(
        ["CODENAME", "GUNAME", "TITLE", "DATE", "PLACE", "ORG_NAME", "USE_TRGT", "USE_FEE", "IS_FREE", "STRTDATE",
         "END_DATE"], rows), entities={"GUNAME": "sigungu_name"})


def _parking(ctx: WorldContext) -> TableData:
    rng = ctx.rng("seoul", "parking")
    n = ctx.n(150, 1200)
    gus = _gu()
    rows = []
    for i in range(n):
        code, gu = gus[int(rng.integers(0, len(gus)))]
        dong = DONGS[code].split()[int(rng.integers(0, len(DONGS[code].split())))]
        paid = rng.random() < 0.85
        rows.append((f"{1_010_000 + 13 * i}", f"{dong} {['공영주차장', '노상공영주차장', '공영주차장(시)'][i % 3]}",
                     f"{gu} {dong} {int(rng.integers(1, 900))}-{int(rng.integers(1, 40))}",
                     ["노외 주차장", "노상 주차장"][i % 2], str(int(rng.integers(10, 400))), "Y" if paid else "N",
                     "유료" if paid else "무료", str(int(rng.choice([100, 150, 200, 300])) if paid else 0), "5",
                     f"02-{int(rng.integers(2000, 9999))}-{int(rng.integers(1000, 9999))}"))
    return TableData("seoul_parking", _columns(
        ["PARKING_CODE", "PARKING_NAME", "ADDR", "PARKING_TYPE_NM", "CAPACITY", "PAY_YN", "PAY_NM", "RATES",
         "TIME_RATE", "TEL"], rows), entities={"PARKING_CODE": "parking_code"})


_TRDAR_SE = [("A", "골목상권"), ("D", "발달상권"), ("R", "전통시장"), ("U", "관광특구")]
_INDUTY = [("CS100001", "한식음식점"), ("CS100002", "중식음식점"), ("CS100010", "커피-음료"),
           ("CS200001", "일반교습학원"), ("CS300001", "슈퍼마켓"), ("CS300011", "일반의류")]


def _trdar(ctx: WorldContext) -> list[TableData]:
    rng = ctx.rng("seoul", "trdar")
    n = ctx.n(120, 1650)
    gus = _gu()
    areas = []
    for i in range(n):
        code, gu = gus[i % len(gus)]
        dongs = DONGS[code].split()
        dong = dongs[int(rng.integers(0, len(dongs)))]
        se, se_nm = _TRDAR_SE[int(rng.choice(4, p=[0.7, 0.15, 0.12, 0.03]))]
        areas.append((se, se_nm, str(3_110_001 + i), f"{dong} {['먹자골목', '역세권', '시장', '로데오거리'][i % 4]}",
                      str(int(rng.integers(190_000, 215_000))), str(int(rng.integers(440_000, 465_000))),
                      code, gu, str(int(rng.integers(30_000, 900_000)))))
    relm = TableData("seoul_trdar_area", _columns(
        ["TRDAR_SE_CD", "TRDAR_SE_CD_NM", "TRDAR_CD", "TRDAR_CD_NM", "XCNTS_VALUE", "YDNTS_VALUE", "SIGNGU_CD",
         "SIGNGU_CD_NM", "RELM_AR"], areas),
        entities={"TRDAR_CD": "trdar_code", "SIGNGU_CD": "sigungu_code", "SIGNGU_CD_NM": "sigungu_name"})
    quarters = ["20243", "20244", "20251", "20252", "20253"][-ctx.n(2, 5):]
    sales = []
    for q in quarters:
        for a in areas:
            for ind in _INDUTY:
                if rng.random() < 0.35:
                    continue  # not every 업종 trades in every 상권
                amt = int(rng.lognormal(19.0, 1.1))
                sales.append((q, a[0], a[1], a[2], a[3], ind[0], ind[1], amt, int(amt / rng.uniform(9_000, 40_000)),
                              int(amt * 0.72), int(amt * 0.28)))
    sel = TableData("seoul_trdar_sales", _columns(
        ["STDR_YYQU_CD", "TRDAR_SE_CD", "TRDAR_SE_CD_NM", "TRDAR_CD", "TRDAR_CD_NM", "SVC_INDUTY_CD",
         "SVC_INDUTY_CD_NM", "THSMON_SELNG_AMT", "THSMON_SELNG_CO", "MDWK_SELNG_AMT", "WKEND_SELNG_AMT"], sales),
        entities={"TRDAR_CD": "trdar_code", "SVC_INDUTY_CD": "service_industry_code"})
    return [relm, sel]


def tables(ctx: WorldContext) -> list[TableData]:
    return [_rent(ctx), *_subway_tables(ctx), *_bus_tables(ctx), _bikes(ctx), _events(ctx), _parking(ctx),
            *_trdar(ctx)]


# ---------------------------------------------------------------- endpoints

def _ep(service: str, table: str, positional: tuple[str, ...], binds: dict[str, Bind],
        required: tuple[str, ...] = (), fields: tuple[str, ...] | None = None, history=None, **options) -> Endpoint:
    return Endpoint("seoul", HOST, service, table, binds=binds, required=required, fields=fields,
                    options={"positional": positional, **options}, history=history)


GU = r"11\d{3}"

ENDPOINTS = [
    _ep("tbLnOpendataRentV", "seoul_rent",
        ("RCPT_YR", "CGG_CD", "CGG_NM", "STDG_CD", "LOTNO_SE", "MNO", "SNO", "CTRT_DAY", "BLDG_NM", "BLDG_USG"),
        {"RCPT_YR": Bind("RCPT_YR", pattern=r"\d{4}"), "CGG_CD": Bind("CGG_CD", pattern=r"\d{5}"),
         "CGG_NM": Bind("CGG_NM"), "STDG_CD": Bind("STDG_CD", pattern=r"\d{5}"),
         "LOTNO_SE": Bind("LOTNO_SE", pattern=r"[123]"), "MNO": Bind("MNO", pattern=r"\d{4}"),
         "SNO": Bind("SNO", pattern=r"\d{4}"), "CTRT_DAY": Bind.day("CTRT_DAY"),
         "BLDG_NM": Bind("BLDG_NM", "contains"), "BLDG_USG": Bind("BLDG_USG")}),
    _ep("SearchSTNBySubwayLineInfo", "seoul_subway_station", ("STATION_CD", "STATION_NM", "LINE_NUM"),
        {"STATION_CD": Bind("STATION_CD", pattern=r"\d{4}"), "STATION_NM": Bind("STATION_NM", "contains"),
         "LINE_NUM": Bind("LINE_NUM", pattern=r"\d{2}호선")}),
    _ep("SearchInfoBySubwayNameService", "seoul_subway_station", ("STATION_NM",),
        {"STATION_NM": Bind("STATION_NM")}, required=("STATION_NM",),
        fields=("STATION_CD", "STATION_NM", "LINE_NUM", "FR_CODE")),
    _ep("SearchSTNTimeTableByIDService", "seoul_subway_timetable", ("STATION_CD", "WEEK_TAG", "INOUT_TAG"),
        {"STATION_CD": Bind("STATION_CD", pattern=r"\d{4}"), "WEEK_TAG": Bind("WEEK_TAG", pattern=r"[123]"),
         "INOUT_TAG": Bind("INOUT_TAG", pattern=r"[12]")}, required=("STATION_CD", "WEEK_TAG", "INOUT_TAG")),
    # LINE_NUM and SUB_STA_NM as 2nd/3rd positional filters: unconfirmed (the spec names USE_DT only).
    _ep("CardSubwayStatsNew", "seoul_subway_stats", ("USE_DT", "LINE_NUM", "SUB_STA_NM"),
        {"USE_DT": Bind.day("USE_DT"), "LINE_NUM": Bind("LINE_NUM", pattern=r"\d호선"),
         "SUB_STA_NM": Bind("SUB_STA_NM")}, required=("USE_DT",), history=SubwayRidershipHistory()),
    # BUS_ROUTE_NO as 2nd positional filter: unconfirmed.
    _ep("CardBusStatisticsServiceNew", "seoul_bus_stats", ("USE_DT", "BUS_ROUTE_NO"),
        {"USE_DT": Bind.day("USE_DT"), "BUS_ROUTE_NO": Bind("BUS_ROUTE_NO")}, required=("USE_DT",)),
    # 버스노선 기본정보 / 노선별 경유정류소: service names unconfirmed (the portal's route datasets are
    # file-first; these are the OpenAPI names this simulator fixes).
    _ep("busRouteInfo", "seoul_bus_route", ("BUS_ROUTE_NO",), {"BUS_ROUTE_NO": Bind("BUS_ROUTE_NO")}),
    _ep("busRouteStationInfo", "seoul_bus_route_station", ("BUS_ROUTE_ID",),
        {"BUS_ROUTE_ID": Bind("BUS_ROUTE_ID", pattern=r"\d{9}")}, required=("BUS_ROUTE_ID",)),
    _ep("bikeList", "seoul_bike_station", (), {}, root="rentBikeStatus"),
    _ep("culturalEventInfo", "seoul_cultural_event", ("CODENAME", "TITLE"),
        {"CODENAME": Bind("CODENAME"), "TITLE": Bind("TITLE", "contains")}),
    _ep("GetParkingInfo", "seoul_parking", ("ADDR",), {"ADDR": Bind("ADDR", "contains")}),
    _ep("TbgisTrdarRelm", "seoul_trdar_area", ("SIGNGU_CD",), {"SIGNGU_CD": Bind("SIGNGU_CD", pattern=GU)}),
    # STDR_YYQU_CD / TRDAR_CD as positional filters of 추정매출: unconfirmed.
    _ep("VwsmTrdarSelngQq", "seoul_trdar_sales", ("STDR_YYQU_CD", "TRDAR_CD"),
        {"STDR_YYQU_CD": Bind("STDR_YYQU_CD", pattern=r"\d{4}[1-4]"), "TRDAR_CD": Bind("TRDAR_CD", pattern=r"\d{7}")}),
]
