"""TAGO's bus stops, routes and arrivals for the cities outside Seoul (data.go.kr 15098534 버스정류소정보,
15098529 버스노선정보, 15098530 버스도착정보): city codes → stops (nodeid) → the routes through a stop → a
route's stops in order, and the next bus of each route due at a stop. The city list is the real one (132
cities, names as the service spells them); each city's stops and routes are drawn.

Each city has its own stops and routes; a route runs through an ordered run of its city's stops, up
(updowncd 0) and back down (1), and a stop's through-routes are exactly the routes whose runs contain it.
The real JSON answer carries coordinates, 정류소번호 and orders as numbers (`numeric_fields`); route numbers
stay strings here (the real answer sends a number where the route number is all digits — unconfirmed).
"""

from __future__ import annotations

from sim.endpoints import Bind, Endpoint
from sim.world.context import WorldContext
from sim.world.names import PLACE_STEMS
from sim.world.table import TableData

HOST = "apis.data.go.kr"
STTN = "/1613000/BusSttnInfoInqireService"
ROUTE = "/1613000/BusRouteInfoInqireService"
ARVL = "/1613000/ArvlInfoInqireService"
CITY_CODE = r"\d{2}|\d{5}"

# The cities getCtyCodeList answers, in the real answer's order and spelling (132 of them; a shared system is
# one city: "대전광역시/계룡시", "원주시/횡성군"): (citycode, cityname).
CITIES = (
    (12, "세종특별시"), (21, "부산광역시"), (22, "대구광역시"), (23, "인천광역시"), (24, "광주광역시"), (25, "대전광역시/계룡시"), (26, "울산광역시"),
    (39, "제주도"), (31010, "수원시"), (31020, "성남시"), (31030, "의정부시"), (31040, "안양시"), (31050, "부천시"), (31060, "광명시"),
    (31070, "평택시"), (31080, "동두천시"), (31090, "안산시"), (31100, "고양시"), (31110, "과천시"), (31120, "구리시"),
    (31130, "남양주시"), (31140, "오산시"), (31150, "시흥시"), (31160, "군포시"), (31170, "의왕시"), (31180, "하남시"),
    (31190, "용인시"), (31200, "파주시"), (31210, "이천시"), (31220, "안성시"), (31230, "김포시"), (31240, "화성시"), (31250, "광주시"),
    (31260, "양주시"), (31270, "포천시"), (31320, "여주시"), (31350, "연천군"), (31370, "가평군"), (31380, "양평군"), (32010, "춘천시"),
    (32020, "원주시/횡성군"), (32050, "태백시"), (32310, "홍천군"), (32360, "철원군"), (32410, "양양군"), (33010, "청주시"),
    (33020, "충주시"), (33030, "제천시"), (33320, "보은군"), (33330, "옥천군"), (33340, "영동군"), (33350, "진천군"), (33360, "괴산군"),
    (33370, "음성군"), (33380, "단양군"), (34010, "천안시"), (34020, "공주시"), (34040, "아산시"), (34050, "서산시"), (34060, "논산시"),
    (34070, "계룡시"), (34330, "부여군"), (34390, "당진시"), (35010, "전주시"), (35020, "군산시"), (35040, "정읍시"), (35050, "남원시"),
    (35060, "김제시"), (35320, "진안군"), (35330, "무주군"), (35340, "장수군"), (35350, "임실군"), (35360, "순창군"), (35370, "고창군"),
    (35380, "부안군"), (36010, "목포시"), (36020, "여수시"), (36030, "순천시"), (36040, "나주시"), (36060, "광양시"), (36320, "곡성군"),
    (36330, "구례군"), (36350, "고흥군"), (36380, "장흥군"), (36400, "해남군"), (36410, "영암군"), (36420, "무안군"), (36430, "함평군"),
    (36450, "장성군"), (36460, "완도군"), (36470, "진도군"), (36480, "신안군"), (37010, "포항시"), (37020, "경주시"), (37030, "김천시"),
    (37040, "안동시"), (37050, "구미시"), (37060, "영주시"), (37070, "영천시"), (37080, "상주시"), (37090, "문경시"), (37100, "경산시"),
    (37320, "의성군"), (37330, "청송군"), (37340, "영양군"), (37350, "영덕군"), (37360, "청도군"), (37370, "고령군"), (37380, "성주군"),
    (37390, "칠곡군"), (37400, "예천군"), (37410, "봉화군"), (37420, "울진군"), (37430, "울릉군"), (38010, "창원시"), (38030, "진주시"),
    (38050, "통영시"), (38060, "사천시"), (38070, "김해시"), (38080, "밀양시"), (38090, "거제시"), (38100, "양산시"), (38310, "의령군"),
    (38320, "함안군"), (38330, "창녕군"), (38340, "고성군"), (38350, "남해군"), (38360, "하동군"), (38370, "산청군"), (38380, "함양군"),
    (38390, "거창군"), (38400, "합천군"),
)
# (nodeid/routeid prefix, centre latitude, centre longitude) of the cities the world drew first, and of each
# province's other cities by the citycode's first two digits; a city's stops scatter around its centre.
_CENTRES = {
    12: ("SJB", 36.480, 127.289), 21: ("BSB", 35.180, 129.075), 22: ("DGB", 35.871, 128.601),
    23: ("ICB", 37.456, 126.705), 24: ("GJB", 35.160, 126.851), 25: ("DJB", 36.351, 127.385),
    26: ("USB", 35.539, 129.311), 39: ("JEB", 33.499, 126.531), 31010: ("GGB", 37.263, 127.029),
    31020: ("GGB", 37.420, 127.127), 31160: ("GGB", 37.362, 126.935), 31190: ("GGB", 37.241, 127.178),
    32010: ("CCB", 37.881, 127.730), 32020: ("WJB", 37.342, 127.920), 33010: ("CJB", 36.642, 127.489),
    34010: ("CAB", 36.815, 127.114), 35010: ("JJB", 35.824, 127.148), 37010: ("PHB", 36.019, 129.343),
    38010: ("CWB", 35.228, 128.681),
}
_PROVINCES = {31: ("GGB", 37.45, 127.15), 32: ("GWB", 37.60, 128.30), 33: ("CBB", 36.80, 127.70),
              34: ("CNB", 36.55, 126.85), 35: ("JBB", 35.70, 127.10), 36: ("JNB", 34.90, 126.90),
              37: ("GBB", 36.40, 128.70), 38: ("GNB", 35.30, 128.30)}
_SUFFIXES = ("역", "초등학교", "사거리", "시장", "주민센터", "아파트", "입구", "공원", "병원", "우체국", "터미널", "삼거리")
_ROUTE_TYPES = (("일반버스", 0.45), ("간선버스", 0.2), ("지선버스", 0.2), ("급행버스", 0.08), ("마을버스", 0.07))

_STOP_COLUMNS = ("citycode", "nodeid", "nodenm", "nodeno", "gpslati", "gpslong")
_ROUTE_COLUMNS = ("citycode", "routeid", "routeno", "routetp", "startnodenm", "endnodenm", "startvehicletime",
                  "endvehicletime", "intervaltime", "intervalsattime", "intervalsuntime")
_ENTITIES = {"citycode": "tago_city_code", "nodeid": "tago_node_id", "routeid": "tago_route_id",
             "nodenm": "tago_stop_name", "routeno": "tago_route_no"}


def _route_no(rng, kind: str, n: int) -> str:
    if kind == "급행버스":
        return f"급행{n}"
    if kind == "마을버스":
        return f"{int(rng.integers(1, 99))}-{int(rng.integers(1, 9))}"
    first = {"간선버스": (1, 7), "지선버스": (2, 10), "일반버스": (1, 10)}[kind]
    return f"{int(rng.integers(*first))}{int(rng.integers(0, 100)):02d}"


def _centre(code: int) -> tuple[str, float, float]:
    """The city's id prefix and centre: its own, or its province's moved by a fixed step per city (stops only
    need to cluster by city; their coordinates are not checked against a map)."""
    if code in _CENTRES:
        return _CENTRES[code]
    prefix, lat, lon = _PROVINCES[code // 1000]
    step = (code % 1000) // 10
    return prefix, round(lat + 0.04 * (step % 7 - 3), 3), round(lon + 0.05 * (step % 5 - 2), 3)


def _city(ctx: WorldContext, city: tuple, serial: dict[str, int]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    code, name = city
    prefix, lat, lon = _centre(code)
    rng = ctx.rng("tago", str(code))
    county = name.endswith("군")  # a county's buses: fewer stops and routes than a city's
    n_stops, n_routes = (ctx.n(20, 120), ctx.n(5, 20)) if county else (ctx.n(40, 400), ctx.n(8, 60))
    stops = []
    nodenos = rng.choice(90000, size=n_stops, replace=False) + 10000
    for i in range(n_stops):
        serial[prefix] = serial.get(prefix, 0) + 1
        name = f"{PLACE_STEMS[int(rng.integers(len(PLACE_STEMS)))]}{_SUFFIXES[int(rng.integers(len(_SUFFIXES)))]}"
        stops.append((code, f"{prefix}{code % 1000:03d}{serial[prefix]:06d}", name, int(nodenos[i]),
                      round(lat + float(rng.normal(0, 0.03)), 6), round(lon + float(rng.normal(0, 0.03)), 6)))
    kinds = [kind for kind, _ in _ROUTE_TYPES]
    weights = [weight for _, weight in _ROUTE_TYPES]
    routes: list[tuple] = []
    route_stops: list[tuple] = []
    numbers: set[str] = set()
    for r in range(n_routes):
        kind = kinds[int(rng.choice(len(kinds), p=weights))]
        number = _route_no(rng, kind, r + 1)
        while number in numbers:
            number = _route_no(rng, kind, r + 1)
        numbers.add(number)
        run = [stops[int(i)] for i in rng.choice(n_stops, size=int(rng.integers(8, min(24, n_stops))), replace=False)]
        route_id = f"{prefix}{code % 1000:03d}{r + 1:05d}"
        start = f"{int(rng.integers(5, 7)):02d}{int(rng.choice([0, 10, 20, 30, 40, 50])):02d}"  # 첫차 HHMM
        end = f"{int(rng.integers(21, 24)):02d}{int(rng.choice([0, 15, 30, 45])):02d}"  # 막차 HHMM
        interval = int(rng.choice([8, 10, 12, 15, 20, 25, 30]))  # minutes between buses on weekdays
        routes.append((code, route_id, number, kind, run[0][2], run[-1][2], start, end, interval,
                       interval + int(rng.choice([0, 5, 10])), interval + int(rng.choice([5, 10, 15]))))
        # up the run and back down it: the far end is stop once, each other stop twice (one per direction)
        legs = [(s, 0) for s in run] + [(s, 1) for s in reversed(run[:-1])]
        route_stops.extend((code, route_id, s[1], s[2], s[3], order, s[4], s[5], updown)
                           for order, (s, updown) in enumerate(legs, start=1))
    return stops, routes, route_stops


def _table(name: str, names: tuple[str, ...], rows: list[tuple]) -> TableData:
    columns = {c: [r[i] for r in rows] for i, c in enumerate(names)}
    return TableData(name, columns, entities={c: e for c, e in _ENTITIES.items() if c in columns})


def tables(ctx: WorldContext) -> list[TableData]:
    serial: dict[str, int] = {}
    stops, routes, route_stops = [], [], []
    for city in CITIES:
        s, r, rs = _city(ctx, city, serial)
        stops += s
        routes += r
        route_stops += rs
    by_id = {r[1]: r for r in routes}
    through = sorted({(rs[0], rs[2], rs[1]) for rs in route_stops})  # (citycode, nodeid, routeid), once each
    stop_routes = [(code, nodeid, *by_id[route_id][1:6]) for code, nodeid, route_id in through]
    # The next bus of each route through each stop, as of the world's now: stops still to go and seconds.
    rng = ctx.rng("tago", "arrivals")
    names = {s[1]: s[2] for s in stops}
    arrivals = []
    for code, nodeid, route_id in through:
        ahead = int(rng.integers(1, 16))
        arrivals.append((code, nodeid, names[nodeid], route_id, by_id[route_id][2], by_id[route_id][3], ahead,
                         ahead * int(rng.integers(70, 130)), "저상버스" if rng.random() < 0.4 else "일반차량"))
    return [
        _table("tago_city", ("citycode", "cityname"), [(c[0], c[1]) for c in CITIES]),
        _table("tago_stop", _STOP_COLUMNS, stops),
        _table("tago_route", _ROUTE_COLUMNS, routes),
        _table("tago_route_stop", ("citycode", "routeid", "nodeid", "nodenm", "nodeno", "nodeord", "gpslati",
                                   "gpslong", "updowncd"), route_stops),
        _table("tago_stop_route", ("citycode", "nodeid", "routeid", "routeno", "routetp", "startnodenm",
                                   "endnodenm"), stop_routes),
        _table("tago_arrival", ("citycode", "nodeid", "nodenm", "routeid", "routeno", "routetp", "arrprevstationcnt",
                                "arrtime", "vehicletp"), arrivals),
    ]


def _options(*numeric: str) -> dict:
    return {"format_param": "_type", "ok_msg": "NORMAL SERVICE.", "numeric_fields": numeric}


_CITY = {"cityCode": Bind("citycode", pattern=CITY_CODE)}

ENDPOINTS = [
    Endpoint("datagokr", HOST, f"{STTN}/getCtyCodeList", "tago_city", options=_options("citycode")),
    Endpoint("datagokr", HOST, f"{STTN}/getSttnNoList", "tago_stop", required=("cityCode",),
             binds={**_CITY, "nodeNm": Bind("nodenm", "contains"), "nodeNo": Bind("nodeno", pattern=r"\d+")},
             fields=("gpslati", "gpslong", "nodeid", "nodenm", "nodeno"),
             options=_options("gpslati", "gpslong", "nodeno")),
    Endpoint("datagokr", HOST, f"{STTN}/getSttnThrghRouteList", "tago_stop_route", required=("cityCode", "nodeid"),
             binds={**_CITY, "nodeid": Bind("nodeid")},
             fields=("routeid", "routeno", "routetp", "startnodenm", "endnodenm"), options=_options()),
    Endpoint("datagokr", HOST, f"{ROUTE}/getRouteNoList", "tago_route", required=("cityCode",),
             binds={**_CITY, "routeNo": Bind("routeno", "contains")},
             fields=("routeid", "routeno", "routetp", "endnodenm", "startnodenm", "endvehicletime", "startvehicletime"),
             options=_options()),
    Endpoint("datagokr", HOST, f"{ROUTE}/getRouteInfoIem", "tago_route", required=("cityCode", "routeId"),
             binds={**_CITY, "routeId": Bind("routeid")},
             fields=("routeid", "routeno", "routetp", "endnodenm", "startnodenm", "endvehicletime", "startvehicletime",
                     "intervaltime", "intervalsattime", "intervalsuntime"),
             options=_options("intervaltime", "intervalsattime", "intervalsuntime")),
    *[Endpoint("datagokr", HOST, f"{ARVL}/{operation}", "tago_arrival", required=("cityCode", "nodeId", *extra),
               binds={**_CITY, "nodeId": Bind("nodeid"), "routeId": Bind("routeid")},
               fields=("arrprevstationcnt", "arrtime", "nodeid", "nodenm", "routeid", "routeno", "routetp", "vehicletp"),
               options=_options("arrprevstationcnt", "arrtime"))
      for operation, extra in (("getSttnAcctoArvlPrearngeInfoList", ()),
                               ("getSttnAcctoSpcifyRouteBusArvlPrearngeInfoList", ("routeId",)))],
    Endpoint("datagokr", HOST, f"{ROUTE}/getRouteAcctoThrghSttnList", "tago_route_stop",
             required=("cityCode", "routeId"), binds={**_CITY, "routeId": Bind("routeid")},
             fields=("gpslati", "gpslong", "nodeid", "nodenm", "nodeno", "nodeord", "routeid", "updowncd"),
             options=_options("gpslati", "gpslong", "nodeno", "nodeord", "updowncd")),
]
