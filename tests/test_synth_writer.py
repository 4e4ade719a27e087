"""The walk's query writer: an OpenAI-compatible model (a fake one stands in for the server) puts a walk on G*
into words through the replayable LLM cache, with the intent bank's questions as examples of the register;
a walk the model writes nothing for is not kept — offline, no wording stands in for it."""

from __future__ import annotations

import numpy as np
import pytest

from kopa.bank.model import load_bank
from kopa.llm.cache import CachedChatModel, CacheMiss
from kopa.llm.client import ChatReply
from kopa.synth.candidate import AnswerInfo, JunctionInfo, Literal_, QueryInput
from kopa.synth.query import ChatWriter


def _spec(**extra) -> QueryInput:
    junction = JunctionInfo(kind="DRV", source="s1", target="s2", source_tool="a", target_tool="b", field="code",
                            param="code", field_label="종목코드", cardinality=40, records=40, total=40,
                            process="ge", pivot_field="vol", pivot_label="거래량", pivot="1000",
                            passed=["A000111", "A000222"])
    fields = {"pattern": "DRV", "junctions": [junction], "subjects": {"s1": "코스닥 일별매매", "s2": "기업개황"},
              "literals": [Literal_(step="s1", param="basDt", label="기준일자", value="20260130",
                                    phrase="2026년 1월 30일")],
              "answer": AnswerInfo(kind="sum", step="s2", field="amt", label="매출액", precision=2, number=True)}
    return QueryInput(**{**fields, **extra})


class _Fake:
    model = "fake-writer"

    def __init__(self, content: str | None) -> None:
        self.content = content
        self.calls = 0
        self.messages: list = []

    def request_params(self, params):
        return dict(params)

    def complete(self, messages, tools=None, **params):
        self.calls += 1
        self.messages = messages
        return ChatReply(content=self.content)


def test_the_model_is_shown_the_structure_and_the_bank_s_questions_never_a_handed_value():
    fake = _Fake("2026년 1월 30일 거래량이 1,000주 이상인 종목들의 매출액을 모두 더하면 얼마인가요?")
    ChatWriter(fake).write(_spec(), np.random.default_rng(0))
    system, user = fake.messages[0]["content"], fake.messages[1]["content"]
    assert "구조" in system and "A000111" not in user and "2026년 1월 30일" in user
    drv = [i for i in load_bank() if i.pattern == "DRV"]
    assert drv and "예시" in system and f"({drv[0].pattern})" in system  # examples of the walk's own type first
    assert "<" not in system.split("예시", 1)[1]  # slots are shown as [slot], never as template syntax


def test_the_model_writer_replays_from_its_cache(tmp_path):
    fake = _Fake("거래량 1,000주 이상 종목들의 매출액 합계는 얼마인가요? (소수점 둘째 자리까지)")
    writer = ChatWriter(CachedChatModel(fake, tmp_path))
    first = writer.write(_spec(), np.random.default_rng(0))
    assert first == fake.content and fake.calls == 1
    replay = ChatWriter(CachedChatModel(_Fake(None), tmp_path, mode="replay"))
    assert replay.write(_spec(), np.random.default_rng(0)) == first
    with pytest.raises(CacheMiss):
        ChatWriter(CachedChatModel(_Fake(None), tmp_path / "empty", mode="replay")).write(_spec(),
                                                                                        np.random.default_rng(0))


def test_an_empty_model_reply_writes_nothing(tmp_path):
    assert ChatWriter(CachedChatModel(_Fake(""), tmp_path)).write(_spec(), np.random.default_rng(0)) == ""
