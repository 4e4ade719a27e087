"""한국도로공사 고속도로 공공데이터 (data.ex.co.kr): 노선, 영업소, 휴게소 (위치·기준정보·대표음식·주유소·
편의시설·날씨), 영업소간 통행시간, 정체 구간, IC별 교통량.

Entities: routeNo (4-digit, 0010 경부선) → every route-keyed dataset; 영업소 unitCode (3-digit, from 101)
→ 통행시간 iStartUnitCode/iEndUnitCode and 교통량; 휴게소 serviceAreaCode (A00001) ↔ stdRestCd (000001) ↔
serviceAreaCode2 join the rest-area datasets. 휴게소 also carry a 3-digit unitCode of their own (numbered
from 001), which a careless chain can mistake for a 영업소 code — as on the real service.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext, yyyymmdd
from sim.world.table import TableData

HOST = "data.ex.co.kr"

# (routeNo, routeName, 기점, 종점, (lon, lat) of 기점, (lon, lat) of 종점, 영업소 in driving order)
ROUTES = [
    ("0010", "경부선", "부산", "서울", (129.08, 35.25), (127.03, 37.46),
     "노포 양산 통도사 서울산 경주 건천 영천 경산 북대구 왜관 남구미 구미 김천 추풍령 황간 영동 옥천 대전 신탄진 "
     "남청주 청주 목천 천안 북천안 안성 오산 기흥 수원신갈 서울"),
    ("0100", "남해선", "순천", "부산", (127.50, 34.95), (128.95, 35.20),
     "순천 광양 진월 하동 곤양 사천 진주 문산 진성 지수 군북 함안 산인 칠원 동창원 진례 서김해 김해 대저"),
    ("0120", "경인선", "인천", "서울", (126.65, 37.47), (126.84, 37.52), "서인천 부평 부천 신월"),
    ("0150", "서해안선", "목포", "서울", (126.40, 34.80), (126.90, 37.45),
     "목포 무안 함평 영광 고창 선운산 줄포 부안 동군산 서천 춘장대 무창포 대천 광천 홍성 해미 서산 송악 서평택 "
     "발안 비봉 매송 일직 금천"),
    ("0250", "호남선", "순천", "논산", (127.45, 34.98), (127.10, 36.20),
     "서순천 승주 주암 석곡 옥과 창평 동광주 광산 장성 백양사 정읍 태인 김제 서전주 익산 삼례 논산"),
    ("0300", "대전당진선", "당진", "대전", (126.65, 36.90), (127.35, 36.37),
     "당진 면천 고덕 예산수덕사 신양 유구 마곡사 공주 서세종 유성"),
    ("0350", "중부선", "남이", "하남", (127.45, 36.55), (127.20, 37.53),
     "남이 서청주 오창 진천 대소 일죽 서이천 곤지암 경기광주 산곡 하남"),
    ("0400", "평택제천선", "평택", "제천", (126.90, 36.97), (128.20, 37.13),
     "서평택 평택 송탄 서안성 남안성 북충주 충주 동충주 제천"),
    ("0450", "중부내륙선", "창원", "양평", (128.50, 35.25), (127.50, 37.49),
     "내서 영산 창녕 현풍 성주 고령 선산 상주 점촌함창 문경새재 괴산 감곡 여주 양평"),
    ("0500", "영동선", "인천", "강릉", (126.72, 37.43), (128.87, 37.75),
     "서창 월곶 안산 군포 동군포 부곡 북수원 동수원 마성 용인 양지 덕평 이천 문막 원주 새말 둔내 면온 평창 속사 "
     "진부 대관령 강릉"),
    ("0550", "중앙선", "부산", "춘천", (128.99, 35.22), (127.73, 37.88),
     "대동 북부산 군위 의성 남안동 서안동 예천 영주 풍기 단양 북단양 신림 남원주 횡성 홍천 춘천"),
    ("0600", "서울양양선", "서울", "양양", (127.17, 37.56), (128.62, 38.07),
     "강일 남양주 화도 서종 설악 강촌 남춘천 동산 조양 동홍천 내촌 인제 서양양 양양"),
    ("0650", "동해선", "부산", "삼척", (129.16, 35.20), (129.16, 37.45),
     "해운대 송정 기장 장안 온양 청량 남울산 북울산 동경주 포항 흥해 삼척 동해 망상 옥계 주문진 하조대"),
    ("1000", "수도권제1순환선", "판교", "일산", (127.10, 37.40), (126.77, 37.68),
     "판교 성남 송파 서하남 구리 퇴계원 별내 의정부 송추 일산 김포 노오지 계양 중동 시흥 안현 조남 평촌 산본 "
     "학의 청계"),
]
CAR_TYPES = ["1종", "2종", "3종", "4종", "5종"]
FOODS = [("한우국밥", 9500), ("돈까스", 11000), ("우동", 7000), ("비빔밥", 9000), ("떡만둣국", 8500),
         ("소떡소떡", 5000), ("호두과자", 5000), ("라면", 5500), ("제육덮밥", 10000), ("감자탕", 11000)]
OIL_COMPANIES = ["GS칼텍스", "SK에너지", "S-OIL", "HD현대오일뱅크", "알뜰주유소"]
FACILITIES = [("수유실", "수유실 운영"), ("ATM", "현금인출기"), ("약국", "상비약 판매"), ("샤워실", "화물차 운전자 샤워실"),
              ("세차장", "자동세차"), ("전기차충전소", "급속충전기"), ("쉼터", "화물차 라운지")]


@dataclass(frozen=True)
class Unit:
    code: str
    name: str
    route: int  # index into ROUTES
    seq: int  # position along the route
    lon: float
    lat: float


@dataclass(frozen=True)
class Rest:
    sa_code: str  # serviceAreaCode A00001
    std_cd: str  # stdRestCd 000001
    unit_code: str  # the rest area's own 3-digit unitCode
    name: str
    route: int
    direction: str  # "서울방향"
    updown: str  # 0 상행(기점 쪽으로) / 1 하행
    lon: float
    lat: float


def _units() -> list[Unit]:
    out: list[Unit] = []
    seen: set[str] = set()
    for r, (_, _, _, _, a, b, names) in enumerate(ROUTES):
        listed = [n for n in names.split() if n not in seen]
        for i, name in enumerate(listed):
            seen.add(name)
            f = i / max(1, len(listed) - 1)
            out.append(Unit(f"{101 + len(out):03d}", name, r, i, a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f))
    return out


def _rests(units: list[Unit]) -> list[Rest]:
    """A 휴게소 pair (one each way) beside every other 영업소 of a route."""
    out: list[Rest] = []
    for u in units:
        if u.seq % 2:
            continue
        _, _, start, end, *_ = ROUTES[u.route]
        for updown, dest in (("1", end), ("0", start)):
            k = len(out) + 1
            out.append(Rest(f"A{k:05d}", f"{k:06d}", f"{k:03d}", f"{u.name}({dest})휴게소", u.route,
                            f"{dest}방향", updown, u.lon + 0.01, u.lat + 0.01))
    return out


def tables(ctx: WorldContext) -> list[TableData]:
    units = _units()
    rests = _rests(units)
    return [_route_table(), _unit_table(units), _rest_location(rests), *_rest_tables(ctx, rests),
            _weather(ctx, rests), _travel_time(ctx, units), _congestion(ctx, units), _traffic_ic(ctx, units)]


def _cols(names: list[str], rows: list[tuple]) -> dict[str, list]:
    return {c: [r[i] for r in rows] for i, c in enumerate(names)}


def _route_table() -> TableData:
    rows = [(no, name, start, end) for no, name, start, end, *_ in ROUTES]
    return TableData("ex_route", _cols(["routeNo", "routeName", "startPoint", "endPoint"], rows),
                     entities={"routeNo": "route_no", "routeName": "route_name"})


def _unit_table(units: list[Unit]) -> TableData:
    rows = [(u.code, u.name, ROUTES[u.route][0], ROUTES[u.route][1], f"{u.lon:.6f}", f"{u.lat:.6f}") for u in units]
    return TableData("ex_unit", _cols(["unitCode", "unitName", "routeNo", "routeName", "xValue", "yValue"], rows),
                     entities={"unitCode": "unit_code", "unitName": "unit_name", "routeNo": "route_no"})


def _rest_location(rests: list[Rest]) -> TableData:
    rows = [(r.unit_code, r.name, ROUTES[r.route][0], ROUTES[r.route][1], f"{r.lon:.6f}", f"{r.lat:.6f}", r.std_cd,
             r.sa_code) for r in rests]
    return TableData("ex_rest_location", _cols(
        ["unitCode", "unitName", "routeNo", "routeName", "xValue", "yValue", "stdRestCd", "serviceAreaCode"], rows),
        entities={"unitCode": "rest_unit_code", "unitName": "rest_area_name", "routeNo": "route_no",
                  "stdRestCd": "std_rest_cd", "serviceAreaCode": "service_area_code"})


def _rest_tables(ctx: WorldContext, rests: list[Rest]) -> list[TableData]:
    rng = ctx.rng("ex", "rest")
    svar, food, oil, price, conv = [], [], [], [], []
    for i, r in enumerate(rests):
        route_no, route_name = ROUTES[r.route][0], ROUTES[r.route][1]
        addr = f"{ROUTES[r.route][2]}~{ROUTES[r.route][3]} 고속도로 {route_name} {r.direction} {10 + 7 * i}km"
        tel = f"0{int(rng.integers(31, 64))}-{int(rng.integers(200, 999))}-{int(rng.integers(1000, 9999))}"
        hdqr = ["수도권본부", "강원본부", "충북본부", "대전충남본부", "전북본부", "광주전남본부", "대구경북본부",
                "부산경남본부"][i % 8]
        svar.append((r.std_cd, r.name, route_no, route_name, r.updown, "상행" if r.updown == "0" else "하행", "0",
                     "휴게소", f"{10000 + 37 * i:05d}", addr, tel, hdqr, f"{r.name[:2]}지사",
                     str(int(rng.integers(60, 400))), str(int(rng.integers(10, 80))), str(int(rng.integers(2, 12)))))
        # A second 대표음식 at some 휴게소: distinct dishes, drawn without replacement.
        picks = rng.choice(len(FOODS), size=1 + int(rng.random() < 0.1), replace=False)
        for k, pick in enumerate(picks):
            menu, base = FOODS[int(pick)]
            food.append((r.sa_code, r.std_cd, r.name, route_no, route_name, r.direction, menu,
                         str(base + 500 * int(rng.integers(0, 4))), "Y", "Y" if k else "N",
                         "Y" if rng.random() < 0.3 else "N"))
        if rng.random() < 0.92:  # most 휴게소 have a 주유소
            company = OIL_COMPANIES[int(rng.integers(0, len(OIL_COMPANIES)))]
            lpg = "Y" if rng.random() < 0.35 else "N"
            gas = 1620 + int(rng.integers(0, 120))
            oil.append((f"{int(r.std_cd) + 500000:06d}", r.name.replace("휴게소", "주유소"), route_no, route_name,
                        r.direction, addr, tel, company, lpg, "Y" if rng.random() < 0.6 else "N", "0000", "2400"))
            price.append((r.sa_code, r.name.replace("휴게소", "주유소"), route_no, route_name, r.direction, addr, tel,
                          company, lpg, f"{gas:,}원", f"{gas - 110 - int(rng.integers(0, 40)):,}원",
                          f"{1000 + int(rng.integers(0, 80)):,}원" if lpg == "Y" else "X"))
        for code, (name, desc) in enumerate(FACILITIES):
            if rng.random() < 0.5:
                conv.append((r.std_cd, r.name, route_name, f"{code + 1:02d}", name, desc, "00:00", "24:00"))
    return [
        TableData("ex_rest_svar", _cols(
            ["svarCd", "svarNm", "routeCd", "routeNm", "gudClssCd", "gudClssNm", "svarGsstClssCd", "svarGsstClssNm",
             "pstNo", "svarAddr", "rprsTelNo", "hdqrNm", "mtnofNm", "cocrPrkgTrcn", "fscarPrkgTrcn",
             "dspnPrkgTrcn"], svar),
            entities={"svarCd": "std_rest_cd", "svarNm": "rest_area_name", "routeCd": "route_no"}),
        TableData("ex_rest_bestfood", _cols(
            ["serviceAreaCode", "serviceAreaCode2", "serviceAreaName", "routeCode", "routeName", "direction",
             "batchMenu", "salePrice", "bestfoodyn", "premiumyn", "recommendyn"], food),
            entities={"serviceAreaCode": "service_area_code", "serviceAreaCode2": "std_rest_cd",
                      "serviceAreaName": "rest_area_name", "routeCode": "route_no"}),
        TableData("ex_rest_oil", _cols(
            ["stdRestCd", "stdRestNm", "routeCd", "routeNm", "direction", "svarAddr", "telNo", "oilCompany", "lpgYn",
             "elecChrgYn", "stime", "etime"], oil),
            entities={"routeCd": "route_no", "stdRestNm": "oil_station_name"}),
        TableData("ex_oil_price", _cols(
            ["serviceAreaCode", "serviceAreaName", "routeCode", "routeName", "direction", "svarAddr", "telNo",
             "oilCompany", "lpgYn", "gasolinePrice", "diselPrice", "lpgPrice"], price),
            entities={"serviceAreaCode": "service_area_code", "routeCode": "route_no",
                      "serviceAreaName": "oil_station_name"}),
        TableData("ex_rest_conv", _cols(
            ["stdRestCd", "stdRestNm", "routeNm", "psCode", "psName", "psDesc", "stime", "etime"], conv),
            entities={"stdRestCd": "std_rest_cd", "stdRestNm": "rest_area_name"}),
    ]


def _weather(ctx: WorldContext, rests: list[Rest]) -> TableData:
    """restWeatherList: hourly observations per 휴게소 (one sky per 휴게소 and day)."""
    rng = ctx.rng("ex", "weather")
    days = [yyyymmdd(ctx.today - dt.timedelta(days=i)) for i in range(ctx.n(1, 7), 0, -1)]
    skies = np.array(["맑음", "구름조금", "구름많음", "흐림", "비", "눈"])
    n_d, n_r = len(days), len(rests)
    d = np.repeat(np.arange(n_d), n_r * 24)
    r = np.tile(np.repeat(np.arange(n_r), 24), n_d)
    hour = np.tile(np.arange(24), n_d * n_r)
    sky = rng.choice(6, (n_d, n_r), p=[0.4, 0.2, 0.15, 0.15, 0.05, 0.05])[d, r]
    lat = np.array([x.lat for x in rests])[r]
    temp = 26 - 0.8 * lat + 6 * np.sin((hour - 9) / 24 * 2 * np.pi) + rng.normal(0, 1, len(r))
    n = len(r)
    rain = np.where(sky == 4, rng.random(n) * 5, 0.0)
    snow = np.where(sky == 5, rng.random(n) * 3, 0.0)

    def pick(values: list[str]) -> np.ndarray:
        return np.array(values)[r]

    return TableData("ex_rest_weather", {
        "sdate": np.array(days)[d], "stdHour": np.char.zfill(hour.astype(str), 2),
        "unitCode": pick([x.unit_code for x in rests]), "unitName": pick([x.name for x in rests]),
        "routeNo": pick([ROUTES[x.route][0] for x in rests]), "routeName": pick([ROUTES[x.route][1] for x in rests]),
        "updownTypeCode": pick([x.updown for x in rests]),
        "addr": pick([f"{ROUTES[x.route][1]} {x.direction}" for x in rests]), "weatherContents": skies[sky],
        "tempValue": np.char.mod("%.1f", temp), "humidityValue": rng.integers(30, 90, n).astype(str),
        "rainfallValue": np.char.mod("%.1f", rain), "snowValue": np.char.mod("%.1f", snow),
        "windValue": np.char.mod("%.1f", rng.random(n) * 6),
    }, entities={"unitCode": "rest_unit_code", "unitName": "rest_area_name", "routeNo": "route_no"})


def _pairs(units: list[Unit], reach: int = 2) -> list[tuple[Unit, Unit, int]]:
    """영업소 pairs with travel-time data: each 영업소 to those within `reach` stops on its route, both ways."""
    by_route: dict[int, list[Unit]] = {}
    for u in units:
        by_route.setdefault(u.route, []).append(u)
    out = []
    for members in by_route.values():
        for i, a in enumerate(members):
            for j in range(max(0, i - reach), min(len(members), i + reach + 1)):
                if j != i:
                    out.append((a, members[j], abs(j - i)))
    return out


def _travel_time(ctx: WorldContext, units: list[Unit]) -> TableData:
    """realUnitTrtm: yesterday's times per 시간대 and 차종 for every pair (a few hundred rows a pair)."""
    rng = ctx.rng("ex", "trtm")
    pairs = _pairs(units, ctx.n(1, 2))
    step = ctx.n(240, 30)  # minutes per 시간대
    slots = np.arange(0, 24 * 60, step)
    n_p, n_s, n_t = len(pairs), len(slots), len(CAR_TYPES)
    p = np.repeat(np.arange(n_p), n_s * n_t)
    s = np.tile(np.repeat(np.arange(n_s), n_t), n_p)
    t = np.tile(np.arange(n_t), n_p * n_s)
    keep = rng.random(len(p)) < np.array([1.0, 0.95, 0.8, 0.6, 0.5])[t]
    p, s, t = p[keep], s[keep], t[keep]
    dist = np.array([d for _, _, d in pairs])[p]
    hours = slots[s] / 60
    peak = 1 + 0.5 * np.exp(-((hours - 8) ** 2) / 2) + 0.6 * np.exp(-((hours - 18) ** 2) / 3)
    avg = dist * 11.0 * peak * np.array([1.0, 1.05, 1.1, 1.15, 1.2])[t] * rng.uniform(0.9, 1.1, len(p))
    labels = np.array([f"{m // 60:02d}{m % 60:02d}" for m in slots.tolist()])
    codes_a = np.array([a.code for a, _, _ in pairs])
    names_a = np.array([a.name for a, _, _ in pairs])
    codes_b = np.array([b.code for _, b, _ in pairs])
    names_b = np.array([b.name for _, b, _ in pairs])
    day = yyyymmdd(ctx.today - dt.timedelta(days=1))
    return TableData("ex_travel_time", {
        "startUnitCode": codes_a[p], "startUnitNm": names_a[p], "endUnitCode": codes_b[p], "endUnitNm": names_b[p],
        "stdDate": np.full(len(p), day), "stdTime": labels[s], "tcsCarTypeCode": (t + 1).astype(str),
        "tcsCarTypeName": np.array(CAR_TYPES)[t], "timeAvg": np.char.mod("%.2f", avg),
        "timeMax": np.char.mod("%.2f", avg * 1.35), "timeMin": np.char.mod("%.2f", avg * 0.8),
    }, entities={"startUnitCode": "unit_code", "endUnitCode": "unit_code", "startUnitNm": "unit_name",
                 "endUnitNm": "unit_name"})


def _congestion(ctx: WorldContext, units: list[Unit]) -> TableData:
    """trafficAmountByCongest: the current hour's 콘존 (a segment between adjacent 영업소) where traffic is slow."""
    rng = ctx.rng("ex", "congest")
    rows = []
    hour = "17"
    for a, b, dist in _pairs(units):
        if dist != 1 or rng.random() > 0.3:
            continue
        speed = int(rng.integers(8, 70))
        route_no = ROUTES[a.route][0]
        updown = "E" if b.seq > a.seq else "S"
        rows.append((ROUTES[a.route][1], route_no, str(int(rng.integers(800, 6000))),
                     f"{route_no}CZ{updown}{a.code}", f"{a.name}IC-{b.name}IC", yyyymmdd(ctx.today), hour,
                     f"{route_no}VD{updown}{a.code}0", str(speed), f"{rng.uniform(20, 95):.1f}",
                     f"{600 / max(speed, 1):.1f}", "3" if speed < 30 else "2", updown))
    return TableData("ex_congestion", _cols(
        ["routeName", "routeNo", "trafficAmout", "conzoneId", "conzoneName", "stdDate", "stdHour", "vdsId", "speed",
         "shareRatio", "timeAvg", "grade", "updownTypeCode"], rows), entities={"routeNo": "route_no"})


def _traffic_ic(ctx: WorldContext, units: list[Unit]) -> TableData:
    """trafficIc: daily 입구/출구 traffic per 영업소 and 차종 (tcsType 1 TCS, 2 하이패스 summed)."""
    rng = ctx.rng("ex", "traffic-ic")
    days = [ctx.today - dt.timedelta(days=i) for i in range(ctx.n(2, 7), 0, -1)]
    n_u, n_d = len(units), len(days)
    u = np.repeat(np.arange(n_u), n_d * 2 * 5)
    d = np.tile(np.repeat(np.arange(n_d), 2 * 5), n_u)
    io = np.tile(np.repeat(np.arange(2), 5), n_u * n_d)
    car = np.tile(np.arange(5), n_u * n_d * 2)
    base = rng.lognormal(9.0, 0.8, n_u)[u] * np.array([0.8, 0.06, 0.05, 0.05, 0.04])[car]
    amount = (base * rng.uniform(0.85, 1.15, len(u))).astype(np.int64)
    return TableData("ex_traffic_ic", {
        "sumDate": np.array([yyyymmdd(x) for x in days])[d],
        "unitCode": np.array([x.code for x in units])[u], "unitName": np.array([x.name for x in units])[u],
        "inoutType": io.astype(str), "inoutName": np.array(["입구", "출구"])[io],
        "carType": (car + 1).astype(str), "trafficAmount": amount.astype(str),
        "exDivCode": np.full(len(u), "00"), "exDivName": np.full(len(u), "도공"),
    }, entities={"unitCode": "unit_code", "unitName": "unit_name"})


# ---------------------------------------------------------------- endpoints

UNIT = r"\d{3}"
ROUTE = r"\d{4}"


def _ep(key: str, table: str, binds: dict[str, Bind] | None = None, required: tuple[str, ...] = (),
        **options) -> Endpoint:
    return Endpoint("ex", HOST, key, table, binds=binds or {}, required=required, options=options)


ENDPOINTS = [
    # 노선 목록: operation name unconfirmed (the portal lists routes inside each dataset's docs).
    _ep("locationinfo/locationinfoRoute", "ex_route", {"routeNo": Bind("routeNo", pattern=ROUTE)}),
    _ep("locationinfo/locationinfoUnit", "ex_unit",
        {"routeNo": Bind("routeNo", pattern=ROUTE), "unitCode": Bind("unitCode", pattern=UNIT)}),
    _ep("locationinfo/locationinfoRest", "ex_rest_location",
        {"unitCode": Bind("unitCode", pattern=UNIT), "routeNo": Bind("routeNo", pattern=ROUTE),
         "stdRestCd": Bind("stdRestCd", pattern=r"\d{6}"), "serviceAreaCode": Bind("serviceAreaCode", pattern=r"A\d{5}")}),
    _ep("restinfo/hiwaySvarInfoList", "ex_rest_svar",
        {"svarCd": Bind("svarCd", pattern=r"\d{6}"), "routeCd": Bind("routeCd", pattern=ROUTE)}),
    _ep("restinfo/restBestfoodList", "ex_rest_bestfood", {"routeCode": Bind("routeCode", pattern=ROUTE)}),
    _ep("restinfo/restOilList", "ex_rest_oil", {"routeCd": Bind("routeCd", pattern=ROUTE)}),
    _ep("business/curStateStation", "ex_oil_price",
        {"serviceAreaCode": Bind("serviceAreaCode", pattern=r"A\d{5}"), "routeCode": Bind("routeCode", pattern=ROUTE)}),
    _ep("restinfo/restConvList", "ex_rest_conv", {"stdRestCd": Bind("stdRestCd", pattern=r"\d{6}")}),
    _ep("restinfo/restWeatherList", "ex_rest_weather",
        {"sdate": Bind.day("sdate"), "stdHour": Bind("stdHour", pattern=r"\d{2}")},
        required=("sdate", "stdHour")),
    _ep("trtm/realUnitTrtm", "ex_travel_time",
        {"iStartUnitCode": Bind("startUnitCode", pattern=UNIT), "iEndUnitCode": Bind("endUnitCode", pattern=UNIT)},
        required=("iStartUnitCode", "iEndUnitCode"), records_key="realUnitTrtmVO"),
    _ep("odtraffic/trafficAmountByCongest", "ex_congestion", {"routeNo": Bind("routeNo", pattern=ROUTE)}),
    _ep("trafficapi/trafficIc", "ex_traffic_ic",
        {"sumDate": Bind.day("sumDate"), "unitCode": Bind("unitCode", pattern=UNIT)},
        records_key="trafficIc"),
]
