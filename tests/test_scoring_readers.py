"""The scorer's readers at their edges (benchmark/SCORING.md §2): LaTeX a box cannot hold as one number, signs,
a tool call printed as the answer, the methods that name why an answer failed, and a model judge's verdict
standing beside the offline rules. Each case is one a careful grader would decide the same way."""

from __future__ import annotations

import sympy

from kopa.eval.runner import RunConfig, make_judge
from kopa.eval.scoring.latex import read_latex_number
from kopa.eval.scoring.numbers import equal, extract_boxed, number_mentions
from kopa.eval.scoring.response import is_tool_call, score_response
from kopa.eval.scoring.stated import placement
from kopa.eval.task import AnswerKey, AnswerSpec, Rubric, RubricFact
from tests.fakes.chat_server import ChatServer, text

NUMBER = AnswerSpec(type="number", value="x")
STRING = AnswerSpec(type="string", value="{x}")


def test_latex_that_is_no_number_is_not_read():
    assert read_latex_number(r"\frac{1}{0}") is None  # zoo
    assert read_latex_number(r"\frac{0}{0}") is None  # nan
    assert read_latex_number(r"x + 1") is None  # a symbol
    assert read_latex_number(r"\{1, 2\}") is None  # a set
    assert read_latex_number(r"571.1\,\text{kcal}") == sympy.Rational(5711, 10)  # exact, not a float
    assert equal(read_latex_number(r"\sqrt{4}"), sympy.Integer(2))  # read unevaluated, compared exactly


def test_signs_and_boxes():
    assert [m.value for m in number_mentions("–3, −4, -5")] == [-3, -4, -5]  # en dash, minus sign, hyphen
    assert extract_boxed("no box here") is None
    assert extract_boxed(r"\boxed{1} then \boxed{2}") == "2"


def test_a_tool_call_printed_as_the_answer_is_no_answer():
    call = '{"name": "evaluate_expression", "arguments": {"expression": "3"}}'
    assert is_tool_call(call) and is_tool_call(f"```json\n{call}\n```")
    assert is_tool_call('[{"name": "f", "parameters": {"x": 3}}]')
    assert is_tool_call("<tool_call>{...}</tool_call>")
    assert not is_tool_call('{"answer": 3}') and not is_tool_call("3건입니다")
    verdict = score_response(NUMBER, AnswerKey(display="3", exact="3"), f"```json\n{call}\n```")
    assert (verdict.passed, verdict.method) == (False, "number:tool-call")


def test_the_methods_name_why():
    key = AnswerKey(display="3", exact="3")
    assert score_response(NUMBER, key, r"\boxed{3} \boxed{4}").method == "number:several-boxed"
    assert score_response(STRING, AnswerKey(display="반대"), r"\boxed{반대} \boxed{찬성}").method == "string:several-boxed"
    ordered = AnswerSpec(type="string", value="{x}", ordered=True)
    verdict = score_response(ordered, AnswerKey(display="과태료, 재정지원", items=["과태료", "재정지원"]), "재정지원, 과태료")
    assert (verdict.passed, verdict.method) == (False, "string:items-order")


def test_a_judge_answer_without_a_rubric_gets_the_automatic_one():
    verdict = score_response(AnswerSpec(type="judge", value="x"), AnswerKey(display="반대"), "위원장은 반대했습니다.")
    assert verdict.passed is True and verdict.method == "judge:offline"


def test_a_doubt_leaves_an_offline_pass_undecidable_but_not_a_model_judges():
    answer = "정답은 반대입니다. 다만 확실하지 않습니다."
    offline = score_response(STRING, AnswerKey(display="반대"), answer)
    assert (offline.passed, offline.method) == (None, "string:claimed:doubted")
    with ChatServer([text("반대라고 답했고 단서는 사족입니다.\nPASS")]) as server:
        judge = make_judge(RunConfig(judge_model="judge-model", judge_base_url=server.base_url))
        modelled = score_response(STRING, AnswerKey(display="반대"), "반대와 기권 가운데 반대입니다. 다만 확실하지 않습니다.",
                                  judge)
    assert (modelled.passed, modelled.method) == (True, "string:judge:judge-model")


def test_a_string_in_prose_says_why_it_fails():
    key = AnswerKey(display="반대")
    assert score_response(STRING, key, "위원장은 반대가 아닙니다.").method == "string:negated"
    assert score_response(STRING, key, "반대, 찬성 둘 다 가능합니다.").method == "string:listed"
    assert score_response(STRING, key, "위원장은 반대표를 던졌습니다.").method != "string:claimed"  # 반대표 is a word
    sk = score_response(STRING, AnswerKey(display="SK하이닉스"), "sk하이닉스, 삼성전자")  # found whatever the case
    assert (sk.passed, sk.method) == (False, "string:listed")
    rubric = Rubric(facts=[RubricFact(fact="표결결과", forms=["반대"])], wrong=["찬성"])
    wrong = score_response(STRING, AnswerKey(display="반대", rubric=rubric), "위원장은 찬성했습니다.")
    assert (wrong.passed, wrong.method) == (False, "string:wrong-form")


def test_list_items_claimed_in_prose():
    articles = AnswerSpec(type="string", value="{x}", item_forms=["제{}조"])
    key = AnswerKey(display="5, 19", items=["5", "19"])
    verdict = score_response(articles, key, "현행 도로법에서 조문제목이 '권한의 위임'인 조문은 제5조와 제19조입니다.")
    assert (verdict.passed, verdict.method) == (True, "string:claimed-items")
    assert score_response(articles, key, "해당 조문은 제5조, 제19조 등입니다.").passed is not True  # 등: not all


def test_a_latex_thousands_separator_in_running_text():
    assert [m.value for m in number_mentions(r"합계는 14{,}342대입니다")] == [14342]
    assert read_latex_number(r"14,342\,") is None  # two numbers to LaTeX (a set), not one


def test_more_edges_of_prose_and_claims():
    assert placement("그 조치는 적절합니다.", ["적절"]) is not None  # 하다 glued to a root (적절 + 하 XSA)
    second = score_response(STRING, AnswerKey(display="동방화재해상보험"), "진양화재해상보험, 동방화재해상보험")
    assert (second.passed, second.method) == (False, "string:listed")  # a candidate before it, too
    # a result marker after the value is no reason to take it as the result
    assert score_response(NUMBER, AnswerKey(display="5", exact="5"), "3개 중 5개 정도. 답은 미정").passed is False
    # a written sign, in a comparison said the other way round, turns too
    query = "정보처리기사 필기시험은 정보처리산업기사 필기시험보다 문항 수가 몇 개 더 많나요?"
    turned = score_response(NUMBER, AnswerKey(display="40", exact="40"), "정보처리산업기사 필기가 −40문항 더 많습니다.",
                            query=query)
    assert turned.passed is True


def test_a_measure_said_in_another_unit_is_named():
    verdict = score_response(NUMBER, AnswerKey(display="90", exact="90"), "문항당 90분입니다.",
                             query="한 문항에 쓸 수 있는 평균 시간은 몇 초인가요?")
    assert (verdict.passed, verdict.method) == (False, "number:unit")


def test_an_ordered_list_in_prose_keeps_its_order():
    ordered = AnswerSpec(type="string", value="{x}", ordered=True)
    key = AnswerKey(display="과태료, 재정지원", items=["과태료", "재정지원"])
    right = score_response(ordered, key, "도로법 제18조의 제목은 과태료, 유료도로법 제18조의 제목은 재정지원입니다.")
    wrong = score_response(ordered, key, "유료도로법 제18조의 제목은 재정지원, 도로법 제18조의 제목은 과태료입니다.")
    assert right.passed is True and (wrong.passed, wrong.method) == (False, "string:items-order")


def test_a_question_asked_both_ways_takes_the_sign_of_the_word():
    spec, key = NUMBER, AnswerKey(display="-3", exact="-3")
    query = "A고등학교는 B고등학교보다 학급이 몇 개 많았나요? 적었다면 얼마나 적었는지 알려 주세요."
    assert score_response(spec, key, "A고등학교가 3개 적었습니다.", query=query).passed is True
    assert score_response(spec, key, "A고등학교가 3개 많았습니다.", query=query).passed is False
    rose, percent = "그날 코스피 지수는 몇 % 오르거나 내렸나요?", AnswerSpec(type="number", value="x", unit="percent")
    assert score_response(percent, key, "3% 내렸습니다.", query=rose).passed is True
    assert score_response(percent, key, "3% 올랐습니다.", query=rose).passed is False


def test_readings_a_blind_writer_found_for_differences_asked_one_way():
    """Answers a helper wrote blind for synthesized questions (round one scored 10 of 60 the wrong way): a
    counter the analyzer reads as an ending (159면 적습니다), 적 read as 적다 'write' (6곳 적어서), a subject
    beside 보다 before another (남안동휴게소가 홍천휴게소보다 주차면이), a name across a middle dot
    (충주시의 학원·교습소), and 더 많이 as the direction asked."""
    key = AnswerKey(display="159", exact="159")
    parking = "A휴게소의 소형차 주차면은 B휴게소보다 몇 면 많나요?"
    assert score_response(NUMBER, key, "A휴게소의 소형차 주차면은 B휴게소보다 159면 많습니다.", query=parking).passed
    assert not score_response(NUMBER, key, "A휴게소의 소형차 주차면은 B휴게소보다 159면 적습니다.", query=parking).passed
    assert score_response(NUMBER, key, "B휴게소가 A휴게소보다 소형차 주차면이 159면 적습니다.", query=parking).passed
    six = AnswerKey(display="6", exact="6")
    jams = "경부선과 서해안선 가운데 덜 막히는 길로 가려고 합니다. 경부선의 서행·정체 구간은 서해안선보다 몇 곳 많나요?"
    assert not score_response(NUMBER, six, "경부선의 서행·정체 구간은 서해안선보다 6곳 적어서 경부선이 덜 막힙니다.",
                              query=jams).passed
    one = AnswerKey(display="1", exact="1")
    rounds = "올해 수산양식기능사 시험은 버섯종균기능사보다 몇 회 더 많이 치러지나요?"
    assert not score_response(NUMBER, one, "수산양식기능사 시험은 버섯종균기능사보다 1회 적게 치러집니다.", query=rounds).passed
    assert score_response(NUMBER, one, "버섯종균기능사 시험이 수산양식기능사보다 한 번 적게 치러집니다.", query=rounds).passed
    seats = AnswerKey(display="1840", exact="1840")
    academies = "충북 청주시 상당구의 학원·교습소 정원 합계는 충주시보다 몇 명 많나요?"
    assert score_response(NUMBER, seats, "충주시의 학원·교습소 정원 합계가 청주시 상당구보다 1840명 적습니다.",
                          query=academies).passed
