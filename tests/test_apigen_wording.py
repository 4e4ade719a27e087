"""How the offline APIGen generator words a query: what a person cannot state is never stated (Han or kana, a
record's registered title), an ask with no stated value asks for a list, a region of a province is said after
it, a person is asked about as that person, the frames and openers are many and hand-written, and every
particle is the Korean layer's."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from kopa.apigen.generator import TemplateGenerator
from kopa.apigen.sampler import Prompt
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import (
    ASK_FRAMES,
    JOINED_FRAMES,
    LIST_FRAMES,
    OPENERS,
    asked,
    instance,
    one_ask,
    statable,
    two_asks,
)
from kopa.catalog import load_catalog
from kopa.korean.particles import particle
from kopa.korean.text import foreign_script

CATALOG = load_catalog()
TODAY = "2026-01-30"


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


@pytest.mark.parametrize(("value", "ok"), [
    ("姜道玉", False), ("기술・가정", False), ("보험상品 제145호", False),  # Han, a katakana middle dot
    ("진로 교육 제1802호", False), ("지방 공무원 제2230호", False), ("[용산구] 한강 클래식 1", False),  # titles
    ("가평군", True), ("유료도로법 시행령", True), ("제22대 국회", True), ("2025년 연차보고서", True),
])
def test_a_value_nobody_writes_is_not_statable(value, ok):
    assert statable(value) is ok


def test_a_record_title_or_a_hanja_name_is_never_stated_nor_sent():
    """The number-titles of a generated dataset's records ('해외출장 제5763호') and hanja names are the only values
    the cache holds for the tool's filters: the query asks for the list instead, and no call carries them."""
    titles = {"SJ": ["해외출장 제5763호", "해외출장 제12호"], "HG_NM": ["姜道玉", "孫雅子"]}
    for made in _queries("list_assembly_overseas_trips_list", titles):
        assert not foreign_script(made["query"]) and not re.search(r"제\d+호", made["query"]), made["query"]
        sent = [str(v) for call in made["answers"] for v in call["arguments"].values()]
        assert not any(v in sent for values in titles.values() for v in values), made
        assert "목록" in made["query"], made["query"]


def test_an_ask_with_no_stated_value_asks_for_the_list():
    """'판례가 궁금해요' asks nothing: a call with no stated argument is asked as the list of what it answers."""
    queries = {made["query"] for made in _queries("search_court_precedents", {}, runs=20)}
    assert all("판례 목록" in q for q in queries), queries
    assert len(queries) >= 4, queries  # several frames, not one line


def test_a_region_is_said_after_its_province_and_a_person_as_that_person():
    regional = [m["query"] for m in _queries("list_gg_pharmacies", {"SIGUN_NM": ["가평군"]})
                if m["answers"][0]["arguments"].get("SIGUN_NM") == "가평군"]
    assert regional and all("경기도 가평군의 약국" in q for q in regional), regional
    people = [m["query"] for m in _queries("find_assembly_member", {"HG_NM": ["강도옥"]})
              if m["answers"][0]["arguments"].get("HG_NM") == "강도옥"]
    assert people and all("강도옥 국회의원 정보" in q and "강도옥의" not in q for q in people), people


@pytest.mark.parametrize(("ask", "stated"), [("경기도 가평군의 약국", True), ("강도옥 국회의원 정보", True),
                                             ("법령해석례", False), ("예금보험기금 조성내역", False), ("IC별 교통량", False)])
def test_every_frame_takes_the_particle_its_ask_ends_in(ask, stated):
    """The frames write no particle after what they are filled with: the Korean layer decides it."""
    frames = ASK_FRAMES if stated else LIST_FRAMES
    for shape in range(len(frames)):
        text = one_ask(ask, stated, shape)
        head = ask if stated else f"{ask} 목록"
        for pair in ("을", "이", "은", "과"):
            wrong = {"을": "를", "이": "가", "은": "는", "과": "와"}
            right = particle(head, pair)
            other = wrong[pair] if right == pair else pair
            assert f"{head}{other} " not in text and not text.startswith(f"{head}{other}."), text
    for shape in range(len(JOINED_FRAMES)):
        text = two_asks("강도옥 국회의원 정보", "판례 목록", shape)
        assert "정보과 " not in text and "목록를" not in text and "정보을" not in text, text


def test_the_sentences_are_many_and_the_openers_fit_the_domain():
    assert len(ASK_FRAMES) >= 15 and len(LIST_FRAMES) >= 6 and len(JOINED_FRAMES) >= 8
    assert len(OPENERS[None]) >= 8 and all(len(OPENERS[d]) >= 3 for d in ("finance", "law", "politics", "education",
                                                                            "traffic", "district"))
    # not the five stock lines of before, each used by one frame in five
    assert len({f.split(">", 1)[-1] for f in ASK_FRAMES}) >= 15


def test_what_is_asked_never_names_another_choice_than_the_call_makes():
    """'연혁 시행일 기준 현행 법령' asks for history and the current at once: of an enum the call sets (nw: 1 연혁,
    2 시행예정, 3 현행), no other choice is said in what is asked, and none where the values are listed."""
    for made in [*_queries("search_laws_by_effective_date", {}), *_queries("search_laws_by_effective_date", {},
                                                                           style="parallel")]:
        chosen = {c["arguments"]["nw"] for c in made["answers"]}
        said = {"1": "연혁", "2": "시행예정", "3": "현행"}
        assert all(made["query"].count(said[v]) == 1 for v in chosen), made["query"]
        assert not any(said[v] in made["query"].split() for v in set(said) - chosen), made["query"]


def test_what_is_asked_reads_as_a_question_names_it():
    assert asked("의안 대안반영 폐기 위원회별") == "의안 대안반영 폐기 위원회별 현황"
    assert asked("경기도 공동주택 폐업") == "경기도 공동주택 폐업 현황"
    assert asked("국회 국정감사 질의 최근") == "최근 국회 국정감사 질의"
    assert asked("판례") == "판례"
    assert instance("정류소명", "경기도 버스정류소") and instance("전철역명", "서울 지하철역")
    assert not instance("학교명", "학교 기본정보")
