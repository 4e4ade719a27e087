"""The query writer (seed §5.3): one Korean question per trajectory, from a template chosen by its structure.

`TemplateWriter` (the default) is deterministic: a clause per step — the start with what the user gives,
then each junction worded by its type (SEQ: 그 결과의 X로, FAN: 나온 X 각각에 대해, DRV: the process node's
condition, with its observed pivot) — and the ask worded by the answer type, stating the precision in the
phrase AUTHORING.md requires. It is told the structure and the labels, never an intermediate value, so it
cannot leak one. `ChatWriter` asks an OpenAI-compatible model (through `CachedChatModel`, so a run replays
offline) with a type-specific prompt and the same information.
"""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np
import orjson

from kopa.synth.trajectory import AnswerInfo, JunctionInfo, QueryInput

PRECISION_PHRASE = {0: "정수로 반올림", 1: "소수점 첫째 자리까지", 2: "소수점 둘째 자리까지", 3: "소수점 셋째 자리까지"}
_DIGIT_BATCHIM = {"0": True, "1": True, "2": False, "3": True, "4": False, "5": False, "6": True, "7": True,
                  "8": True, "9": False}


def _batchim(word: str) -> tuple[bool, bool]:
    """(ends in a final consonant, that consonant is ㄹ) for the last readable character of `word`."""
    for ch in reversed(word.strip()):
        if "가" <= ch <= "힣":
            final = (ord(ch) - 0xAC00) % 28
            return final != 0, final == 8
        if ch.isdigit():
            return _DIGIT_BATCHIM[ch], ch in "178"
        if ch.isalpha():
            return ch.lower() in "lmn", ch.lower() == "l"
    return False, False


def josa(word: str, pair: str) -> str:
    """`word` with the particle of `pair` ('을/를', '이/가', '은/는', '으로/로') that its ending takes."""
    final, rieul = _batchim(word)
    with_final, without = pair.split("/")
    if pair == "으로/로":
        return word + ("로" if not final or rieul else "으로")
    if pair == "와/과":
        return word + ("과" if final else "와")
    return word + (with_final if final else without)


def _date(text: str) -> str:
    return f"{text[:4]}년 {int(text[4:6])}월 {int(text[6:8])}일" if re.fullmatch(r"\d{8}", text) else text


class QueryWriter(Protocol):
    name: str

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str: ...


class TemplateWriter:
    """Deterministic Korean templates per structure pattern and answer type."""

    name = "template"
    THEN = ("조회하고", "조회한 뒤", "찾은 다음")

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        text = self._write(spec, rng)
        # a real-time answer is reproducible only at a fixed time: the injected date, stated
        return f"{spec.as_of} 기준으로, {text}" if spec.as_of else text

    def _write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        given: dict[str, list[str]] = {}
        for lit in spec.literals:
            given.setdefault(lit.step, []).append(f"{lit.label} {_date(lit.value) if _is_day(lit.param) else lit.value}")
        first = given.get("s1")
        clauses = [f"{', '.join(first) + ' 조건으로 ' if first else ''}{josa(spec.titles['s1'], '을/를')}"]
        for j in spec.junctions:
            extra = given.get(j.target)
            condition = f"({', '.join(extra)} 기준) " if extra else ""
            clauses.append(f"{self._junction(j)} {condition}{josa(spec.titles[j.target], '을/를')}")
        if spec.block is None:
            verbs = [self._then(rng) for _ in clauses[:-1]] + ["조회했을 때"]
            text = ", ".join(f"{c} {v}" for c, v in zip(clauses, verbs, strict=True))
            return f"{text}, {self._ask(spec.answer, spec.titles)}"
        text = ", ".join(f"{c} {self._then(rng)}" for c in clauses)
        block_given = [g for step in spec.block.steps for g in given.get(step, [])]
        condition = f"({', '.join(dict.fromkeys(block_given))} 기준) " if block_given else ""
        return f"{text}, {self._block(spec, condition)}"

    def _block(self, spec: QueryInput, condition: str) -> str:
        b, a = spec.block, spec.answer
        assert b is not None
        precision = f" ({PRECISION_PHRASE[a.precision]})" if a.precision else ""
        of = "그 결과 첫 번째 항목의" if b.first_record else "그 결과의"
        if b.kind == "SEM":
            head = (f"{of} {josa(b.fields[0], '으로/로')} {b.titles[0]}, {josa(b.fields[1], '으로/로')} "
                    f"{josa(b.titles[1], '을/를')} {condition}함께 조회했을 때, ")
            if a.kind == "facts":
                return head + (f"{b.titles[0]}의 {josa(a.label or '', '와/과')} {b.titles[1]}의 "
                               f"{josa(a.by_label or '', '은/는')} 각각 무엇인가?")
            return head + "두 조회 결과는 모두 몇 건인가?"
        if b.kind == "CMP":
            head = (f"그 결과의 첫 번째와 두 번째 {b.fields[0]}에 대해 각각 {josa(b.titles[0], '을/를')} {condition}"
                    f"조회해 {josa(b.quantity or '', '을/를')} 비교했을 때, ")
            if a.kind == "argmax":
                return head + f"{josa(b.quantity or '', '이/가')} 더 큰 쪽의 {josa(a.label or '', '은/는')} 무엇인가?"
            return head + (f"첫 번째의 {b.quantity}에서 두 번째의 {josa(b.quantity or '', '을/를')} 빼면 "
                           f"얼마인가?{precision}")
        head = (f"{of} {josa(b.quantity or '', '이/가')} {b.threshold} 이상이면 {josa(b.fields[0], '으로/로')} "
                f"{josa(b.titles[0], '을/를')}, 아니면 {josa(b.fields[1], '으로/로')} {josa(b.titles[1], '을/를')} "
                f"{condition}조회했을 때, ")
        if a.kind == "count":  # not the taken branch's title: that would tell which branch the condition chose
            return head + "조회된 결과는 모두 몇 건인가?"
        return head + self._ask(a, spec.titles)

    def _then(self, rng: np.random.Generator) -> str:
        return self.THEN[int(rng.integers(len(self.THEN)))]

    @staticmethod
    def _junction(j: JunctionInfo) -> str:
        if j.kind == "SEQ":
            return f"그 결과의 {josa(j.field_label, '으로/로')}"
        if j.kind == "FAN":
            return f"나온 {j.field_label} 각각에 대해"
        pivot, label = j.pivot or "", j.pivot_label or ""
        if j.process == "max":
            return f"그중 {josa(label, '이/가')} 가장 큰 항목의 {josa(j.field_label, '으로/로')}"
        if j.process == "min":
            return f"그중 {josa(label, '이/가')} 가장 작은 항목의 {josa(j.field_label, '으로/로')}"
        if j.process == "mode":
            return f"그중 가장 많이 나오는 {josa(j.field_label, '으로/로')}"
        condition = {"ge": f"{pivot} 이상인", "le": f"{pivot} 이하인", "eq": f"'{pivot}'인",
                     "after": f"{_date(pivot)}보다 뒤인"}[j.process or "eq"]
        return f"그중 {josa(label, '이/가')} {condition} 항목들의 {j.field_label} 각각에 대해"

    @staticmethod
    def _ask(a: AnswerInfo, titles: dict[str, str]) -> str:
        label = a.label or ""
        precision = f" ({PRECISION_PHRASE[a.precision]})" if a.precision else ""
        if a.kind == "field":
            return (f"{josa(label, '은/는')} 얼마인가?{precision}" if a.number
                    else f"{josa(label, '은/는')} 무엇인가?")
        if a.kind == "count":
            return f"조회된 {titles[a.step]} 결과는 모두 몇 건인가?"
        if a.kind == "sum":
            return f"{label}의 합계는 얼마인가?{precision}"
        if a.kind == "max":
            return f"{label}의 최댓값은 얼마인가?{precision}"
        if a.kind == "argmax":
            return f"{josa(a.by_label or '', '이/가')} 가장 큰 항목의 {josa(label, '은/는')} 무엇인가?"
        return f"나온 {josa(label, '을/를')} 모두 나열하라."


def _is_day(param: str) -> bool:
    """Date parameters as the services name them (bgn_de, endBasDt, MEETTING_DATE)."""
    return re.search(r"(?:_de|Dt|_DT|DATE|_dt|Date)$", param) is not None


SYSTEM_PROMPT = (
    "당신은 한국 공공 API 도구 사용 데이터셋의 질의 작성자입니다. 주어진 도구 호출 구조(trajectory)를 사용자가 "
    "자연스럽게 물을 한국어 질문 한 문장으로 바꾸세요. 규칙: (1) 사용자가 주는 값(given)만 질문에 쓰고, 중간 결과로 "
    "얻는 코드나 값, 정답은 절대 쓰지 마세요. (2) 구조 유형을 반영하세요: SEQ는 앞 결과의 단일 값을 넘기고, FAN은 "
    "나온 값 각각에 대해 조회하며, DRV는 조건(최대·최소·이상·이하·같음·이후)으로 고른 항목만 넘깁니다. (3) 숫자 "
    "정답에 precision이 있으면 '(소수점 둘째 자리까지)'처럼 정확히 그 표현을 쓰세요. (4) 한자나 외국 문자를 쓰지 "
    "마세요. 질문 문장만 출력하세요.")


class ChatWriter:
    """An OpenAI-compatible query writer (wrap the model in `CachedChatModel` to record and replay)."""

    name = "chat"

    def __init__(self, model, fallback: QueryWriter | None = None) -> None:
        self.model = model
        self.fallback = fallback or TemplateWriter()

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        structure = {
            "type": spec.pattern,
            "as_of": spec.as_of,
            "given": [{"label": x.label, "value": x.value, "step": x.step} for x in spec.literals],
            "steps": [{"step": k, "tool": v} for k, v in sorted(spec.titles.items())],
            "junctions": [{"type": j.kind, "from": j.source, "to": j.target, "field": j.field_label,
                           "process": j.process, "condition_field": j.pivot_label, "pivot": j.pivot}
                          for j in spec.junctions],
            "answer": {"kind": spec.answer.kind, "field": spec.answer.label, "by": spec.answer.by_label,
                       "precision": PRECISION_PHRASE.get(spec.answer.precision or -1)},
        }
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": orjson.dumps(structure).decode()}]
        reply = self.model.complete(messages, temperature=0.0)
        text = (reply.content or "").strip().splitlines()[0].strip() if reply.content else ""
        return text or self.fallback.write(spec, rng)
