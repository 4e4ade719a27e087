"""The query writer's vocabulary: how a person states a kind, names what a code identifies, writes a number."""

from __future__ import annotations

from decimal import Decimal

from kopa.catalog import load_catalog
from kopa.korean.numbers import number_phrase
from kopa.korean.vocabulary import documented_name, entity_noun, enum_meaning, spoken, subject, value_phrase
from kopa.synth.junction import cond_threshold as _pivot
from kopa.synth.junction import field_label, is_statistics

CATALOG = load_catalog()


def _param(tool: str, name: str):
    return next(p for p in CATALOG[tool].spec.params if p.name == name)


def test_a_kind_is_stated_by_its_meaning_and_one_that_says_nothing_alone_with_its_label():
    lot = _param("get_seoul_rent_contracts", "LOTNO_SE")
    assert enum_meaning(lot, "2") == "산"
    assert value_phrase(lot, "2") == "지번구분이 '산'인"  # not "산 서울 전월세 계약"
    use = _param("get_seoul_rent_contracts", "BLDG_USG")
    assert value_phrase(use, "오피스텔") == "오피스텔"  # a Korean value is its own meaning
    corp = _param("search_dart_disclosures", "corp_cls")
    assert value_phrase(corp, "K") == "법인구분이 '코스닥'인"
    assert value_phrase(corp, "E") is None  # '기타' is no one's question


def test_a_meaning_written_before_its_code_and_the_assemblys_term():
    report = _param("get_dart_employee_status", "reprt_code")  # '1분기보고서 11013, 반기보고서 11012, …'
    assert [value_phrase(report, v) for v in ("11011", "11012", "11013", "11014")] == \
        ["사업보고서", "반기보고서", "1분기보고서", "3분기보고서"]
    assert value_phrase(_param("list_bill_vote_results", "AGE"), "22") == "제22대 국회"


def test_a_code_is_named_only_where_its_own_docs_name_it():
    office = _param("get_neis_school_meal_menu", "ATPT_OFCDC_SC_CODE")  # '예: B10 서울특별시교육청, J10 …'
    assert [documented_name(office, v) for v in ("B10", "J10", "S10")] == ["서울특별시교육청", "경기도교육청", None]
    assert documented_name(_param("list_gg_bus_stations", "SIGUN_CD"), "41110") == "수원시"
    assert documented_name(_param("list_gg_bus_stations", "SIGUN_CD"), "41820") is None  # not an example
    # '기본값 100, 최대 1000' gives a number no name; a value the docs do not show has none
    assert documented_name(_param("get_neis_school_meal_menu", "pSize"), "100") is None
    assert documented_name(_param("get_dart_employee_status", "corp_code"), "00126380") is None


def test_what_an_identifier_names():
    assert entity_noun("휴게소 표준코드") == "휴게소" and entity_noun("시군 행정표준코드") == "시군"
    assert entity_noun("행정표준코드") is None  # a school's code: no noun of its own
    assert entity_noun("법인등록번호") == "법인"
    assert entity_noun("시군구코드") == "시군구"
    assert entity_noun("고유번호") is None and entity_noun("교통량") is None
    # the qualifiers of a code are not what it names
    assert [entity_noun(x) for x in ("시군 행정코드", "행정표준 학교코드", "표준학교코드", "의안 식별번호",
                                     "공시대상회사의 고유번호", "대표발의자 국회의원코드", "주차장관리번호")] == [
        "시군", "학교", "학교", "의안", "회사", "국회의원", "주차장"]
    # numbers that name no thing a person asks about: a phone, a postcode, a kind, a result's numbering
    assert [entity_noun(x) for x in ("전화번호", "소재지우편번호", "상하행구분코드", "결과 번호", "단축코드")] == [
        None] * 5


def test_the_most_frequent_value_is_not_asked_of_a_table_of_figures():
    assert is_statistics(CATALOG["get_seoul_bike_parking_lots_yearly_statistics"])
    assert not is_statistics(CATALOG["list_gg_public_toilets"])


def test_numbers_are_written_as_a_korean_reader_writes_them():
    assert [number_phrase(t) for t in ("51", "6000", "85000", "470000000", "2340000000000", "150.1")] == [
        "51", "6,000", "85,000", "4억 7,000만", "2조 3,400억", "150.1"]


def test_a_field_is_asked_as_a_person_names_it():
    """A column heading's kind is said as a word ('제개정구분명' → '제개정 구분'), a Y/N flag by what Y means, and
    what no rule reads by the catalog's `say` (소관위회부일)."""
    assert [spoken(x) for x in ("제개정구분명", "중직무분야명", "직책명", "정원합계", "프리미엄여부", "행정규칙종류")] == [
        "제개정 구분", "중직무 분야", "직책", "정원 합계", "프리미엄", "행정규칙 종류"]
    assert spoken("의안명") == "의안명" and spoken("시군코드") == "시군코드"  # a name and a code stay as they are
    catalog = load_catalog()
    assert field_label(catalog["search_assembly_bills"], "COMMITTEE_DT") == "소관 위원회 회부일"
    assert field_label(catalog["list_ex_rest_bestfood"], "premiumyn") == "프리미엄 메뉴"
    assert field_label(catalog["list_ex_rest_bestfood"], "salePrice") == "판매가격"


def test_a_count_threshold_is_a_whole_number():
    assert _pivot(Decimal(7), holds=False, whole=True) == Decimal(8)
    assert _pivot(Decimal(7), holds=True, whole=True) == Decimal(7)
    assert _pivot(Decimal("7"), holds=False) == Decimal("7.1")  # a measure keeps two significant digits


def test_a_subject_drops_the_service_words_a_person_does_not_say_but_keeps_a_noun_they_end():
    """'교육부_학교 기본정보 목록 조회' is 학교 기본정보 (not '학교 기본', which names nothing); a title's 조회/목록
    go."""
    assert subject(CATALOG["list_moe_school_profiles_list"]) == "학교 기본정보"
    assert subject(CATALOG["get_moe_school_profiles_status"]) == "학교 기본정보"
    assert subject(CATALOG["list_assembly_overseas_trips_list"]) == "국회의원 해외출장"
