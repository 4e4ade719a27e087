"""The walk's query writer (seed §5.3): an OpenAI-compatible model turns a trajectory walked on G* into one
Korean question, through `CachedChatModel` so a run replays offline.

Offline synthesis never verbalizes a walk: it starts from the intent bank (`kopa.synth.intents`), whose
questions are written by hand. A walk — a path on G* that matches no intent — is put into words only by a
model (`kopa edge synth --writer chat`), which is shown the walk's structure (never an intermediate value)
and, as examples of the register, the bank's own questions of the same type.
"""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np
import orjson

from kopa.bank.model import Intent, load_bank
from kopa.korean.sentence import PLACEHOLDER
from kopa.synth.candidate import QueryInput

PRECISION_PHRASE = {0: "정수로 반올림", 1: "소수점 첫째 자리까지", 2: "소수점 둘째 자리까지", 3: "소수점 셋째 자리까지"}
EXAMPLES = 4  # the bank's questions shown to the model, of the walk's type first


class QueryWriter(Protocol):
    name: str

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str: ...


SYSTEM_PROMPT = (
    "당신은 한국 공공 API 도구 사용 데이터셋의 질의 작성자입니다. 주어진 도구 호출 구조(trajectory)를 사용자가 "
    "자연스럽게 물을 한국어 질문 한 문장으로 바꾸세요. 규칙: (1) 사용자가 주는 값(given)만 그 표현(says) 그대로 "
    "질문에 쓰고, 중간 결과로 얻는 코드나 값, 정답은 절대 쓰지 마세요. 도구 이름, 필드 이름, 페이지·건수 같은 "
    "호출 인자, 'n번째 항목'은 쓰지 말고 사람이 부르는 이름으로 물으세요. (2) 구조 유형을 반영하세요: SEQ는 앞 결과의 단일 값을 넘기고, FAN은 "
    "나온 값 각각에 대해 조회하며, DRV는 조건(최대·최소·이상·이하·같음·이후)으로 고른 항목만 넘깁니다. (3) 숫자 "
    "정답에 precision이 있으면 '(소수점 둘째 자리까지)'처럼 정확히 그 표현을 쓰세요. (4) 한자나 외국 문자를 쓰지 "
    "마세요. 질문 문장만 출력하세요.")


class ChatWriter:
    """An OpenAI-compatible query writer (wrap the model in `CachedChatModel` to record and replay)."""

    name = "chat"

    def __init__(self, model, bank: tuple[Intent, ...] | None = None) -> None:
        self.model = model
        self.bank = bank if bank is not None else load_bank()

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        structure = {
            "type": spec.pattern,
            "as_of": spec.as_of,
            "given": [{"step": x.step, "says": x.phrase, "part_of_name": x.contains} for x in spec.literals],
            "steps": [{"step": k, "answers": v} for k, v in sorted(spec.subjects.items())],
            "junctions": [{"type": j.kind, "from": j.source, "to": j.target, "field": j.field_label,
                           "process": j.process, "condition_field": j.pivot_label, "pivot": j.pivot}
                          for j in spec.junctions],
            # a template: what its calls answer, the source fields they take, what it compares or tests
            "block": None if spec.block is None else {
                "type": spec.block.kind, "from": spec.block.source, "steps": spec.block.steps,
                "answers": spec.block.subjects, "takes": spec.block.fields, "looked_up_in": spec.block.lookup,
                "quantity": spec.block.quantity, "condition": None if spec.block.threshold is None
                else f"{spec.block.quantity} >= {spec.block.threshold}"},
            "answer": {"kind": spec.answer.kind, "field": spec.answer.label, "by": spec.answer.by_label,
                       "precision": PRECISION_PHRASE.get(spec.answer.precision or -1)},
        }
        messages = [{"role": "system", "content": SYSTEM_PROMPT + _examples(self.bank, spec.pattern)},
                    {"role": "user", "content": orjson.dumps(structure).decode()}]
        reply = self.model.complete(messages, temperature=0.0)
        # "" when the model wrote nothing: the walk is not kept (no offline wording stands in for it)
        return (reply.content or "").strip().splitlines()[0].strip() if reply.content else ""


def _bracketed(match: re.Match[str]) -> str:
    return f"[{match['name']}]"


def _examples(bank: tuple[Intent, ...], pattern: str) -> str:
    """The bank's questions of the walk's type (then of others) as examples, a slot shown as [slot]."""
    kinds = pattern.split("+")
    category = kinds[0] if len(kinds) == 1 else "MIXED"
    ordered = sorted(bank, key=lambda i: (i.category != category, i.id))
    lines = [f"- ({i.pattern}) {PLACEHOLDER.sub(_bracketed, i.asks[0].q)}" for i in ordered[:EXAMPLES]]
    return "\n예시 (사람이 실제로 묻는 질문, [ ]는 채워질 값):\n" + "\n".join(lines) if lines else ""

