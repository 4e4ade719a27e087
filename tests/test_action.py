"""ACTION as the paper (§4.4) and BFCL define it: no unneeded argument (paging is the agent's choice),
malformed calls recorded and counted (N_total, the budget), MPC = min(1, N_opt/N_total)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from kopa.eval.environment import Environment
from kopa.eval.episode import PredictedCall
from kopa.eval.scoring.action import score_action, values_equal
from kopa.eval.task import GoldenCall, load_targets, load_tasks

# get_stock_price_trend: every parameter optional; numOfRows and pageNo are paging parameters.
PRICE = GoldenCall(step="price", tool="get_stock_price_trend", turn=1, ok=True,
                   arguments={"likeSrtnCd": "253160", "endBasDt": "20260130", "numOfRows": 1})


def call(tool: str = "get_stock_price_trend", turn: int = 1, **arguments: Any) -> PredictedCall:
    return PredictedCall(tool=tool, arguments=arguments, turn=turn, ok=True)


def action(predicted: list[PredictedCall], golden: list[GoldenCall] | None = None, optimal: int = 1,
           budget: int = 5, compare: dict[str, list[str]] | None = None):
    return score_action(golden or [PRICE], predicted, value_compare_args=compare, optimal_calls=optimal,
                        max_allowed_calls=budget)


def test_an_argument_the_golden_call_does_not_have_does_not_match_even_when_the_schema_allows_it():
    extra = action([call(likeSrtnCd="253160", endBasDt="20260130", numOfRows=1, beginBasDt="20260101")])
    assert extra.correctness == 0.0
    assert "unneeded arguments ['beginBasDt'] (not in the golden call)" in extra.unmatched_golden[0]
    # … also when value_compare_args would not compare it: unneeded is about presence, not value.
    loose = action([call(likeSrtnCd="253160", endBasDt="20260130", mrktCls="KOSDAQ")],
                   compare={"get_stock_price_trend": ["likeSrtnCd"]})
    assert loose.correctness == 0.0 and "unneeded arguments ['mrktCls']" in loose.unmatched_golden[0]


def test_paging_arguments_are_the_agents_choice():
    for paging in ({}, {"numOfRows": 100}, {"numOfRows": 10, "pageNo": 3}):
        verdict = action([call(likeSrtnCd="253160", endBasDt="20260130", **paging)])
        assert verdict.correctness == 1.0, (paging, verdict.unmatched_golden)


def test_optional_arguments_of_the_golden_call_are_the_goldens():
    # The golden carries endBasDt (optional in the schema): the same call matches, one without it does not.
    assert action([call(likeSrtnCd="253160", endBasDt="20260130")]).correctness == 1.0
    missing = action([call(likeSrtnCd="253160")])
    assert missing.correctness == 0.0 and "endBasDt missing" in missing.unmatched_golden[0]


def test_malformed_calls_count_in_n_total_and_never_match():
    bad = PredictedCall(tool="get_stock_price_trend", arguments={}, turn=1, ok=False,
                        raw_arguments='{"likeSrtnCd": 253160', malformed="bad_arguments: not JSON")
    unknown = PredictedCall(tool="get_school_info", arguments={"SCHUL_NM": "x"}, turn=1, ok=False,
                            malformed="unknown_tool")
    good = call(turn=2, likeSrtnCd="253160", endBasDt="20260130", numOfRows=1)
    verdict = action([bad, unknown, good])
    assert verdict.correctness == 1.0 and verdict.matched == [0]
    assert verdict.mpc == pytest.approx(1 / 3)  # N_opt 1 over N_total 3: the malformed two count
    assert verdict.efficiency == pytest.approx((1.0 + 1 / 3) / 2)
    assert "2 malformed call(s) counted in N_total" in verdict.details
    alone = action([bad])
    assert alone.correctness == 0.0 and "malformed call (bad_arguments: not JSON)" in alone.unmatched_golden[0]
    # Two different unparsable texts are two calls; the same text twice is a duplicate.
    other = bad.model_copy(update={"raw_arguments": '{"likeSrtnCd": "253160"'})
    assert action([bad, other]).duplicates == 0 and action([bad, bad]).duplicates == 1


def test_mpc_is_capped_at_one():
    # Fewer calls than N_opt (a skipped step): the paper's N_opt/N_total would be 2; it is capped at 1.
    verdict = action([call(likeSrtnCd="253160", endBasDt="20260130", numOfRows=1)], golden=[PRICE, PRICE],
                     optimal=2)
    assert verdict.mpc == 1.0 and verdict.efficiency == 1.0 and verdict.correctness == 0.5


def test_the_environment_records_malformed_calls_and_counts_them_against_the_budget(backend):
    task = next(t for t in load_tasks() if t.id == "finance-001")
    env = Environment(task, backend, budget=3)
    bad = env.call("find_dart_corp_code", {}, 1, raw_arguments='{"corp_name": 라이트론', parse_error="not JSON")
    unknown = env.call("get_school_info", {"SCHUL_NM": "x"}, 1)
    good = env.call("find_dart_corp_code", {"corp_name": "라이트론"}, 2)
    over = env.call("find_dart_corp_code", {"corp_name": "라이트론"}, 3)
    assert (bad.error.kind, unknown.error.kind, good.ok, over.error.kind) == (
        "bad_arguments", "unknown_tool", True, "budget_exceeded")
    assert [c.malformed for c in env.calls] == ["bad_arguments: not JSON", "unknown_tool", None, None]
    assert env.calls[0].raw_arguments == '{"corp_name": 라이트론' and env.calls[1].raw_arguments is None
    assert len(env.calls) == 4  # the refused call past the budget is recorded too


def test_the_oracle_trajectory_scores_full_action_on_every_task():
    """Every target's golden calls, replayed as predicted calls (what the oracle issues), get Corr = Eff = 1;
    golden calls carrying optional arguments match because they are the golden's own."""
    imperfect = {}
    targets = load_targets()
    for task in load_tasks():
        target = targets[task.id]
        predicted = [PredictedCall(tool=c.tool, arguments=c.arguments, turn=c.turn, ok=c.ok) for c in target.calls]
        verdict = score_action(target.calls, predicted, value_compare_args=task.value_compare_args,
                               optimal_calls=target.optimal_calls, max_allowed_calls=target.max_allowed_calls)
        if verdict.action != 1.0:
            imperfect[task.id] = (verdict.unmatched_golden, verdict.duplicates)
    assert not imperfect


def test_the_same_arguments_in_another_order_are_the_same_call():
    first = call(likeSrtnCd="253160", endBasDt="20260130", numOfRows=1)
    again = PredictedCall(tool="get_stock_price_trend", turn=2, ok=True,
                          arguments={"numOfRows": 1, "endBasDt": "20260130", "likeSrtnCd": "253160"})
    assert action([first, again]).duplicates == 1


def test_a_schema_in_the_openai_tool_form_reads_as_the_bare_one():
    bare = {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}
    wrapped = {"type": "function", "function": {"name": "fill_tank", "parameters": bare}}
    golden = [GoldenCall(step="s", tool="fill_tank", turn=1, ok=True, arguments={"amount": 20})]
    for schema in (bare, wrapped):
        verdict = score_action(golden, [call("fill_tank")], value_compare_args=None, optimal_calls=1, max_allowed_calls=3,
                               schemas={"fill_tank": schema})
        assert "missing required ['amount']" in verdict.unmatched_golden[0], schema


def test_a_tool_no_schema_knows_is_compared_by_its_values():
    golden = [GoldenCall(step="s", tool="no_such_tool", turn=1, ok=True, arguments={"n": 3})]
    verdict = score_action(golden, [call("no_such_tool", n="3")], value_compare_args=None, optimal_calls=1,
                           max_allowed_calls=3)
    assert verdict.correctness == 1.0


def test_schema_types_paging_and_number_forms():
    schema = {"type": "object", "required": ["x"], "properties": {
        "x": {"type": "number"}, "page": {"type": "integer", "paging": True}, "code": {"type": "string"}}}
    golden = [GoldenCall(step="s", tool="t", turn=1, ok=True, arguments={"x": 1000, "code": "00126380"})]

    def verdict(**arguments):
        return score_action(golden, [call("t", **arguments)], value_compare_args=None, optimal_calls=1,
                            max_allowed_calls=3, schemas={"t": schema})

    assert verdict(x=1000, code="00126380", page=2).correctness == 1.0  # a paging argument is the agent's choice
    assert "number" in verdict(x="many", code="00126380").unmatched_golden[0]  # a type error is named
    assert values_equal("t", "x", 1000, "1,000", {"type": "number"})  # a number with thousands commas
    assert not values_equal("t", "code", "00126380", "126380", {"type": "string"})  # a code is no number
    assert "code" in verdict(x=1000, code="0").unmatched_golden[0]
    # value_compare_args naming an argument the golden call lacks skips it and goes on to the next
    skipping = score_action(golden, [call("t", x=1000, code="0")], value_compare_args={"t": ["page", "code"]},
                            optimal_calls=1, max_allowed_calls=3, schemas={"t": schema})
    assert skipping.correctness == 0.0 and "code" in skipping.unmatched_golden[0]


def test_calls_with_values_json_cannot_write_are_still_compared():
    odd = PredictedCall(tool="t", turn=1, ok=True, arguments={"when": Decimal("1.5")})
    assert score_action([], [odd, odd], value_compare_args=None, optimal_calls=1, max_allowed_calls=3).duplicates == 1


def test_odd_schemas_and_expression_arguments():
    golden = [GoldenCall(step="s", tool="t", turn=1, ok=True, arguments={"n": 3})]
    nameless = score_action(golden, [call("t", n=3)], value_compare_args=None, optimal_calls=1, max_allowed_calls=3,
                            schemas={"t": {"type": "function", "function": {"name": "t"}}})  # no parameters given
    assert nameless.correctness == 0.0 and "unexpected arguments ['n']" in nameless.unmatched_golden[0]
    assert values_equal("evaluate_expression", "expression", "1+1", "2", None)  # the calculator's by value
    assert not values_equal("search_laws", "expression", "1+1", "2", None)  # another tool's argument is text
