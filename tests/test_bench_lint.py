"""`kopa bench lint` against the task contract of issue 9, and `kopa bench stats`.

The defective copies (tests/data/defective_tasks.yaml) are tasks the review found broken: lint must fail
each with the defect it has — and only where it has it (a task with a real chain is not told it has
none, a documented code is not flagged). Small synthetic tasks built from one good task break rules 2–6
one at a time.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from click.testing import CliRunner

from kopa.eval.cli import bench
from kopa.eval.lint import lint_task
from kopa.eval.stats import PAPER, set_stats
from kopa.eval.targets import compute_target
from kopa.eval.task import Task, load_task_file
from kopa.tools.runtime import ToolRuntime

DEFECTIVE = Path(__file__).parent / "data" / "defective_tasks.yaml"
WHERE = re.compile(r"^(step [^\s:]+|answer|query|golden|task): ")

# task → the (kind, "ARG=VALUE" or phrase) problems the review found; "chain" = no code-lookup chain,
# "typed" = a literal an earlier step returns, "unobtainable" = a code no available tool outputs.
EXPECTED: dict[str, set[tuple[str, str]]] = {
    "education-001": {("chain", "no code-lookup chain"), ("unobtainable", "step mokpo: sggCode=46110"),
                      ("unobtainable", "step yeosu: sggCode=46130")},
    "education-004": {("unobtainable", "step students: sggCode=30200")},
    "education-008": {("chain", "no code-lookup chain"), ("unobtainable", "step y2023: sggCode=44200")},
    "education-009": {("chain", "no code-lookup chain"), ("unobtainable", "step teachers: sggCode=44131")},
    "education-010": {("chain", "no code-lookup chain"), ("unobtainable", "step y2024: sggCode=50110")},
    "education-012": {("unobtainable", "step teachers: sggCode=46110")},
    "finance-012": {("chain", "no code-lookup chain")},
    "finance-013": {("chain", "no code-lookup chain")},
    "finance-021": {("chain", "no code-lookup chain")},
    "law-008": {("typed", "step jo: JO=001100")},
    "law-009": {("typed", "step jo: JO=001800")},
    "law-010": {("typed", "step j7: JO=000700"), ("typed", "step j17: JO=001700")},
    "law-015": {("chain", "no code-lookup chain")},
    "law-016": {("chain", "no code-lookup chain")},
    "law-022": {("typed", "step jo: JO=001000")},
    "politics-009": {("chain", "no code-lookup chain")},
    "politics-011": {("chain", "no code-lookup chain")},
    "traffic-005": {("chain", "no code-lookup chain")},
    "traffic-014": {("chain", "no code-lookup chain")},
    "traffic-016": {("typed", "answer: STND_BSST_ID=100000640")},
    "traffic-017": {("chain", "no code-lookup chain")},
    "traffic-019": {("chain", "no code-lookup chain")},
}


@pytest.fixture(scope="module")
def defective(backend):
    return {t.id: lint_task(t, backend) for t in load_task_file(DEFECTIVE)}


def test_the_defective_copies_are_all_there(defective):
    assert set(defective) == set(EXPECTED)


@pytest.mark.parametrize("task_id", sorted(EXPECTED))
def test_each_defective_task_fails_with_its_defect(defective, task_id):
    result = defective[task_id]
    assert not result.ok
    for kind, text in EXPECTED[task_id]:
        assert any(p.kind == kind and text in p.text for p in result.issues), (kind, text, result.problems)
    expected_kinds = {kind for kind, _ in EXPECTED[task_id]}
    if "chain" not in expected_kinds:  # a real chain is never reported missing
        assert "chain" not in result.kinds, result.problems
    for problem in result.problems:
        assert WHERE.match(problem), problem


def test_the_literal_checks_name_their_evidence(defective):
    law = next(p.text for p in defective["law-008"].issues if p.kind == "typed")
    assert law.startswith("step jo: JO=001100 is typed, but step prec returns it (")
    assert "제11조" in law and law.endswith("reference it")
    sgg = next(p.text for p in defective["education-004"].issues if "sggCode" in p.text)
    assert sgg == ("step students: sggCode=30200 is not in the query and no earlier step returns it; "
                   "no available tool outputs sggCode")
    bus = next(p.text for p in defective["traffic-016"].issues if p.kind == "typed")
    assert "step stops returns it (STND_BSST_ID)" in bus


def test_a_documented_code_is_not_a_typed_literal(defective):
    # sidoCode's description documents "50 제주" (education-010); "46" (전남) it does not document
    assert not any("sidoCode=50" in p for p in defective["education-010"].problems)
    assert any("sidoCode=46" in p for p in defective["education-012"].problems)
    # enum values (schulKndCode) and periods (pbanYr) are never flagged
    assert not any("schulKndCode" in p or "pbanYr" in p for r in defective.values() for p in r.problems)


# --------------------------------------------------------------------------------------------------
# Synthetic tasks: one good task, and one rule broken at a time
# --------------------------------------------------------------------------------------------------

GOOD: dict[str, Any] = {
    "id": "synthetic-001", "domain": "finance", "platforms": ["dart", "krx"],
    "query": "라이트론의 2026년 1월 일별 종가 평균은 몇 원인가? (소수점 둘째 자리까지)",
    "available_tools": ["issue_api_key", "evaluate_expression", "find_dart_corp_code",
                        "get_dart_company_overview", "get_stock_price_trend"],
    "state": {"predefined": {"current_date": "2026-01-30"},
              "setup": [{"tool": "issue_api_key", "args": {"platform": "dart"}},
                        {"tool": "issue_api_key", "args": {"platform": "krx"}}]},
    "golden": [
        {"id": "corp", "call": "find_dart_corp_code", "args": {"corp_name": "라이트론"}},
        {"id": "price", "call": "get_stock_price_trend",
         "args": {"likeSrtnCd": "{corp.records[0].stock_code}", "beginBasDt": "20260101",
                  "endBasDt": "20260131", "numOfRows": 100}},
        {"id": "calc", "call": "evaluate_expression",
         "args": {"expression": "{price.records[*].clpr|num|sum} / {price.records|len}"}},
    ],
    "answer": {"type": "number", "value": "{calc.records[0].exact}", "precision": 2},
}
STOCK_CODE = "253160"  # 라이트론's, as find_dart_corp_code returns it


def _task(query: str | None = None, answer: dict[str, Any] | None = None, **golden_args: dict[str, Any]
          ) -> Task:
    """GOOD with a different query, answer, or arguments of some golden steps (step id → args)."""
    raw = orjson.loads(orjson.dumps(GOOD))
    if query is not None:
        raw["query"] = query
    if answer is not None:
        raw["answer"] = answer
    for step in raw["golden"]:
        if step["id"] in golden_args:
            step["args"] = golden_args[step["id"]]
    return Task.model_validate(raw)


def _lint(backend, task: Task) -> list[tuple[str, str]]:
    return [(p.kind, p.text) for p in lint_task(task, backend).issues]


def test_the_good_task_passes(backend):
    result = lint_task(_task(), backend)
    assert result.problems == []
    assert result.stats.chained and result.stats.high_cardinality


def test_a_non_integer_target_needs_a_precision(backend):
    problems = _lint(backend, _task(query=GOOD["query"].split(" (")[0],
                                    answer={"type": "number", "value": "{calc.records[0].exact}"}))
    # The exact mean of the January closes, as the simulator answers them
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "krx"})
    closes = [int(r["clpr"]) for r in runtime.call("get_stock_price_trend", {
        "likeSrtnCd": STOCK_CODE, "beginBasDt": "20260101", "endBasDt": "20260131", "numOfRows": 100}).records]
    mean = Fraction(sum(closes), len(closes))
    assert mean.denominator != 1
    assert problems == [("precision", f"answer: the exact target {mean} is not an integer: set precision "
                                      "and state it in the query (e.g. '소수점 둘째 자리까지')")]


def test_the_precision_must_be_stated_in_the_query(backend):
    unstated = _lint(backend, _task(query="라이트론의 2026년 1월 일별 종가 평균은 몇 원인가?"))
    assert unstated == [("precision", "query: precision 2 is not stated: add '소수점 둘째 자리까지'")]
    other = _lint(backend, _task(query="라이트론의 2026년 1월 일별 종가 평균은 몇 원인가? (소수점 첫째 자리까지)"))
    assert ("precision", "query: it states '소수점 첫째 자리까지' but precision is 2") in other


def test_percent_unit_exactly_when_the_query_asks_in_percent(backend):
    asks = _lint(backend, _task(query="라이트론의 2026년 1월 일별 종가 평균은 몇 %인가? (소수점 둘째 자리까지)"))
    assert asks == [("unit", "answer: the query asks in % / %p: set unit: percent")]
    sets = _lint(backend, _task(answer={"type": "number", "value": "{calc.records[0].exact}", "precision": 2,
                                        "unit": "percent"}))
    assert sets == [("unit", "answer: unit: percent, but the query does not ask in % / %p")]
    threshold = _lint(backend, _task(query="등락률이 1% 넘게 오른 날도 포함해, 라이트론의 2026년 1월 일별 종가 평균은 "
                                           "몇 원인가? (소수점 둘째 자리까지)"))
    assert threshold == []  # a % in the query that is not what it asks in


def test_a_money_unit_exactly_when_the_query_asks_in_one(backend):
    asks = _lint(backend, _task(query="라이트론의 2026년 1월 일별 종가 평균은 몇 만원인가? (소수점 둘째 자리까지)"))
    assert asks == [("unit", "answer: the query asks in 만원: set unit: 만원")]
    sets = _lint(backend, _task(answer={"type": "number", "value": "{calc.records[0].exact}", "precision": 2,
                                        "unit": "억원"}))
    assert sets == [("unit", "answer: unit: 억원, but the query does not ask '몇 억원'")]


def test_a_number_target_is_the_exact_value(backend):
    problems = _lint(backend, _task(answer={"type": "number", "value": "{calc.records[0].value}",
                                            "precision": 2}))
    assert ("number", "answer: {calc.records[0].value} is the rounded display value: use "
                      "{calc.records[0].exact}") in problems
    rounded = _lint(backend, _task(
        query="라이트론의 2026년 1월 일별 종가 평균은 몇 원인가? (정수로 반올림)",
        answer={"type": "number", "value": "{calc.records[0].exact}", "precision": 0},
        calc={"expression": "round({price.records[*].clpr|num|sum} / {price.records|len})"}))
    assert rounded == [("number", "step calc: the expression rounds the target: give the exact value and a "
                                  "precision")]


def test_a_number_with_a_unit_is_a_number_task(backend):
    problems = _lint(backend, _task(query="라이트론의 2026년 1월 29일 종가는?",
                                    answer={"type": "string", "value": "{price.records[0].clpr}원"}))
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "krx"})
    close = runtime.call("get_stock_price_trend", {"likeSrtnCd": STOCK_CODE, "basDt": "20260129"}).records[0]["clpr"]
    assert [k for k, _ in problems] == ["string"]
    assert problems[0][1].startswith(f"answer: the target '{close}원' is a number with a unit: make it a number task")


def test_a_list_target_renders_to_a_list(backend):
    problems = _lint(backend, _task(query="라이트론의 2026년 1월 거래일들을 모두 알려줘.",
                                    answer={"type": "string", "value": "{price.records[*].basDt|join:, }"}))
    assert ("string", "answer: a list target must render to a list: drop |join") in problems


JUDGE_QUERY = "라이트론의 2026년 1월 평균 종가를 설명해줘."
JUDGE_VALUE = "{corp.records[0].corp_name}의 2026년 1월 평균 종가는 {calc.records[0].value}원이다."


WRONG_CLOSE = ["{price.records[*].clpr|num|max}원"]  # the highest close is not the mean


def test_judge_answers_need_a_rubric_whose_forms_render(backend):
    good = {"type": "judge", "value": JUDGE_VALUE,
            "rubric": {"facts": [{"fact": "평균 종가", "forms": ["{calc.records[0].value}"]}], "wrong": WRONG_CLOSE}}
    assert _lint(backend, _task(query=JUDGE_QUERY, answer=good)) == []
    missing = _lint(backend, _task(query=JUDGE_QUERY, answer={"type": "judge", "value": JUDGE_VALUE}))
    assert ("rubric", "answer: a judge answer needs a rubric: {facts: [{fact, forms}], wrong}") in missing
    empty = {"type": "judge", "value": JUDGE_VALUE,
             "rubric": {"facts": [{"fact": "평균 종가", "forms": ["{calc.records[0].value}", ""]}],
                        "wrong": WRONG_CLOSE}}
    assert _lint(backend, _task(query=JUDGE_QUERY, answer=empty)) == [
        ("rubric", "answer: rubric fact 1 form '' renders empty")]


def test_a_judge_task_whose_target_is_one_short_fact_is_flagged(backend):
    """A judge passes any text that holds its facts' forms — alternatives and denials too — so one short fact
    is a string task, or a judge with wrong forms (politics-009 was one)."""
    bare = {"type": "judge", "value": JUDGE_VALUE,
            "rubric": {"facts": [{"fact": "평균 종가", "forms": ["{calc.records[0].value}"]}]}}
    problems = _lint(backend, _task(query=JUDGE_QUERY, answer=bare))
    assert len(problems) == 1 and problems[0][0] == "rubric"
    assert problems[0][1].startswith("answer: the target '라이트론의 2026년 1월 평균 종가는 ")
    assert "is one short fact: make it a string task with aliases, or give the rubric wrong forms" in problems[0][1]
    long_value = JUDGE_VALUE + " 이 값은 영업일마다 공시된 종가를 모두 더해 영업일 수로 나눈 산술평균이다."
    assert _lint(backend, _task(query=JUDGE_QUERY, answer={**bare, "value": long_value})) == []
    # two facts side by side, one per rubric fact (EDGE's SEM answers: "2 / 태광라온제지"), are not one fact
    two = {"type": "judge", "value": "{corp.records[0].corp_name} / {calc.records[0].value}",
           "rubric": {"facts": [{"fact": "회사", "forms": ["{corp.records[0].corp_name}"]},
                                {"fact": "평균 종가", "forms": ["{calc.records[0].value}"]}]}}
    assert _lint(backend, _task(query=JUDGE_QUERY, answer=two)) == []
    # two items, two facts about each (`about`): "김철수 찬성 / 이영희 반대" is four facts, not one
    about = {"type": "judge", "value": "{corp.records[0].corp_name} {calc.records[0].value} / {corp.records[0].corp_code} 1",
             "rubric": {"facts": [
                 {"fact": "첫째 회사", "about": "첫째", "anchor": True, "forms": ["{corp.records[0].corp_name}"]},
                 {"fact": "첫째 평균 종가", "about": "첫째", "forms": ["{calc.records[0].value}"]},
                 {"fact": "둘째 회사", "about": "둘째", "anchor": True, "forms": ["{corp.records[0].corp_code}"]},
                 {"fact": "둘째 값", "about": "둘째", "forms": ["1"]}]}}
    assert not any("one short fact" in p for _, p in _lint(backend, _task(query=JUDGE_QUERY, answer=about)))


def test_the_golden_answer_passes_its_own_scoring(backend):
    unstated = {"type": "judge", "value": JUDGE_VALUE,
                "rubric": {"facts": [{"fact": "최고 종가", "forms": ["{price.records[*].clpr|num|max}"]}],
                           "wrong": ["{price.records[*].clpr|num|min}원"]}}
    problems = _lint(backend, _task(query=JUDGE_QUERY, answer=unstated))
    assert [k for k, _ in problems] == ["self-score"]
    text = problems[0][1]
    assert text.startswith("answer: the golden answer '라이트론의 2026년 1월 평균 종가는 ")
    assert "원이다.' does not pass its own scoring (judge:" in text and "['최고 종가']" in text


def test_a_typed_literal_that_the_chain_returns(backend):
    price = {**GOOD["golden"][1]["args"], "likeSrtnCd": STOCK_CODE}
    problems = _lint(backend, _task(price=price))
    assert ("typed", f"step price: likeSrtnCd={STOCK_CODE} is typed, but step corp returns it (stock_code): "
                     "reference it") in problems
    assert ("chain", "golden: no code-lookup chain: no data call takes an argument or its for_each from an "
                     "earlier data call (data steps corp, price take only literals or session values)") in problems


def test_leaks_are_codes_the_chain_looks_up_not_the_users_identifier(backend):
    looked_up = _lint(backend, _task(query=f"라이트론(종목코드 {STOCK_CODE})의 2026년 1월 일별 종가 평균은 몇 원인가? "
                                           "(소수점 둘째 자리까지)"))
    assert looked_up == [("leak", f"step price: the query states likeSrtnCd={STOCK_CODE}, which the chain "
                                  "looks up")]
    # the user names the company by its DART code: the first call takes it as given, no leak
    given = Task.model_validate({**GOOD, "query": "고유번호 00104083인 회사의 2026년 1월 일별 종가 평균은 몇 원인가? "
                                                  "(소수점 둘째 자리까지)",
                                 "golden": [{"id": "ov", "call": "get_dart_company_overview",
                                             "args": {"corp_code": "00104083"}},
                                            {"id": "both", "parallel": [
                                                {**GOOD["golden"][1],
                                                 "args": {**GOOD["golden"][1]["args"],
                                                          "likeSrtnCd": "{ov.records[0].stock_code}"}},
                                                # handed on by reference, still the user's identifier
                                                {"id": "again", "call": "get_dart_company_overview",
                                                 "args": {"corp_code": "{ov.records[0].corp_code}"}}]},
                                            GOOD["golden"][2]]})
    assert _lint(backend, given) == []


def test_a_chain_through_session_tools_only_is_no_chain(backend):
    # today → price is not a code-lookup chain; the code is the user's (stated in the query)
    task = Task.model_validate({**GOOD, "query": f"종목코드 {STOCK_CODE}의 2026년 1월 일별 종가 평균은 몇 원인가? "
                                                 "(소수점 둘째 자리까지)",
                                "golden": [{**GOOD["golden"][1],
                                            "args": {**GOOD["golden"][1]["args"], "likeSrtnCd": STOCK_CODE,
                                                     "endBasDt": "{today}"}},
                                           GOOD["golden"][2]]})
    assert [k for k, _ in _lint(backend, task)] == ["chain"]


# --------------------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------------------

def test_bench_lint_file_prints_task_problem_lines_and_fails():
    result = CliRunner().invoke(bench, ["lint", "--file", str(DEFECTIVE)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert "traffic-016: answer: STND_BSST_ID=100000640 is typed in a selector on rid, but step stops returns " \
           "it (STND_BSST_ID): reference it ($stops…)" in lines
    assert any(line.startswith("education-001: golden: no code-lookup chain") for line in lines)
    assert "0/22 tasks pass lint" in lines


def test_bench_lint_file_passes_a_good_file(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(yaml.safe_dump({"tasks": [GOOD]}, allow_unicode=True), encoding="utf-8")
    result = CliRunner().invoke(bench, ["lint", "--file", str(path)])
    assert result.exit_code == 0, result.output
    assert "1/1 tasks pass lint" in result.output


def test_stats_come_from_executed_golden_runs(backend):
    fan_out = Task.model_validate({
        **GOOD, "id": "synthetic-002",
        "golden": [GOOD["golden"][0],
                   {"id": "both", "parallel": [
                       {"id": "ov", "call": "get_dart_company_overview",
                        "args": {"corp_code": "{corp.records[0].corp_code}"}},
                       GOOD["golden"][1]]},
                   GOOD["golden"][2]]})
    tasks = [_task(), fan_out]
    targets = {t.id: compute_target(t, backend) for t in tasks}
    stats = set_stats(tasks, targets)
    finance = next(g for g in stats.groups if g.name == "finance")
    overall = stats.groups[-1]
    assert overall.name == "all" and overall == finance.model_copy(update={"name": "all", "paper_tasks": 145})
    assert (finance.tasks, finance.paper_tasks) == (2, PAPER.mix["finance"])
    assert finance.mean_steps == 3.0  # top-level steps: the parallel group is one
    assert (finance.mean_calls, finance.max_calls) == (3.5, 4)
    assert finance.parallel_share == 0.5  # the group's two calls share a turn
    assert finance.mean_headroom == round((7 / 3 + 10 / 4) / 2, 4)  # budget: 2.45 × optimal, half up
    assert [g.name for g in stats.groups] == [*PAPER.mix, "all"]


def test_bench_stats_json(tmp_path):
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "finance.yaml").write_text(yaml.safe_dump({"tasks": [GOOD]}, allow_unicode=True),
                                                     encoding="utf-8")
    result = CliRunner().invoke(bench, ["stats", "--json", "--tasks", str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.output)
    assert data["paper"] == PAPER.model_dump()
    overall = data["groups"][-1]
    assert overall["name"] == "all"
    assert (overall["tasks"], overall["mean_calls"], overall["max_calls"], overall["parallel_share"]) == (1, 3, 3, 0)
    assert data["not_executed"] == {}
