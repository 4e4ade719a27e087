"""The generator role: `{query, answers: [{name, arguments}]}` in Korean, as raw text for the format checker.

`TemplateGenerator` (offline, deterministic) writes a Korean query as a person asks it, from the hand-written
asks of `kopa.apigen.asks`: about something specific — a place, a person with their role, a school, a company,
a law, a bill with its number — or for a whole set that means something by itself; what the person wants to
know, never a dataset's label; never a system's internal ID (a tool that takes only one is not drawn). A
sample of one tool asked about several subjects lists them once ("강순영, 도진빈 의원의 SNS 계정"); a sample of
two tools asks both about the same subjects in one sentence ("경기도 가평군, 고양시의 주차장과 약국"), and an
opener, where the prompt wants one, is a motive that fits what is asked (`asks.OPENERS`, by theme). Every
argument is drawn from what the backend has returned (`ValueCache`: the tool's own answers, and at
GUESS_RATE a value another tool returned for a subject of the same kind), enums, documented defaults and the
virtual today — it invents nothing, so what fails verification fails on the backend's own terms. Verified
examples feed back: a prompt with examples reuses the sentence shape of the first one half the time. The
prompt's difficulty (values with their labels, or in running text) is an instruction to a chat model.
`ChatGenerator` asks an OpenAI-compatible model (temperature 0.7 by default, the seed's) with the style's
prompt, the sampled tools and the few-shot examples; wrap the model in `CachedChatModel` and a run replays
offline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import orjson

from kopa.apigen.asks import OPENERS, Ask
from kopa.apigen.book import AskBook, is_question
from kopa.apigen.record import XRecord, catalog_tool, tool_json
from kopa.apigen.sampler import Prompt
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import (
    SHAPES,
    TWO_THINGS,
    one_ask,
    pick,
    statable,
    subject_of,
    two_asks,
    with_subject,
)
from kopa.catalog.models import Tool
from kopa.catalog.view import param_view
from kopa.edge.plan import is_generic
from kopa.korean.dates import DAY
from kopa.korean.sentence import fill, placeholders
from kopa.korean.vocabulary import param_label
from kopa.llm.client import ChatModel

GENERATION_TEMPERATURE = 0.7  # the seed's
# Share of one-tool samples in which one subject is a guess — a value another tool returned (for a subject of
# the same kind where the tool answers for any, else under the same parameter name) instead of one the tool
# itself returned: the guesses a model makes from what it has seen, which stage 2 and 3 are there to catch.
GUESS_RATE = 0.3
# Of prompts with a verified example, the share that reuse its sentence shape: always reusing it, the first chunk's
# few shapes would take over the run (an urn that never draws a fresh ball); half the time a fresh one is drawn.
FEEDBACK_SHARE = 0.5
WHOLE_SHARE = 0.25  # of one-tool asks that could be about a subject or of the whole set, those of the whole set
KIND_SHARE = 0.35  # of asks with a kind that changes what is asked ('공영 주차장'), those that state one
ALONE_SHARE = 0.5  # of one-tool asks about a subject, those worded as the ask reads on its own


@dataclass
class Generated:
    raw: str  # what the generator wrote: the format checker parses it
    notes: dict[str, Any] = field(default_factory=dict)  # provenance: the sentence shape, the mentions it wrote


class Generator(Protocol):
    name: str

    def generate(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord],
                 rng: np.random.Generator) -> Generated: ...


# ------------------------------------------------------------------------------------------ offline

@dataclass
class _Part:
    """One tool's share of a query: the arguments every call of it sends, what is asked, the values stated
    before the subject (a term, a day: '제22대 국회'), and what each stated value is called."""

    tool: Tool
    ask: Ask
    args: dict[str, Any]
    what: str
    lead: list[str]
    said: list[tuple[str, Any, str]]  # (parameter, value, phrase)


class TemplateGenerator:
    name = "template"

    def __init__(self, cache: ValueCache, today: str, guess_rate: float = GUESS_RATE) -> None:
        self.cache = cache
        self.day = today.replace("-", "")
        self.guess_rate = guess_rate
        self.book = AskBook(cache, self.day, guess_rate)  # the sampler draws only the tools it words

    # ------------------------------------------------------------ the calls

    def _part(self, tool: Tool, rng: np.random.Generator, slots: Collection[str] = ()) -> _Part:
        """What every call of the tool sends besides its subject (or the slots a whole-set template fills):
        a kind that changes what is asked, at KIND_SHARE; each other required argument, stated before the
        subject where it has a phrase ('2026년 1월 30일 기준', '제22대 국회'), else sent at its default; a
        parameter the ask sends with another's value."""
        ask = self.book.ask(tool) or Ask(what=subject_of(tool))
        subject = self.book.subject(tool)
        args: dict[str, Any] = {}
        lead: list[str] = []
        said: list[tuple[str, Any, str]] = []
        what = ask.what
        if ask.kinds is not None and (ask.always or rng.random() < KIND_SHARE):
            param, variants = ask.kinds
            p = tool.spec.param(param)
            options = [v for v in (p.enum or []) if v in variants]
            if options:
                value = pick(options, rng)
                args[param], what = value, variants[value]
        for p in tool.spec.params:
            if not p.required or p.name in args or p.name in slots or p.name in ask.same \
                    or (subject is not None and p.name == subject.name):
                continue
            drawn = self.book.draw(tool, p, rng)
            if drawn is None:
                continue
            args[p.name] = drawn.value
            if drawn.phrase is not None and not is_generic(param_view(p)) and not p.paging:
                phrase = f"{drawn.phrase} 기준" if DAY.match(str(drawn.value)) else drawn.phrase
                lead.append(phrase)
                said.append((p.name, drawn.value, phrase))
        return _Part(tool, ask, args, what, lead, said)

    def _same(self, part: _Part) -> None:
        """A parameter the ask sends with another's value (a range of one day, said once)."""
        for name, other in part.ask.same.items():
            if other in part.args:
                part.args[name] = part.args[other]

    # ------------------------------------------------------------ the query

    def _whole(self, tool: Tool, template: str, rng: np.random.Generator) -> tuple[str, _Part]:
        """The ask of the whole set: the template with each slot's value said."""
        slots = list(dict.fromkeys(name for name, _ in placeholders(template)))  # in order: the same draws each run
        part = self._part(tool, rng, slots)
        filled: dict[str, dict[str, str]] = {}
        for name in slots:
            p = tool.spec.param(name)
            drawn = self.book.draw(tool, p, rng)
            assert drawn is not None and drawn.phrase is not None  # `wholes` keeps fillable templates only
            part.args[name] = drawn.value
            filled[name] = {"say": drawn.phrase}
            part.said.append((name, drawn.value, drawn.phrase))
        self._same(part)
        text = fill(template, filled)
        return (f"{' '.join(part.lead)} {text}" if part.lead else text), part

    def _subject_ask(self, part: _Part, about: str, shape: int, rng: np.random.Generator) -> str:
        """One ask about the subject(s): as the ask reads on its own, half the time, else '<subject>의 <what>'
        in a frame."""
        ask = part.ask
        alone = [a for a in ask.alone if "<s" in a]
        if ask.places and part.what == ask.what:
            alone.append(f"<s>에 있는 {part.what}")
        if part.what != ask.what:  # a kind stated: what is asked is the kind's ('공영 주차장')
            alone = [f"<s>에 있는 {part.what}"] if ask.places else []
        head = f"{' '.join(part.lead)} " if part.lead else ""
        if alone and (ask.alone_only or rng.random() < ALONE_SHARE):
            template = pick(alone, rng)
            text = with_subject(template, f"{head}{about}")
            if is_question(template):
                return text
            return one_ask(text, shape, fact=ask.fact, places=ask.places)
        return one_ask(f"{head}{about}의 {part.what}", shape, fact=ask.fact, places=ask.places)

    def generate(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord],
                 rng: np.random.Generator) -> Generated:
        shape = int(rng.integers(SHAPES))
        if examples and isinstance(examples[0].provenance.get("shape"), int) and rng.random() < FEEDBACK_SHARE:
            shape = examples[0].provenance["shape"]  # feedback: the sentence shape of a verified example
        self.book.index(tools)
        first = tools[0]
        calls: list[dict[str, Any]] = []
        stated: list[tuple[int, str, Any, str]] = []  # (call, parameter, value, phrase) as the query says them
        subject_phrases: list[tuple[str, str, list[str]]] = []  # (parameter, value, phrases) of each subject
        pair = prompt.style == "parallel_multiple" and len(tools) >= 2 and self.book.pairs(first, tools[1])
        count = 2 if pair else 2 + int(rng.integers(2)) if prompt.style == "parallel" else 1
        wholes = self.book.wholes(first)
        about = self.book.about(first)
        if not about and not wholes:  # a tool the book does not word (the sampler never draws one): its list
            part = self._part(first, rng)
            self._same(part)
            query = one_ask(f"{' '.join([*part.lead, part.what])} 목록", shape)
            calls.append({"name": first.name, "arguments": part.args})
            stated += [(0, name, value, phrase) for name, value, phrase in part.said]
        elif not pair and wholes and (not about or (count == 1 and rng.random() < WHOLE_SHARE)):
            query, part = self._whole(first, pick(wholes, rng), rng)
            if not is_question(query):
                query = one_ask(query, shape)
            calls.append({"name": first.name, "arguments": part.args})
            stated += [(0, name, value, phrase) for name, value, phrase in part.said]
        else:
            parts = [self._part(t, rng) for t in (tools[:2] if pair else [first])]
            for part in parts:
                self._same(part)
            # a bill's number starts with its term's: the term a call sends ('22' of 제22대 국회) picks the bills
            term = next((str(part.args[p.name]) for part in parts for p in part.tool.spec.params
                         if p.name in part.args and param_label(p) == "대수"), "")
            partner = tools[1] if pair else None
            values = self.book.subjects(first, count, rng, partner=partner,
                                        prefix=term if self.book.key(first) == ("bill", "") else "") or \
                self.book.subjects(first, count, rng, partner=partner)  # none of the term: verification decides
            if prompt.style == "parallel" and self.book.key(first) in (("bill", ""), ("law", "")):
                values = values[:2]  # a bill or a law is said with its long title: two are a mouthful already
            # listed with commas where what is asked is two things joined by 과 already ('A, B의 주소와 연락처')
            compact = pair or bool(TWO_THINGS.search(parts[0].what))
            about_text, items = self.book.say(first, values, rng, compact=compact)
            if term and all(v.startswith(term) for v in values):  # a bill's number says its term: not said again
                for part in parts:
                    part.lead = [phrase for phrase in part.lead if not phrase.startswith(f"제{term}대")]
            for part in parts:
                subject = self.book.subject(part.tool)
                assert subject is not None
                for value in values:
                    calls.append({"name": part.tool.name, "arguments": {**part.args, subject.name: value}})
                    stated += [(len(calls) - 1, n, v, ph) for n, v, ph in part.said]
                subject_phrases += [(subject.name, v, [item]) for v, item in zip(values, items, strict=True)]
            if pair:
                lead = list(dict.fromkeys([*parts[0].lead, *parts[1].lead]))
                head = f"{' '.join(lead)} " if lead else ""
                query = two_asks(f"{head}{about_text}", parts[0].what, parts[1].what, shape)
            else:
                query = self._subject_ask(parts[0], about_text, shape, rng)
        if prompt.context == "scenario":  # a motive that fits what is asked (of both tools, where two are)
            theme = self.book.theme(first, tools[1] if pair else None) or ""
            if OPENERS.get(theme):
                query = f"{pick(OPENERS[theme], rng)} {query}"
        mentions = self._mentions(query, calls, stated, subject_phrases)
        raw = json.dumps({"query": query, "answers": calls}, ensure_ascii=False)
        return Generated(raw=raw, notes={"shape": shape, "mentions": mentions})

    @staticmethod
    def _mentions(query: str, calls: list[dict[str, Any]], stated: list[tuple[int, str, Any, str]],
                  subjects: list[tuple[str, str, list[str]]]) -> list[dict[str, Any]]:
        """The phrase that states each value, where taking it out whole leaves the query a question ('가평군의'
        of '경기도 가평군의 주차장', '2026년 1월 30일 기준', '제22대 국회'): the phrase followed by a space, once. A
        subject said once is taken with its 의; one of several, as listed (relevance never cuts a list)."""
        out: list[dict[str, Any]] = []

        def clean(phrase: str) -> str | None:
            for form in (f"{phrase}의", f"{phrase} 기준", phrase):
                at = query.find(f"{form} ")
                if query.count(f"{form} ") == 1 and (at == 0 or query[at - 1] == " "):
                    return form
            return None

        for index, param, value, phrase in stated:
            found = clean(phrase)
            if found is not None:
                out.append({"call": index, "param": param, "value": value, "phrase": found})
        several = len({v for _, v, _ in subjects}) > 1
        for i, call in enumerate(calls):
            for param, value, phrases in subjects:
                if call["arguments"].get(param) != value:
                    continue
                for phrase in phrases:
                    found = phrase if several else clean(phrase)
                    if found is not None and phrase in query:
                        out.append({"call": i, "param": param, "value": value, "phrase": found})
        return out


# ------------------------------------------------------------------------------------------ a chat model

STYLE_ASK = {
    "simple": "사용자 질문 하나에 도구 하나를 한 번 호출하는 예시를 만드세요.",
    "multiple": "여러 도구 가운데 질문에 맞는 도구 하나를 골라 한 번 호출하는 예시를 만드세요.",
    "parallel": "도구 하나를 서로 다른 인자로 여러 번(2~3회) 동시에 호출해야 답할 수 있는 질문을 만드세요.",
    "parallel_multiple": "여러 도구를 각각 한 번 이상, 모두 합쳐 3~4회 동시에 호출해야 답할 수 있는 질문을 만드세요.",
}
CONTEXT_ASK = {"plain": "질문만 쓰세요.", "scenario": "질문 앞에 사용자의 상황을 한 문장 덧붙이세요."}
DIFFICULTY_ASK = {"easy": "인자 값은 항목 이름과 함께 분명하게 쓰세요.",
                  "hard": "인자 값은 자연스러운 문장 속에 넣어 쓰세요."}
GENERATOR_PROMPT = """당신은 function-calling 학습 데이터를 만드는 생성기입니다.
주어진 한국 공공 API 도구들만 사용해 한국어 사용자 질문(query)과 정답 호출(answers)을 만드세요.
- 호출하는 도구 이름과 인자 이름은 도구 설명에 있는 그대로 쓰고, 값의 형식은 설명을 따르세요.
- 질문에 답하는 데 필요한 인자 값은 질문 안에 모두 나와야 합니다.
- JSON 객체 하나로만 답하세요: {"query": "...", "answers": [{"name": "...", "arguments": {...}}]}"""


class ChatGenerator:
    """An OpenAI-compatible generator; the reply's text is the raw output the format checker reads."""

    def __init__(self, model: ChatModel, values: ValueCache | None = None) -> None:
        self.model = model
        self.name = f"openai:{model.model}"
        self.values = values

    def messages(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord]) -> list[dict[str, Any]]:
        ask = " ".join([STYLE_ASK[prompt.style], CONTEXT_ASK[prompt.context], DIFFICULTY_ASK[prompt.difficulty]])
        body: dict[str, Any] = {"tools": [tool_json(catalog_tool(t)) for t in tools], "task": ask}
        if self.values is not None:
            seen = {p.name: [v for v in self.values.values.get(p.name) or [] if statable(v)][:5]
                    for t in tools for p in t.spec.params}
            seen = {k: v for k, v in seen.items() if v}
            if seen:
                body["values_seen"] = seen  # values the backend really returned, to draw arguments from
        messages: list[dict[str, Any]] = [{"role": "system", "content": GENERATOR_PROMPT}]
        for e in examples:
            messages.append({"role": "user", "content": "예시를 하나 보여 주세요."})
            messages.append({"role": "assistant", "content": orjson.dumps(
                {"query": e.query, "answers": [c.model_dump() for c in e.answers]}).decode()})
        messages.append({"role": "user", "content": json.dumps(body, ensure_ascii=False, sort_keys=True)})
        return messages

    def generate(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord],
                 rng: np.random.Generator) -> Generated:
        reply = self.model.complete(self.messages(prompt, tools, examples))
        # A code fence around the object is a wrapper, not content; anything else is left to the format checker.
        raw = re.sub(r"^```(?:json)?\s*|\s*```$", "", (reply.content or "").strip())
        return Generated(raw=raw, notes={"model": self.model.model})
