"""`kopa bench run --judge-model`: an LLM judge through the same protocol, cached with the run's LLM calls."""

from __future__ import annotations

from kopa.eval.runner import RunConfig, make_judge
from kopa.eval.scoring.response import score_response
from kopa.eval.task import AnswerSpec
from tests.fakes.chat_server import ChatServer, text

SPEC = AnswerSpec(type="judge", value="x", rubric="제38조; 안전조치")


def test_no_judge_model_means_the_offline_judge():
    assert make_judge(RunConfig()) is None  # score_response then falls back to the offline judge
    verdict = score_response(SPEC, "사업주는 안전조치를 하여야 한다", "제38조에 따라 안전조치 의무가 있다")
    assert verdict.passed is True and verdict.method.startswith("judge")


def test_model_judge_decides_and_its_call_is_cached(tmp_path):
    with ChatServer([text("근거가 충분합니다. PASS")]) as server:
        judge = make_judge(RunConfig(judge_model="judge-model", judge_base_url=server.base_url,
                                     llm_cache=str(tmp_path / "cache")))
        verdict = score_response(SPEC, "사업주는 안전조치를 하여야 한다", "안전 의무가 있다", judge)
        assert len(server.requests) == 1
    assert verdict.passed is True and verdict.method == "judge:judge-model"
    replay = make_judge(RunConfig(judge_model="judge-model", judge_base_url="http://127.0.0.1:9/v1",
                                  llm_cache=str(tmp_path / "cache"), llm_mode="replay"))
    again = score_response(SPEC, "사업주는 안전조치를 하여야 한다", "안전 의무가 있다", replay)
    assert again.model_dump() == verdict.model_dump()  # the server is gone; the cache answers
