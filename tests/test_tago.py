"""국토교통부 TAGO 버스정류소정보 · 버스노선정보 (data.go.kr family), the platform added as one package
(`sim/platforms/tago/`) and one catalog file: the city → stop → through-routes → route-stops chain end to
end through the sim backend, checked against the world's own tables, and the answer's shape (numbers in
JSON, text in XML, the gateway's no-data and missing-parameter codes)."""

from __future__ import annotations

from typing import Any

import httpx
import numpy as np
import pytest

from kopa.catalog.loader import load_catalog
from kopa.wire import family_of
from kopa.wire.base import Parsed
from sim.registry import platform_of
from sim.world.table import Cond

SERVICE_KEY = "0" * 64
TOOLS = ("list_tago_cities", "search_tago_bus_stops", "list_tago_routes_through_stop", "search_tago_bus_routes",
         "get_tago_bus_route_info", "list_tago_route_stops", "list_tago_bus_arrivals", "get_tago_route_bus_arrival")


@pytest.fixture(scope="module")
def client(backend):
    with backend.client() as c:
        yield c


@pytest.fixture(scope="module")
def tables(backend):
    return backend.simulator.world.tables


def call(client: httpx.Client, name: str, args: dict[str, Any]) -> tuple[httpx.Response, Parsed]:
    tool = load_catalog()[name]
    wire = family_of(tool.family)
    response = client.send(wire.build(tool, args, SERVICE_KEY))
    return response, wire.parse(tool, args, response)


def every(table) -> list[dict]:
    return table.rows(np.arange(table.n_rows))


def test_every_tool_is_served_and_counted_to_tago(backend):
    catalog = load_catalog()
    assert sorted(t.name for t in catalog.by_platform("tago")) == sorted(TOOLS)
    for name in TOOLS:
        tool = catalog[name]
        assert backend.simulator.endpoint("apis.data.go.kr", tool.spec.path) is not None, name
        assert platform_of("apis.data.go.kr", tool.spec.path) == "tago"
    issue = catalog["issue_api_key"].spec.params[0]
    assert "tago" in issue.enum and "tago TAGO 버스정보(국토교통부)" in issue.description


def test_the_city_list_is_the_services_whole_list_over_two_pages(client):
    """The real getCtyCodeList answers 132 cities (a shared system as one: 대전광역시/계룡시); at 100 a page the
    second page holds the last 32, 합천군 last, as the real answer orders them."""
    _, first = call(client, "list_tago_cities", {"numOfRows": 100})
    _, second = call(client, "list_tago_cities", {"numOfRows": 100, "pageNo": 2})
    assert first.total_count == 132 and len(first.records) == 100 and len(second.records) == 32
    names = [c["cityname"] for c in first.records + second.records]
    assert len(set(names)) == 132 and names[5] == "대전광역시/계룡시" and names[-1] == "합천군"
    assert {c["citycode"] for c in first.records} >= {12, 21, 39, 31010}


def test_city_to_stop_to_routes_to_route_stops(client, tables):
    _, cities = call(client, "list_tago_cities", {"numOfRows": 100})
    daejeon = next(c for c in cities.records if c["cityname"] == "대전광역시/계룡시")
    code = str(daejeon["citycode"])
    _, stops = call(client, "search_tago_bus_stops", {"cityCode": code, "nodeNm": "시장", "numOfRows": 100})
    assert stops.error is None and stops.records and all("시장" in s["nodenm"] for s in stops.records)
    stop = stops.records[0]
    _, through = call(client, "list_tago_routes_through_stop", {"cityCode": code, "nodeid": stop["nodeid"],
                                                                "numOfRows": 100})
    assert through.error is None
    # Independently: the routes whose ordered stop runs (the route-stop table) contain this stop.
    runs = [r for r in every(tables["tago_route_stop"]) if r["citycode"] == daejeon["citycode"]]
    expected = {r["routeid"] for r in runs if r["nodeid"] == stop["nodeid"]}
    assert {r["routeid"] for r in through.records} == expected and expected
    route = through.records[0]
    _, route_stops = call(client, "list_tago_route_stops", {"cityCode": code, "routeId": route["routeid"],
                                                           "numOfRows": 200})
    orders = [r["nodeord"] for r in route_stops.records]
    assert orders == list(range(1, len(orders) + 1))
    assert stop["nodeid"] in {r["nodeid"] for r in route_stops.records}
    ups = [r for r in route_stops.records if r["updowncd"] == 0]
    downs = [r for r in route_stops.records if r["updowncd"] == 1]
    assert [r["nodeid"] for r in downs] == [r["nodeid"] for r in reversed(ups[:-1])]
    assert (route["startnodenm"], route["endnodenm"]) == (ups[0]["nodenm"], ups[-1]["nodenm"])
    _, by_number = call(client, "search_tago_bus_routes", {"cityCode": code, "routeNo": route["routeno"]})
    assert route["routeid"] in {r["routeid"] for r in by_number.records}
    _, info = call(client, "get_tago_bus_route_info", {"cityCode": code, "routeId": route["routeid"]})
    assert [r["routeno"] for r in info.records] == [route["routeno"]]
    assert isinstance(info.records[0]["intervaltime"], int)
    # The arrivals at the stop are one next bus per route through it.
    _, arrivals = call(client, "list_tago_bus_arrivals", {"cityCode": code, "nodeId": stop["nodeid"], "numOfRows": 100})
    assert sorted(r["routeid"] for r in arrivals.records) == sorted(expected)
    _, one = call(client, "get_tago_route_bus_arrival", {"cityCode": code, "nodeId": stop["nodeid"],
                                                         "routeId": route["routeid"]})
    assert one.records == [r for r in arrivals.records if r["routeid"] == route["routeid"]]


def test_json_answers_numbers_where_the_service_does_and_xml_text(client, tables):
    tool = load_catalog()["search_tago_bus_stops"]
    wire = family_of(tool.family)
    request = wire.build(tool, {"cityCode": "25", "numOfRows": 1}, SERVICE_KEY)
    item = client.send(request).json()["response"]["body"]["items"]["item"]
    assert isinstance(item, dict)  # a lone item is an object, as the gateway's XML→JSON conversion gives it
    assert isinstance(item["gpslati"], float) and isinstance(item["nodeno"], int) and isinstance(item["nodeid"], str)
    xml = client.get(str(request.url).replace("_type=json", "_type=xml"), headers=dict(request.headers))
    assert xml.text.startswith("<?xml") and f"<nodeno>{item['nodeno']}</nodeno>" in xml.text
    first = tables["tago_stop"].select([Cond("citycode", "eq", 25)])[0]
    assert tables["tago_stop"].value(int(first), "nodeid") == item["nodeid"]


def test_no_data_and_a_missing_city_code_answer_in_the_gateway_envelope(client):
    response, parsed = call(client, "search_tago_bus_stops", {"cityCode": "25", "nodeNm": "없는정류소이름"})
    assert response.json()["response"]["header"]["resultCode"] == "03" and parsed.error.kind == "no_data"
    tool = load_catalog()["search_tago_bus_stops"]
    request = family_of(tool.family).build(tool, {"cityCode": "25"}, SERVICE_KEY)
    missing = client.get(str(request.url).replace("cityCode=25", ""), headers=dict(request.headers))
    assert missing.json()["response"]["header"]["resultCode"] == "11"
