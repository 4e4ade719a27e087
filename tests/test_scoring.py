"""KOPA-Bench scorers against the seed's own cases (§4.4), the written contract (benchmark/SCORING.md)
and hand-computed formulas."""

from __future__ import annotations

import builtins
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sympy

from kopa.eval.episode import Episode, PredictedCall
from kopa.eval.judge import LLMJudge, OfflineJudge, find_form, render_rubric
from kopa.eval.scoring import (
    extract_boxed,
    score_action,
    score_environment,
    score_episode,
    score_response,
)
from kopa.eval.scoring.action import values_equal
from kopa.eval.scoring.environment import state_diff
from kopa.eval.scoring.episode import answer_verdict, score_stored
from kopa.eval.scoring.response import (
    ResponseVerdict,
    automatic_rubric,
    boxed_contents,
    normalise_text,
    number_mentions,
    read_boxed_number,
    split_items,
)
from kopa.eval.task import (
    AnswerKey,
    AnswerSpec,
    GoldenCall,
    GoldenStep,
    Rubric,
    RubricFact,
    Target,
    Task,
    load_targets,
    load_tasks,
)
from kopa.llm import ChatReply
from kopa.tools.expression import ExpressionError
from kopa.tools.state import EpisodeState

# --------------------------------------------------------------------------------------------------
# Helpers: a toy stateful tool outside the catalog, modelled directly as end states.
# --------------------------------------------------------------------------------------------------

FILL_TANK = {"fill_tank": {"type": "object", "properties": {"amount": {"type": "integer"}},
                           "required": ["amount"], "additionalProperties": False}}


def golden(tool: str, turn: int = 1, **arguments: Any) -> GoldenCall:
    return GoldenCall(step="s", tool=tool, arguments=arguments, turn=turn, ok=True)


def call(tool: str, turn: int = 1, **arguments: Any) -> PredictedCall:
    return PredictedCall(tool=tool, arguments=arguments, turn=turn, ok=True)


def tank_state(fuel: int) -> EpisodeState:
    return EpisodeState(current_date="2025-03-14", data={"fuel": fuel})


def run_tank(calls: list[PredictedCall]) -> EpisodeState:
    """The toy tool's semantics: fill_tank(amount) adds fuel."""
    return tank_state(sum(c.arguments["amount"] for c in calls))


TANK_TASK = Task(id="toy-tank", query="연료를 20리터 채워 주세요.", domain="traffic", platforms=["toy"],
                 available_tools=["fill_tank"], golden=[GoldenStep(id="fill", call="fill_tank",
                                                                   args={"amount": 20})],
                 reward_basis=["ENVIRONMENT"])
_GOLDEN_END = tank_state(20)
TANK_TARGET = Target(task_id="toy-tank", answer=None, calls=[golden("fill_tank", amount=20)], optimal_calls=1,
                     max_allowed_calls=3, state_hash=_GOLDEN_END.hash(), state=_GOLDEN_END.model_dump(),
                     world="toy")


def score_tank(calls: list[PredictedCall]):
    end = run_tank(calls)
    return score_episode(TANK_TASK, TANK_TARGET, None, calls, end.model_dump(), end.hash(), schemas=FILL_TANK)


# --------------------------------------------------------------------------------------------------
# The seed's argument: ACTION alone is not enough.
# --------------------------------------------------------------------------------------------------

def test_golden_contained_but_wrong_state_fails():
    score = score_tank([call("fill_tank", amount=20), call("fill_tank", 2, amount=10)])
    assert score.correctness == 1.0  # the golden call is there
    assert score.environment is False
    assert score.environment_diff == ["data.fuel: 20 → 30"]
    assert (score.details["matched"], score.details["unmatched_golden"]) == ([0], [])
    assert score.passed is False
    assert score.action_raw == pytest.approx((1.0 + (1.0 + 0.5) / 2) / 2)  # Corr 1, CR 1, MPC 1/2
    assert score.action == 0.0  # gated on the outcome


def test_a_stored_episode_counts_its_malformed_calls():
    bad = PredictedCall(tool="fill_tank", arguments={}, turn=1, ok=False, raw_arguments='{"amount": 2',
                        malformed="bad_arguments: not JSON")
    good = call("fill_tank", 2, amount=20)
    end = run_tank([good])
    episode = Episode(task_id="toy-tank", domain="traffic", platforms=["toy"], policy="p", seed=0, rollout=0,
                      answer=None, calls=[bad, bad.model_copy(update={"raw_arguments": '{"amount": 3'}), good],
                      final_state=end.model_dump())
    scored = score_stored(TANK_TASK, TANK_TARGET, episode.model_copy(update={"limits": ["max_turns"]}))
    assert (scored.calls, scored.malformed_calls, scored.score.passed) == (3, 2, True)
    assert scored.limits == ["max_turns"] and scored.score.details["cr"] == 1.0
    assert scored.score.details["mpc"] == pytest.approx(1 / 3)
    broken = score_stored(TANK_TASK, TANK_TARGET, episode.model_copy(update={"error": "timeout"}))
    assert (broken.failure_cause, broken.error) == ("infrastructure", "timeout")  # never played: not scored
    short = episode.model_copy(update={"calls": [call("fill_tank", amount=10)], "final_state": run_tank(
        [call("fill_tank", amount=10)]).model_dump()})
    assert score_stored(TANK_TASK, TANK_TARGET, short).failure_cause is not None  # a failure has its cause


def test_the_diff_names_what_was_added_and_removed():
    assert state_diff({"a": 1, "b": 2}, {"a": 1, "c": 3}) == ["b: - 2", "c: + 3"]
    assert state_diff({1: "a", "b": 2}, {1: "a"}) == ["b: - 2"]  # keys of mixed types sort as text


def test_an_episode_is_scored_with_its_query():
    task = next(t for t in load_tasks() if t.id == "finance-007")  # 몇 % 늘었나? (줄었으면 음수로)
    target = load_targets()[task.id]
    assert answer_verdict(task, target, "총자산은 4.50% 줄었습니다.").passed is True
    assert answer_verdict(task, target, "총자산은 4.50% 늘었습니다.").passed is False


def test_a_long_value_is_shown_cut_in_the_diff():
    (line,) = state_diff({"a": "x" * 200}, {"a": "y" * 200})
    before, after = line.removeprefix("a: ").split(" → ")
    assert before == repr("x" * 200)[:117] + "..." and after == repr("y" * 200)[:117] + "..."


def test_other_path_to_the_right_state_passes():
    score = score_tank([call("fill_tank", amount=10), call("fill_tank", 2, amount=10)])
    assert score.environment is True and score.environment_diff == []
    assert score.passed is True
    assert score.correctness == 0.0  # strict matching misses the golden call …
    assert score.details["duplicates"] == 1
    # … CR = 1 - 1/2, MPC = 1/2, Eff = 1/2, ACTION = (0 + 1/2)/2, and the task still passes.
    assert score.efficiency == pytest.approx(0.5)
    assert score.action == pytest.approx(0.25)
    assert "golden[0] fill_tank(amount=20)" in score.details["unmatched_golden"][0]


def test_oracle_scores_one():
    score = score_tank([call("fill_tank", amount=20)])
    assert (score.passed, score.correctness, score.efficiency, score.action) == (True, 1.0, 1.0, 1.0)


# --------------------------------------------------------------------------------------------------
# RESPONSE: numbers (contract: benchmark/SCORING.md, "Number answers")
# --------------------------------------------------------------------------------------------------

def number(precision: int | None = None, unit: str | None = None) -> AnswerSpec:
    return AnswerSpec(type="number", value="{x}", precision=precision, unit=unit)


def number_key(exact: str) -> AnswerKey:
    return AnswerKey(display=exact, exact=exact)


def verdict_of(spec: AnswerSpec, key: AnswerKey, answer: str) -> ResponseVerdict:
    return score_response(spec, key, answer)


TWENTY_FIVE_THIRDS = number_key("25/3")
FINANCE_001 = number_key("158500/3619")  # 43.7966289…


@pytest.mark.parametrize("precision", [None, 2])
@pytest.mark.parametrize("answer", [
    r"\boxed{25/3}", r"\boxed{\frac{25}{3}}", r"\boxed{\dfrac{25}{3}}", r"$\boxed{\tfrac{25}{3}}$", "25/3",
    r"따라서 \frac{25}{3} 입니다", "8.33333333333", r"\boxed{8.3̅}", "8.3̅", "8.(3)", r"\boxed{8.\overline{3}}",
    r"\boxed{8.333333333}",  # the displayed value: 10 significant digits
])
def test_every_form_of_25_over_3_passes(precision, answer):
    verdict = verdict_of(number(precision), TWENTY_FIVE_THIRDS, answer)
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("answer", [
    "1,234", "1234.0", r"\boxed{1.234 \times 10^3}", "1.234×10³", "1.234 × 10^{3}", "정답은 1,234건입니다.",
    r"따라서 $\boxed{1234}$", "１２３４", "1.234e3", r"중간값 17, 최종 \boxed{\frac{2468}{2}}", r"\boxed{1,234건}",
    r"\boxed{1{,}234}", r"\boxed{1234\text{건}}",
])
def test_equal_numbers_in_other_forms_pass(answer):
    verdict = verdict_of(number(), number_key("1234"), answer)
    assert verdict.passed is True, verdict


@pytest.mark.parametrize(("answer", "method"), [
    ("1,235", "number:stated"), (r"\boxed{1233}", "number:boxed"), ("1233.9999999", "number:stated"),
    ("12,34", "number:several-numbers"),  # not a thousands group: two numbers
    ("1234개 중 5개", "number:stated"),  # the answer says 5 (of 1234)
])
def test_different_numbers_fail(answer, method):
    verdict = verdict_of(number(), number_key("1234"), answer)
    assert (verdict.passed, verdict.method) == (False, method), verdict


@pytest.mark.parametrize("answer", ["43.80", "43.797", "43.7966", "158500/3619", r"\boxed{43.8}", "43.80%",
                                    r"\boxed{43.80\%}", "약 43.8%입니다"])
def test_finance_001_at_precision_2_passes(answer):
    verdict = verdict_of(number(2, "percent"), FINANCE_001, answer)
    assert verdict.passed is True, verdict
    assert verdict.method.endswith((":precision", ":exact"))


@pytest.mark.parametrize("answer", ["44", "43.7", "43.81", "43.79", "40", r"\boxed{44\%}", "43.8066"])
def test_finance_001_coarser_or_wrong_roundings_fail(answer):
    verdict = verdict_of(number(2, "percent"), FINANCE_001, answer)
    assert (verdict.passed, verdict.method.split(":")[-1]) == (False, "precision"), verdict


def test_the_precision_bound_is_half_a_unit_inclusive():
    eighth = number_key("1/8")  # 0.125: both 0.12 and 0.13 are 0.005 away
    assert [verdict_of(number(2), eighth, a).passed for a in ("0.12", "0.13", "0.11", "0.14")] == [
        True, True, False, False]
    assert verdict_of(number(0), number_key("7/2"), "4").passed is True  # 정수로 반올림: 3.5 → 3 or 4
    assert verdict_of(number(0), number_key("7/2"), "5").passed is False


def test_no_rounding_at_the_answers_own_precision():
    small = number_key("537863776/7410482507")  # 0.0725814784…, district-002
    assert verdict_of(number(), small, r"\boxed{0}").passed is False
    assert verdict_of(number(), small, r"\boxed{0.07}").passed is False  # no precision: relative 1e-9
    assert verdict_of(number(), small, r"\boxed{0.0725814784}").passed is True
    assert verdict_of(number(2), small, r"\boxed{0.07}").passed is True
    assert verdict_of(number(2), small, r"\boxed{0}").passed is False
    assert verdict_of(number(2), small, r"\boxed{0.1}").passed is False
    no_precision = verdict_of(number(), TWENTY_FIVE_THIRDS, "8.33")
    assert (no_precision.passed, no_precision.method) == (False, "number:stated:relative")


@pytest.mark.parametrize(("answer", "method"), [
    ("1, 2, 3", "number:several-numbers"),
    ("3 또는 4", "number:alternative"),
    ("2에서 3 사이", "number:several-numbers"),
    (r"\boxed{3} 아니면 \boxed{4}", "number:alternative"),
    (r"\boxed{3 또는 4}", "number:boxed-unparsed"),
    (r"\boxed{몇 개}", "number:boxed-unparsed"),
    (r"\boxed{3", "number:boxed-unclosed"),
    ("모르겠습니다", "number:no-number"),
])
def test_hedges_and_unreadable_answers_fail(answer, method):
    verdict = verdict_of(number(), number_key("3"), answer)
    assert (verdict.passed, verdict.method) == (False, method), verdict


def test_the_same_value_twice_is_one_number():
    assert verdict_of(number(), number_key("3"), "3건, 즉 3입니다").passed is True
    assert verdict_of(number(), number_key("3"), r"\boxed{3} (\boxed{3.0})").passed is True
    assert verdict_of(number(), number_key("3"), r"계산: 1 + 2, 최종 \boxed{3}").passed is True  # boxed wins


@pytest.mark.parametrize("answer", ["12.5", "12.5%", "12.5 %", "12.5%p", "12.5 %p", "12.5퍼센트", "12.5%포인트",
                                    r"\boxed{12.5\%}", "25/2", "약 12.5%"])
def test_a_percent_target_reads_every_percent_form(answer):
    assert verdict_of(number(1, "percent"), number_key("25/2"), answer).passed is True


def test_percent_is_a_claim_about_units():
    assert verdict_of(number(3, "percent"), number_key("25/2"), "0.125").passed is False  # unequal, not rescaled
    for answer in ("12.5%", "12.5%p", r"\boxed{12.5\%}", "12.5퍼센트"):
        for target in ("25/2", "1/8"):  # 12.5% is the claim 0.125 — not 12.5, and not accepted as 0.125 either
            verdict = verdict_of(number(3), number_key(target), answer)
            assert (verdict.passed, verdict.method) == (False, "number:unit"), (answer, target)


def test_signs_units_and_korean_magnitudes():
    finance_003 = number_key("-3425/4259")  # −0.80417…
    assert verdict_of(number(3), finance_003, "−0.804").passed is True  # U+2212
    assert verdict_of(number(3), finance_003, "변화율은 -0.804%").passed is False  # not a percent task
    assert verdict_of(number(3), finance_003, "0.804").passed is False
    assert verdict_of(number(), number_key("26020"), "26,020원").passed is True
    assert verdict_of(number(), number_key("26020"), "2만 6,020원").passed is True
    assert verdict_of(number(), number_key("68239700"), "6,823만 9,700원").passed is True
    assert verdict_of(number(), number_key("120000000"), "1억 2천만 원").passed is True
    assert verdict_of(number(0, "percent"), number_key("44"), "약 44%").passed is True
    assert verdict_of(number(), number_key("1"), "2024/01/30").method == "number:several-numbers"  # no fraction


def test_stated_numbers_are_scanned_exactly():
    mentions = number_mentions(r"2024년 종가 26,020원, 상승률 43.80%, \frac{1}{3}, 8.(3), 1.5×10²")
    assert [(m.value, m.percent) for m in mentions] == [
        (2024, False), (26020, False), (sympy.Rational(219, 5), True), (sympy.Rational(1, 3), False),
        (sympy.Rational(25, 3), False), (150, False)]
    assert read_boxed_number(r"약 43.80\%").percent is True
    with pytest.raises(ExpressionError):
        read_boxed_number("__import__('os')")
    assert boxed_contents(r"a \boxed{1} b \boxed{\frac{1}{2}} c") == ["1", r"\frac{1}{2}"]
    assert boxed_contents(r"\boxed{1") is None
    assert extract_boxed(r"a \boxed{1} b \boxed{2}") == "2"


def test_real_number_tasks_score_against_their_keys():
    tasks = {t.id: t for t in load_tasks()}
    targets = load_targets()
    finance, education = targets["finance-001"].key, targets["education-005"].key
    for key in (finance, education):  # non-integer exact targets, shown to about ten significant digits
        exact = Fraction(key.exact)
        assert exact.denominator > 1 and abs(float(key.display) - exact) < 1e-6 * abs(exact)
    for task_id, key in (("finance-001", finance), ("education-005", education)):
        spec = tasks[task_id].answer
        assert spec is not None and spec.type == "number"
        assert score_response(spec, key, rf"\boxed{{{key.exact}}}").passed is True
        assert score_response(spec, key, rf"\boxed{{{key.display}}}").passed is True
        assert score_response(spec, key, r"\boxed{0}").passed is False
    at_two = AnswerSpec(type="number", value="{calc.records[0].exact}", precision=2)
    share = Fraction(education.exact)
    answers = (f"{float(share):.2f}", f"{float(share):.1f}", f"{round(share)}", rf"\boxed{{{share}}}")
    assert [score_response(at_two, education, a).passed for a in answers] == [True, False, False, True]


@pytest.mark.parametrize("payload", [
    "__import__('os').system('touch {path}')",
    r"\boxed{__import__('os').system('touch {path}')}",
    "open('{path}', 'w').write('1')",
    r"\boxed{open('{path}', 'w')}",
    "eval(\"__import__('os').system('touch {path}')\")",
])
@pytest.mark.parametrize("kind", ["number", "string", "judge"])
def test_malicious_answer_is_never_executed(tmp_path: Path, monkeypatch, payload: str, kind: str):
    calls: list[str] = []

    def refuse(*args, **kwargs):
        calls.append("called")
        raise AssertionError("must not be called")

    real_import = builtins.__import__

    def watching_import(name, *args, **kwargs):
        if name.split(".")[0] in {"os", "subprocess", "shutil"}:
            calls.append(f"import {name}")
        return real_import(name, *args, **kwargs)

    path = tmp_path / "x"
    answer = payload.replace("{path}", str(path))
    # −√2 is irrational and negative: no digit string of a path, nor a ratio of two, can state it, so the
    # verdict cannot depend on the digits pytest puts in tmp_path.
    key = AnswerKey(display="-1.414213562", exact="-sqrt(2)",
                    rubric=Rubric(facts=[RubricFact(fact="반대", forms=["반대"])]))
    spec = AnswerSpec(type=kind, value="{x}")  # type: ignore[arg-type]
    score_response(spec, key, r"\boxed{-1.5} 반대")  # sympy imports lazily: load what scoring needs first
    monkeypatch.setattr(builtins, "__import__", watching_import)
    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    monkeypatch.setattr(os, "system", refuse)
    verdict = score_response(spec, key, answer)
    assert verdict.passed is False
    assert calls == []
    assert not path.exists()


def test_no_answer_fails():
    assert score_response(number(), number_key("1"), None).method == "number:no-answer"
    assert score_response(number(), number_key("1"), "  ").method == "number:no-answer"
    no_key = score_response(number(), AnswerKey(display="1"), "1")
    assert (no_key.passed, no_key.method) == (False, "number:no-key")


# --------------------------------------------------------------------------------------------------
# RESPONSE: strings (contract: benchmark/SCORING.md, "String answers")
# --------------------------------------------------------------------------------------------------

STRING = AnswerSpec(type="string", value="{x}")
ARTICLES = AnswerSpec(type="string", value="{x}", item_forms=["제{}조"])
ARTICLES_KEY = AnswerKey(display="5, 19", items=["5", "19"])  # law-020's shape


def text_key(display: str, **kw: Any) -> AnswerKey:
    return AnswerKey(display=display, **kw)


def test_string_normalisation():
    assert normalise_text("  ＳＫ하이닉스(주)  ") == "sk하이닉스"  # the legal form dropped, as ㈜ and 주식회사
    assert normalise_text("라면, 1,522원") == "라면 1522원"  # thousands commas dropped, list commas not
    assert normalise_text("43.80%와 -3, 2024-07-09") == "43.80 와 -3 2024 07 09"
    assert normalise_text("ㄱ") == "ㄱ"  # compatibility jamo kept as written (NFKC would change them)
    assert normalise_text("서울·강남구") == "서울 강남구"


@pytest.mark.parametrize(("answer", "method"), [
    ("반대", "string:exact"), (" 반대. ", "string:exact"), (r"\boxed{반대}", "string:exact"),
    (r"\boxed{\text{반대}}", "string:exact"), ("정답은 반대입니다.", "string:claimed"),
    ("답: 반대", "string:claimed"), ("반대예요", "string:claimed"),
    ("위원장은 그 법률안에 반대했습니다.", "string:claimed"),
])
def test_a_string_answer_that_states_the_target_passes(answer, method):
    verdict = score_response(STRING, text_key("반대"), answer)
    assert (verdict.passed, verdict.method) == (True, method), verdict


@pytest.mark.parametrize(("answer", "passed"), [
    ("찬성, 반대, 기권 중 하나입니다", False),  # a hedge: the target among others
    ("반대가 아닙니다", False),
    ("반대 또는 기권", False),
    ("아마 반대일 것입니다", False),
    ("반대와 기권", None),  # two candidates, or one name joined by 와: the judge decides
    ("찬성", False),
    ("찬반대", False),  # glued inside a longer word on its left
    (r"\boxed{찬성} \boxed{반대}", False),
])
def test_containment_never_passes_a_string(answer, passed):
    verdict = score_response(STRING, text_key("반대"), answer)
    assert verdict.passed is passed, verdict


def test_digit_strings_match_at_digit_boundaries_only():
    for answer in ("13", "3.5", "-3", "30", "v3", "3,000"):
        assert score_response(STRING, text_key("3"), answer).passed is False, answer
    assert score_response(STRING, text_key("3"), "3입니다").passed is True
    assert score_response(STRING, text_key("SK하이닉스"), "SKT").passed is False
    assert score_response(STRING, text_key("SK하이닉스"), "SK하이닉스와 삼성전자").passed is None


def test_aliases_item_forms_and_patterns():
    key = text_key("SK하이닉스", aliases=["에스케이하이닉스"])
    assert score_response(STRING, key, "에스케이하이닉스").method == "string:alias"
    assert score_response(STRING, key, "ＳＫ하이닉스").method == "string:exact"
    assert score_response(ARTICLES, text_key("5"), "제5조").method == "string:exact"
    spec = AnswerSpec(type="string", value="{x}", pattern=r"제\s?\d+조")
    pattern = score_response(spec, text_key("제5조(정의)"), "제 5조")
    assert (pattern.passed, pattern.method) == (True, "string:pattern")
    sentence = score_response(spec, text_key("제5조(정의)"), "해당 조문은 제 5조입니다")
    assert sentence.method != "string:pattern" and sentence.passed is not True  # a pattern matches in full
    bad = score_response(AnswerSpec(type="string", value="{x}", pattern="("), text_key("x"), "y")
    assert (bad.passed, bad.method) == (False, "string:bad-pattern")


@pytest.mark.parametrize("answer", [
    "5, 19", "19, 5", "5,19", "5/19", "5; 19", "5 및 19", "5와 19", "제5조와 제19조입니다", "정답은 제5조, 제19조",
    "제19조 그리고 제5조", "제5조\n제19조", "5, 5, 19", r"\boxed{5, 19}", "제5조이고 제19조입니다",
], ids=lambda answer: answer.replace("\n", "⏎"))  # one line per id: mutmut reads them back from pytest
def test_a_list_target_passes_with_the_same_set_of_items(answer):
    verdict = score_response(ARTICLES, ARTICLES_KEY, answer)
    assert (verdict.passed, verdict.method) == (True, "string:items"), verdict


@pytest.mark.parametrize("answer", [
    "제15조와 제19조입니다",  # 15 is not 5: no substring trick
    "5, 19, 20",  # an extra item
    "5", "제19조",  # a missing item
    "15, 19", "제5조", "제5조, 제19조, 제20조",
])
def test_a_list_target_fails_with_extra_missing_or_lookalike_items(answer):
    """Every item the answer names has the target items' shape, so the item sets decide: a fail, not a
    question for a judge."""
    verdict = score_response(ARTICLES, ARTICLES_KEY, answer)
    assert (verdict.passed, verdict.method) == (False, "string:items"), verdict


def test_a_list_answer_with_other_words_goes_to_the_judge():
    verdict = score_response(ARTICLES, ARTICLES_KEY, "제5조, 제19조 등이 있습니다")
    assert verdict.passed is not True and verdict.method.startswith("string:judge")


def test_glued_conjunctions_split_only_after_an_item():
    key = AnswerKey(display="결과, 원인", items=["결과", "원인"])  # 결과 ends in 과
    assert score_response(STRING, key, "결과와 원인").method == "string:items"
    assert score_response(STRING, key, "원인과 결과").method == "string:items"
    assert split_items("원인과 결과", accepts=lambda head: head in ("원인", "결과")) == ["원인", "결과"]
    assert split_items("1,234, 5") == ["1,234", "5"]  # a thousands comma does not separate


def test_real_string_tasks():
    targets = load_targets()
    tasks = {t.id: t for t in load_tasks()}
    vote = targets["politics-019"].key
    spec = tasks["politics-019"].answer
    assert vote is not None and spec is not None
    assert score_response(spec, vote, vote.display).passed is True
    assert score_response(spec, vote, f"정답은 {vote.display}입니다.").passed is True
    hedge = ", ".join(dict.fromkeys(["찬성", "반대", "기권", vote.display])) + " 중 하나입니다"
    assert score_response(spec, vote, hedge).passed is not True
    articles, spec = targets["law-020"].key, tasks["law-020"].answer
    assert articles is not None and spec is not None
    assert score_response(spec, articles, articles.display).passed is True
    assert score_response(spec, articles, articles.display + ", 999").passed is not True
    if articles.items:  # a list target: order free, nothing missing
        assert score_response(spec, articles, ", ".join(reversed(articles.items))).passed is True
        if len(articles.items) > 1:
            assert score_response(spec, articles, ", ".join(articles.items[1:])).passed is not True


def test_automatic_rubric_for_string_fallback():
    rubric = automatic_rubric(ARTICLES, ARTICLES_KEY)
    assert [f.forms for f in rubric.facts] == [["5", "제5조"], ["19", "제19조"]]
    assert rubric.wrong == []
    single = automatic_rubric(ARTICLES, text_key("5", aliases=["다섯"]))
    assert [f.forms for f in single.facts] == [["5", "다섯", "제5조"]]


class _RecordingJudge:
    def __init__(self) -> None:
        self.seen: list[tuple[str, Rubric, AnswerKey, str, bool]] = []

    def judge(self, query, rubric, key, answer, *, strict):
        self.seen.append((query, rubric, key, answer, strict))
        return ResponseVerdict(passed=True, method="judge:fixed", details=query)


def test_string_falls_back_to_the_given_judge_in_strict_mode():
    judge = _RecordingJudge()
    key = text_key("현대자동차", aliases=["현대차"])
    verdict = score_response(STRING, key, r"답은 \boxed{현대 자동차}", judge, query="질문")
    assert (verdict.passed, verdict.method) == (True, "string:judge:fixed")
    assert verdict.details.startswith("string rules failed")
    query, rubric, seen_key, answer, strict = judge.seen[0]
    assert (query, seen_key, answer, strict) == ("질문", key, "현대 자동차", True)  # the boxed candidate
    assert rubric.facts[0].forms == ["현대자동차", "현대차"]
    assert score_response(STRING, key, "현대차", judge).method == "string:alias"  # rules first
    assert len(judge.seen) == 1


# --------------------------------------------------------------------------------------------------
# RESPONSE: judge answers (contract: benchmark/SCORING.md, "Judge answers")
# --------------------------------------------------------------------------------------------------

JUDGE = AnswerSpec(type="judge", value="{x}")
LEAVE = Rubric(facts=[RubricFact(fact="근거 조문은 근로기준법 제60조", forms=["제60조", "60조"]),
                      RubricFact(fact="연차 유급휴가는 15일", forms=["15일", "보름"])],
               wrong=["제61조", "10일"])
LEAVE_KEY = AnswerKey(display="근로기준법 제60조에 따라 15일", rubric=LEAVE)


@pytest.mark.parametrize(("answer", "passed"), [
    ("근로기준법 제60조에 따라 1년간 80퍼센트 이상 출근한 근로자에게 15일의 연차 유급휴가를 줍니다.", True),
    ("60조에 따르면 보름입니다", True),
    ("잘 모르겠습니다.", False),  # no fact
    ("제60조, 15일 (제61조도 참고)", False),  # a wrong form
    ("제600조에 따라 115일", False),  # lookalikes are no facts
    ("근로기준법 제60조를 보세요.", None),  # a fact missing: maybe a paraphrase
])
def test_offline_judge_grades_the_rubric(answer, passed):
    verdict = score_response(JUDGE, LEAVE_KEY, answer)
    assert verdict.passed is passed, verdict
    assert verdict.method == ("judge:offline:undecided" if passed is None else "judge:offline")


def test_offline_judge_details_say_what_is_missing():
    partial = OfflineJudge().judge("q", LEAVE, LEAVE_KEY, "제60조를 보세요.", strict=False)
    assert "1/2 facts stated" in partial.details and "연차 유급휴가는 15일" in partial.details
    strict = OfflineJudge().judge("q", LEAVE, LEAVE_KEY, "제60조, 15일 정도", strict=True)
    assert strict.passed is None and "정도" in strict.details


def test_no_verbatim_shortcut():
    key = AnswerKey(display="연차 15일", rubric=Rubric(facts=[RubricFact(fact="제60조", forms=["제60조"])]))
    assert score_response(JUDGE, key, "연차 15일").passed is False  # the display is no fact of the rubric


def test_find_form_boundaries():
    assert find_form("제60조에 따라", "제60조") == [(0, 4)]
    assert find_form("제600조", "제60조") == []
    assert find_form("115일 15일", "15일") == [(5, 8)]
    assert find_form("43.80", "80") == [] and find_form("1.5", "1") == []
    assert find_form("찬반대 반대는", "반대") == [(4, 6)]
    assert find_form("skt sk", "sk") == [(4, 6)]


def test_law_008_against_its_key():
    targets, tasks = load_targets(), {t.id: t for t in load_tasks()}
    key, spec = targets["law-008"].key, tasks["law-008"].answer
    assert key is not None and key.rubric is not None and spec is not None and spec.type == "judge"
    assert score_response(spec, key, key.display).passed is True  # the golden answer states every fact
    assert score_response(spec, key, "관련 판결을 찾지 못했습니다.").passed is False
    for wrong in key.rubric.wrong:
        assert score_response(spec, key, f"{key.display} {wrong}").passed is False


LAW_008_SHAPE = Rubric(facts=[RubricFact(fact="판결을 특정한다", forms=["2024두63635"]),
                              RubricFact(fact="참조조문은 약사법 제11조", forms=["약사법 제11조"]),
                              RubricFact(fact="약사법 제11조의 현행 조문 제목", forms=["협회의 설립"])],
                       wrong=["약사법 제12조"])


@pytest.mark.parametrize(("answer", "passed"), [  # benchmark/SCORING.md, the law-008 worked example
    ("대법원 2024두63635 판결은 약사법 제11조의 요건을 다루며, 현행 제11조 제목은 협회의 설립입니다.", True),
    ("2024두63635 판결입니다.", None),
    ("2024두63635, 약사법 제12조, 협회의 설립", False),
    ("관련 판결을 찾지 못했습니다.", False),
])
def test_the_law_008_worked_example(answer, passed):
    assert score_response(JUDGE, AnswerKey(display="d", rubric=LAW_008_SHAPE), answer).passed is passed


def test_judge_type_and_undecided_episode():
    task = Task(id="law-1", query="연차휴가 일수는?", domain="law", platforms=["law"], available_tools=[],
                golden=[GoldenStep(id="a", call="get_current_date")], answer=JUDGE)
    state = EpisodeState(current_date="2025-03-14")
    target = Target(task_id="law-1", answer=LEAVE_KEY.display, key=LEAVE_KEY, calls=[golden("get_current_date")],
                    optimal_calls=1, max_allowed_calls=3, state_hash=state.hash(), state=state.model_dump(),
                    world="toy")
    score = score_episode(task, target, "제60조 참조", [call("get_current_date")], state.model_dump(),
                          state.hash())
    assert score.response is False and score.passed is False
    assert score.response_method == "judge:offline:undecided"
    assert "could not decide" in score.details["response_undecided"]
    assert (score.action_raw, score.action) == (1.0, 0.0)
    passed = score_episode(task, target, "제60조에 따라 15일", [call("get_current_date")], state.model_dump(),
                           state.hash())
    assert (passed.response, passed.passed, passed.action) == (True, True, 1.0)
    keyless = target.model_copy(update={"key": None})
    no_key = score_episode(task, keyless, "x", [], state.model_dump(), state.hash())
    assert (no_key.response, no_key.response_method) == (False, "none:no-target")  # not passed, not undecided
    assert no_key.details["response"] == "the task has no answer key"


def test_a_stored_episode_is_judged_by_the_judge_it_is_given():
    task = Task(id="law-1", query="연차휴가는 며칠?", domain="law", platforms=["law"], available_tools=["get_current_date"],
                golden=[GoldenStep(id="a", call="get_current_date")], answer=JUDGE)
    state = EpisodeState(current_date="2025-03-14")
    target = Target(task_id="law-1", answer=LEAVE_KEY.display, key=LEAVE_KEY, calls=[golden("get_current_date")],
                    optimal_calls=1, max_allowed_calls=3, state_hash=state.hash(), state=state.model_dump(),
                    world="toy")
    episode = Episode(task_id="law-1", domain="law", platforms=["law"], policy="p", seed=0, rollout=0,
                      answer="answer", calls=[call("get_current_date")], final_state=state.model_dump())
    judge = _RecordingJudge()
    scored = score_stored(task, target, episode, judge)
    assert scored.score.response_method == "judge:fixed" and judge.seen[0][0] == "연차휴가는 며칠?"


def test_given_judge_sees_query_rubric_and_key():
    judge = _RecordingJudge()
    verdict = score_response(JUDGE, LEAVE_KEY, "answer", judge, query="질문")
    assert (verdict.passed, verdict.method, verdict.details) == (True, "judge:fixed", "질문")
    assert judge.seen == [("질문", LEAVE, LEAVE_KEY, "answer", False)]


def test_llm_judge_prompt_and_verdicts():
    seen: list[str] = []
    replies = iter(["이유: 조문과 일수가 맞습니다.\nPASS", "처음엔 PASS 같았지만 일수가 틀립니다.\nFAIL",
                    "판단 불가\nUNDECIDED", "음…", "최종 판정: PASS입니다"])

    def model(messages):
        seen.append(messages[0]["content"])
        return next(replies)

    judge = LLMJudge(model, name="toy")
    results = [judge.judge("연차휴가 일수는?", LEAVE, LEAVE_KEY, "제60조, 15일", strict=False) for _ in range(5)]
    assert [r.passed for r in results] == [True, False, None, None, True]
    assert [r.method for r in results] == ["judge:toy", "judge:toy", "judge:toy:undecided",
                                           "judge:toy:undecided", "judge:toy"]
    prompt = seen[0]
    assert "질문: 연차휴가 일수는?" in prompt and "참조 정답: 근로기준법 제60조에 따라 15일" in prompt
    assert "1. 근거 조문은 근로기준법 제60조" in prompt and "「제60조」 | 「60조」" in prompt
    assert "2. 연차 유급휴가는 15일" in prompt and "「제61조」 | 「10일」" in prompt
    assert "제60조, 15일" in prompt and "정답 하나를 묻습니다" not in prompt
    strict = LLMJudge(lambda messages: seen.append(messages[0]["content"]) or "FAIL", name="toy")
    assert strict.judge("q", LEAVE, LEAVE_KEY, "a", strict=True).passed is False
    assert "정답 하나를 묻습니다" in seen[-1]


def test_llm_judge_through_a_chat_model():
    class Model:
        model = "m"

        def complete(self, messages, tools=None, **params):
            return ChatReply(content="PASS")

    judge = LLMJudge(Model())
    assert judge.judge("q", LEAVE, LEAVE_KEY, "a", strict=False).method == "judge:m"
    assert "1. 근거 조문은" in render_rubric(LEAVE)


# --------------------------------------------------------------------------------------------------
# ENVIRONMENT
# --------------------------------------------------------------------------------------------------

def test_environment_hash_and_readable_diff(snapshot):
    expected = EpisodeState(current_date="2025-03-14", issued=["dart"], data={"watchlist": [
        {"category": "stock", "code": "005380", "name": "현대차"},
        {"category": "stock", "code": "005930", "name": "삼성전자"}]})
    actual = EpisodeState(current_date="2025-03-14", issued=["dart", "krx"], data={"watchlist": [
        {"category": "stock", "code": "005380", "name": "현대차"},
        {"category": "stock", "code": "000660", "name": "SK하이닉스"},
        {"category": "corp", "code": "00126380", "name": "삼성전자"}], "memo": "x"})
    same = score_environment(expected.model_dump(), expected.hash(), expected.model_dump(), expected.hash())
    assert same.passed is True and same.diff == []
    verdict = score_environment(expected.model_dump(), expected.hash(), actual.model_dump(), actual.hash())
    assert verdict.passed is False
    assert "data.watchlist[1].code: '005930' → '000660'" in verdict.diff
    assert "issued: + krx" in verdict.diff
    assert verdict.diff == snapshot


# --------------------------------------------------------------------------------------------------
# ACTION: Corr with BFCL-style checks on real catalog tools
# --------------------------------------------------------------------------------------------------

OVERVIEW = golden("get_dart_company_overview", corp_code="00126380")


def _corr(predicted: PredictedCall, gold: GoldenCall = OVERVIEW) -> tuple[float, list[str]]:
    verdict = score_action([gold], [predicted], value_compare_args=None, optimal_calls=1, max_allowed_calls=3)
    return verdict.correctness, verdict.unmatched_golden


@pytest.mark.parametrize(("arguments", "reason"), [
    ({"corp_code": 126380}, "is int, schema says string"),
    ({"corp_code": "126380"}, "does not match"),
    ({}, "missing required ['corp_code']"),
    ({"corp_code": "00126380", "crtfc_key": "k"}, "unexpected arguments ['crtfc_key']"),
    ({"corp_code": "00164779"}, "≠ golden '00126380'"),
])
def test_type_and_value_checks(arguments, reason):
    corr, unmatched = _corr(PredictedCall(tool="get_dart_company_overview", arguments=arguments, turn=1, ok=True))
    assert corr == 0.0
    assert reason in unmatched[0]


def test_matching_ignores_paging_and_strips_values():
    gold = golden("search_dart_disclosures", corp_code="00126380", pblntf_ty="A", pblntf_detail_ty="A001",
                  page_no=1, page_count=100)
    same = call("search_dart_disclosures", corp_code="00126380", pblntf_ty="A", pblntf_detail_ty=" A001 ", page_no=3)
    assert _corr(same, gold)[0] == 1.0
    assert "does not match" in _corr(call("search_dart_disclosures", corp_code=" 00126380 "), gold)[1][0]
    assert "not in enum" in _corr(call("search_dart_disclosures", corp_code="00126380", pblntf_ty="Z"), gold)[1][0]
    assert "is str, schema says integer" in _corr(
        call("search_dart_disclosures", corp_code="00126380", pblntf_ty="A", page_no="1"), gold)[1][0]
    assert values_equal("t", "n", 10, "10.0", {"type": "integer"}) is True
    assert values_equal("t", "code", "00126380", "126380", {"type": "string"}) is False  # codes stay text


def test_explicit_value_compare_args():
    gold = golden("search_dart_disclosures", corp_code="00126380", bgn_de="20240101")
    predicted = call("search_dart_disclosures", corp_code="00126380", bgn_de="20230101")
    loose = score_action([gold], [predicted], value_compare_args={"search_dart_disclosures": ["corp_code"]},
                         optimal_calls=1, max_allowed_calls=3)
    strict = score_action([gold], [predicted], value_compare_args=None, optimal_calls=1, max_allowed_calls=3)
    assert (loose.correctness, strict.correctness) == (1.0, 0.0)


def test_evaluate_expression_compares_values_not_text():
    gold = golden("evaluate_expression", expression="(65050 - 45535) / 45535 * 100")
    assert _corr(call("evaluate_expression", expression="100*(65050-45535)/45535"), gold)[0] == 1.0
    assert _corr(call("evaluate_expression", expression="(65050 - 45535) / 45535"), gold)[0] == 0.0


def test_each_predicted_call_matches_one_golden_call_order_free():
    gold = [golden("issue_api_key", platform="dart"), golden("get_dart_company_overview", 2, corp_code="00126380"),
            golden("get_dart_company_overview", 2, corp_code="00126380")]
    predicted = [call("get_dart_company_overview", corp_code="00126380"), call("issue_api_key", 2, platform="dart")]
    verdict = score_action(gold, predicted, value_compare_args=None, optimal_calls=3, max_allowed_calls=7)
    assert verdict.correctness == pytest.approx(2 / 3)
    assert verdict.matched == [0, 1]
    assert "taken by another golden call" in verdict.unmatched_golden[0]


# --------------------------------------------------------------------------------------------------
# ACTION: Eff formulas, hand-computed
# --------------------------------------------------------------------------------------------------

def test_cr_mpc_eff_hand_computed(snapshot):
    gold = [golden("issue_api_key", platform="dart"), golden("get_dart_company_overview", 2, corp_code="00126380")]
    predicted = [call("issue_api_key", platform="dart"), call("issue_api_key", 2, platform="dart"),
                 call("get_dart_company_overview", 3, corp_code="00126380"),
                 call("get_dart_company_overview", 4, corp_code="00126380"),
                 call("get_dart_company_overview", 5, corp_code="00164779")]
    verdict = score_action(gold, predicted, value_compare_args=None, optimal_calls=2, max_allowed_calls=5)
    # N_total 5, N_dup 2 (the repeated key issuance and overview), N_opt 2.
    assert verdict.duplicates == 2
    assert verdict.cr == pytest.approx(1 - 2 / 5)
    assert verdict.mpc == pytest.approx(2 / 5)
    assert verdict.efficiency == pytest.approx((0.6 + 0.4) / 2)
    assert verdict.action == pytest.approx((1.0 + 0.5) / 2)
    assert verdict.model_dump() == snapshot


def test_eff_zero_past_budget_and_mpc_capped():
    gold = [golden("get_current_date")]
    over = score_action(gold, [call("get_current_date", turn=i) for i in range(4)], value_compare_args=None,
                        optimal_calls=1, max_allowed_calls=3)
    assert (over.correctness, over.efficiency, over.action) == (1.0, 0.0, 0.5)
    assert over.cr == pytest.approx(0.25)  # still reported
    fewer = score_action([golden("get_current_date"), golden("get_current_date")], [call("get_current_date")],
                         value_compare_args=None, optimal_calls=2, max_allowed_calls=5)
    assert (fewer.mpc, fewer.correctness) == (1.0, 0.5)
    empty = score_action(gold, [], value_compare_args=None, optimal_calls=1, max_allowed_calls=3)
    assert (empty.correctness, empty.efficiency, empty.action) == (0.0, 0.0, 0.0)
