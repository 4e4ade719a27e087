"""The golden-trajectory reference language: selectors, filters, nested references — parsed, never run."""

from __future__ import annotations

import pytest

from kopa.eval.template import TemplateError, render, resolve

ROWS = [
    {"name": "가", "amount": "1,200", "kind": "공영", "code": "00126380", "note": "799.8 Kcal"},
    {"name": "나", "amount": "90", "kind": "민영", "code": "00164779", "note": "제15조 및 제19조"},
    {"name": "다", "amount": "350", "kind": "공영", "code": "00126381", "note": "없음"},
]
SCOPE = {"t": {"records": ROWS, "total_count": 3}, "corp": {"records": [{"corp_code": "00164779"}]},
         "today": "20260130"}


@pytest.mark.parametrize(("ref", "expected"), [
    ("t.records[?kind=공영].name", ["가", "다"]),
    ("t.records[?kind!=공영].name", ["나"]),
    ("t.records[?note~조].name", ["나"]),
    ("t.records[?note!~조].name", ["가", "다"]),
    ("t.records[?amount>300].name", ["가", "다"]),
    ("t.records[?amount>=350].name", ["가", "다"]),
    ("t.records[?amount<350].name", ["나"]),
    ("t.records[?amount<=90].name", ["나"]),
    ("t.records[?code=$corp.records[0].corp_code].name", ["나"]),
    ("t.records[?code=$corp.records[0].corp_code][0].amount|num", 90),
    # one of several values an earlier step picked (a contains-search answered more than those)
    ("t.records[?name=$t.records[?kind=공영].name].code", ["00126380", "00126381"]),
    ("t.records[?name!=$t.records[?kind=공영].name].code", ["00164779"]),
    ("t.records|maxby:amount|get:name", "가"),
    ("t.records|rsortby:amount|take:2|get:code", ["00126380", "00126381"]),
    ("t.records|maxby:amount|name", None),  # a filter, not a path, follows a pipe
])
def test_selectors(ref: str, expected):
    if expected is None:
        with pytest.raises(TemplateError):
            resolve(ref, SCOPE)
        return
    assert resolve(ref, SCOPE) == expected


def test_codes_compare_as_text():
    assert resolve("t.records[?code=126380]", SCOPE) == []


def test_iso_days_order_as_days_and_other_text_never_orders():
    bills = {"b": {"records": [{"id": "1", "day": "2026-01-28"}, {"id": "2", "day": "2025-12-31"},
                               {"id": "3", "day": ""}, {"id": "4", "day": "2026-01-20"}]}}
    assert resolve("b.records[?day>2026-01-20].id", bills) == ["1"]
    assert resolve("b.records[?day<=2026-01-20].id", bills) == ["2", "4"]  # the empty day qualifies for neither
    assert resolve("t.records[?kind>가].name", SCOPE) == []  # names are not ordered


def test_an_ordering_reads_each_value_as_a_number_whatever_its_form():
    values = {"v": {"records": [{"id": i, "x": x} for i, x in enumerate(
        ["100", "0100", "1e2", "99.5", "1,000", 100.0, "²", "", "abc", True, " 250 ", "-5", "٣٠٠"])]}}
    # 0100, 1e2 and 100.0 are 100; the superscript, the empty and the word are not numbers, nor is a bool;
    # "٣٠٠" (Arabic-Indic digits) is 300, as Decimal reads it
    assert resolve("v.records[?x>=100].id", values) == [0, 1, 2, 4, 5, 10, 12]
    assert resolve("v.records[?x<100].id", values) == [3, 11]


def test_ordering_filters():
    assert resolve("t.records|maxby:amount", SCOPE)["name"] == "가"  # 1,200 read as a number, not text
    assert resolve("t.records|minby:amount", SCOPE)["name"] == "나"
    assert [r["name"] for r in resolve("t.records|sortby:amount", SCOPE)] == ["나", "다", "가"]
    assert [r["name"] for r in resolve("t.records|rsortby:amount", SCOPE)] == ["가", "다", "나"]
    assert [r["name"] for r in resolve("t.records|sortby:name", SCOPE)] == ["가", "나", "다"]
    with pytest.raises(TemplateError, match="no field"):
        resolve("t.records|maxby:nosuch", SCOPE)


def test_the_most_frequent_value_and_ties():
    assert resolve("t.records[*].kind|mode", SCOPE) == "공영"  # 2 of 3
    with pytest.raises(TemplateError, match="no single most frequent value: 가, 나, 다"):
        resolve("t.records[*].name|mode", SCOPE)
    with pytest.raises(TemplateError, match="no values"):
        resolve("t.records[?kind=없는값].name|mode", SCOPE)


def test_numbers_inside_text():
    assert resolve("t.records[0].note|number", SCOPE) == 799.8
    assert resolve("t.records[1].note|numbers", SCOPE) == [15, 19]
    assert resolve("t.records[1].note|number:1", SCOPE) == 19
    with pytest.raises(TemplateError, match="no number"):
        resolve("t.records[2].note|number", SCOPE)


def test_a_day_in_the_form_answers_write_it():
    assert render("{today|iso}", SCOPE) == "2026-01-30"
    assert render("{x|iso}", {"x": "2024-07-09"}) == "2024-07-09"
    with pytest.raises(TemplateError, match="not a day"):
        resolve("x|iso", {"x": "2024년"})


def test_a_number_padded_with_zeros_as_codes_write_it():
    assert render("{n|zfill:4}00", {"n": "15"}) == "001500"  # 제15조 as law.go.kr's JO code
    assert render("{n|zfill:4}", {"n": 7}) == "0007"


def test_a_day_filter_reads_each_value_of_a_list():
    days = {"r": {"records": [{"d": "2024-07-09"}, {"d": "20240812"}]}}
    assert resolve("r.records[*].d|month|unique", days) == ["202407", "202408"]
    assert resolve("r.records[*].d|iso", days) == ["2024-07-09", "2024-08-12"]


def test_render_keeps_the_type_of_a_whole_reference():
    assert render("{t.records[?kind=공영]|len}", SCOPE) == 2
    assert render("합계 {t.records[*].amount|num|sum}건", SCOPE) == "합계 1640건"
    assert render({"a": ["{today|days:-1}"]}, SCOPE) == {"a": ["20260129"]}


def test_bad_references_say_where():
    with pytest.raises(TemplateError, match="unknown name"):
        resolve("nosuch.records", SCOPE)
    with pytest.raises(TemplateError, match="unclosed"):
        resolve("t.records[?kind=공영", SCOPE)
    with pytest.raises(TemplateError, match="out of range"):
        resolve("t.records[7]", SCOPE)
    with pytest.raises(TemplateError, match="cannot read the condition"):
        resolve("t.records[?kind]", SCOPE)
