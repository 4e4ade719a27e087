"""EDGE Phase B question first: the intent bank loads against the catalog, handoffs are read from the golden
references and typed by executed cardinality, a realization is refused when its handoffs are not what the
question was written for or when G* does not retain them, and every intent of the bank asks a question the
simulator answers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kopa.backends.spec import open_backend
from kopa.bank.links import Link, cardinality, kind_of, links_of
from kopa.bank.model import IntentError, load_bank
from kopa.catalog import load_catalog
from kopa.edge.graph import ToolGraph
from kopa.synth.candidate import Candidate
from kopa.synth.intents.draw import FEW_QUESTIONS, draw_weight, questions
from kopa.synth.intents.realize import BankContext, realize, required_hops, retained_edges, ungrounded

CATALOG = load_catalog()
KINDS = {"company": "pick", "month": "month", "price": "observed", "result": "choice"}


def _links(step: dict, before: set[str]) -> list[Link]:
    return links_of(step, before, KINDS)


def test_each_way_of_handing_a_value_on_is_read_from_its_reference():
    one = _links({"id": "o", "call": "get_dart_company_overview",
                  "args": {"corp_code": "{corp.records[?corp_name=<company>][0].corp_code}"}}, {"corp"})
    assert [(x.source, x.field, x.how, x.process, x.narrowing) for x in one] == [
        ("corp", "corp_code", "one", None, ("?corp_name=<company>",))]  # a name narrows, selects nothing
    mode = _links({"id": "c", "call": "get_dart_company_overview",
                   "args": {"corp_code": "{filings.records[*].corp_code|mode}"}}, {"filings"})
    assert (mode[0].how, mode[0].process, mode[0].field) == ("process", "mode", "corp_code")
    best = _links({"id": "d", "call": "get_bill_detail", "args": {"BILL_ID": "{t.records|maxby:YES_TCNT|get:BILL_ID}"}},
                  {"t"})
    assert (best[0].process, best[0].pivot_field, best[0].field) == ("max", "YES_TCNT", "BILL_ID")
    each = _links({"id": "p", "call": "get_bill_proposers", "for_each": "{bills.records[*].BILL_ID|unique}",
                   "args": {"BILL_ID": "{item}"}}, {"bills"})
    assert (each[0].how, each[0].field) == ("all", "BILL_ID")
    kind = _links({"id": "s", "call": "get_assembly_member_sns",
                   "for_each": "{m.records[?JOB_RES_NM=간사].MONA_CD|unique}", "args": {"MONA_CD": "{item}"}}, {"m"})
    assert (kind[0].how, kind[0].process, kind[0].pivot_field) == ("process", "eq", "JOB_RES_NM")
    over = _links({"id": "f", "call": "list_ex_rest_facilities",
                   "for_each": "{food.records[?salePrice>=<price.value>].stdRestCd|unique}", "args": {"stdRestCd": "{item}"}},
                  {"food"})
    assert (over[0].process, over[0].pivot) == ("ge", "<price.value>")
    # a kind the question states before a reduction narrows; the reduction is the process node
    latest = _links({"id": "t", "call": "get_law_text",
                     "args": {"ID": "{laws.records[?소관부처명=<result.say>]|maxby:공포일자|get:법령ID}"}}, {"laws"})
    assert (latest[0].process, latest[0].narrowing, latest[0].field) == ("max", ("?소관부처명=<result.say>",), "법령ID")
    korean = _links({"id": "t", "call": "get_law_text", "args": {"ID": "{found.records[0].법령ID}"}}, {"found"})
    assert (korean[0].field, korean[0].how) == ("법령ID", "one")  # a service's Korean field names hand on too
    # a value an earlier step found names (narrows); one a reduction computes in the selector selects
    found = _links({"id": "c", "call": "get_dart_company_overview",
                    "args": {"corp_code": "{corp.records[?corp_name=$top.records[0].ITM_NM][0].corp_code}"}},
                   {"corp", "top"})
    assert (found[0].how, found[0].process) == ("one", None)
    cheapest = _links({"id": "r", "call": "find_ex_rest_area", "for_each":
                       "{oil.records[?gasolinePrice=$oil.records[*].gasolinePrice|min].serviceAreaCode|unique}",
                       "args": {"serviceAreaCode": "{item}"}}, {"oil"})
    assert (cheapest[0].how, cheapest[0].process) == ("process", "eq")
    records = {"id": "r", "call": "find_assembly_member", "for_each": "{m.records}", "args": {"MONA_CD": "{item.MONA_CD}"}}
    assert [(x.field, x.how) for x in _links(records, {"m"})] == [("MONA_CD", "all")]
    assert _links({"id": "x", "call": "evaluate_expression", "args": {"expression": "{a.records|len}"}}, {"a"}) == []
    assert _links(one and {"id": "o", "call": "x", "args": {"corp_code": "{corp.records[0].corp_code}"}}, set()) == []


def test_the_executed_cardinality_decides_the_junction_and_refuses_what_does_not_fit():
    one, every = Link("s", "p", "f", "one"), Link("s", "p", "f", "all")
    process = Link("s", "p", "f", "process", process="max", pivot_field="g")
    assert kind_of(one, 1) == "SEQ" and kind_of(one, 2).startswith("order_dependent")
    assert [kind_of(every, n) for n in (1, 2, 5)] == ["SEQ", "FAN", "FAN"]
    assert kind_of(every, 6).startswith("too_many")
    assert kind_of(process, 6) == "DRV"
    # a selection over a handful is typed by what it hands on, as the paper types by n ≤ φ
    assert kind_of(process, 5, passed=1) == "SEQ" and kind_of(process, 5, passed=2) == "FAN"
    named = links_of({"id": "o", "call": "c", "args": {"p": "{s.records[?name=<company>][0].code}"}}, {"s"}, KINDS)[0]
    records = [{"name": "삼성전자", "code": "1"}, {"name": "삼성전자우", "code": "2"}, {"name": "삼성SDI", "code": "3"}]
    assert cardinality(records, named, {"company": {"say": "삼성전자"}}) == 1  # over what the question names


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "x.yaml").write_text(text, encoding="utf-8")
    return folder


BASE = """intents:
  - id: t.one
    pattern: SEQ
    slots: {company: {kind: pick, call: search_dart_disclosures, say: "{corp_name}"}}
    steps:
      - {id: corp, call: find_dart_corp_code, args: {corp_name: "<company>"}}
      - {id: o, call: get_dart_company_overview, args: {corp_code: "{corp.records[0].corp_code}"}}
    asks: [{q: "<company>의 대표이사는 누구인가요?", answer: {type: string, value: "{o.records[0].ceo_nm}"}}]
"""


@pytest.mark.parametrize(("change", "error"), [
    (("find_dart_corp_code", "find_dart_corp"), "unknown tool 'find_dart_corp'"),
    (("corp_name: \"<company>\"", "corp_nm: \"<company>\""), "find_dart_corp_code takes no corp_nm"),
    (("<company>의 대표이사", "<firm>의 대표이사"), "names no slot 'firm'"),
    (("pattern: SEQ", "pattern: SEQ+BLOB"), "is not junction types"),
    (("{o.records[0].ceo_nm}", "{ov.records[0].ceo_nm}"), "refers to no step 'ov'"),
])
def test_an_intent_that_does_not_fit_the_catalog_is_refused_with_its_file_and_id(tmp_path, change, error):
    folder = _write(tmp_path / change[1].replace("/", "_")[:20], BASE.replace(*change))
    with pytest.raises(IntentError, match=r"x\.yaml: intent t\.one: .*" + error.replace("(", r"\(").replace(")", r"\)")):
        load_bank.__wrapped__(folder)


def test_the_bank_loads_with_unique_ids_covering_every_platform():
    bank = load_bank()
    ids = [i.id for i in bank]
    assert len(ids) == len(set(ids))
    ctx_platforms = {CATALOG[s.get("call")].platform for i in bank for s in i.steps if s.get("call")}
    assert ctx_platforms >= {"assembly", "dart"}


@pytest.fixture(scope="module")
def empty_graph_ctx():
    """A G* with no edge at all: every handoff is one G* does not retain."""
    return BankContext(ToolGraph([t.name for t in CATALOG if t.family != "session"]), CATALOG,
                       open_backend("sim").memoized(256 * 2**20))


TOP_FILER = """intents:
  - id: t.top-filer
    pattern: DRV
    slots: {month: {kind: month, back: [1, 3]}}
    steps:
      - {id: filings, call: search_dart_disclosures, args: {bgn_de: "<month.first>", end_de: "<month.last>"}, pages: all}
      - {id: company, call: get_dart_company_overview, args: {corp_code: "{filings.records[*].corp_code|mode}"}}
    asks: [{q: "<month>에 공시를 가장 많이 낸 회사의 대표이사는 누구인가요?", answer: {type: string, value: "{company.records[0].ceo_nm}"}}]
"""


def test_a_handoff_g_star_does_not_retain_is_refused(empty_graph_ctx, tmp_path):
    (intent,) = load_bank.__wrapped__(_write(tmp_path, TOP_FILER))
    made = [realize(empty_graph_ctx, intent, i, 0) for i in range(4)]
    refused = [m for m in made if not isinstance(m, Candidate)]
    assert {m.reason for m in refused} >= {"not_in_graph"}
    assert any(m.detail == "search_dart_disclosures.corp_code → get_dart_company_overview.corp_code" for m in refused)


def test_every_intent_of_kopa_s_bank_asks_a_question_the_small_world_answers(empty_graph_ctx):
    """Each intent, realized on the small world (G*'s edges aside: a graph's retention is Phase A's to
    decide), yields a Korean question with a non-empty answer within a dozen draws of its slots — so a bank
    edit or a change of the simulator that breaks one is caught here, not in a corpus short of it."""
    ctx = BankContext(empty_graph_ctx.graph, CATALOG, empty_graph_ctx.backend, seed=3, check_graph=False)
    failed = {}
    for k, intent in enumerate(ctx.intents):
        made = [realize(ctx, intent, 100 * k + attempt, 0) for attempt in range(12)]
        kept = [m for m in made if isinstance(m, Candidate)]
        if not kept:
            failed[intent.id] = sorted({f"{m.reason}: {m.detail}" for m in made})[:2]
            continue
        for c in kept[:1]:
            assert re.search(r"[가-힣]", c.task.query) and not re.search(r"<|>|\{|\}", c.task.query), c.task.query
            assert c.pattern == intent.pattern and c.target.key is not None and c.target.key.display.strip()
    assert not failed, failed


CITY_REUSED = """intents:
  - id: t.route-stops
    pattern: SEQ+SEQ
    slots:
      city: {kind: pick, call: list_tago_cities, args: {numOfRows: 100}, say: "{cityname}"}
      route: {kind: pick, call: search_tago_bus_routes, args: {cityCode: "<city.citycode>", numOfRows: 1000}, say: "{routeno}"}
    steps:
      - {id: cities, call: list_tago_cities, args: {numOfRows: 100}}
      - {id: routes, call: search_tago_bus_routes, args: {cityCode: "{cities.records[?cityname=<city>][0].citycode|str}", routeNo: "<route>"}}
      - {id: stops, call: list_tago_route_stops, args: {cityCode: "{cities.records[?cityname=<city>][0].citycode|str}", routeId: "{routes.records[?routeno=<route>][0].routeid}"}}
    asks: [{q: "<city> <route>번 버스는 정류소 몇 곳을 거치나요?", answer: {type: number, value: "{stops.records|len}"}}]
"""


def test_a_code_in_hand_passed_again_is_no_new_handoff_and_an_intent_g_star_cannot_realize_is_not_drawn(tmp_path):
    """The city code looked up once and passed to a later call again is one handoff (cities → routes), not
    two: the later use is neither a junction nor an edge G* must hold. An intent missing a handoff it needs
    is named, with that handoff, and left out of the draw."""
    (intent,) = load_bank.__wrapped__(_write(tmp_path, CITY_REUSED))
    hops = required_hops(intent, CATALOG)
    assert hops == [("list_tago_cities", "search_tago_bus_routes", "cityCode", "citycode"),
                    ("search_tago_bus_routes", "list_tago_route_stops", "routeId", "routeid")]
    graph = ToolGraph([t.name for t in CATALOG if t.family != "session"])
    assert ungrounded((intent,), CATALOG, retained_edges(graph)) == {
        "t.route-stops": "list_tago_cities.citycode → search_tago_bus_routes.cityCode"}
    ctx = BankContext(graph, CATALOG, open_backend("sim").memoized(256 * 2**20), intents=(intent,))
    assert ctx.drawable == () and set(ctx.ungrounded) == {"t.route-stops"}
    # realized without the graph check, the pattern has the two handoffs only
    loose = BankContext(graph, CATALOG, ctx.backend, intents=(intent,), check_graph=False)
    made = next(m for m in (realize(loose, intent, i, 0) for i in range(8)) if isinstance(m, Candidate))
    assert made.pattern == "SEQ+SEQ" and [(j.source, j.target) for j in made.junctions] == [
        ("cities", "routes"), ("routes", "stops")]
    assert sorted(loose.missing) == ["list_tago_cities.citycode → search_tago_bus_routes.cityCode",
                                     "search_tago_bus_routes.routeid → list_tago_route_stops.routeId"]


def test_a_few_question_intent_is_drawn_less():
    bank = {i.id: i for i in load_bank()}
    fixed = next(i for i in bank.values() if not i.slots)
    assert questions(fixed) == len(fixed.asks) and draw_weight(fixed) == fixed.weight * len(fixed.asks) / FEW_QUESTIONS
    many = next(i for i in bank.values() if any(s.kind == "pick" for s in i.slots.values()))
    assert draw_weight(many) == many.weight


def test_a_difference_asked_one_way_is_asked_only_where_it_holds(empty_graph_ctx):
    """'몇 곳 많나요?' presupposes more: an ask marked positive keeps only draws whose answer is above zero,
    and refuses the others (drawn again) instead of asking about a difference the other way round."""
    ctx = BankContext(empty_graph_ctx.graph, CATALOG, empty_graph_ctx.backend, seed=5, check_graph=False)
    intent = next(i for i in ctx.intents if i.id == "edu.academies.two-districts")
    assert all(ask.positive for ask in intent.asks)
    made = [realize(ctx, intent, i, 0) for i in range(16)]
    kept = [m for m in made if isinstance(m, Candidate)]
    assert kept and all(float(m.target.key.exact) > 0 for m in kept)
    assert any(m.reason == "not_positive" for m in made if not isinstance(m, Candidate))


def test_a_junction_fed_by_a_name_searched_archive_counts_the_records_the_service_sent(empty_graph_ctx):
    """DART has no corp-code search: corpCode.xml sends the whole archive and the tool filters it by name.
    The junction after it is typed on the one company the name narrows to (SEQ), but the records behind it —
    the paper's cardinality — are those the service sent, counted here from the raw zip with the standard
    library; a model sees only the matches."""
    import io
    import xml.etree.ElementTree as ET
    import zipfile

    from kopa.synth.dataset import shape_of, shape_statistics
    from kopa.tools.runtime import ToolRuntime

    backend = empty_graph_ctx.backend
    ctx = BankContext(empty_graph_ctx.graph, CATALOG, backend, seed=3, check_graph=False)
    intent = next(i for i in ctx.intents if i.id == "dart.company.fact")
    made = [m for m in (realize(ctx, intent, i, 0) for i in range(6)) if isinstance(m, Candidate)]
    assert len(made) >= 2  # the second reads the archive from the backend's memo
    tool = CATALOG["find_dart_corp_code"]
    with backend.client() as client:
        sent = client.send(family_of_dart().build(tool, {"corp_name": "x"}, backend.issue_key(tool.auth.key_id)))
    with zipfile.ZipFile(io.BytesIO(sent.content)) as archive:
        rows = len(ET.fromstring(archive.read(archive.namelist()[0])).findall("list"))
    assert rows > 100
    for c in made:
        (junction,) = c.junctions
        assert (junction.source_tool, junction.kind, junction.cardinality) == ("find_dart_corp_code", "SEQ", 1)
        assert junction.records == rows
    stats = shape_statistics([shape_of(c) for c in made])
    assert (stats["searched"], stats["junctions"], stats["card_median"]) == (len(made), len(made), rows)
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    seen = runtime.call("find_dart_corp_code", made[0].target.calls[0].arguments)
    assert seen.scanned == rows and "scanned" not in seen.for_model() and len(seen.for_model()["records"]) < rows


def family_of_dart():
    from kopa.wire.registry import family_of

    return family_of("dart")
