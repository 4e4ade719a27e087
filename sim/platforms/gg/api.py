"""경기데이터드림 (openapi.gg.go.kr): 시군 datasets keyed by the real 행정표준 SIGUN_CD (41xxx).

Every dataset carries SIGUN_CD and SIGUN_NM from `sim.world.regions`, so 시군명 → SIGUN_CD → dataset
chains work, and the codes are the national 시군구 codes other platforms use. Rows are spread over
the 31 시군 by population, so 수원시 has thousands of 지역화폐 가맹점 and 연천군 a few hundred.

Parameter names are case-insensitive (the family folds them: `fold_case`). `KEY=sample` — and a
request without KEY, the portal's documented default — is served in sample mode: 5 rows whatever
pSize asks (observed for the sample key; keyless = sample is unconfirmed).
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.names import COMPANY_HEADS, PLACE_STEMS
from sim.world.regions import sigungu_of
from sim.world.table import TableData

HOST = "openapi.gg.go.kr"
SIGUN_CD = r"41\d{3}"

# 주민등록인구 (만 명, rounded) and approximate 시청/군청 coordinates of the 31 시군.
_SIGUN = {
    "41110": (119, 37.263, 127.029), "41130": (92, 37.420, 127.127), "41150": (46, 37.738, 127.034),
    "41170": (55, 37.394, 126.957), "41190": (79, 37.504, 126.766), "41210": (28, 37.479, 126.865),
    "41220": (59, 36.992, 127.113), "41250": (9, 37.904, 127.061), "41270": (63, 37.322, 126.831),
    "41280": (107, 37.658, 126.832), "41290": (8, 37.429, 126.988), "41310": (19, 37.594, 127.130),
    "41360": (73, 37.636, 127.216), "41370": (23, 37.150, 127.077), "41390": (52, 37.380, 126.803),
    "41410": (26, 37.362, 126.935), "41430": (16, 37.345, 126.968), "41450": (33, 37.539, 127.215),
    "41460": (108, 37.241, 127.178), "41480": (50, 37.760, 126.780), "41500": (22, 37.272, 127.435),
    "41550": (19, 37.008, 127.280), "41570": (48, 37.615, 126.716), "41590": (95, 37.200, 126.831),
    "41610": (39, 37.430, 127.255), "41630": (25, 37.785, 127.046), "41650": (14, 37.895, 127.200),
    "41670": (11, 37.298, 127.637), "41800": (4, 38.096, 127.075), "41820": (6, 37.831, 127.510),
    "41830": (12, 37.492, 127.488),
}
SIGUNS = sigungu_of("41")
_ENTITIES = {"SIGUN_CD": "sigungu_code", "SIGUN_NM": "sigungu_name", "FRCS_NO": "gg_merchant_no",
             "REGION_CD": "sigungu_code", "REGION_NM": "sigungu_name"}


def tables(ctx: WorldContext) -> list[TableData]:
    return [
        _sigun_codes(),
        _population(ctx),
        _merchants(ctx),
        _restaurants(ctx),
        _job_policies(ctx),
        _libraries(ctx),
        _parking(ctx),
        _pharmacies(ctx),
        _bus_stops(ctx),
        _toilets(ctx),
        _child_care(ctx),
        _fishing(ctx),
    ]


def _data(name: str, cols: dict[str, list]) -> TableData:
    return TableData(name, cols, entities={k: v for k, v in _ENTITIES.items() if k in cols})


def _sites(ctx: WorldContext, purpose: str, n: int) -> tuple[np.random.Generator, dict[str, list]]:
    """n places spread over the 시군 by population, ordered by SIGUN_NM as the portal lists them,
    with refined addresses (REFINE_*) and coordinates near the 시군's centre."""
    rng = ctx.rng("gg", purpose)
    codes = list(_SIGUN)
    weight = np.asarray([_SIGUN[c][0] for c in codes], dtype=float)
    # Every 시군 gets at least one row: a dataset that skips a 시군 would make its code look unknown.
    which = np.concatenate([np.arange(len(codes)), rng.choice(len(codes), max(n - len(codes), 0),
                                                              p=weight / weight.sum())])[:n]
    names = {s.code: s.name for s in SIGUNS}
    sigun_nm = np.asarray([names[c] for c in codes], dtype=object)[which]
    order = np.lexsort((rng.random(n), sigun_nm))
    which, sigun_nm = which[order], sigun_nm[order]
    stems = np.asarray(PLACE_STEMS, dtype=object)
    dong = stems[rng.integers(0, len(stems), n)] + "동"
    road = stems[rng.integers(0, len(stems), n)] + np.asarray(["로", "길", "대로"], dtype=object)[rng.integers(0, 3, n)]
    num = rng.integers(1, 300, n).astype(str).astype(object)
    lot = rng.integers(1, 1200, n).astype(str).astype(object)
    lat = np.asarray([_SIGUN[c][1] for c in codes])[which] + rng.normal(0, 0.03, n)
    lon = np.asarray([_SIGUN[c][2] for c in codes])[which] + rng.normal(0, 0.03, n)
    prefix = "경기도 " + sigun_nm + " "
    cols = {
        "SIGUN_NM": sigun_nm.tolist(), "SIGUN_CD": np.asarray(codes, dtype=object)[which].tolist(),
        "REFINE_LOTNO_ADDR": (prefix + dong + " " + lot + "번지").tolist(),
        "REFINE_ROADNM_ADDR": (prefix + road + " " + num).tolist(),
        "REFINE_ZIP_CD": rng.integers(10000, 18600, n).astype(str).tolist(),
        "REFINE_WGS84_LAT": [f"{x:.7f}" for x in lat.tolist()], "REFINE_WGS84_LOGT": [f"{x:.7f}" for x in lon.tolist()],
        "_dong": dong.tolist(),
    }
    return rng, cols


def _phones(rng: np.random.Generator, n: int) -> list[str]:
    return [f"031-{a}-{b:04d}" for a, b in zip(rng.integers(200, 999, n).tolist(), rng.integers(0, 10000, n).tolist(),
                                                strict=True)]


def _pick(rng: np.random.Generator, pool: list[str] | tuple[str, ...], n: int) -> np.ndarray:
    return np.asarray(pool, dtype=object)[rng.integers(0, len(pool), n)]


def _sigun_codes() -> TableData:
    """시군 코드 목록 (simulator-made lookup; 경기데이터드림 has no such OpenAPI that we know of)."""
    rows = sorted(SIGUNS, key=lambda s: s.code)
    return _data("gg_sigun", {"SIGUN_CD": [s.code for s in rows], "SIGUN_NM": [s.name for s in rows],
                              "SIDO_NM": ["경기도"] * len(rows),
                              "SIGUN_DIV_NM": ["군" if s.name.endswith("군") else "시" for s in rows]})


def _population(ctx: WorldContext) -> TableData:
    """시군별 주민등록 인구 현황, monthly for the last 12 months (simulator-made service)."""
    rng = ctx.rng("gg", "population")
    cols: dict[str, list] = {k: [] for k in ("STD_YM", "SIGUN_NM", "SIGUN_CD", "HSHLD_CNT", "TOT_POPLTN_CNT",
                                             "MALE_POPLTN_CNT", "FEMALE_POPLTN_CNT")}
    year, month = ctx.today.year, ctx.today.month
    months = [(year * 12 + month - 2 - k) for k in range(12)]
    for s in sorted(SIGUNS, key=lambda s: s.name):
        base = _SIGUN[s.code][0] * 10_000 + int(rng.integers(-4000, 4000))
        for ym in months:
            total = base + int(rng.integers(-800, 800))
            male = total // 2 + int(rng.integers(-2000, 2000))
            for key, value in (("STD_YM", f"{ym // 12}{ym % 12 + 1:02d}"), ("SIGUN_NM", s.name),
                               ("SIGUN_CD", s.code), ("HSHLD_CNT", int(total / 2.3)), ("TOT_POPLTN_CNT", total),
                               ("MALE_POPLTN_CNT", male), ("FEMALE_POPLTN_CNT", total - male)):
                cols[key].append(value)
    return _data("gg_population", cols)


_INDUTYPES = ("일반한식", "편의점", "슈퍼마켓", "커피전문점", "제과점", "미용원", "학원", "약국", "의원", "정육점",
              "중국식", "일식회집", "서양음식", "주유소", "안경", "서점", "문구용품", "세탁소", "체육시설", "꽃집")
_SHOP_TAILS = ("상회", "마트", "식당", "카페", "약국", "헤어", "학원", "베이커리", "정육점", "의원", "문구",
               "세탁", "플라워", "반점", "분식", "치킨")


def _merchants(ctx: WorldContext) -> TableData:
    """RegionMnyFacltStus 지역화폐 가맹점 현황: tens of thousands at full scale."""
    n = ctx.n(1_500, 40_000)
    rng, cols = _sites(ctx, "merchants", n)
    heads = _pick(rng, COMPANY_HEADS + PLACE_STEMS, n)
    cols = {
        "SIGUN_CD": cols["SIGUN_CD"], "SIGUN_NM": cols["SIGUN_NM"],
        "CMPNM_NM": (heads + _pick(rng, _SHOP_TAILS, n)).tolist(),
        "INDUTYPE_NM": _pick(rng, _INDUTYPES, n).tolist(),
        "FRCS_NO": [f"{c}{k:07d}" for k, c in enumerate(cols["SIGUN_CD"])],
        "REFINE_ROADNM_ADDR": cols["REFINE_ROADNM_ADDR"], "REFINE_LOTNO_ADDR": cols["REFINE_LOTNO_ADDR"],
        "REFINE_ZIP_CD": cols["REFINE_ZIP_CD"], "REFINE_WGS84_LAT": cols["REFINE_WGS84_LAT"],
        "REFINE_WGS84_LOGT": cols["REFINE_WGS84_LOGT"], "TELNO": _phones(rng, n),
        "REGION_MNY_NM": [f"{nm[:-1]}페이" if nm[-1] in "시군" else nm for nm in cols["SIGUN_NM"]],
        "BRNHSTRM_MNY_USE_POSBL_YN": np.where(rng.random(n) < 0.3, "Y", "N").tolist(),
        "CARD_MNY_USE_POSBL_YN": ["Y"] * n,
        "MOBILE_MNY_USE_POSBL_YN": np.where(rng.random(n) < 0.8, "Y", "N").tolist(),
        "DATA_STD_DE": [f"{ctx.today.year}-{max(ctx.today.month - 1, 1):02d}-01"] * n,
    }
    return _data("gg_region_money_merchant", cols)


def _restaurants(ctx: WorldContext) -> TableData:
    """PlaceThatDoATasteyFoodSt 경기도 맛집 현황 (a curated list: hundreds, not thousands)."""
    n = ctx.n(200, 900)
    rng, c = _sites(ctx, "tasty", n)
    foods = ("갈비탕", "냉면", "칼국수", "순대국", "한정식", "돼지갈비", "추어탕", "막국수", "해물찜", "보리밥", "짜장면")
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"],
            "RESTRT_NM": (_pick(rng, PLACE_STEMS, n) + _pick(rng, ("식당", "가든", "집", "회관", "옥"), n)).tolist(),
            "REPRSNT_FOOD_NM": _pick(rng, foods, n).tolist(), "TASTFDPLC_TELNO": _phones(rng, n),
            "RM_MATR": [""] * n, "REFINE_ZIP_CD": c["REFINE_ZIP_CD"], "REFINE_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"],
            "REFINE_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"], "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"],
            "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"]}
    return _data("gg_tasty_restaurant", cols)


_POLICY_DIVS = (("01", "구직활동 지원"), ("02", "재직 지원"), ("03", "기업 지원"), ("04", "생활 지원"),
                ("05", "주거 지원"))


def _job_policies(ctx: WorldContext) -> TableData:
    """JobFndtnSportPolocy 경기도 일자리 지원정책 (잡아바). REGION_CD/REGION_NM name the 시군 running
    the program, or 41000 경기도 for province-wide ones (code list unconfirmed: simulator's choice)."""
    n = ctx.n(120, 600)
    rng = ctx.rng("gg", "jobs")
    siguns = sorted(SIGUNS, key=lambda s: s.code)
    local = rng.random(n) < 0.7
    region = [siguns[int(i)] for i in rng.integers(0, len(siguns), n)]
    div = [_POLICY_DIVS[int(i)] for i in rng.integers(0, len(_POLICY_DIVS), n)]
    topics = ("청년 면접수당", "중장년 재취업 교육", "경력단절여성 직업훈련", "청년 기본소득", "노동자 건강검진",
              "소상공인 경영개선", "청년 월세 지원", "일자리 박람회", "스타트업 인턴십", "신중년 사회공헌")
    begin = [ctx.today.toordinal() - int(d) for d in rng.integers(0, 200, n)]
    cols = {
        "PBLANC_TITLE": [f"[{r.name}] {t} 참여자 모집" if loc else f"[경기도] {t} 참여자 모집"
                         for r, t, loc in zip(region, _pick(rng, topics, n), local, strict=True)],
        "INST_NM": [f"{r.name}청" if loc else "경기도일자리재단" for r, loc in zip(region, local, strict=True)],
        "RECRUT_BEGIN_DE": [dt.date.fromordinal(b).strftime("%Y%m%d") for b in begin],
        "RECRUT_END_DE": [dt.date.fromordinal(b + int(d)).strftime("%Y%m%d")
                          for b, d in zip(begin, rng.integers(14, 90, n), strict=True)],
        "DIV_CD": [d[0] for d in div], "DIV_NM": [d[1] for d in div],
        "REGION_CD": [r.code if loc else "41000" for r, loc in zip(region, local, strict=True)],
        "REGION_NM": [r.name if loc else "경기도" for r, loc in zip(region, local, strict=True)],
        "DETAIL_PAGE_URL": [f"https://www.jobaba.net/sprtPlcy/info/view.do?seq={100000 + k}" for k in range(n)],
    }
    return _data("gg_job_policy", cols)


def _libraries(ctx: WorldContext) -> TableData:
    """Tbggibllbrm 공공도서관 현황 (~300 in 경기도)."""
    n = ctx.n(120, 320)
    rng, c = _sites(ctx, "library", n)
    kinds = _pick(rng, ("공공도서관", "작은도서관", "어린이도서관"), n)
    cols = {"SIGUN_CD": c["SIGUN_CD"], "SIGUN_NM": c["SIGUN_NM"], "EMD_NM": c["_dong"],
            "LIBRRY_NM": (_pick(rng, PLACE_STEMS, n) + np.where(kinds == "어린이도서관", "어린이도서관", "도서관")).tolist(),
            "LIBRRY_TYPE_NM": kinds.tolist(), "TELNO": _phones(rng, n),
            "HMPG_ADDR": [f"https://lib.gg{k}.or.kr" for k in range(n)],
            "READROOM_OPEN_TM_INFO": ["평일 09:00~22:00, 주말 09:00~18:00"] * n,
            "READROOM_REST_DE_INFO": _pick(rng, ("매주 월요일, 법정공휴일", "매주 금요일, 법정공휴일"), n).tolist(),
            "DMSTC_BOOK_DATA_CNT": rng.integers(5_000, 250_000, n).tolist(),
            "FRN_BOOK_DATA_CNT": rng.integers(0, 8_000, n).tolist(),
            "REFINE_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"], "REFINE_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"],
            "REFINE_ZIP_CD": c["REFINE_ZIP_CD"], "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"],
            "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"]}
    return _data("gg_library", cols)


def _parking(ctx: WorldContext) -> TableData:
    """ParkingPlace 주차장 현황 (~2,700 public car parks)."""
    n = ctx.n(300, 2_700)
    rng, c = _sites(ctx, "parking", n)
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"],
            "PARKPLC_MANAGE_NO": [f"{cd[:3]}-{k + 1:04d}-{(k * 7) % 10}" for k, cd in enumerate(c["SIGUN_CD"])],
            "PARKPLC_NM": (_pick(rng, PLACE_STEMS, n) + _pick(rng, ("공영주차장", " 노상공영주차장", "로 주차장"), n)).tolist(),
            "PARKPLC_DIV_NM": np.where(rng.random(n) < 0.9, "공영", "민영").tolist(),
            "PARKPLC_TYPE": _pick(rng, ("노외", "노상", "부설"), n).tolist(),
            "LOCPLC_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"], "LOCPLC_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"],
            "PARKNG_COMPRT_PLANE_CNT": rng.integers(8, 600, n).tolist(),
            "WKDAY_OPERT_BEGIN_TM": ["09:00"] * n, "WKDAY_OPERT_END_TM": ["21:00"] * n,
            "CHRG_INFO": np.where(rng.random(n) < 0.35, "무료", "유료").tolist(), "CONTCT_NO": _phones(rng, n),
            "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"], "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"],
            "DATA_STD_DE": [f"{ctx.today.year - 1}-12-31"] * n}
    return _data("gg_parking", cols)


def _pharmacies(ctx: WorldContext) -> TableData:
    """ParmacyInfo 약국 현황 (the service name is spelled so on the portal)."""
    n = ctx.n(400, 5_400)
    rng, c = _sites(ctx, "pharmacy", n)
    late = rng.random(n) < 0.15
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"],
            "INST_NM": (_pick(rng, COMPANY_HEADS + PLACE_STEMS, n) + "약국").tolist(),
            "REPRSNT_TELNO": _phones(rng, n), "REFINE_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"],
            "REFINE_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"], "REFINE_ZIP_CD": c["REFINE_ZIP_CD"],
            "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"], "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"],
            "MON_BEGIN_TREAT_TM": ["0900"] * n, "MON_END_TREAT_TM": np.where(late, "2300", "1900").tolist(),
            "SAT_BEGIN_TREAT_TM": ["0900"] * n, "SAT_END_TREAT_TM": np.where(late, "2000", "1500").tolist(),
            "HOLIDAY_BEGIN_TREAT_TM": np.where(late, "1000", "").tolist(),
            "HOLIDAY_END_TREAT_TM": np.where(late, "1800", "").tolist()}
    return _data("gg_pharmacy", cols)


def _bus_stops(ctx: WorldContext) -> TableData:
    """BusStation 버스정류소 현황 (~20,000 at full scale)."""
    n = ctx.n(800, 20_000)
    rng, c = _sites(ctx, "bus", n)
    names = (_pick(rng, PLACE_STEMS, n) + _pick(rng, ("마을", "초등학교", "아파트", "사거리", "시장", "공원"), n))
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"], "STATION_NM_INFO": names.tolist(),
            "STATION_ID": [str(200_000_000 + k * 37 % 99_999_999) for k in range(n)],
            "STATION_MANAGE_NO": [f"{int(cd[2:]) % 100:02d}{k % 1000:03d}" for k, cd in enumerate(c["SIGUN_CD"])],
            "ENG_STATION_NM_INFO": [""] * n, "JURISD_INST_NM": [f"경기도 {nm}" for nm in c["SIGUN_NM"]],
            "LOCPLC_LOC": c["_dong"], "WGS84_LOGT": c["REFINE_WGS84_LOGT"], "WGS84_LAT": c["REFINE_WGS84_LAT"]}
    return _data("gg_bus_station", cols)


def _toilets(ctx: WorldContext) -> TableData:
    """Publtolt 공중화장실 현황."""
    n = ctx.n(300, 4_000)
    rng, c = _sites(ctx, "toilet", n)
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"],
            "PUBLFACLT_DIV_NM": _pick(rng, ("공중화장실", "개방화장실", "이동화장실"), n).tolist(),
            "PBCTLT_PLC_NM": (_pick(rng, PLACE_STEMS, n) + _pick(rng, ("공원", "근린공원", "행정복지센터", "체육공원"), n)
                              + " 화장실").tolist(),
            "MALE_FEMALE_CMNUSE_TOILET_YN": np.where(rng.random(n) < 0.1, "Y", "N").tolist(),
            "OPEN_TM_INFO": _pick(rng, ("24시간", "09:00~18:00", "06:00~22:00"), n).tolist(),
            "MANAGE_INST_NM": [f"{nm}청" for nm in c["SIGUN_NM"]], "MANAGE_INST_TELNO": _phones(rng, n),
            "REFINE_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"], "REFINE_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"],
            "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"], "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"]}
    return _data("gg_public_toilet", cols)


def _child_care(ctx: WorldContext) -> TableData:
    """어린이집 현황 (simulator-made service name; ~9,000 어린이집 in 경기도 at full scale)."""
    n = ctx.n(500, 9_000)
    rng, c = _sites(ctx, "childcare", n)
    kinds = _pick(rng, ("국공립", "민간", "가정", "직장", "법인·단체등", "사회복지법인"), n)
    cols = {"SIGUN_NM": c["SIGUN_NM"], "SIGUN_CD": c["SIGUN_CD"],
            "FACLT_NM": (_pick(rng, PLACE_STEMS, n) + "어린이집").tolist(), "FACLT_KIND_NM": kinds.tolist(),
            "OPERT_STATE_NM": np.where(rng.random(n) < 0.95, "정상", "휴지").tolist(),
            "PSN_CAPA": np.where(kinds == "가정", rng.integers(15, 21, n), rng.integers(20, 150, n)).tolist(),
            "CHLDRN_CNT": rng.integers(5, 120, n).tolist(), "TELNO": _phones(rng, n),
            "REFINE_ROADNM_ADDR": c["REFINE_ROADNM_ADDR"], "REFINE_LOTNO_ADDR": c["REFINE_LOTNO_ADDR"],
            "REFINE_WGS84_LAT": c["REFINE_WGS84_LAT"], "REFINE_WGS84_LOGT": c["REFINE_WGS84_LOGT"]}
    return _data("gg_child_care", cols)


def _fishing(ctx: WorldContext) -> TableData:
    """FISHPLCINFO 낚시터 현황 (a few per rural 시군; many 시군 have none → INFO-200)."""
    rng = ctx.rng("gg", "fishing-where")
    rural = [code for code, (pop, _, _) in _SIGUN.items() if pop < 30]
    n = ctx.n(25, 90)
    _, c = _sites(ctx, "fishing", n)
    keep = [i for i, cd in enumerate(c["SIGUN_CD"]) if cd in rural or rng.random() < 0.1]
    cols = {k: [v[i] for i in keep] for k, v in c.items() if k != "_dong"}
    m = len(keep)
    rng2 = ctx.rng("gg", "fishing")
    cols |= {"FACLT_NM": (_pick(rng2, PLACE_STEMS, m) + _pick(rng2, ("낚시터", "저수지 낚시터", "유료낚시터"), m)).tolist(),
             "FACLT_DIV_NM": _pick(rng2, ("저수지", "평지지", "바다"), m).tolist(), "FACLT_TELNO": _phones(rng2, m),
             "WTR_AR": rng2.integers(2_000, 400_000, m).astype(str).tolist(),
             "FISHKIND_NM": _pick(rng2, ("붕어, 잉어", "향어, 메기", "송어", "붕어, 떡붕어, 잉어"), m).tolist(),
             "ACEPTNC_POSBL_PSN_CNT": rng2.integers(20, 300, m).tolist(),
             "CHRG_INFO": _pick(rng2, ("1일 30,000원", "무료", "1일 20,000원"), m).tolist()}
    return _data("gg_fishing_place", cols)


# --- endpoints -------------------------------------------------------------------------------------

_OPTS = {"fold_case": True, "sample_key": "sample", "keyless_sample": True, "sample_rows": 5, "key_id": "gg"}


def _ep(service: str, table: str, extra: dict[str, Bind] | None = None, *, numeric: tuple[str, ...] = (),
        region: bool = True) -> Endpoint:
    """Every dataset filters by SIGUN_CD (5 digits, 41xxx) and SIGUN_NM (exact), as the portal's do."""
    binds = {"SIGUN_CD": Bind("SIGUN_CD", pattern=SIGUN_CD), "SIGUN_NM": Bind("SIGUN_NM")} if region else {}
    binds |= extra or {}
    opts = dict(_OPTS)
    if numeric:
        opts["numeric_fields"] = numeric
    return Endpoint("portal", HOST, service, table, binds=binds, fields=None, max_page_size=1000, options=opts)


ENDPOINTS = [
    _ep("SigunCdInfo", "gg_sigun"),
    _ep("SigunPopltnStus", "gg_population", {"STD_YM": Bind("STD_YM", pattern=r"\d{6}")},
        numeric=("HSHLD_CNT", "TOT_POPLTN_CNT", "MALE_POPLTN_CNT", "FEMALE_POPLTN_CNT")),
    _ep("RegionMnyFacltStus", "gg_region_money_merchant",
        {"CMPNM_NM": Bind("CMPNM_NM", "contains"), "INDUTYPE_NM": Bind("INDUTYPE_NM"),
         "REFINE_LOTNO_ADDR": Bind("REFINE_LOTNO_ADDR", "contains"), "FRCS_NO": Bind("FRCS_NO", pattern=r"41\d{10}")}),
    _ep("PlaceThatDoATasteyFoodSt", "gg_tasty_restaurant", {"RESTRT_NM": Bind("RESTRT_NM", "contains")}),
    _ep("JobFndtnSportPolocy", "gg_job_policy",
        {"DIV_CD": Bind("DIV_CD", pattern=r"\d{2}"), "REGION_CD": Bind("REGION_CD", pattern=r"41\d{3}"),
         "REGION_NM": Bind("REGION_NM")}, region=False),
    _ep("Tbggibllbrm", "gg_library", {"EMD_NM": Bind("EMD_NM"), "LIBRRY_NM": Bind("LIBRRY_NM", "contains")},
        numeric=("DMSTC_BOOK_DATA_CNT", "FRN_BOOK_DATA_CNT")),
    _ep("ParkingPlace", "gg_parking", {"PARKPLC_NM": Bind("PARKPLC_NM", "contains"),
                                       "PARKPLC_DIV_NM": Bind("PARKPLC_DIV_NM")},
        numeric=("PARKNG_COMPRT_PLANE_CNT",)),
    _ep("ParmacyInfo", "gg_pharmacy", {"INST_NM": Bind("INST_NM", "contains")}),
    _ep("BusStation", "gg_bus_station", {"STATION_NM_INFO": Bind("STATION_NM_INFO", "contains")}),
    _ep("Publtolt", "gg_public_toilet", {"PBCTLT_PLC_NM": Bind("PBCTLT_PLC_NM", "contains")}),
    _ep("ChildHouseFacltStus", "gg_child_care", {"FACLT_NM": Bind("FACLT_NM", "contains"),
                                                 "FACLT_KIND_NM": Bind("FACLT_KIND_NM")},
        numeric=("PSN_CAPA", "CHLDRN_CNT")),
    _ep("FISHPLCINFO", "gg_fishing_place", {"FACLT_NM": Bind("FACLT_NM", "contains")},
        numeric=("ACEPTNC_POSBL_PSN_CNT",)),
]
