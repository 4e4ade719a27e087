"""The generator role: `{query, answers: [{name, arguments}]}` in Korean, as raw text for the format checker.

`TemplateGenerator` (offline, deterministic) writes a Korean query per style as a person asks it — what the
endpoint answers by its subject, names and dates as people write them, a code with the name its record gives
it ("산북초등학교(행정표준코드 7004459)"), each value said as what it is to the question, in hand-written
sentence frames with openers by domain (`kopa.apigen.wording`, on `kopa.korean`); an ask that states no value
asks for the list of what the endpoint answers; a value nobody writes (Han or kana, a record's registered
title) is never stated nor sent — and draws every argument from what the backend has returned (`ValueCache`),
enums, documented defaults and the virtual today — it invents nothing, so what fails verification fails on
the backend's own terms: mostly values the tool itself returned, and at GUESS_RATE a value another tool
returned under the same name. Verified examples feed back: a prompt with examples reuses the sentence shape
of the first one half the time (shapes that passed spread, and fresh ones keep coming). The prompt's difficulty (values with their labels, or in running
text) is an instruction to a chat model; the offline generator writes every value as a person states it,
never a field's label before a name. `ChatGenerator` asks an OpenAI-compatible model (temperature 0.7 by
default, the seed's) with the style's prompt, the sampled tools and the few-shot examples; wrap the model in
`CachedChatModel` and a run replays offline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import orjson

from kopa.apigen.record import XRecord, catalog_tool, tool_json
from kopa.apigen.sampler import Prompt, cached_values, entity_params, stated_param, varying_param
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import (
    ASPECTS,
    PERSONS,
    PROVINCES,
    SHAPES,
    instance,
    listing,
    one_ask,
    opener,
    role,
    statable,
    stated_phrase,
    subject_of,
    two_asks,
)
from kopa.catalog.models import ParamSpec, Tool
from kopa.catalog.view import param_view
from kopa.edge.fill import Given, Guess, OneOf, Source, first_value
from kopa.edge.plan import date_form, dated_value
from kopa.korean.dates import date_phrase
from kopa.korean.vocabulary import (
    documented_name,
    param_label,
    stated_enum,
    stated_name,
    value_phrase,
)
from kopa.llm.client import ChatModel

GENERATION_TEMPERATURE = 0.7  # the seed's
# Share of free arguments the offline generator takes from any tool's answers under the same name, unchecked
# against the documented pattern, instead of from the tool's own answers: the guesses a model makes from
# what it has seen, which stage 2 and 3 are there to catch.
GUESS_RATE = 0.3
NAMED_SHARE = 0.5  # of codes, those the parameter's docs name, where the cache holds any
# Of prompts with a verified example, the share that reuse its sentence shape: always reusing it, the first chunk's
# few shapes would take over the run (an urn that never draws a fresh ball); half the time a fresh one is drawn.
FEEDBACK_SHARE = 0.5


@dataclass
class Generated:
    raw: str  # what the generator wrote: the format checker parses it
    notes: dict[str, Any] = field(default_factory=dict)  # provenance: the sentence shape, the mentions it wrote


class Generator(Protocol):
    name: str

    def generate(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord],
                 rng: np.random.Generator) -> Generated: ...


# ------------------------------------------------------------------------------------------ offline

def _typed(p: ParamSpec, value: Any) -> Any:
    """A cached value as the parameter's type: an integer parameter gets a number, not its digits."""
    return int(value) if p.type == "integer" and str(value).lstrip("-").isdigit() else value


class TemplateGenerator:
    name = "template"

    def __init__(self, cache: ValueCache, today: str, guess_rate: float = GUESS_RATE) -> None:
        self.cache = cache
        self.day = today.replace("-", "")
        self.guess_rate = guess_rate

    # ------------------------------------------------------------ arguments

    def _value(self, tool: Tool, p: ParamSpec, rng: np.random.Generator, stated: bool = False) -> Any:
        return first_value(self._sources(tool, p, stated), rng)

    def _sources(self, tool: Tool, p: ParamSpec, stated: bool = False) -> Iterator[Source]:
        """APIGen's precedence: a value seen under the name anywhere is guessed unchecked at `guess_rate`
        (the checkers are what is studied), before the values that fit and the documented default. A code
        the parameter's docs name ('B10 서울특별시교육청') is taken at NAMED_SHARE: the query states it by
        name. `stated`: only what a person states (an enum's meaning, a name), for a filter the query adds.
        Never a value no person writes (`wording.statable`: Han or kana in it, a record's number-title)."""
        yield OneOf(stated_enum(p) if stated else p.enum or ())
        yield Given(dated_value(param_view(p), self.day))  # a date as the docs show it, not a format identifier
        fits = self._named_first(p, [v for v in cached_values(p, self.cache, tool.name)
                                     if not stated or stated_name(v)])
        seen = [v for v in self.cache.values.get(p.name) or () if statable(v) and (not stated or stated_name(v))]
        yield Guess([_typed(p, v) for v in self._named_first(p, seen)], self.guess_rate)
        yield Guess([_typed(p, v) for v in fits if documented_name(p, v)], NAMED_SHARE)
        yield OneOf([_typed(p, v) for v in fits])
        yield Given(p.default)

    def _named_first(self, p: ParamSpec, values: list[str]) -> list[str]:
        """Of codes, those a record named, where any did: the query states the code with that name, as a person
        holding a school's or a company's code knows what it names."""
        named = [v for v in values if self._name_of(p.name, v) is not None]
        return named or values

    def _name_of(self, field: str, code: object) -> str | None:
        """The name a record gave a code, where a person could write it."""
        name = self.cache.name_of(field, code)
        return name if name is not None and statable(name) else None

    def _arguments(self, tool: Tool, rng: np.random.Generator, fixed: ParamSpec | None = None) -> dict[str, Any]:
        """Required entity parameters (a code where the API takes only a code); with none, one optional
        filter a person states — a name or an enum's meaning (Phase B's rule: `stated_filters`) — for a
        specific ask."""
        args: dict[str, Any] = {}
        params = entity_params(tool)
        for p in params:
            if p.required and p is not fixed:
                value = self._value(tool, p, rng)
                if value is not None:
                    args[p.name] = value
        if not args and fixed is None:
            optional = [p for p in params if not p.required and stated_param(p, self.cache, tool.name)
                        and date_form(param_view(p)) not in ("yyyymmdd", "yyyymm")]
            if optional:
                p = optional[int(rng.integers(len(optional)))]
                args[p.name] = self._value(tool, p, rng, stated=True)
        # A required parameter nobody states (Seoul's row window) is sent at its documented default, as the
        # row's own tool spec requires and as a model reading that spec must: leaving it to the runtime to fill
        # would make an answer its own spec calls incomplete.
        for p in tool.spec.params:
            if p.required and p is not fixed and p.name not in args and p.default is not None:
                args[p.name] = p.default
        return args

    def _variants(self, tool: Tool, p: ParamSpec, rng: np.random.Generator) -> list[Any]:
        """Two or three values of the varied parameter: those a person states where there are two."""
        pool = list(p.enum or []) or cached_values(p, self.cache, tool.name)
        stated = stated_enum(p) if p.enum else [v for v in pool if stated_name(v)]
        pool = stated if len(stated) >= 2 else pool
        count = min(len(pool), 2 + int(rng.integers(2)))
        picked = [pool[int(i)] for i in rng.permutation(len(pool))[:count]]
        return [_typed(p, v) for v in picked]

    # ------------------------------------------------------------ wording

    def _mentions(self, tool: Tool, args: dict[str, Any]) -> list[Mention]:
        """How the user states every argument (not one equal to its documented default): a name as itself, a
        date as a date, an enum value by its meaning; a code with the name its record gives it, else — as one
        may have it from a letter or a notice — with its label."""
        out = []
        for name, value in args.items():
            p = tool.spec.param(name)
            if p.default is not None and str(p.default) == str(value):
                continue
            out.append(_mention(p, value, self._name_of(name, value)))
        return sorted(out, key=lambda m: not m.dated)  # '2025년 기준 …' first: a date scopes all of the ask

    @staticmethod
    def _about(mentions: list[Mention], subject: str, listed: list[Mention] | None = None, alone: bool = True,
               rng: np.random.Generator | None = None) -> str:
        """'2026년 1월 29일 기준 유가증권시장 일별 매매', '삼성전자의 주가', '경기도 가평군의 낚시터', '국제화 분야의
        학원·교습소', '시군코드 41550인 빈집'. A phrase two arguments share (a range from today to today) is said
        once; a word a stated name already says is not said again in the subject ('중앙 아동복지시설의 점검 결과',
        not '… 아동복지시설의 경기도 아동복지시설의 점검 결과'), nor, of the names a parallel ask lists, a word all
        of them say. Where a name ends in what the endpoint answers ('봉황약국' of 경기도 약국, '기획재정위원회' of
        위원회), the name alone says it — where the name is all the ask states and the ask is the query's only one
        (beside another tool's ask, the subject tells the two apart). A person asked about by name is asked about
        as that person ('강도옥 국회의원 정보'); a region of the subject's province is said after the province
        ('경기도 가평군의 낚시터'). `listed`: the values a parallel ask lists, said after the rest."""
        words = {w for m in mentions if m.name for w in str(m.value).split()}
        if listed and all(m.name for m in listed):
            words |= set.intersection(*(set(str(m.value).split()) for m in listed))
            words |= {str(m.value) for m in listed}  # '경기도, 수원시 각각의 일자리 지원정책', not '… 경기도 일자리 …'
        kept = " ".join(w for w in subject.split() if w.removesuffix("의") not in words)
        last = subject.split()[-1] if subject.split() else ""
        stated = [*mentions, *(listed or [])]
        only_names = bool(stated) and all(m.name and str(m.value).split() for m in stated)
        if alone and only_names and (last in words or (
                len(last) >= 2 and all(str(m.value).split()[-1].endswith(last) for m in stated))):
            kept = ""
        elif not kept:
            kept = subject  # every word said, but not the name alone: the subject stays whole
        phrases = list(dict.fromkeys(m.phrase for m in mentions))
        names = only_names and all(m.role == "name" for m in stated)
        person = kept.split()[0] if kept.split() and kept.split()[0] in PERSONS else None
        of_it = names and bool(kept) and (kept in PERSONS or all(instance(m.label, kept) for m in stated))
        if of_it:  # the names are of what is asked: '강도옥 국회의원 정보', '무궁근린공원 화장실 공중화장실 정보'
            phrases = [p.removesuffix("의") for p in phrases]
            kept = f"{kept} 정보"
        elif names and person is not None:  # '길상명 국회의원의 정치자금', not '길상명의 국회의원 정치자금'
            phrases = [p.removesuffix("의") for p in phrases]
            kept = f"{person}의 {kept[len(person):].strip()}"
        head = kept.split()[0] if kept.split() else ""
        if head in PROVINCES and all(not str(m.value).startswith(head) for m in stated) and any(
                m.role in ("region", "name") for m in stated):
            kept = kept[len(head):].strip()  # '경기도 가평군의 낚시터', not '가평군의 경기도 낚시터'
            at = next(i for i, m in enumerate(stated) if m.role in ("region", "name"))
            phrases.insert(min(at, len(phrases)), head)
        if listed:
            items = listing([m.phrase for m in listed], rng) if rng is not None else ", ".join(m.phrase for m in listed)
            label = "" if listed[0].plain else f"{listed[0].label} "  # codes: '시군코드 41550, 41570'
            if of_it or (names and person is not None):
                joined = f"{label}{items}"
            elif listed[0].role in ("name", "region") and listed[0].plain and rng is not None and rng.random() < 0.5:
                joined = f"{label}{items}의" if kept else f"{label}{items}"
            else:
                joined = f"{label}{items} 각각의" if kept else f"{label}{items}"
            phrases.append(joined)
        if not kept and phrases:  # the name says all of it: '봉황약국 정보'
            phrases[-1] = phrases[-1].removesuffix("의")
            kept = "정보"
        about = " ".join([*phrases, kept]).strip()
        if about.count("의 ") >= 2:  # '… 법률안의 의안 청원 연계 이력', not '… 법률안의 의안 청원 연계의 이력'
            about = re.sub(rf"의 ({'|'.join(ASPECTS)})$", r" \1", about)
        return about

    def generate(self, prompt: Prompt, tools: list[Tool], examples: list[XRecord],
                 rng: np.random.Generator) -> Generated:
        shape = int(rng.integers(SHAPES))
        if examples and isinstance(examples[0].provenance.get("shape"), int) and rng.random() < FEEDBACK_SHARE:
            shape = examples[0].provenance["shape"]  # feedback: the sentence shape of a verified example
        calls: list[dict[str, Any]] = []
        asks: list[tuple[str, bool]] = []  # each ask's noun phrase, and whether it states a value
        mentions: list[dict[str, Any]] = []

        def note(i: int, said: list[Mention]) -> None:
            mentions.extend({"call": i, "param": m.param, "value": m.value, "phrase": m.phrase} for m in said)

        alone = len(tools) == 1 or prompt.style in ("simple", "multiple")
        for k, tool in enumerate(tools[:1] if prompt.style in ("simple", "multiple") else tools):
            p = None if prompt.style in ("simple", "multiple") else varying_param(tool, self.cache)
            if p is None:  # the tool called once
                args = self._arguments(tool, rng)
                said = self._mentions(tool, args)
                note(len(calls), said)
                calls.append({"name": tool.name, "arguments": args})
                asks.append((self._about(said, _chosen(tool, args), alone=alone), bool(said)))
                continue
            base = self._arguments(tool, rng, fixed=p)
            values = self._variants(tool, p, rng)
            if prompt.style == "parallel_multiple" and k > 0:
                values = values[:2]
            base_said = self._mentions(tool, base)
            each = [_listed(p, v, self._name_of(p.name, v)) for v in values]
            for m in each:
                note(len(calls), [*base_said, m])
                calls.append({"name": tool.name, "arguments": {**base, p.name: m.value}})
            asks.append((self._about(base_said, _chosen(tool, base, varied=p), each, alone=alone, rng=rng), True))
        if len(asks) == 1:
            query = one_ask(asks[0][0], asks[0][1], shape)
        else:
            phrases = [a if stated else f"{a} 목록" for a, stated in asks]
            query = two_asks(phrases[0], " ".join(phrases[1:]), shape)
        if prompt.context == "scenario":
            query = f"{opener(tools[0].domain, rng)} {query}"
        for noted in mentions:  # a phrase as the query writes it: '강도옥' of '강도옥 국회의원 정보', not '강도옥의'
            if noted["phrase"] not in query and noted["phrase"].removesuffix("의") in query:
                noted["phrase"] = noted["phrase"].removesuffix("의")
        raw = json.dumps({"query": query, "answers": calls}, ensure_ascii=False)
        return Generated(raw=raw, notes={"shape": shape, "mentions": mentions})


def _chosen(tool: Tool, args: dict[str, Any], varied: ParamSpec | None = None) -> str:
    """What the endpoint answers, without a word that names a choice of an enum the call sets (or a parallel ask
    varies): '현행' of '시행일 기준 현행 법령' where the call asks for 연혁 (nw=1) would say the opposite of the call,
    and where it asks for 현행 the query says it already ('현행 시행일 기준 법령')."""
    said = subject_of(tool)
    for p in [*(tool.spec.param(n) for n in args), *([varied] if varied else [])]:
        if p.enum:
            choices = {value_phrase(p, v) for v in p.enum}
            said = " ".join(w for w in said.split() if w not in choices) or said
    return said


@dataclass(frozen=True)
class Mention:
    """How a query states one argument: `phrase` is the text it writes (removed whole, the query still reads
    as a question, one that lacks the value); `plain` when the value reads without its label (a name, a
    date, an enum's meaning, a code with its name); `name` when the value is a name said as itself; `role`
    what the value is to the question (`wording.role`); `label` the parameter's label, said once before a list
    of codes nothing names."""

    param: str
    value: Any
    phrase: str
    plain: bool
    name: bool = False
    role: str = "name"
    dated: bool = False
    label: str = ""


def _named_code(p: ParamSpec, value: Any, name: str) -> str:
    """'산북초등학교(행정표준코드 7004459)', '삼성전자(고유번호 00126380)': the code's own word, not the whole label
    ('공시대상회사의 고유번호')."""
    words = param_label(p).split()
    code = f"{words[-1]} {value}" if words else str(value)
    if name.endswith(")"):  # '4328번(목동공원~하왕십리동사거리, 노선ID 100100008)'
        return f"{name[:-1]}, {code})"
    return f"{name}({code})"


def _mention(p: ParamSpec, value: Any, name: str | None = None) -> Mention:
    said = value_phrase(p, value)
    named = documented_name(p, value) if said is None else None
    label = param_label(p)
    if named is not None:  # a code its docs name: said by the name alone ('서울특별시교육청의')
        return Mention(p.name, value, f"{named}의", True, label=label)
    if said is None and name is not None:  # a code its record names: '산북초등학교(행정표준코드 7004459)의'
        return Mention(p.name, value, f"{_named_code(p, value, name)}의", True, label=label)
    if said is None:  # a code nothing names: said with its label ('시군코드 41550인')
        return Mention(p.name, value, f"{label} {value}인", False, label=label)
    if date_phrase(str(value)) == said:
        return Mention(p.name, value, f"{said} 기준", True, dated=True, label=label)
    # a name as itself; a phrase that renders the value ('제22대 국회', '3분기보고서', an enum's meaning)
    # already says what it is; how it stands before what is asked depends on what it is (`wording.role`)
    return Mention(p.name, value, stated_phrase(p, said), True, name=said == str(value), role=role(p),
                   label=label)


def _listed(p: ParamSpec, value: Any, name: str | None = None) -> Mention:
    """One of the values a parallel ask lists: a name or a date as a person writes it, a code with the name its
    record gives it, else bare (the label goes once before the list)."""
    said = value_phrase(p, value) or documented_name(p, value)
    label = param_label(p)
    if said is None and name is not None:
        return Mention(p.name, value, _named_code(p, value, name), True, label=label)
    return Mention(p.name, value, str(value) if said is None else said, said is not None,
                   name=said == str(value), role=role(p), label=label)


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
