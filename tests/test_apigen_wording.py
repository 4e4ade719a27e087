"""How the offline APIGen generator words a query, after the blind reads: it asks about something specific (a
place, a person with their role, a school, a company, a law, a bill with its number) or for a whole set that
means something by itself; a sample of two tools asks both about the same subjects in one sentence, with an
opener that fits what is asked; what is asked is said as a person wants it, never as a dataset's label; no
internal ID is stated, no bill by a title many bills share; what a person cannot write (Han or kana, a
record's registered title) is never stated; every particle is the Korean layer's."""

from __future__ import annotations

import json
import re

import numpy as np
import orjson
import pytest

from kopa.apigen.asks import BY_TOOL, OPENERS, ask_of
from kopa.apigen.generator import TemplateGenerator
from kopa.apigen.run import generate_run, read_items
from kopa.apigen.sampler import Prompt
from kopa.apigen.semantic import RuleChecker, _phrases
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import (
    ASK_FRAMES,
    FACT_FRAMES,
    JOINED_FRAMES,
    PLACE_FRAMES,
    SEPARATE_FRAMES,
    one_ask,
    statable,
    two_asks,
    with_subject,
)
from kopa.catalog import load_catalog
from kopa.korean.particles import particle
from kopa.korean.text import foreign_script
from kopa.korean.vocabulary import spoken_place

CATALOG = load_catalog()
TODAY = "2026-01-30"
N = 200


def _queries(tool_name: str, values: dict[str, list[str]], style: str = "simple", runs: int = 12) -> list[dict]:
    """What the generator writes for `tool_name` with a value cache of `values` only, over `runs` streams."""
    tool = CATALOG[tool_name]
    cache = ValueCache(values=values, own={tool_name: values}, answered=[tool_name])
    generator = TemplateGenerator(cache, TODAY)
    out = []
    for seed in range(runs):
        prompt = Prompt(style=style, context="plain", difficulty="easy", tools=[tool_name])  # type: ignore[arg-type]
        out.append(json.loads(generator.generate(prompt, [tool], [], np.random.default_rng(seed)).raw))
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run over every platform: its verified samples, and the value cache it drew from."""
    out = tmp_path_factory.mktemp("apigen-wording")
    generate_run(out, N, lambda cache, today: TemplateGenerator(cache, today), RuleChecker(CATALOG), CATALOG,
                 generator_name="template")
    items = read_items(out)
    cache = ValueCache.model_validate_json((out / "values.json").read_bytes())
    return [i.record for i in items if i.verdict.passed and i.record is not None], cache


@pytest.mark.parametrize(("value", "ok"), [
    ("姜道玉", False), ("기술・가정", False), ("보험상品 제145호", False),  # Han, a katakana middle dot
    ("진로 교육 제1802호", False), ("지방 공무원 제2230호", False), ("[용산구] 한강 클래식 1", False),  # titles
    ("가평군", True), ("유료도로법 시행령", True), ("제22대 국회", True), ("2025년 연차보고서", True),
])
def test_a_value_nobody_writes_is_not_statable(value, ok):
    assert statable(value) is ok


def test_a_record_title_or_a_hanja_name_is_never_stated_nor_sent():
    """The number-titles of a generated dataset's records ('해외출장 제5763호') and hanja names are the only values
    the cache holds for the tool's filters: no call carries them and the query states neither."""
    titles = {"SJ": ["해외출장 제5763호", "해외출장 제12호"], "HG_NM": ["姜道玉", "孫雅子"]}
    for made in _queries("list_assembly_overseas_trips_list", titles):
        assert not foreign_script(made["query"]) and not re.search(r"제\d+호", made["query"]), made["query"]
        sent = [str(v) for call in made["answers"] for v in call["arguments"].values()]
        assert not any(v in sent for values in titles.values() for v in values), made


# ------------------------------------------------------------------ 1. something specific is asked

def test_only_the_tools_the_asks_word_are_drawn_and_each_sample_states_something_specific(run):
    """Every verified sample calls tools the ask table words; each either states a subject a call asks about
    (a name, a place, a date, a person with their role) or asks for a whole set its ask names ('고속도로 휴게소
    목록') — never only an enum's kind or a search mode ('예규 행정규칙', '연혁 시행일 기준 법령')."""
    verified, _ = run
    assert len(verified) >= 0.8 * N
    for r in verified:
        asks = [ask_of(CATALOG[c.name]) for c in r.answers]
        assert all(a is not None for a in asks), r.answers
        stated = [str(v) for c in r.answers for k, v in c.arguments.items()
                  if not CATALOG[c.name].spec.param(k).paging and len(str(v)) >= 2
                  and (str(v) in r.query or spoken_place(str(v)) in r.query)]  # '노포휴게소(부산 방향)' states it
        wholes = any(a is not None and a.whole for a in asks)
        assert stated or re.search(r"의안번호 \d|\d{4}년", r.query) or wholes, r.query
        assert not re.search(r"(?:훈령|예규|고시|지침|공고) 행정규칙|(?:연혁|현행|시행예정) 시행일", r.query), r.query


def test_a_tool_that_takes_only_an_internal_id_is_not_drawn():
    """DART's reports take a 고유번호, a bill's detail and proposers a 의안ID, NEIS's meals and timetables a school's
    행정표준코드: the asks leave them out, and keep the lookups by a name."""
    for name in ("get_dart_single_company_key_accounts", "get_dart_employee_status", "get_bill_detail",
                 "get_bill_proposers", "get_neis_school_meal_menu", "get_seoul_subway_timetable",
                 "list_seoul_bus_route_stations", "search_dart_disclosures"):
        assert ask_of(CATALOG[name]) is None, name
    for name in ("find_dart_corp_code", "find_neis_school_code", "find_seoul_subway_station_code"):
        assert ask_of(CATALOG[name]) is not None, name
    assert all(name in CATALOG for name in BY_TOOL)


def test_an_aspect_no_person_asks_of_a_subject_is_not_drawn():
    """'가로등 이용 현황', '어린이보호구역 폐업 현황', '의안 공청회 통계', '의안 청원 연계 상세', '화물운송' and
    '공항 운항' by 시군구 are no asks; a facility's list, where it is, and a business's closures are."""
    for name in ("get_gg_street_lights_usage_statistics", "list_gg_school_zones_closures",
                 "get_assembly_bill_public_hearings_statistics", "get_assembly_bill_petitions_details",
                 "list_molit_freight_transport_by_region", "list_molit_flight_operations_by_region"):
        assert ask_of(CATALOG[name]) is None, name
    assert ask_of(CATALOG["list_gg_street_lights_status"]).what == "가로등"  # type: ignore[union-attr]
    assert ask_of(CATALOG["get_gg_street_lights_locations"]).what == "가로등 위치"  # type: ignore[union-attr]
    assert ask_of(CATALOG["list_gg_food_service_businesses_closures"]).what == "폐업한 음식점"  # type: ignore[union-attr]


# ------------------------------------------------------------------ 2. one information need

def test_no_sample_stitches_unrelated_asks(run):
    """No '두 가지를 확인하고 싶어요. 하나는 …', no 'A 각각의 X와 B 각각의 Y': two tools are asked about the same
    subjects, in one sentence or two that share them."""
    verified, _ = run
    two = [r for r in verified if len({c.name for c in r.answers}) == 2]
    assert two
    for r in verified:
        assert not re.search(r"두 가지|하나는|다른 하나는|각각의", r.query), r.query
    for r in two:
        by_tool: dict[str, list[str]] = {}
        for c in r.answers:
            by_tool.setdefault(c.name, []).append(json.dumps(sorted(c.arguments.items()), ensure_ascii=False))
        first, second = (set(v) for v in by_tool.values())
        assert len(first) == len(second) >= 2, r.query


def test_an_opener_fits_what_is_asked(run):
    """An opener is one of a theme every tool asked is asked under ('주말에 나들이를 가려고 해요.' before 맛집 and
    주차장, never '민원 답변을 준비하고 있습니다'); none states a value a service returned."""
    from kopa.apigen.asks import themes

    verified, cache = run
    lines = {line: theme for theme, said in OPENERS.items() for line in said}
    opened = 0
    for r in verified:
        for line, theme in lines.items():
            if r.query.startswith(line):
                opened += 1
                asks = [ask_of(CATALOG[name]) for name in {c.name for c in r.answers}]
                assert all(ask is not None and theme in themes(ask) for ask in asks), r.query
    assert opened >= 0.2 * len(verified)
    seen = {v for values in cache.seen().values() for v in values}
    said = {line: [t for _, _, t in _phrases(line) if t in seen] for line in lines}
    assert not any(said.values()), {k: v for k, v in said.items() if v}


# ------------------------------------------------------------------ 3. what a person wants, 4. no IDs

LABELS = ("의안 표결 결과", "의안 공청회", "청원 연계", "가로등 이용 현황", "화물운송", "단일회사", "주요계정", "의안 제안자",
          "경기지역화폐", "도로공사", "고유번호 ", "의안ID", "행정표준코드", "시행일 기준 현행", "기본정보", "현황 정보")


def test_what_is_asked_is_no_dataset_label_and_no_internal_id(run):
    """None of the labels the blind read flagged, no catalog title, no internal ID; a bill is stated with its
    number (a title many bills share names none), a member of the Assembly with their role."""
    verified, _ = run
    for r in verified:
        assert not any(label in r.query for label in LABELS), r.query
        for c in r.answers:
            assert CATALOG[c.name].spec.title not in r.query, (c.name, r.query)
            for k, v in c.arguments.items():
                if k in ("BILL_NO", "BILL_NUM", "BL_NO", "NO") and str(v).isdigit():
                    assert f"(의안번호 {v})" in r.query, r.query
                if k in ("HG_NM", "NAAS_NM", "MEMBER_NM", "hgNm", "naasNm", "ASSEM_MEM_NM") and str(v) in r.query:
                    assert re.search(rf"{v}(?:, [가-힣]+)*(?: 의원| 국회의원|[과와,])", r.query), r.query


def test_a_bill_is_said_with_its_number_and_its_particle_follows_the_title():
    """'…법률안(의안번호 2200463)은': the particle follows the title the parenthesis is read after; the term a call
    sends is the one the number starts with (22… of 제22대 국회), and not said again beside it."""
    assert with_subject("<s:은> 본회의에서 어떻게 표결됐나요?", "고용보험법 일부개정법률안(의안번호 2200463)") == \
        "고용보험법 일부개정법률안(의안번호 2200463)은 본회의에서 어떻게 표결됐나요?"
    assert with_subject("<s:은> 어디에 있나요?", "노포(서울)휴게소") == "노포(서울)휴게소는 어디에 있나요?"
    values = {"BILL_NO": ["2200463", "2200416"], "AGE": ["22"]}
    tool = CATALOG["list_bill_vote_results"]
    cache = ValueCache(values=values, own={tool.name: values}, answered=[tool.name],
                       named={"BILL_NO": {"2200463": "정치자금법 일부개정법률안", "2200416": "상표법 일부개정법률안"}})
    generator = TemplateGenerator(cache, TODAY)
    for seed in range(12):
        prompt = Prompt(style="simple", context="plain", difficulty="easy", tools=[tool.name])
        made = json.loads(generator.generate(prompt, [tool], [], np.random.default_rng(seed)).raw)
        query, args = made["query"], made["answers"][0]["arguments"]
        if "BILL_NO" in args:
            assert f"(의안번호 {args['BILL_NO']})" in query and args["BILL_NO"].startswith(args["AGE"]), query
            assert "제22대 국회" not in query, query
        else:
            assert "제22대 국회" in query, query
        assert "의안 표결 결과" not in query and not re.search(r"\)[는와를가]", query), query


def test_a_region_is_said_with_its_province_and_a_person_with_their_role():
    regional = [m["query"] for m in _queries("list_gg_pharmacies", {"SIGUN_NM": ["가평군"]})]
    assert all("경기도 가평군" in q and "약국" in q for q in regional), regional
    people = [m["query"] for m in _queries("get_assembly_member_career", {"HG_NM": ["강도옥"]})]
    assert all(re.search(r"강도옥 (?:국회)?의원", q) for q in people), people


# ------------------------------------------------------------------ the sentences

@pytest.mark.parametrize(("ask", "fact"), [("경기도 가평군의 약국", False), ("강도옥 의원의 소속 정당과 지역구", True),
                                           ("고속도로 휴게소 목록", False), ("예금보험기금 조성 내역", False)])
def test_every_frame_takes_the_particle_its_ask_ends_in(ask, fact):
    """The frames write no particle after what they are filled with: the Korean layer decides it."""
    wrong = {"을": "를", "이": "가", "은": "는", "과": "와"}
    for shape in range(len(ASK_FRAMES) * len(FACT_FRAMES) * len(PLACE_FRAMES)):
        text = one_ask(ask, shape, fact=fact, places=not fact)
        for pair in ("을", "이", "은"):
            right = particle(ask, pair)
            other = wrong[pair] if right == pair else pair
            assert f"{ask}{other} " not in text and not text.startswith(f"{ask}{other}."), text
        assert "목록 목록" not in text, text
    for shape in range(len(JOINED_FRAMES)):
        text = two_asks("경기도 가평군, 고양시", "주차장", "약국", shape)
        assert "주차장와" not in text and "약국를" not in text and "약국가" not in text, text
        compound = two_asks("덕화초등학교", "주소와 연락처", "학생 수", shape)
        assert "연락처과" not in compound and "연락처와 학생" not in compound, compound  # each in its own clause


def test_the_sentences_are_many_and_the_openers_fit_a_theme():
    assert len(ASK_FRAMES) >= 12 and len(JOINED_FRAMES) >= 8 and len(SEPARATE_FRAMES) >= 3
    assert all(len(lines) >= 2 for lines in OPENERS.values())
    assert {ask.theme for ask in BY_TOOL.values()} <= {*OPENERS, "plain"}


def test_the_same_seed_writes_the_same_queries():
    first = [m["query"] for m in _queries("list_gg_parking_lots", {"SIGUN_NM": ["가평군", "고양시"]}, "parallel")]
    again = [m["query"] for m in _queries("list_gg_parking_lots", {"SIGUN_NM": ["가평군", "고양시"]}, "parallel")]
    assert first == again and len(set(first)) >= 4
    assert orjson.dumps(first)
