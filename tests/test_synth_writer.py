"""The query writers: Korean particles, the offline templates, and the model writer through the replayable
LLM cache (a fake model stands in for an OpenAI-compatible server)."""

from __future__ import annotations

import numpy as np
import pytest

from kopa.korean.numbers import number_phrase
from kopa.llm.cache import CachedChatModel, CacheMiss
from kopa.llm.client import ChatReply
from kopa.synth.candidate import AnswerInfo, BlockInfo, JunctionInfo, Literal_, QueryInput
from kopa.synth.query import ChatWriter, TemplateWriter, _condition, josa


def _spec(**extra) -> QueryInput:
    junction = JunctionInfo(kind="DRV", source="s1", target="s2", source_tool="a", target_tool="b", field="code",
                            param="code", field_label="종목코드", cardinality=40, records=40, total=40,
                            process="ge", pivot_field="vol", pivot_label="거래량", pivot="1000",
                            passed=["A000111", "A000222"])
    fields = {"pattern": "DRV", "junctions": [junction], "subjects": {"s1": "코스닥 일별매매", "s2": "기업개황"},
              "literals": [Literal_(step="s1", param="basDt", label="기준일자", value="20260130",
                                    phrase="2026년 1월 30일")],
              "answer": AnswerInfo(kind="sum", step="s2", field="amt", label="매출액", precision=2, number=True)}
    return QueryInput(**{**fields, **extra})


def test_particles_follow_the_final_consonant():
    assert josa("주식시세", "을/를") == "주식시세를" and josa("기업개황", "을/를") == "기업개황을"
    assert josa("종목코드", "으로/로") == "종목코드로" and josa("법인등록번호", "으로/로") == "법인등록번호로"
    assert josa("시군", "으로/로") == "시군으로" and josa("서울", "으로/로") == "서울로"  # ㄹ takes 로
    assert josa("거래량", "이/가") == "거래량이" and josa("2", "이/가") == "2가"


def test_the_template_states_the_condition_and_precision_but_no_handed_value():
    text = TemplateWriter().write(_spec(), np.random.default_rng(0))
    assert text == ("2026년 1월 30일 코스닥 일별매매 중 거래량이 1,000 이상인 것들의 종목 각각의 기업개황의 매출액 "
                    "합계는 얼마인가? (소수점 둘째 자리까지)")
    assert "A000111" not in text and "20260130" not in text and "종목코드" not in text


def test_a_threshold_that_reads_like_a_day_is_stated_as_an_amount():
    """An amount of 20000000 (or 19500000) looks like YYYYMMDD: it is stated as the amount it is, and only an
    "after" condition reads its pivot as a day (before, every condition read it as one and 20000000 raised)."""
    assert _condition("자본금", "ge", "20000000") == f"자본금이 {number_phrase('20000000')} 이상인"
    assert _condition("매출액", "le", "19500000") == f"매출액이 {number_phrase('19500000')} 이하인"
    assert _condition("회부일", "after", "20260202") == "회부일이 2026년 2월 3일 이후인"


def test_a_name_looked_up_once_is_the_entity_the_question_is_about():
    lookup = JunctionInfo(kind="SEQ", source="s1", target="s2", source_tool="find_dart_corp_code",
                          target_tool="get_dart_company_overview", field="corp_code", param="corp_code",
                          field_label="고유번호", cardinality=1, records=1, total=1, passed=["00126380"])
    spec = _spec(junctions=[lookup], subjects={"s1": "회사", "s2": "기업개황"},
                 literals=[Literal_(step="s1", param="corp_name", label="회사명", value="삼성전자", phrase="삼성전자",
                                    contains=False)],
                 answer=AnswerInfo(kind="field", step="s2", field="ceo_nm", label="대표자명"))
    # a fact of the one record the service holds about the named entity is the entity's own
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == "삼성전자의 대표자명은 누구인가?"
    # a list about one place, every record carrying its one code: the place's code looked up, the place named
    district = lookup.model_copy(update={"source_tool": "list_gg_pharmacies", "target_tool": "list_gg_parking_lots",
                                         "field": "SIGUN_CD", "field_label": "시군코드", "records": 57})
    spec = _spec(junctions=[district], subjects={"s1": "경기도 약국", "s2": "경기도 주차장"},
                 literals=[Literal_(step="s1", param="SIGUN_NM", label="시군명", value="양주시", phrase="양주시")],
                 answer=AnswerInfo(kind="count", step="s2", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == "양주시의 경기도 주차장은 모두 몇 건인가?"


def test_a_fan_out_over_part_of_a_name_reads_as_each_of_them():
    fan = JunctionInfo(kind="FAN", source="s1", target="s2", source_tool="a", target_tool="b", field="cd",
                       param="cd", field_label="시군구코드", cardinality=3, records=6, total=6, passed=["1", "2", "3"])
    spec = _spec(junctions=[fan], subjects={"s1": "경기도 도시공원 신규 등록", "s2": "경기도 지역아동센터"},
                 literals=[Literal_(step="s1", param="FACLT_NM", label="시설명", value="새솔", phrase="새솔",
                                    contains=True)],
                 answer=AnswerInfo(kind="count", step="s2", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == (
        "이름에 '새솔'이 들어간 경기도 도시공원 신규 등록에 나오는 시군구 각각의 경기도 지역아동센터는 모두 몇 건인가?")


def test_a_chain_is_one_phrase_and_a_handed_noun_its_subject_holds_is_not_said_twice():
    pick = JunctionInfo(kind="DRV", source="s1", target="s2", source_tool="a", target_tool="b", field="unitCode",
                        param="unitCode", field_label="영업소코드", cardinality=300, records=300, total=300,
                        process="max", pivot_field="trafficAmount", pivot_label="교통량", passed=["101"])
    route = JunctionInfo(kind="SEQ", source="s2", target="s3", source_tool="b", target_tool="c", field="routeNo",
                         param="routeCd", field_label="노선번호", cardinality=1, records=1, total=1, passed=["0010"])
    spec = _spec(junctions=[pick, route], pattern="DRV+SEQ", literals=[],
                 subjects={"s1": "IC별 교통량", "s2": "고속도로 영업소", "s3": "휴게소 주유소"},
                 answer=AnswerInfo(kind="count", step="s3", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == (
        "교통량이 가장 많은 IC별 교통량의 고속도로 영업소의 휴게소 주유소는 모두 몇 건인가?")


def test_a_selection_reads_as_a_person_states_it():
    """The most frequent value is "X가 가장 많은 Y" (a bare code: "곳"); a day strictly after is said from the
    next day on; a large threshold in 만/억/조."""
    mode = JunctionInfo(kind="DRV", source="s1", target="s2", source_tool="a", target_tool="b", field="corp_code",
                        param="corp_code", field_label="고유번호", cardinality=90, records=900, total=900,
                        process="mode", pivot_field="corp_code", pivot_label="고유번호", passed=["00126380"])
    spec = _spec(junctions=[mode], subjects={"s1": "공시", "s2": "기업개황"}, literals=[],
                 answer=AnswerInfo(kind="field", step="s2", field="ceo_nm", label="대표자명"))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == "공시가 가장 많은 곳의 기업개황에서 대표자명은 누구인가?"
    county = mode.model_copy(update={"field": "SIGUN_CD", "field_label": "시군코드", "pivot_field": "SIGUN_CD"})
    spec = spec.model_copy(update={"junctions": [county], "subjects": {"s1": "경기도 낚시터", "s2": "경기도 맛집"}})
    assert TemplateWriter().write(spec, np.random.default_rng(0)).startswith("경기도 낚시터가 가장 많은 시군의 경기도 맛집")
    after = mode.model_copy(update={"process": "after", "pivot_field": "PROPOSE_DT", "pivot_label": "제안일",
                                    "pivot": "2026-01-31", "passed": ["1", "2"], "field_label": "의안번호"})
    spec = spec.model_copy(update={"junctions": [after], "subjects": {"s1": "의안", "s2": "의안 상세"}})
    assert TemplateWriter().write(spec, np.random.default_rng(0)).startswith(
        "제안일이 2026년 2월 1일 이후인 의안들의 의안 상세")
    big = after.model_copy(update={"process": "ge", "pivot_field": "mktcap", "pivot_label": "시가총액",
                                   "pivot": "2340000000000"})
    spec = spec.model_copy(update={"junctions": [big]})
    assert "시가총액이 2조 3,400억 이상인 의안들" in TemplateWriter().write(spec, np.random.default_rng(0))
    # a Y/N flag is said by what Y means; an amount counted is "가장 많은", a measure "가장 큰"
    flag = after.model_copy(update={"process": "eq", "pivot_label": "프리미엄 메뉴", "pivot": "Y",
                                    "field_label": "휴게소 코드"})
    spec = spec.model_copy(update={"junctions": [flag], "subjects": {"s1": "휴게소 대표 음식", "s2": "휴게소 편의시설"}})
    assert TemplateWriter().write(spec, np.random.default_rng(0)).startswith("프리미엄 메뉴인 휴게소 대표 음식들의")
    spec = spec.model_copy(update={"junctions": [flag.model_copy(update={"pivot": "N"})]})
    assert TemplateWriter().write(spec, np.random.default_rng(0)).startswith("프리미엄 메뉴가 아닌 휴게소 대표 음식들의")
    most = after.model_copy(update={"process": "max", "pivot_label": "이용건수"})
    spec = spec.model_copy(update={"junctions": [most]})
    assert TemplateWriter().write(spec, np.random.default_rng(0)).startswith("이용건수가 가장 많은 휴게소 대표 음식의")


def test_a_selection_after_a_stated_condition_follows_it_and_deep_in_a_chain_reads_among():
    """A start that states a condition already takes the selection after it ("… 의안 중 …인 것들의"); a
    selection on a later step reads "가운데", never "…을 찾고, 그 …"."""
    first = JunctionInfo(kind="DRV", source="s1", target="s2", source_tool="a", target_tool="b", field="routeCd",
                         param="routeCode", field_label="노선코드", cardinality=3, records=30, total=30, process="eq",
                         pivot_field="startPoint", pivot_label="기점", pivot="목포", passed=["1", "2"])
    second = JunctionInfo(kind="DRV", source="s2", target="s3", source_tool="b", target_tool="c",
                          field="serviceAreaCode2", param="stdRestCd", field_label="휴게소 코드", cardinality=4,
                          records=40, total=40, process="le", pivot_field="salePrice", pivot_label="판매가격",
                          pivot="5500", passed=["A1", "A2"])
    spec = _spec(junctions=[first, second], pattern="DRV+DRV", literals=[],
                 subjects={"s1": "고속도로 노선", "s2": "휴게소 대표 음식", "s3": "휴게소 편의시설"},
                 answer=AnswerInfo(kind="count", step="s3", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == (
        "기점이 '목포'인 고속도로 노선들의 휴게소 대표 음식 가운데 판매가격이 5,500 이하인 것들의 휴게소 편의시설은 "
        "모두 몇 건인가?")
    named = spec.model_copy(update={"literals": [Literal_(step="s1", param="routeName", label="노선명", value="서해안선",
                                                          phrase="서해안선")]})
    assert TemplateWriter().write(named, np.random.default_rng(0)).startswith(
        "서해안선 고속도로 노선 중 기점이 '목포'인 것들의 휴게소 대표 음식 가운데")


def test_a_named_thing_is_said_as_a_person_says_it():
    def start(label: str, value: str, subject: str) -> str:
        spec = _spec(junctions=[], pattern="SEQ", subjects={"s1": subject},
                     literals=[Literal_(step="s1", param="p", label=label, value=value, phrase=value)],
                     answer=AnswerInfo(kind="count", step="s1", number=True))
        return TemplateWriter().write(spec, np.random.default_rng(0))

    assert start("종목명", "SK하이닉스", "주가") == "SK하이닉스 종목의 주가는 모두 몇 건인가?"
    assert start("영업소명", "경주", "고속도로 영업소") == "경주 고속도로 영업소는 모두 몇 건인가?"
    assert start("제안자", "홍길동의원 등 10인", "의안") == "홍길동의원 등 10인이 제안한 의안은 모두 몇 건인가?"
    assert start("검색할 회사명", "삼성전자", "공시") == "삼성전자의 공시는 모두 몇 건인가?"
    assert start("정당명", "더불어민주당", "국회의원") == "더불어민주당의 국회의원은 모두 몇 건인가?"  # says its kind
    assert start("행정규칙 종류", "훈령", "행정규칙") == "행정규칙 종류가 '훈령'인 행정규칙은 모두 몇 건인가?"


def test_a_real_time_chain_states_its_date():
    assert TemplateWriter().write(_spec(as_of="2026-01-30"), np.random.default_rng(0)).startswith(
        "2026년 1월 30일 기준으로")


def test_blocks_are_worded_by_type():
    block = BlockInfo(kind="COND", source="s1", steps=["s2"], tools=["x", "y"], subjects=["가 현황", "나 현황"],
                      fields=["코드", "코드"], quantity="인구", quantity_field="pop", op=">=", threshold="5000",
                      taken=0)
    spec = _spec(block=block, junctions=[]).model_copy(update={"answer": AnswerInfo(kind="count", step="s2",
                                                                                    number=True)})
    text = TemplateWriter().write(spec, np.random.default_rng(0))
    # one conditional question naming both branches, neither marked as the one the condition chose
    assert text.endswith("인구가 5,000 이상이면 가 현황은, 아니면 나 현황은 모두 몇 건인가?")
    listed = spec.model_copy(update={"answer": AnswerInfo(kind="list", step="s2", field="nm", label="시설명")})
    assert TemplateWriter().write(listed, np.random.default_rng(0)).endswith(
        "인구가 5,000 이상이면 가 현황에서, 아니면 나 현황에서 시설명을 모두 나열하라.")


def test_a_comparison_of_two_named_places_names_them_and_not_the_lookup():
    # each district looked up for its code, then one service asked about each: the user names the districts
    block = BlockInfo(kind="CMP", source=None, records=12, steps=["s2a", "s2b"], tools=["x", "x"],
                      subjects=["경기도 맛집"] * 2, fields=["시군코드"] * 2, values=["고양시", "군포시"],
                      quantity="건수", lookup="경기도 약국")
    literals = [Literal_(step=step, param="SIGUN_NM", label="시군명", value=v, phrase=v)
                for step, v in (("s1a", "고양시"), ("s1b", "군포시"))]
    spec = _spec(block=block, junctions=[], pattern="CMP", literals=literals,
                 subjects={"s1a": "경기도 약국", "s1b": "경기도 약국", "s2a": "경기도 맛집", "s2b": "경기도 맛집"},
                 answer=AnswerInfo(kind="difference", step="s3", label="건수", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == "고양시와 군포시의 경기도 맛집은 몇 건 차이 나는가?"


def _sem(start: str, services: list[str], named: Literal_, code: tuple[str, str], records: int,
         answer: AnswerInfo) -> QueryInput:
    """A SEM block on the start's one entity (`named`, handing on `code`: its field label and value)."""
    block = BlockInfo(kind="SEM", source="s1", records=records, steps=["s2a", "s2b"], tools=["x", "y"],
                      subjects=services, fields=[code[0]] * 2, values=[code[1]] * 2)
    return _spec(block=block, junctions=[], pattern="SEM", literals=[named], answer=answer,
                 subjects={"s1": start, "s2a": services[0], "s2b": services[1]})


def test_two_facts_about_one_entity_may_be_how_many_each_service_lists():
    spec = _sem("경기도 공중화장실", ["경기도 버스정류소", "경기도 공공도서관"],
                Literal_(step="s1", param="SIGUN_NM", label="시군명", value="오산시", phrase="오산시"),
                ("시군코드", "41370"), 40, AnswerInfo(kind="facts", step="s2", label="건수", by_label="건수"))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == (
        "오산시의 경기도 버스정류소 건수와 경기도 공공도서관 건수는 각각 몇 건인가?")
    # a facility's name hands on its district's code: said as the facility, not as if it were the district
    facility = spec.model_copy(update={"literals": [Literal_(step="s1", param="FCLTY_NM", label="시설명", value="솔빛",
                                                             phrase="솔빛")]})
    assert TemplateWriter().write(facility, np.random.default_rng(0)) == (
        "솔빛의 경기도 공중화장실의 경기도 버스정류소 건수와 경기도 공공도서관 건수는 각각 몇 건인가?")


def test_a_fact_of_the_entitys_own_record_is_the_entitys():
    # a member looked up by name; one service gives the member's record, another the member's committee
    spec = _sem("국회의원", ["국회의원", "위원회 위원"],
                Literal_(step="s1", param="HG_NM", label="이름", value="강광순", phrase="강광순"),
                ("국회의원코드", "M1"), 1, AnswerInfo(kind="facts", step="s2", field="POLY_NM", label="정당명",
                                                  by="CMIT_NM", by_label="위원회명"))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == "강광순의 정당명과 위원회명은 각각 무엇인가?"
    # one label for both: which service each comes from is what tells them apart
    same = spec.model_copy(update={"answer": spec.answer.model_copy(update={"by_label": "정당명"})})
    assert TemplateWriter().write(same, np.random.default_rng(0)) == (
        "강광순의 국회의원에서 정당명과 위원회 위원에서 정당명은 각각 무엇인가?")


class _Fake:
    model = "fake-writer"

    def __init__(self, content: str | None) -> None:
        self.content = content
        self.calls = 0

    def request_params(self, params):
        return dict(params)

    def complete(self, messages, tools=None, **params):
        self.calls += 1
        assert "구조" in messages[0]["content"] and "A000111" not in messages[1]["content"]
        return ChatReply(content=self.content)


def test_the_model_writer_replays_from_its_cache(tmp_path):
    fake = _Fake("거래량 1000 이상 종목들의 매출액 합계는? (소수점 둘째 자리까지)")
    writer = ChatWriter(CachedChatModel(fake, tmp_path))
    first = writer.write(_spec(), np.random.default_rng(0))
    assert first == fake.content and fake.calls == 1
    replay = ChatWriter(CachedChatModel(_Fake(None), tmp_path, mode="replay"))
    assert replay.write(_spec(), np.random.default_rng(0)) == first
    with pytest.raises(CacheMiss):
        ChatWriter(CachedChatModel(_Fake(None), tmp_path / "empty", mode="replay")).write(_spec(),
                                                                                        np.random.default_rng(0))


def test_an_empty_model_reply_falls_back_to_the_template(tmp_path):
    writer = ChatWriter(CachedChatModel(_Fake(""), tmp_path))
    assert writer.write(_spec(), np.random.default_rng(0)) == TemplateWriter().write(_spec(), np.random.default_rng(0))


def test_a_total_column_summed_and_a_one_day_period_read_as_said():
    total = _spec(answer=AnswerInfo(kind="sum", step="s2", field="TOFOR_SMTOT", label="정원 합계", number=True))
    assert TemplateWriter().write(total, np.random.default_rng(0)).endswith("기업개황의 정원 총합은 얼마인가?")
    day = [Literal_(step="s1", param=p, label=f"훈련시작일 {end}", value="20260130", phrase="2026년 1월 30일")
           for p, end in (("srchTraStDt", "From"), ("srchTraEndDt", "To"))]
    assert TemplateWriter().write(_spec(literals=day), np.random.default_rng(0)).startswith(
        "훈련시작일이 2026년 1월 30일인 코스닥 일별매매 중")


def test_the_same_entity_handed_on_again_is_not_a_new_hop():
    """A bill's detail, then its receipt, then its proposers: the same bills seen by other services read as
    "…인 것들의 의안 제안자", not "…의 의안 상세 각각의 접수 의안 각각의 의안 제안자"."""
    def hop(kind: str, source: str, target: str, label: str, **kw) -> JunctionInfo:
        return JunctionInfo(kind=kind, source=source, target=target, source_tool="a", target_tool="b", field="f",
                            param="p", field_label=label, cardinality=3, records=30, total=30, passed=["1"], **kw)

    spec = _spec(junctions=[hop("DRV", "s1", "s2", "의안ID", process="after", pivot_field="PROPOSE_DT",
                                pivot_label="제안일", pivot="2026-01-28"),
                            hop("FAN", "s2", "s3", "의안번호"), hop("FAN", "s3", "s4", "의안ID")],
                 pattern="DRV+FAN+FAN", literals=[],
                 subjects={"s1": "의안", "s2": "의안 상세", "s3": "접수 의안", "s4": "의안 제안자"},
                 answer=AnswerInfo(kind="count", step="s4", number=True))
    assert TemplateWriter().write(spec, np.random.default_rng(0)) == (
        "제안일이 2026년 1월 29일 이후인 의안들의 의안 제안자는 모두 몇 건인가?")
