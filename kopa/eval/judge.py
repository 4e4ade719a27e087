"""Judges for RESPONSE answers that string rules cannot settle (open-ended answers, e.g. the Law domain).

A judge returns a :class:`~kopa.eval.scoring.response.ResponseVerdict` whose ``passed`` is ``None`` when it
cannot decide; the episode scorer counts that as not passed and says why.

- :class:`OfflineJudge` is deterministic (CI, offline baselines): rubric key phrases present or absent.
- :class:`LLMJudge` asks a model through any ``complete(messages) -> text`` callable (the episode loop's
  OpenAI-compatible client, cached and replayable like every LLM call) and reads a one-word verdict.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Protocol

from kopa.eval.scoring.response import ResponseVerdict, normalise_text

__all__ = ["Judge", "LLMJudge", "OfflineJudge", "rubric_phrases"]

_PHRASE_SPLIT = re.compile(r"[;·\n\r]+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


class Judge(Protocol):
    def judge(self, query: str, rubric: str | None, target: str, answer: str) -> ResponseVerdict: ...


def rubric_phrases(rubric: str | None) -> list[str]:
    """Key phrases of a rubric: split on ';', '·' and newlines after NFKC; bullets and blanks dropped."""
    if not rubric:
        return []
    text = unicodedata.normalize("NFKC", rubric)
    phrases = (_BULLET.sub("", part).strip() for part in _PHRASE_SPLIT.split(text))
    return [p for p in phrases if normalise_text(p)]


class OfflineJudge:
    """Deterministic: every key phrase present → pass, none present → fail, some present → undecided.

    Without a rubric the target itself is the one key phrase. Presence is tested on normalised text
    (NFKC, casefold, punctuation and whitespace folded), the same normalisation as string answers.
    """

    def judge(self, query: str, rubric: str | None, target: str, answer: str) -> ResponseVerdict:
        phrases = rubric_phrases(rubric) or ([target] if normalise_text(target) else [])
        if not phrases:
            return ResponseVerdict(passed=None, method="judge:undecided", details="no rubric and no target")
        normal = normalise_text(answer)
        present = [p for p in phrases if normalise_text(p) in normal]
        missing = [p for p in phrases if normalise_text(p) not in normal]
        if not missing:
            return ResponseVerdict(passed=True, method="judge:offline",
                                   details=f"all {len(phrases)} key phrases present")
        if not present:
            return ResponseVerdict(passed=False, method="judge:offline",
                                   details=f"none of {len(phrases)} key phrases present: {missing[:5]}")
        return ResponseVerdict(
            passed=None, method="judge:undecided",
            details=f"{len(present)}/{len(phrases)} key phrases present; missing {missing[:5]} — "
                    "a partial answer needs a model judge")


_VERDICT = re.compile(r"\b(PASS|FAIL)\b")
_PROMPT = """당신은 한국 공공데이터 질의응답의 채점자입니다. 모델 답변이 기준(rubric)과 정답에 비추어 올바른지 판정하세요.
질문: {query}
기준: {rubric}
정답: {target}
모델 답변: {answer}
마지막 줄에 PASS 또는 FAIL 한 단어만 쓰세요."""


class LLMJudge:
    """A model judge through the same LLM protocol as the agent: ``model`` is a ``kopa.llm`` ChatModel
    (``complete(messages) -> ChatReply``; cached and replayable like every LLM call) or a plain callable
    ``messages -> text``. The verdict is the last PASS/FAIL in the reply; none is undecidable."""

    def __init__(self, model: Any, name: str | None = None) -> None:
        self.model = model
        self.name = name or getattr(model, "model", "llm")

    def _ask(self, messages: list[dict[str, str]]) -> str:
        if hasattr(self.model, "complete"):
            return self.model.complete(messages).content or ""
        return str(self.model(messages))

    def judge(self, query: str, rubric: str | None, target: str, answer: str) -> ResponseVerdict:
        prompt = _PROMPT.format(query=query, rubric=rubric or "(정답과 의미가 같을 것)", target=target,
                                answer=answer)
        reply = self._ask([{"role": "user", "content": prompt}])
        found = _VERDICT.findall(reply.upper())
        if not found:  # an unparseable reply is undecidable, never a guess
            return ResponseVerdict(passed=None, method="judge:undecided",
                                   details=f"{self.name}: no PASS/FAIL in reply {reply[-200:]!r}")
        return ResponseVerdict(passed=found[-1] == "PASS", method=f"judge:{self.name}",
                               details=reply.strip()[-300:])
