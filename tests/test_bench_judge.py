"""`kopa bench run --role judge=MODEL[@URL]`: an LLM judge through the same protocol, cached with the run's LLM calls."""

from __future__ import annotations

from kopa.eval.runner import RunConfig, make_judge
from kopa.eval.scoring.response import score_response
from kopa.eval.task import AnswerKey, AnswerSpec, Rubric, RubricFact
from tests.fakes.chat_server import ChatServer, text

SPEC = AnswerSpec(type="judge", value="x")
KEY = AnswerKey(display="사업주는 산업안전보건법 제38조에 따라 안전조치를 하여야 한다",
                rubric=Rubric(facts=[RubricFact(fact="근거는 산업안전보건법 제38조", forms=["제38조"]),
                                     RubricFact(fact="사업주의 안전조치 의무", forms=["안전조치"])],
                              wrong=["제39조"]))


def test_no_judge_model_means_the_offline_judge():
    assert make_judge(RunConfig()) is None  # score_response then falls back to the offline judge
    verdict = score_response(SPEC, KEY, "제38조에 따라 안전조치 의무가 있다")
    assert (verdict.passed, verdict.method) == (True, "judge:offline")
    paraphrase = score_response(SPEC, KEY, "안전 의무가 있다")  # no form of either fact: the offline judge fails
    assert (paraphrase.passed, paraphrase.method) == (False, "judge:offline")


def test_model_judge_decides_and_its_call_is_cached(tmp_path):
    with ChatServer([text("근거가 충분합니다. PASS")]) as server:
        judge = make_judge(RunConfig(judge_model="judge-model", judge_base_url=server.base_url,
                                     llm_cache=str(tmp_path / "cache")))
        verdict = score_response(SPEC, KEY, "안전 의무가 있다", judge, query="사업주의 의무는?")
        assert len(server.requests) == 1
        prompt = server.requests[0]["messages"][0]["content"]
    assert verdict.passed is True and verdict.method == "judge:judge-model"
    # The model sees the same rubric as the offline judge: numbered facts, accepted and wrong forms.
    assert "1. 근거는 산업안전보건법 제38조" in prompt and "「제38조」" in prompt and "「제39조」" in prompt
    assert "질문: 사업주의 의무는?" in prompt and f"참조 정답: {KEY.display}" in prompt
    replay = make_judge(RunConfig(judge_model="judge-model", judge_base_url="http://127.0.0.1:9/v1",
                                  llm_cache=str(tmp_path / "cache"), llm_mode="replay"))
    again = score_response(SPEC, KEY, "안전 의무가 있다", replay, query="사업주의 의무는?")
    assert again.model_dump() == verdict.model_dump()  # the server is gone; the cache answers


def test_model_judge_settles_string_answers_the_rules_cannot(tmp_path):
    spec = AnswerSpec(type="string", value="x")
    key = AnswerKey(display="반대")
    with ChatServer([text("다른 후보를 함께 나열했습니다.\nFAIL")]) as server:
        judge = make_judge(RunConfig(judge_model="judge-model", judge_base_url=server.base_url))
        verdict = score_response(spec, key, "반대와 기권", judge)
        prompt = server.requests[0]["messages"][0]["content"]
    assert (verdict.passed, verdict.method) == (False, "string:judge:judge-model")
    assert "정답 하나를 묻습니다" in prompt and "「반대」" in prompt  # strict mode, the automatic rubric
