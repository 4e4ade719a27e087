"""열린국회정보 and 경기데이터드림 end to end: catalog → wire build → simulator → wire parse.

Chains: 의원명 → MONA_CD → 발의/표결, 의안 → BILL_ID → 표결/제안자, 시군명 → SIGUN_CD → 경기 datasets.
Rendered error envelopes are pinned with syrupy snapshots.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import orjson
import pytest

from kopa.catalog.loader import load_catalog
from kopa.wire.base import Parsed
from kopa.wire.registry import family_of
from sim.http import SimRequest
from sim.platforms.assembly import api as assembly
from sim.platforms.gg import api as gg

ASM = "open.assembly.go.kr"
GG = "openapi.gg.go.kr"
UA = {"User-Agent": "pytest"}


@pytest.fixture(scope="module")
def call(backend):
    catalog = load_catalog()
    client = backend.client()

    def _call(tool_name: str, args: dict, key: str | None = "test-key") -> Parsed:
        tool = catalog[tool_name]
        wire = family_of(tool.family)
        return wire.parse(tool, args, client.send(wire.build(tool, args, key)))

    yield _call
    client.close()


def _rows(world, table: str) -> list[dict]:
    t = world.table(table)
    return t.rows(np.arange(t.n_rows))


# --- catalog ↔ simulator --------------------------------------------------------------------------


@pytest.mark.parametrize("platform,endpoints,count", [("assembly", assembly.ENDPOINTS, 15), ("gg", gg.ENDPOINTS, 12)])
def test_every_tool_is_answered_by_an_endpoint_with_its_fields(simulator, platform, endpoints, count):
    # The platform's own endpoints; its generated long tail is tested in tests/test_longtail.py.
    keys = {ep.key for ep in endpoints}
    tools = [t for t in load_catalog().by_platform(platform) if t.spec.path.rpartition("/")[2] in keys]
    assert len(tools) == count
    for tool in tools:
        host = tool.base_url.removeprefix("https://")
        ep = simulator.endpoint(host, tool.spec.path.rpartition("/")[2])
        assert ep is not None, tool.name
        for p in tool.spec.params:
            assert p.paging or p.name in ep.binds or p.name in ep.required, (tool.name, p.name)
        assert {p.name for p in tool.spec.params if p.required} == set(ep.required), tool.name
        wire = list(ep.columns) if ep.columns else list(ep.fields or simulator.world.table(ep.table).column_names)
        assert [f.name for f in tool.spec.output] == wire, tool.name
    assert len(endpoints) == count


# --- 열린국회정보 chains ----------------------------------------------------------------------------


def test_member_name_to_code_to_bills_and_proposers(call, world):
    all_bills = _rows(world, "assembly_bill")
    lead = next(b["RST_MONA_CD"] for b in all_bills if b["AGE"] == "22" and b["RST_MONA_CD"])
    name = next(r["HG_NM"] for r in _rows(world, "assembly_member") if r["MONA_CD"] == lead)
    found = call("find_assembly_member", {"HG_NM": name})
    assert found.error is None and found.total_count == 1
    code = found.records[0]["MONA_CD"]
    assert code == lead and found.records[0]["HG_NM"] == name

    bills = [b for b in all_bills if b["AGE"] == "22" and b["RST_MONA_CD"] == code]
    parsed = call("search_member_proposed_bills", {"AGE": 22, "RST_MONA_CD": code, "pSize": 1000})
    assert parsed.total_count == len(bills) >= 1
    assert {r["RST_PROPOSER"] for r in parsed.records} == {name}
    assert all(r["PROPOSER"].startswith(f"{name}의원 등 ") for r in parsed.records)

    proposers = call("get_bill_proposers", {"BILL_ID": parsed.records[0]["BILL_ID"]})
    assert proposers.records[0]["REP_DIV"] == "대표발의"
    assert proposers.records[0]["NASS_CD"] == code
    assert 10 <= proposers.total_count <= 15  # 법률안 발의에는 10인 이상의 찬성이 필요하다
    co = parsed.records[0]["PUBL_MONA_CD"].split(",")
    assert [r["NASS_CD"] for r in proposers.records[1:]] == co


def test_member_careers_state_the_terms_as_they_were(call, world):
    """의원이력's FRTO_DATE: 제22대 is 2024.05.30 ~ 2028.05.29 (every term since the 13th runs four years from 30
    May); the early terms are the ones history cut short or stretched."""
    assert assembly.term(22) == "2024.05.30 ~ 2028.05.29" and assembly.term(13) == "1988.05.30 ~ 1992.05.29"
    assert assembly.term(5) == "1960.07.29 ~ 1961.05.16" and assembly.term(9) == "1973.03.12 ~ 1979.03.11"
    code = _rows(world, "assembly_member")[0]["MONA_CD"]
    career = call("get_assembly_member_career", {"MONA_CD": code})
    assert career.error is None and career.records
    for row in career.records:
        age = int(row["UNIT_NM"].removeprefix("제").removesuffix("대"))
        start, end = (int(x[:4]) for x in row["FRTO_DATE"].split(" ~ "))
        assert row["FRTO_DATE"] == assembly.term(age) and start < end <= 2028


def test_bill_tally_to_member_votes(call, world):
    tallies = call("list_bill_vote_results", {"AGE": "22", "pSize": 1000})
    assert tallies.error is None
    assert tallies.total_count == sum(1 for t in _rows(world, "assembly_vote_tally") if t["AGE"] == "22")
    tally = tallies.records[0]
    assert isinstance(tally["MEMBER_TCNT"], int)
    votes = call("get_member_plenary_votes", {"AGE": "22", "BILL_ID": tally["BILL_ID"], "pSize": 1000})
    assert votes.total_count == tally["MEMBER_TCNT"] and 298 <= votes.total_count <= 300
    modes = Counter(v["RESULT_VOTE_MOD"] for v in votes.records)
    assert modes["반대"] == tally["NO_TCNT"] and modes["기권"] == tally["BLANK_TCNT"]
    assert modes["찬성"] + modes["반대"] + modes["기권"] == tally["VOTE_TCNT"]
    roster = {r["MONA_CD"] for r in _rows(world, "assembly_member")}
    assert {v["MONA_CD"] for v in votes.records} <= roster
    assert all(v["VOTE_DATE"][8] == " " and len(v["VOTE_DATE"]) == 15 for v in votes.records)


def test_published_yes_counts_sometimes_disagree_with_member_rows(world):
    """The known inconsistency: YES_TCNT ≠ the number of 찬성 rows for a small share of bills."""
    yes = Counter(v["BILL_ID"] for v in _rows(world, "assembly_vote") if v["RESULT_VOTE_MOD"] == "찬성")
    tallies = [t for t in _rows(world, "assembly_vote_tally") if t["AGE"] == "22"]
    off = [t for t in tallies if t["YES_TCNT"] != yes[t["BILL_ID"]]]
    assert 0 < len(off) <= max(3, len(tallies) // 10)
    assert all(abs(t["YES_TCNT"] - yes[t["BILL_ID"]]) <= 2 for t in off)


def test_bill_search_to_detail(call):
    found = call("search_assembly_bills", {"BILL_NAME": "도로교통법", "AGE": "21", "pSize": 5})
    assert found.error is None and found.total_count >= 1
    assert all("도로교통법" in r["BILL_NAME"] and r["AGE"] == "21" for r in found.records)
    detail = call("get_bill_detail", {"BILL_ID": found.records[0]["BILL_ID"]})
    assert detail.total_count == 1 and detail.records[0]["BILL_NO"] == found.records[0]["BILL_NO"]


@pytest.mark.parametrize("tool,args,code,kind", [
    ("get_member_plenary_votes", {"AGE": "22"}, "ERROR-300", "missing_param"),
    ("search_member_proposed_bills", {"BILL_NAME": "법"}, "ERROR-300", "missing_param"),
    ("get_bill_proposers", {"BILL_ID": "PRC_A0B0C0D0E0F0G0H0I0J0K0L0M0N"}, "INFO-200", "no_data"),
    ("get_bill_proposers", {"BILL_ID": "12345"}, "INFO-200", "no_data"),
    ("list_bill_vote_results", {"AGE": "19"}, "INFO-200", "no_data"),
    ("list_bill_receipts", {"ERACO": "제22대"}, "INFO-200", "no_data"),
    ("find_assembly_member", {"pIndex": 99}, "INFO-200", "no_data"),
    ("find_assembly_member", {"pSize": 1001}, "ERROR-336", "bad_param"),
])
def test_assembly_structural_errors(call, tool, args, code, kind):
    parsed = call(tool, args)
    assert parsed.error is not None
    assert (parsed.error.error_class, parsed.error.kind, parsed.error.code) == ("structural", kind, code)


@pytest.mark.parametrize("key", ["sample", "invalid", None])
def test_assembly_rejects_sample_and_bad_keys(call, key):
    parsed = call("find_assembly_member", {}, key=key)
    assert (parsed.error.error_class, parsed.error.code) == ("auth", "ERROR-290")


def test_assembly_member_counts(call):
    everyone = call("find_assembly_member", {"pSize": 1})
    assert everyone.total_count == 300
    parties = call("find_assembly_member", {"POLY_NM": "국민의힘", "pSize": 1})
    assert parties.total_count == 107


# --- 경기데이터드림 chains --------------------------------------------------------------------------


def test_sigun_name_to_code_to_datasets(call, world):
    found = call("find_gg_sigun_code", {"SIGUN_NM": "수원시"})
    assert found.total_count == 1 and found.records[0]["SIGUN_CD"] == "41110"
    truth = sum(1 for r in _rows(world, "gg_region_money_merchant") if r["SIGUN_CD"] == "41110")
    merchants = call("search_gg_local_currency_merchants", {"SIGUN_CD": "41110", "pSize": 1000})
    assert merchants.total_count == truth > 100
    assert {r["SIGUN_NM"] for r in merchants.records} == {"수원시"}
    small = call("search_gg_local_currency_merchants", {"SIGUN_NM": "연천군", "pSize": 1000})
    assert 0 < small.total_count < truth / 5
    for tool in ("list_gg_pharmacies", "list_gg_parking_lots", "list_gg_bus_stations", "list_gg_public_libraries",
                 "search_gg_tasty_restaurants", "list_gg_public_toilets", "list_gg_child_care_centers",
                 "get_gg_sigun_population"):
        parsed = call(tool, {"SIGUN_CD": "41110", "pSize": 3})
        assert parsed.error is None and parsed.records[0]["SIGUN_CD"] == "41110", tool


def test_gg_fishing_places_are_absent_from_most_cities(call, world):
    present = {r["SIGUN_CD"] for r in _rows(world, "gg_fishing_place")}
    absent = next(s.code for s in gg.SIGUNS if s.code not in present)
    parsed = call("list_gg_fishing_places", {"SIGUN_CD": absent})
    assert parsed.error.code == "INFO-200" and parsed.error.error_class == "structural"


def test_gg_parameter_names_are_case_insensitive(simulator):
    query = "key=test-key&type=json&psize=2&sigun_cd=41110"
    response = simulator.handle(SimRequest.from_parts("GET", GG, "/ParmacyInfo", query, {}))
    _, rows = orjson.loads(response.body)["ParmacyInfo"]
    assert len(rows["row"]) == 2 and {r["SIGUN_CD"] for r in rows["row"]} == {"41110"}


def test_gg_sample_key_is_capped_at_five_rows(call):
    parsed = call("list_gg_bus_stations", {"SIGUN_CD": "41110", "pSize": 100}, key="sample")
    assert parsed.error is None and len(parsed.records) == 5 and parsed.total_count > 5


@pytest.mark.parametrize("tool,args,key,expected", [
    ("list_gg_pharmacies", {}, "invalid", ("auth", "ERROR-290")),
    ("list_gg_pharmacies", {"SIGUN_CD": "11680"}, "k", ("structural", "INFO-200")),
    ("list_gg_pharmacies", {"SIGUN_CD": "4111"}, "k", ("structural", "INFO-200")),
    ("list_gg_job_support_policies", {"REGION_CD": "41000", "pIndex": 999}, "k", ("structural", "INFO-200")),
])
def test_gg_errors(call, tool, args, key, expected):
    parsed = call(tool, args, key=key)
    assert (parsed.error.error_class, parsed.error.code) == expected


def test_gg_job_policies_name_their_region(call):
    parsed = call("list_gg_job_support_policies", {"REGION_NM": "경기도", "pSize": 1000})
    assert parsed.error is None and {r["REGION_CD"] for r in parsed.records} == {"41000"}


# --- rendered envelopes ----------------------------------------------------------------------------

CASES = {
    "asm_sample_key": (ASM, "/portal/openapi/nwvrqwxyaytdsfvhu", "KEY=sample&Type=json", UA),
    "asm_no_user_agent": (ASM, "/portal/openapi/nwvrqwxyaytdsfvhu", "KEY=k&Type=json", {}),
    "asm_missing_bill_id": (ASM, "/portal/openapi/nojepdqqaweusdfbi", "KEY=k&Type=json&AGE=22", UA),
    "asm_unknown_bill_xml": (ASM, "/portal/openapi/BILLINFOPPSR", "KEY=k&BILL_ID=PRC_A0B0C0D0E0F0G0H0I0J0K0L0M0N", UA),
    "asm_unknown_service": (ASM, "/portal/openapi/nosuchservice", "KEY=k&Type=json", UA),
    "gg_bad_key": (GG, "/RegionMnyFacltStus", "KEY=invalid&Type=json", {}),
    "gg_no_data": (GG, "/RegionMnyFacltStus", "KEY=k&Type=json&SIGUN_CD=41999", {}),
    "gg_page_size": (GG, "/RegionMnyFacltStus", "KEY=k&Type=json&pSize=5000", {}),
    "gg_one_row": (GG, "/SigunCdInfo", "KEY=k&Type=json&SIGUN_NM=가평군", {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rendered_envelope(simulator, snapshot, case):
    host, path, query, headers = CASES[case]
    response = simulator.handle(SimRequest.from_parts("GET", host, path, query, headers))
    assert f"HTTP {response.status} {response.content_type}\n{response.body.decode('utf-8')}" == snapshot


def test_tables_are_deterministic():
    from sim.world.context import WorldConfig, WorldContext

    first = gg.tables(WorldContext(WorldConfig(seed=3)))
    second = gg.tables(WorldContext(WorldConfig(seed=3)))
    assert [t.columns for t in first] == [t.columns for t in second]
