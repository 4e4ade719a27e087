"""KOPA-Bench scorers against the seed's own cases (§4.4) and hand-computed formulas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kopa.eval.episode import PredictedCall
from kopa.eval.judge import LLMJudge, OfflineJudge, rubric_phrases
from kopa.eval.scoring import (
    extract_boxed,
    score_action,
    score_environment,
    score_episode,
    score_response,
)
from kopa.eval.scoring.action import values_equal
from kopa.eval.scoring.response import ResponseVerdict, extract_number, normalise_text
from kopa.eval.task import AnswerSpec, GoldenCall, GoldenStep, Target, Task
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
    assert score.passed is False
    assert score.action_raw == pytest.approx((1.0 + (1.0 + 0.5) / 2) / 2)  # Corr 1, CR 1, MPC 1/2
    assert score.action == 0.0  # gated on the outcome


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
# RESPONSE: numbers
# --------------------------------------------------------------------------------------------------

NUMBER = AnswerSpec(type="number", value="{x}")


@pytest.mark.parametrize("answer", [
    "1,234", "1234.0", r"\boxed{1.234 \times 10^3}", "정답은 1,234건입니다.", r"따라서 $\boxed{1234}$",
    "１２３４", "1.234e3", r"중간값 17, 최종 \boxed{\frac{2468}{2}}",
])
def test_equal_numbers_in_other_forms_pass(answer):
    verdict = score_response(NUMBER, "1234", answer)
    assert verdict.passed is True, verdict


@pytest.mark.parametrize("answer", ["1,235", "12,34", r"\boxed{1233}", "1234개 중 5개"])
def test_different_numbers_fail(answer):
    assert score_response(NUMBER, "1234", answer).passed is False


def test_boxed_beats_later_numbers_and_percent():
    assert extract_boxed(r"a \boxed{1} b \boxed{\frac{1}{2}} c") == r"\frac{1}{2}"
    assert extract_boxed(r"\boxed{1") is None
    assert extract_number(r"\boxed{43.8\%} (2024년 기준)") == (r"43.8\%", "boxed")
    assert score_response(NUMBER, "43.8", r"\boxed{43.8\%} (2024년 기준)").passed is True
    assert score_response(NUMBER, "12.5", "증가율은 12.5%").passed is True
    assert score_response(NUMBER, "-3", "변화량: −3").passed is True


def test_tolerance_for_irrational_values_only():
    loose = AnswerSpec(type="number", value="{x}", tolerance=1e-6)
    assert score_response(loose, "1.414213562", r"\boxed{\sqrt{2}}").passed is True
    assert score_response(loose, "1.414", r"\boxed{\sqrt{2}}").passed is False
    assert score_response(loose, "43.7966289", "43.7966289").passed is True
    assert score_response(loose, "43.7966289", "43.7966290").passed is False  # both rational: exact


@pytest.mark.parametrize("payload", [
    "__import__('os').system('touch {path}')",
    r"\boxed{__import__('os').system('touch {path}')}",
    "open('{path}', 'w').write('1')",
])
def test_malicious_answer_is_never_executed(tmp_path: Path, payload: str):
    path = tmp_path / "x"
    verdict = score_response(NUMBER, "0", payload.replace("{path}", str(path)))
    assert verdict.passed is False
    assert not path.exists()


def test_no_answer_fails():
    assert score_response(NUMBER, "1", None).method == "number:no-answer"
    assert score_response(NUMBER, "1", "모르겠습니다").method == "number:no-number"


# --------------------------------------------------------------------------------------------------
# RESPONSE: strings and the judge
# --------------------------------------------------------------------------------------------------

STRING = AnswerSpec(type="string", value="{x}")


def test_string_normalisation():
    assert normalise_text("  ＳＫ하이닉스(주)  ") == "sk하이닉스 주"
    assert score_response(STRING, "SK하이닉스", "ＳＫ하이닉스").method == "string:exact"
    verdict = score_response(STRING, "삼성전자", "정답은 **삼성전자**입니다.")
    assert (verdict.passed, verdict.method) == (True, "string:contains")
    assert score_response(STRING, "서울 강남구", "서울·강남구").passed is True
    items = score_response(STRING, "삼성전자, SK하이닉스", "SK하이닉스와 삼성전자입니다")
    assert (items.passed, items.method) == (True, "string:items")


def test_string_pattern_then_fail_without_judge():
    spec = AnswerSpec(type="string", value="{x}", pattern=r"제\s?\d+조")
    assert score_response(spec, "제5조(정의)", "해당 조문은 제 5조입니다").method == "string:pattern"
    failed = score_response(STRING, "현대자동차", "기아입니다")
    assert (failed.passed, failed.method) == (False, "string:no-match")
    assert "no judge" in failed.details


def test_string_falls_back_to_judge():
    spec = AnswerSpec(type="string", value="{x}", rubric="현대자동차")
    verdict = score_response(spec, "현대차", "현대자동차입니다", OfflineJudge())
    assert (verdict.passed, verdict.method) == (True, "judge:offline")
    assert verdict.details.startswith("string rules failed")


def test_offline_judge_pass_fail_undecided():
    judge = OfflineJudge()
    rubric = "근로기준법 제60조; 연차 유급휴가 · 15일\n80퍼센트 이상 출근"
    assert rubric_phrases(rubric) == ["근로기준법 제60조", "연차 유급휴가", "15일", "80퍼센트 이상 출근"]
    full = "근로기준법 제60조에 따라 1년간 80퍼센트 이상 출근한 근로자에게 15일의 연차 유급휴가를 줍니다."
    assert judge.judge("q", rubric, "t", full).passed is True
    assert judge.judge("q", rubric, "t", "잘 모르겠습니다.").passed is False
    partial = judge.judge("q", rubric, "t", "근로기준법 제60조를 보세요.")
    assert (partial.passed, partial.method) == (None, "judge:undecided")
    assert "1/4 key phrases present" in partial.details


def test_judge_type_and_undecided_episode():
    spec = AnswerSpec(type="judge", value="{x}", rubric="제60조; 15일")
    assert score_response(spec, "제60조 15일", "제60조에 따라 15일").passed is True
    assert score_response(spec, "x", "정답: X").method == "judge:target-contained"
    task = Task(id="law-1", query="연차휴가 일수는?", domain="law", platforms=["law"], available_tools=[],
                golden=[GoldenStep(id="a", call="get_current_date")], answer=spec)
    state = EpisodeState(current_date="2025-03-14")
    target = Target(task_id="law-1", answer="연차 15일", calls=[golden("get_current_date")], optimal_calls=1,
                    max_allowed_calls=3, state_hash=state.hash(), state=state.model_dump(), world="toy")
    score = score_episode(task, target, "제60조 참조", [call("get_current_date")], state.model_dump(),
                          state.hash())
    assert score.response is False and score.passed is False
    assert score.response_method == "judge:undecided"
    assert "could not decide" in score.details["response_undecided"]
    assert (score.action_raw, score.action) == (1.0, 0.0)


class _FixedJudge:
    def judge(self, query, rubric, target, answer):
        return ResponseVerdict(passed=True, method="judge:fixed", details=query)


def test_given_judge_sees_the_query():
    spec = AnswerSpec(type="judge", value="{x}", rubric="무엇이든")
    verdict = score_response(spec, "t", "answer", _FixedJudge(), query="질문")
    assert (verdict.passed, verdict.method, verdict.details) == (True, "judge:fixed", "질문")


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


def test_llm_judge_reads_the_last_verdict():
    seen: list[str] = []

    def model(messages):
        seen.append(messages[0]["content"])
        return "이유: 조문 번호가 맞습니다.\nPASS" if "제60조" in messages[0]["content"] else "음…"

    judge = LLMJudge(model, name="toy")
    assert judge.judge("질문", "제60조", "t", "제60조입니다").passed is True
    assert "기준: 제60조" in seen[0]
    assert judge.judge("질문", "무엇", "t", "답").method == "judge:undecided"
