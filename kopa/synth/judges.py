"""Stage 2's model judges (seed §5.4): answer-leaking and decorative chains drop a task only when two
independent judges agree.

The offline checks of `kopa.synth.filters` are exact (a string check against every intermediate value;
perturbation, re-executed), so they drop on their own. A model judge finds what they cannot: a paraphrased
leak (the query names the entity whose code the chain looks up, or describes the answer), a step that only
looks necessary. Such judges are noisy, which is why the paper asks two of them to agree. The pair is two
models (`--role judge=A,B`) or, with one model, two framings of the question (Korean and English, the
evidence in another order), each its own request in the replayable cache.

A judge sees the query, the chain (tool titles and the arguments as the golden trajectory writes them, with
the values each step really handed on) and the derived answer; it answers a JSON object
`{"verdict": "yes" | "no", "reason": "…"}`. A reply that is not such an object is an abstention, counted
apart: it never drops a task.
"""

from __future__ import annotations

import re
from typing import Literal

import orjson
from pydantic import BaseModel

from kopa.llm.client import ChatModel
from kopa.synth.candidate import Candidate
from kopa.synth.handoffs import intermediate_values

Question = Literal["leak", "decorative"]
Verdict = Literal["yes", "no", "abstain"]
_OBJECT = re.compile(r"\{.*\}", re.S)

_PROMPTS: dict[tuple[Question, int], str] = {
    ("leak", 0): (
        "당신은 도구 호출 학습 데이터의 검수자입니다. 아래 질문(query)이 정답(answer)이나, 체인이 도구 호출로 "
        "찾아야 하는 중간 값(intermediate values: 코드, 식별자, 이름)을 직접 말하거나 사실상 알려 주는지 "
        "판단하세요. 질문에 주어진 조건(given)은 누설이 아닙니다. JSON 객체 하나로만 답하세요: "
        '{"verdict": "yes" 또는 "no", "reason": "한 문장"}'),
    ("leak", 1): (
        "You review training data for tool-calling agents. Decide whether the user question gives away the "
        "final answer, or a value the tool chain is supposed to look up (a code, an identifier, a name), "
        "directly or by an unmistakable paraphrase. Conditions the question is meant to state (given) are "
        'not leaks. Reply with one JSON object only: {"verdict": "yes" or "no", "reason": "one sentence"}'),
    ("decorative", 0): (
        "당신은 도구 호출 학습 데이터의 검수자입니다. 아래 체인(steps)에서 결과가 정답(answer)에 영향을 주지 "
        "않는 호출, 즉 빼도 같은 답이 나오는 장식적인 단계가 있는지 판단하세요. 각 단계가 다음 단계에 넘긴 "
        "값(handed)을 보고 판단하세요. JSON 객체 하나로만 답하세요: "
        '{"verdict": "yes" 또는 "no", "reason": "한 문장"}'),
    ("decorative", 1): (
        "You review training data for tool-calling agents. Decide whether the tool chain contains a "
        "decorative call: a step whose result does not constrain the final answer, so that removing it "
        "would leave the same answer. Use the values each step handed on (handed). Reply with one JSON "
        'object only: {"verdict": "yes" or "no", "reason": "one sentence"}'),
}


class JudgeVote(BaseModel):
    verdict: Verdict
    reason: str


def evidence(candidate: Candidate, framing: int) -> dict:
    """What a judge is shown: never more than the dataset itself holds."""
    handed = {j.target: j.passed for j in candidate.junctions}
    steps = [{"step": s.id, "tool": candidate.titles.get(s.id, s.call or "(parallel)"), "arguments": s.args,
              "handed": handed.get(s.id)} for s in candidate.task.golden]
    body = {"query": candidate.task.query, "given": [x.value for x in candidate.literals], "steps": steps,
            "intermediate_values": intermediate_values(candidate),
            "answer": candidate.target.key.display if candidate.target.key else None}
    if framing == 1:  # the other judge reads the evidence in another order: answer and chain first
        body = {k: body[k] for k in ("answer", "steps", "intermediate_values", "given", "query")}
    return body


def parse_vote(text: str | None) -> JudgeVote:
    """The reply's JSON object, read as data (never run); anything else abstains."""
    found = _OBJECT.search(text or "")
    if found is None:
        return JudgeVote(verdict="abstain", reason="no JSON object in the reply")
    try:
        data = orjson.loads(found.group(0))
    except orjson.JSONDecodeError:
        return JudgeVote(verdict="abstain", reason="the reply's object is not JSON")
    verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
    if verdict not in ("yes", "no"):
        return JudgeVote(verdict="abstain", reason=f"verdict {verdict!r} is neither yes nor no")
    return JudgeVote(verdict=verdict, reason=str(data.get("reason", ""))[:300])


class ModelJudge:
    """One judge: a chat model and a framing (0 Korean, 1 English)."""

    def __init__(self, model: ChatModel, framing: int) -> None:
        self.model = model
        self.framing = framing

    def vote(self, question: Question, candidate: Candidate) -> JudgeVote:
        messages = [{"role": "system", "content": _PROMPTS[(question, self.framing)]},
                    {"role": "user", "content": orjson.dumps(evidence(candidate, self.framing)).decode()}]
        return parse_vote(self.model.complete(messages, temperature=0.0).content)


def judge_pair(models: list[ChatModel]) -> tuple[ModelJudge, ModelJudge]:
    """Two independent judges: two models, or one model asked in two framings."""
    if not 1 <= len(models) <= 2:
        raise ValueError("Stage 2 takes one or two judge models")
    second = models[1] if len(models) == 2 else models[0]
    return ModelJudge(models[0], 0), ModelJudge(second, 1)


def agreed(judges: tuple[ModelJudge, ModelJudge], question: Question, candidate: Candidate
           ) -> tuple[bool, list[JudgeVote]]:
    """(whether both judges say yes, their votes)."""
    votes = [j.vote(question, candidate) for j in judges]
    return all(v.verdict == "yes" for v in votes), votes
