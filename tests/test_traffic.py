"""Traffic domain end to end: 서울 열린데이터광장 (family A′) and 한국도로공사 (family E).

Requests are built by kopa.wire, answered by the in-process simulator over an httpx transport and
parsed back. The world and the simulator hold only this domain's platforms, so the module stays fast
and independent of other platforms' generators.
"""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest

from kopa.backends.sim import SimTransport
from kopa.catalog.loader import load_catalog
from kopa.wire.base import Parsed
from kopa.wire.registry import family_of
from sim.app import Simulator
from sim.platforms.seoul import api as seoul
from sim.world.context import WorldConfig, WorldContext

SEOUL_KEY = "0123456789abcdef0123456789abcdef"
EX_KEY = "1234567890"


@pytest.fixture(scope="module")
def sim(simulator) -> Simulator:
    return simulator


@pytest.fixture(scope="module")
def client(sim: Simulator) -> httpx.Client:
    return httpx.Client(transport=SimTransport(sim))


def call(client: httpx.Client, tool_name: str, args: dict[str, Any], key: str | None = None
         ) -> tuple[httpx.Request, httpx.Response, Parsed]:
    tool = load_catalog()[tool_name]
    wire = family_of(tool.family)
    if key is None:
        key = SEOUL_KEY if tool.platform == "seoul" else EX_KEY
    request = wire.build(tool, args, key)
    response = client.send(request)
    return request, response, wire.parse(tool, args, response)


# ---------------------------------------------------------------- 서울: request shape


def test_seoul_url_blanks_leading_filters_and_drops_trailing_ones(client):
    request, _, parsed = call(client, "get_seoul_rent_contracts",
                              {"START_INDEX": 1, "END_INDEX": 5, "CGG_CD": "11680", "STDG_CD": "10300"})
    assert str(request.url) == (f"http://openapi.seoul.go.kr:8088/{SEOUL_KEY}/json/tbLnOpendataRentV/1/5/"
                                "%20/11680/%20/10300")
    assert parsed.error is None
    assert {r["STDG_NM"] for r in parsed.records} == {"청담동"}


def test_seoul_korean_filter_is_percent_encoded(client):
    request, _, parsed = call(client, "find_seoul_subway_station_code", {"STATION_NM": "강남"})
    assert request.url.raw_path.endswith(b"/SearchInfoBySubwayNameService/1/100/%EA%B0%95%EB%82%A8")
    assert parsed.records == [{"STATION_CD": "0222", "STATION_NM": "강남", "LINE_NUM": "02호선", "FR_CODE": "222"}]


# ---------------------------------------------------------------- 서울: data and chains


def test_rent_filter_by_gu_counts_match_the_world(client, sim):
    _, _, parsed = call(client, "get_seoul_rent_contracts", {"START_INDEX": 1, "END_INDEX": 1000, "CGG_CD": "11710"})
    column = sim.world.table("seoul_rent").cols["CGG_CD"]
    expected = int((column.codes == column.code_of("11710")).sum())
    assert parsed.total_count == expected > 50
    assert {r["CGG_NM"] for r in parsed.records} == {"송파구"}
    assert {r["RENT_SE"] for r in parsed.records} == {"전세", "월세"}
    days = [r["CTRT_DAY"] for r in parsed.records]
    assert days == sorted(days, reverse=True)  # newest contract first
    monthly = [r for r in parsed.records if r["RENT_SE"] == "월세"]
    assert all(r["RTFE"] > 0 for r in monthly) and all(isinstance(r["GRFE"], int) for r in parsed.records)


def test_chain_gu_name_to_code_to_rent(client):
    _, _, by_name = call(client, "get_seoul_rent_contracts", {"START_INDEX": 1, "END_INDEX": 1, "CGG_NM": "마포구"})
    code = by_name.records[0]["CGG_CD"]
    assert code == "11440"
    _, _, by_code = call(client, "get_seoul_rent_contracts",
                         {"START_INDEX": 1, "END_INDEX": 5, "CGG_CD": code, "BLDG_USG": "아파트"})
    assert by_code.total_count > 0 and all(r["BLDG_USG"] == "아파트" for r in by_code.records)


def test_chain_station_name_to_code_to_timetable(client):
    _, _, station = call(client, "find_seoul_subway_station_code", {"STATION_NM": "시청"})
    assert [(r["STATION_CD"], r["LINE_NUM"]) for r in station.records] == [("0102", "01호선"), ("0201", "02호선")]
    _, _, timetable = call(client, "get_seoul_subway_timetable",
                           {"STATION_CD": "0201", "WEEK_TAG": "1", "INOUT_TAG": "1"})
    assert timetable.total_count == 4
    assert {(r["STATION_NM"], r["WEEK_TAG"], r["INOUT_TAG"]) for r in timetable.records} == {("시청", "1", "1")}


def test_subway_ridership_by_day_line_and_station(client):
    _, _, day = call(client, "get_seoul_subway_ridership", {"START_INDEX": 1, "END_INDEX": 1000, "USE_DT": "20260127"})
    assert day.total_count == 298
    _, _, one = call(client, "get_seoul_subway_ridership",
                     {"START_INDEX": 1, "END_INDEX": 5, "USE_DT": "20260127", "LINE_NUM": "2호선", "SUB_STA_NM": "강남"})
    assert one.total_count == 1 and one.records[0]["RIDE_PASGR_NUM"] > 0


def test_chain_bus_route_no_to_id_to_stations_and_ridership(client):
    _, _, routes = call(client, "find_seoul_bus_route", {"START_INDEX": 1, "END_INDEX": 1})
    route = routes.records[0]
    _, _, by_no = call(client, "find_seoul_bus_route", {"BUS_ROUTE_NO": route["BUS_ROUTE_NO"]})
    assert by_no.records == [route]
    _, _, stations = call(client, "list_seoul_bus_route_stations",
                          {"START_INDEX": 1, "END_INDEX": 1000, "BUS_ROUTE_ID": route["BUS_ROUTE_ID"]})
    assert stations.total_count >= 20
    assert [r["STA_ORD"] for r in stations.records] == [str(i) for i in range(1, stations.total_count + 1)]
    _, _, rides = call(client, "get_seoul_bus_ridership", {"START_INDEX": 1, "END_INDEX": 1000, "USE_DT": "20260127",
                                                           "BUS_ROUTE_NO": route["BUS_ROUTE_NO"]})
    assert rides.total_count == stations.total_count
    assert {r["BUS_ROUTE_ID"] for r in rides.records} == {route["BUS_ROUTE_ID"]}


def test_bike_list_answers_under_rent_bike_status(client):
    _, response, parsed = call(client, "list_seoul_bike_stations", {"START_INDEX": 1, "END_INDEX": 2})
    assert list(response.json()) == ["rentBikeStatus"]
    assert parsed.total_count == 300 and parsed.records[0]["stationId"] == "ST-4"


def test_commercial_area_chain(client):
    _, _, areas = call(client, "find_seoul_commercial_areas", {"SIGNGU_CD": "11680"})
    assert areas.total_count > 0 and {r["SIGNGU_CD_NM"] for r in areas.records} == {"강남구"}
    code = areas.records[0]["TRDAR_CD"]
    _, _, sales = call(client, "get_seoul_commercial_area_sales", {"STDR_YYQU_CD": "20253", "TRDAR_CD": code})
    assert sales.error is None and {r["TRDAR_CD"] for r in sales.records} == {code}


# ---------------------------------------------------------------- 서울: errors


@pytest.mark.parametrize(
    ("args", "key", "code", "kind"),
    [
        ({"START_INDEX": 1, "END_INDEX": 5}, "invalid", "INFO-100", "invalid_key"),
        ({"START_INDEX": 1, "END_INDEX": 5}, None, "INFO-100", "invalid_key"),
        ({"START_INDEX": 1, "END_INDEX": 6}, "sample", "ERROR-335", "bad_param"),
        ({"START_INDEX": 1, "END_INDEX": 1001}, SEOUL_KEY, "ERROR-336", "bad_param"),
        ({"START_INDEX": 9, "END_INDEX": 3}, SEOUL_KEY, "ERROR-334", "bad_param"),
        ({"START_INDEX": "a", "END_INDEX": 3}, SEOUL_KEY, "ERROR-333", "bad_param"),
        ({"START_INDEX": 3001, "END_INDEX": 3005}, SEOUL_KEY, "INFO-200", "no_data"),
        ({"START_INDEX": 1, "END_INDEX": 5, "CGG_CD": "11999"}, SEOUL_KEY, "INFO-200", "no_data"),
        ({"START_INDEX": 1, "END_INDEX": 5, "CGG_CD": "강남"}, SEOUL_KEY, "INFO-200", "no_data"),
    ],
)
def test_seoul_errors(client, snapshot, args, key, code, kind):
    tool = load_catalog()["get_seoul_rent_contracts"]
    wire = family_of("seoul")
    response = client.send(wire.build(tool, args, key))
    parsed = wire.parse(tool, args, response)
    assert (parsed.error.code, parsed.error.kind) == (code, kind)
    assert response.text == snapshot


def test_seoul_sample_key_serves_five_rows(client):
    _, _, parsed = call(client, "get_seoul_rent_contracts", {"START_INDEX": 1, "END_INDEX": 5}, key="sample")
    assert parsed.error is None and len(parsed.records) == 5 and parsed.total_count == 3000


def test_seoul_missing_required_filter(client):
    _, _, parsed = call(client, "get_seoul_subway_ridership", {"START_INDEX": 1, "END_INDEX": 5})
    assert parsed.error.code == "ERROR-300" and parsed.error.kind == "missing_param"


@pytest.mark.parametrize(("path", "code"), [
    (f"/{SEOUL_KEY}/json/noSuchService/1/5", "ERROR-310"),
    (f"/{SEOUL_KEY}/csv/bikeList/1/5", "ERROR-301"),
])
def test_seoul_service_and_type_errors(client, snapshot, path, code):
    response = client.get("http://openapi.seoul.go.kr:8088" + path)
    assert code in response.text
    assert response.text == snapshot


def test_seoul_xml_answer_parses_like_json(client):
    tool = load_catalog()["list_seoul_bike_stations"]
    response = client.get(f"http://openapi.seoul.go.kr:8088/{SEOUL_KEY}/xml/bikeList/1/2")
    assert response.text.startswith('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><rentBikeStatus>')
    parsed = family_of("seoul").parse(tool, {"START_INDEX": 1, "END_INDEX": 2}, response)
    assert parsed.total_count == 300 and [r["stationId"] for r in parsed.records] == ["ST-4", "ST-5"]


# ---------------------------------------------------------------- 한국도로공사


def test_ex_success_envelope_and_paging(client):
    request, response, parsed = call(client, "find_ex_toll_office", {"numOfRows": 100, "pageNo": 3})
    assert request.url.params["type"] == "json" and request.url.params["key"] == EX_KEY
    body = response.json()
    assert (body["code"], body["message"], body["count"], body["pageSize"]) == ("SUCCESS", "인증키가 유효합니다.", 227, 3)
    assert parsed.total_count == 227 and len(parsed.records) == 27 and parsed.page.total_pages == 3


def test_ex_chain_toll_office_names_to_travel_time(client):
    _, _, offices = call(client, "find_ex_toll_office", {"routeNo": "0010", "numOfRows": 100})
    by_name = {r["unitName"]: r["unitCode"] for r in offices.records}
    start, end = by_name["서울"], by_name["수원신갈"]
    _, response, parsed = call(client, "get_ex_travel_time",
                               {"iStartUnitCode": start, "iEndUnitCode": end, "numOfRows": 1000})
    assert "realUnitTrtmVO" in response.json()
    assert parsed.total_count == len(parsed.records) > 15
    assert {(r["startUnitNm"], r["endUnitNm"]) for r in parsed.records} == {("서울", "수원신갈")}
    # Two offices far apart on the route have no travel-time record: a structural "no data".
    _, _, far = call(client, "get_ex_travel_time", {"iStartUnitCode": start, "iEndUnitCode": by_name["노포"]})
    assert far.error.kind == "no_data" and far.total_count == 0


def test_ex_chain_rest_area_codes_join(client):
    _, _, rest = call(client, "find_ex_rest_area", {"serviceAreaCode": "A00003"})
    row = rest.records[0]
    assert (row["stdRestCd"], row["routeName"]) == ("000003", "경부선")
    _, _, conv = call(client, "list_ex_rest_facilities", {"stdRestCd": row["stdRestCd"], "numOfRows": 50})
    assert conv.error is None and {r["stdRestNm"] for r in conv.records} == {row["unitName"]}
    _, _, food = call(client, "list_ex_rest_bestfood", {"routeCode": "0010", "numOfRows": 1000})
    joined = [r for r in food.records if r["serviceAreaCode"] == "A00003"]
    assert joined and {r["serviceAreaCode2"] for r in joined} == {"000003"}


def test_ex_traffic_ic_uses_its_own_array_key(client):
    _, response, parsed = call(client, "get_ex_ic_traffic", {"unitCode": "101", "sumDate": "20260129"})
    assert "trafficIc" in response.json() and "list" not in response.json()
    assert parsed.total_count == 10 and {r["unitName"] for r in parsed.records} == {"노포"}


@pytest.mark.parametrize(
    ("tool", "args", "key", "code", "kind"),
    [
        ("list_ex_rest_facilities", {"stdRestCd": "000001"}, "invalid", "INVALID_KEY", "invalid_key"),
        ("get_ex_travel_time", {"iStartUnitCode": "1O1", "iEndUnitCode": "103"}, EX_KEY,
         "INVALID_PARAMETER_VALUE", "bad_param"),
        ("get_ex_travel_time", {"iStartUnitCode": "101"}, EX_KEY, "MISSING_PARAMETER", "missing_param"),
        ("find_ex_toll_office", {"numOfRows": 5000}, EX_KEY, "INVALID_PARAMETER_VALUE", "bad_param"),
        ("list_ex_rest_facilities", {"stdRestCd": "999999"}, EX_KEY, "SUCCESS", "no_data"),
        ("get_ex_ic_traffic", {"unitCode": "101", "pageNo": 99}, EX_KEY, "SUCCESS", "page_out_of_range"),
    ],
)
def test_ex_errors(client, snapshot, tool, args, key, code, kind):
    _, response, parsed = call(client, tool, args, key)
    assert (parsed.error.code, parsed.error.kind) == (code, kind)
    assert response.text == snapshot


def test_ex_unknown_operation_is_http_404(client):
    response = client.get("https://data.ex.co.kr/openapi/restinfo/noSuchList", params={"key": EX_KEY})
    assert response.status_code == 404


# ---------------------------------------------------------------- catalog ↔ simulator, world shape


@pytest.mark.parametrize("platform", ["seoul", "ex"])
def test_every_tool_has_an_endpoint_with_its_output_fields(client, sim, platform):
    tools = load_catalog().by_platform(platform)
    assert len(tools) >= 12
    for tool in tools:
        args = {p.name: p.default for p in tool.spec.params if p.required}
        args.update({k: v for k, v in _SAMPLE_ARGS.items() if k in args})
        _, _, parsed = call(client, tool.name, args)
        assert parsed.error is None, (tool.name, parsed.error)
        assert set(parsed.records[0]) == {f.name for f in tool.spec.output}, tool.name


_SAMPLE_ARGS = {"STATION_NM": "강남", "STATION_CD": "0222", "WEEK_TAG": "1", "INOUT_TAG": "2",
                "USE_DT": "20260127", "BUS_ROUTE_ID": "100100001", "sdate": "20260129", "stdHour": "09",
                "iStartUnitCode": "101", "iEndUnitCode": "102"}


def test_rent_table_full_scale_size_and_determinism():
    full = seoul._rent(WorldContext(WorldConfig(seed=0, scale="full")))
    assert full.n_rows == seoul.RENT_ROWS_FULL == 224_958
    assert len(set(full.columns["CGG_CD"].tolist())) == 25
    small_a = seoul._rent(WorldContext(WorldConfig(seed=0, scale="small")))
    small_b = seoul._rent(WorldContext(WorldConfig(seed=0, scale="small")))
    assert all(np.array_equal(small_a.columns[c], small_b.columns[c]) for c in small_a.columns)
