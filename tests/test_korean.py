"""kopa.korean: particles as Korean spelling attaches them, decided by the analyzer (kiwipiepy), and the
numbers and dates the query writers and the scorer share."""

from __future__ import annotations

import pytest

from kopa.korean.dates import date_phrase
from kopa.korean.numbers import number_phrase, spoken_ending
from kopa.korean.particles import josa, particle
from kopa.korean.text import foreign_script


@pytest.mark.parametrize(("word", "subject", "topic", "towards", "and_"), [
    ("고양시", "고양시가", "고양시는", "고양시로", "고양시와"),
    ("서울", "서울이", "서울은", "서울로", "서울과"),  # ㄹ: 로, not 으로
    ("법", "법이", "법은", "법으로", "법과"),
    ("SK에너지", "SK에너지가", "SK에너지는", "SK에너지로", "SK에너지와"),
    ("KB", "KB가", "KB는", "KB로", "KB와"),  # letters as they are read: 케이비
    ("대양1WR", "대양1WR이", "대양1WR은", "대양1WR로", "대양1WR과"),  # …더블유알: ㄹ
    ("NAVER", "NAVER가", "NAVER는", "NAVER로", "NAVER와"),  # a word, not an acronym: 네이버
    ("노포(부산)주유소", "노포(부산)주유소가", "노포(부산)주유소는", "노포(부산)주유소로", "노포(부산)주유소와"),
    ("'부결'", "'부결'이", "'부결'은", "'부결'로", "'부결'과"),  # the quote is not read
    # after a parenthesis the particle agrees with the word before it, not with what the parenthesis says
    ("노포휴게소(부산 방향)", "노포휴게소(부산 방향)가", "노포휴게소(부산 방향)는", "노포휴게소(부산 방향)로",
     "노포휴게소(부산 방향)와"),
    ("'보안 엔지니어'(11월 3일 개강)", "'보안 엔지니어'(11월 3일 개강)가", "'보안 엔지니어'(11월 3일 개강)는",
     "'보안 엔지니어'(11월 3일 개강)로", "'보안 엔지니어'(11월 3일 개강)와"),
    ("주당순이익(EPS)", "주당순이익(EPS)이", "주당순이익(EPS)은", "주당순이익(EPS)으로", "주당순이익(EPS)과"),
])
def test_particles_agree_with_how_the_word_is_read(word, subject, topic, towards, and_):
    assert [josa(word, p) for p in ("이/가", "은/는", "으로/로", "과/와")] == [subject, topic, towards, and_]


@pytest.mark.parametrize(("number", "subject", "towards"), [
    ("3", "3이", "3으로"),  # 삼
    ("2", "2가", "2로"),  # 이
    ("1", "1이", "1로"),  # 일: ㄹ
    ("20", "20이", "20으로"),  # 이십
    ("1,500", "1,500이", "1,500으로"),  # 천오백
    ("120000", "120000이", "120000으로"),  # 십이만
    ("3.5", "3.5가", "3.5로"),  # 삼점오
    ("12,500원", "12,500원이", "12,500원으로"),
    ("4억 7,000만", "4억 7,000만이", "4억 7,000만으로"),
])
def test_a_number_takes_the_particle_of_how_it_is_read(number, subject, towards):
    assert josa(number, "이/가") == subject and josa(number, "으로/로") == towards


def test_the_end_of_a_number_as_read_aloud():
    assert [spoken_ending(x) for x in ("3", "10", "100", "1000", "10000", "200000", "300000000", "0", "7.25")] == [
        "삼", "십", "백", "천", "만", "만", "억", "영", "오"]
    assert spoken_ending("제22대") == "제22대"  # only a number at the end is read


def test_a_particle_is_named_by_either_of_its_forms_and_an_unknown_one_is_refused():
    assert particle("약국", "는") == "은" and particle("학교", "은") == "는" and particle("학교", "과") == "와"
    assert particle("학교", "이에요") == "예요" and particle("약국", "이라는") == "이라는"
    with pytest.raises(ValueError, match="unknown particle"):
        particle("학교", "께서")


def test_numbers_and_dates_as_a_korean_reader_writes_them():
    assert [number_phrase(t) for t in ("51", "6000", "36672", "940000", "12600000", "470000000", "150.1")] == [
        "51", "6,000", "36,672", "94만", "1,260만", "4억 7,000만", "150.1"]
    assert [date_phrase(t) for t in ("20251103", "2025-11-03", "202511", "2025", "x")] == [
        "2025년 11월 3일", "2025년 11월 3일", "2025년 11월", "2025년", None]


def test_foreign_script_in_korean_text():
    assert foreign_script("전월 대비 人口 증감") == ["人口"]
    assert foreign_script("보험상品 제145호") == ["品"]
    assert foreign_script("강남구의 약국은 몇 곳인가요?") == []
