"""The Korean readers the scorer relies on (kopa.korean.claims, kopa.korean.numerals), one reading at a time,
on kiwipiepy's own analysis: what a value's sentence claims of it, the words around it, and numbers written
in Korean. The expected readings are a Korean reader's, written out by hand."""

from __future__ import annotations

from decimal import Decimal

import pytest

from kopa.korean.claims import (
    asked_directions,
    asked_measure,
    counted_by,
    direction,
    doubting_sentences,
    is_predicate,
    listed,
    only_unit_words,
    other_measure,
    per_unit,
    polarity,
    reversed_comparison,
    sentence_spans,
)
from kopa.korean.numerals import spelled_numerals, with_digits


def at(text: str, value: str, last: bool = False) -> tuple[int, int]:
    start = text.rindex(value) if last else text.index(value)
    return start, start + len(value)


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("차이는 7,500원이 아닙니다.", "7,500", "negated"),
    ("7,500원 차이가 아닙니다.", "7,500", "negated"),
    ("6.42% 변한 것은 아닙니다.", "6.42", "negated"),
    ("0.06% 높지 않습니다.", "0.06", "negated"),
    ("3건을 찾지 못했습니다.", "3", "negated"),
    ("세 조문 중 그대로 남아 있는 것은 하나도 없습니다.", "남아 있", "negated"),
    ("3개 조문은 삭제되지 않았습니다.", "3", "affirmed"),
    ("삭제되지 않은 조문은 3개이며, 나머지는 없습니다.", "3", "affirmed"),
    ("3건이 맞습니다.", "3", "affirmed"),
    ("총 12곳이고, 그중 폐업한 곳은 없습니다.", "12", "affirmed"),
    ("아마 166명일 것입니다.", "166", "hedged"),
    ("166명일 것입니다.", "166", "hedged"),
    ("166명일 수도 있고 아닐 수도 있습니다.", "166", "hedged"),
    ("145.75% 늘었을 수도 있습니다.", "145.75", "hedged"),
    ("166명으로 추정됩니다.", "166", "hedged"),
    ("166명인 것 같습니다.", "166", "hedged"),
    ("166명인 듯합니다.", "166", "hedged"),
    ("171.64%일 가능성이 높습니다.", "171.64", "hedged"),
    ("82.90%로 보입니다.", "82.90", "hedged"),
    ("28개입니다만 확실하지 않습니다.", "28", "hedged"),
    ("166명일지도 모릅니다.", "166", "hedged"),
    ("평균 시간은 90초이므로 한 문항에 쓸 수 있는 시간은 충분합니다.", "90", "affirmed"),
    ("166명 또는 167명입니다.", "166", "alternative"),
    ("3 아니면 4입니다.", "3", "alternative"),
    ("약 166명입니다.", "166", "affirmed"),
])
def test_polarity(text, value, expected):
    assert polarity(text, *at(text, value)) == expected


def test_polarity_is_per_value_and_per_sentence():
    text = "166명이 아니라 167명입니다."
    assert polarity(text, *at(text, "166")) == "negated"
    assert polarity(text, *at(text, "167")) == "affirmed"
    text = "정답은 3건입니다. 다른 값은 아닙니다."
    assert polarity(text, *at(text, "3")) == "affirmed"
    text = "평균은 24.33개입니다. 정확한 값은 알 수 없지만 참고하세요."
    assert polarity(text, *at(text, "24.33")) == "affirmed"


def test_doubting_sentences_are_whole_sentence_guesses_and_alternatives():
    text = "5건입니다. 다만 이 목록이 전부인지는 확실하지 않습니다."
    assert doubting_sentences(text) == ["다만 이 목록이 전부인지는 확실하지 않습니다."]
    assert doubting_sentences("5건입니다. 목록은 아래와 같습니다.") == []
    assert doubting_sentences("A 또는 B입니다.") == ["A 또는 B입니다."]
    assert len(sentence_spans("첫 문장입니다. 둘째 문장입니다.")) == 2


@pytest.mark.parametrize(("text", "value", "word"), [
    ("2025년 1월", "2025", "년"), ("12월까지", "12", "월"), ("8호선에서", "8", "호선"), ("88,236명이", "88,236", "명"),
    ("3년간", "3", "년간"), ("1인당", "1", "인당"), ("값 42.", "42", None), ("약 44%", "44", "%"),
])
def test_counted_by(text, value, word):
    assert counted_by(text, at(text, value)[1]) == word


def test_per_unit_reads_a_rate_base():
    text = "직원 1인당 평균 66,849,368원"
    assert per_unit(text, at(text, "1")[1]) is True
    assert per_unit(text, at(text, "66,849,368")[1]) is False
    text = "100명당 3곳"
    assert per_unit(text, at(text, "100")[1]) is True and per_unit(text, at(text, "3")[1]) is False


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("1,522원/L", "1,522", True), ("571.1 kcal", "571.1", True), ("약 44%", "44", True), ("1,234건입니다", "1,234", True),
    ("7,500원이 아님", "7,500", False), ("x+1", "1", False), ("아마 3", "3", False), ("3 그리고", "3", False),
])
def test_only_unit_words(text, value, expected):
    assert only_unit_words(text, *at(text, value)) is expected


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("비율은 19.62%입니다.", "19.62", True), ("40문항 더 많습니다.", "40", True), ("평균 1.33번이다", "1.33", True),
    ("하루 평균 5.87시간", "5.87", True), ("4.41배이며, 이는 기준입니다.", "4.41", True),
    ("3개 조문은 삭제되지 않았습니다.", "3", False), ("2에서 3 사이", "3", False), ("3과 4", "3", False),
    ("5곳 중 3곳", "5", False),
])
def test_is_predicate(text, value, expected):
    assert is_predicate(text, at(text, value, last=True)[1]) is expected


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("1, 2, 3입니다", "3", True), ("3건과 4건", "4", True), ("3 또는 4", "4", True), ("2, 3", "3", True),
    ("화신홀딩스 5명, 휴먼로직스 4명으로 모두 9명입니다", "9", False), ("7호선으로, 5시", "5", False), ("3입니다", "3", False),
])
def test_listed(text, value, expected):
    assert listed(text, at(text, value, last=True)[0]) is expected


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("총자산은 4.50% 줄었습니다.", "4.50", ("change", -1)), ("1.04%p 낮습니다.", "1.04", ("compare", -1)),
    ("6.42% 감소했습니다", "6.42", ("change", -1)), ("145.75% 늘었습니다", "145.75", ("change", 1)),
    ("26.67% 높습니다", "26.67", ("compare", 1)), ("3건 많습니다", "3", ("compare", 1)),
    ("2건 적습니다", "2", ("compare", -1)), ("증가율 3%", "3", None), ("3건입니다", "3", None),
    ("3%이며, 늘었습니다", "3", None),
])
def test_direction(text, value, expected):
    assert direction(text, at(text, value)[1]) == expected


def test_asked_directions_leave_the_parentheses_out():
    assert asked_directions("몇 % 늘었나? (줄었으면 음수로)") == {("change", 1)}
    assert asked_directions("몇 %p 높은가? (낮으면 음수로)") == {("compare", 1)}
    assert asked_directions("종가보다 몇 % 낮은가?") == {("compare", -1)}
    assert asked_directions("몇 % 변했나요?") == set()
    assert asked_directions("몇 % 늘었거나 줄었는가?") == {("change", 1), ("change", -1)}


def test_measures():
    assert asked_measure("한 문항에 쓸 수 있는 평균 시간은 몇 초인가요?") == "초"
    assert asked_measure("몇 명인가?") is None and asked_measure("몇 km인가?") == "km"
    assert other_measure("초", "분") is True
    assert other_measure("초", "초") is False
    assert other_measure("초", None) is False
    assert other_measure("초", "명") is False  # not a unit of time
    assert other_measure("km", "m") is True and other_measure("kg", "km") is False


@pytest.mark.parametrize(("query", "answer", "value", "expected"), [
    ("정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?",
     "정보처리산업기사 필기가 40문항 더 많습니다.", "40", True),
    ("정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?",
     "정보처리기사 필기가 40문항 더 많습니다.", "40", False),
    ("정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?",
     "정보처리기사 필기가 정보처리산업기사 필기보다 40문항 더 많습니다.", "40", False),
    ("더불어민주당 의원의 찬성률은 국민의힘 의원의 찬성률보다 몇 %p 높은가요?",
     "국민의힘 의원의 찬성률이 더불어민주당 의원보다 26.41%p 높습니다.", "26.41", True),
    ("수학 교과 평균은 2024년 학교알리미 공시보다 2025년 공시에서 몇 점 달라졌나요?",
     "평균은 2025년 공시가 2024년 공시보다 11.1점 높아졌습니다.", "11.1", False),
    ("몇 건인가?", "3건입니다.", "3", False),
])
def test_reversed_comparison(query, answer, value, expected):
    assert reversed_comparison(query, answer, at(answer, value)[0]) is expected


@pytest.mark.parametrize(("text", "digits"), [
    ("1억 2천만 원", "120000000 원"), ("6,684만 9,368원", "66849368원"), ("7억 1,480만원이다", "714800000원이다"),
    ("3만 명", "30000 명"), ("2,811.42억원", "281142000000원"), ("백만 원", "1000000 원"), ("천 원", "1000 원"),
    ("2천5백만 원", "25000000 원"), ("7천5백 원", "7500 원"), ("3천 5백 원", "3500 원"), ("1.5천", "1500"),
    ("백육십육 명", "166 명"), ("삼십 명", "30 명"), ("여섯 곳", "6 곳"), ("한 번", "1 번"), ("스무 명", "20 명"),
    ("서른세 명", "33 명"), ("열한 건", "11 건"), ("열 건", "10 건"), ("두 차례 개정", "2 차례 개정"),
    ("아홉 명입니다", "9 명입니다"),
    # no number: a native word before a noun that counts nothing, an ordinal, a range, an estimate
    ("세 법률의 평균", "세 법률의 평균"), ("세 번째", "세 번째"), ("두세 건", "두세 건"), ("수천 건", "수천 건"),
    ("10만큼", "10만큼"), ("총 12곳", "총 12곳"), ("제22대 국회", "제22대 국회"),
])
def test_with_digits(text, digits):
    assert with_digits(text) == digits


def test_spelled_numerals_give_spans_and_exact_values():
    found = spelled_numerals("차이는 7천5백 원이고 아홉 명입니다")
    assert [(n.value, n.start, n.end) for n in found] == [(Decimal(7500), 4, 8), (Decimal(9), 13, 15)]
    assert spelled_numerals("12.5%와 3건") == []  # digits alone are left to a digit reader


@pytest.mark.parametrize(("text", "value", "expected"), [
    # sentence and clause boundaries decide what a denial or a guess reaches
    ("정답: 3건. 아마 다른 값", "3", "affirmed"),  # a full stop without an ending
    ("정답은 3건입니다. 아마 다른 답도 있을 것입니다.", "3", "affirmed"),
    ("정확한 값은 알 수 없지만 약 166명입니다.", "166", "hedged"),
    ("차이는 7,500원입니다 다른 차이는 아닙니다", "7,500", "affirmed"),  # the ending closes the clause
    ("3건, 나머지는 아닙니다.", "3", "affirmed"),  # a comma closes it
    ("3건 중 2건이 아닙니다.", "3", "affirmed"),  # the next value has its own predicate
    ("3건 중 2건이 아닙니다.", "2", "negated"),
    ("3건 모두 없습니다.", "3", "affirmed"),  # 없다 denies only a clause made a noun
])
def test_polarity_boundaries(text, value, expected):
    assert polarity(text, *at(text, value)) == expected


def test_boundaries_of_the_other_readings():
    assert only_unit_words("3아님", 0, 1) is False  # the denial glued to the value is read
    assert only_unit_words("음 3건", *at("음 3건", "3")) is False  # an interjection
    assert is_predicate("3 하나입니다", 1) is False  # another numeral after it
    assert is_predicate("평균 571.1 kcal", at("평균 571.1 kcal", "571.1")[1]) is True
    assert is_predicate("하루 평균 5.87 시간", at("하루 평균 5.87 시간", "5.87")[1]) is True
    assert direction("4.5감소", 3) == ("change", -1)  # a direction noun glued to the value
    assert direction("3%입니다 그리고 늘었습니다", 1) is None  # the ending closes the clause
    assert direction("3% 4% 늘었습니다", 1) is None  # the next value's word is its own


@pytest.mark.parametrize(("query", "answer", "value", "expected"), [
    ("철수보다 영희는 몇 개 더 많나?", "철수가 3개 더 많다.", "3", True),  # the subject after 보다
    ("정보처리기사 필기가 정보처리산업기사 필기보다 몇 개 더 많나?", "정보처리산업기사 필기가 40개 더 많다.", "40", True),
    ("정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?",
     "정보처리기사 필기보다 40문항 적습니다.", "40", True),  # no subject: what it is compared with decides
])
def test_reversed_comparison_subjects(query, answer, value, expected):
    assert reversed_comparison(query, answer, at(answer, value)[0]) is expected


def test_more_edges_of_the_readings():
    assert listed("3건과4건", at("3건과4건", "4")[0]) is True  # a joining particle glued to the next value
    assert is_predicate("정답은 '3'", at("정답은 '3'", "3")[1]) is True  # a closing quote ends it
    assert direction("3%. 늘었습니다", 1) is None  # a full stop ends the clause
    assert asked_directions("몇 % 감소했나?") == {("change", -1)}  # a direction noun in the question
    assert with_digits("스물열 명") == "스물열 명"  # no native number has ten units


@pytest.mark.parametrize(("query", "answer", "value", "expected"), [
    ("철수보다 영희가 몇 개 더 많나?", "철수가 3개 더 많다.", "3", True),  # 이/가 after 보다
    ("철수보다 몇 개 더 많나?", "철수가 3개 더 많다.", "3", False),  # a question with no subject: nothing to turn
    ("정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?",
     "정보처리산업기사 필기는 40문항 더 많습니다.", "40", True),  # the answer's subject with 은/는
])
def test_reversed_comparison_particles(query, answer, value, expected):
    assert reversed_comparison(query, answer, at(answer, value)[0]) is expected


def test_the_last_edges():
    assert listed("세 건과 4건", at("세 건과 4건", "4")[0]) is True  # the list's counter without its number
    assert with_digits("모두 서른세 명") == "모두 33 명"  # a two-word native number after other words
    assert polarity("3 아니면 4", 0, 1) == "alternative"


@pytest.mark.parametrize(("text", "value", "expected"), [
    ("정답 3건; 아마 다른 값", "3", "affirmed"),  # a semicolon ends the sentence
    ("166명으로 보입니다.", "166", "hedged"),
    ("알 수 없지만 3건입니다.", "3", "hedged"),
    ("3: 아닙니다", "3", "negated"),  # only a comma closes the clause, not any punctuation
    ("3개이며 나머지는 아닙니다", "3", "affirmed"),  # a connective ending closes it
])
def test_polarity_last_edges(text, value, expected):
    assert polarity(text, *at(text, value)) == expected


def test_rewritten_numbers_know_where_they_stand():
    from kopa.korean.numerals import digits_and_spans

    text, numerals = digits_and_spans("아홉 명과 열 명")
    assert text == "9 명과 10 명"
    assert [(n.start, n.end, text[n.start:n.end]) for n in numerals] == [(0, 1, "9"), (5, 7, "10")]


def test_final_edges():
    assert per_unit("3년간", 1) is False  # another suffix is no rate base
    assert listed("3: 4", at("3: 4", "4")[0]) is False  # a colon introduces, it does not list
    assert polarity("아마도 아닌 3건일 것", *at("아마도 아닌 3건일 것", "3")) == "hedged"
    assert polarity("3건일 것", 0, 1) == "affirmed"  # …일 것 without 이다 at the sentence's end: no index past it
    assert with_digits("7억  1,480만") == "700000000  14800000"  # two spaces apart: two numbers


def test_sure_is_no_doubt():
    assert polarity("확실히 3건입니다.", *at("확실히 3건입니다.", "3")) == "affirmed"  # 확실 without a denial after it
    assert is_predicate("3건 서울입니다", 1) is False  # a name after the value: the sentence is about it
