"""The query writer (seed §5.3): one Korean question per trajectory, from a template chosen by its structure.

`TemplateWriter` (the default) is deterministic: the records of each step named as a noun phrase — the
start by what the user knows (a name, a date, a kind), each junction extending it by its type (SEQ "X의 Y",
FAN "X 각각의 Y", DRV the stated reduction with its observed pivot) — and the ask worded by the answer
type, stating the precision in the phrase AUTHORING.md requires. It is told the structure, the subjects
(`kopa.korean.vocabulary`) and the values the user states, never an intermediate value, so it cannot leak one.
`ChatWriter` asks an OpenAI-compatible model (through `CachedChatModel`, so a run replays offline) with a
type-specific prompt and the same information.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Protocol

import numpy as np
import orjson

from kopa.korean.dates import calendar_day, date_phrase
from kopa.korean.numbers import number_phrase
from kopa.korean.particles import josa
from kopa.korean.vocabulary import HANGUL, entity_noun, is_code_like, spoken
from kopa.synth.candidate import AnswerInfo, JunctionInfo, Literal_, QueryInput

PRECISION_PHRASE = {0: "정수로 반올림", 1: "소수점 첫째 자리까지", 2: "소수점 둘째 자리까지", 3: "소수점 셋째 자리까지"}
class QueryWriter(Protocol):
    name: str

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str: ...


class TemplateWriter:
    """Deterministic Korean questions: each step's records named as a noun phrase a person would use.

    The start names what the user knows (a company, a district, a date, a kind of report) and what the
    service answers (`kopa.korean.vocabulary.subject`); each junction extends the phrase by its type — SEQ "X의
    Y", FAN "X 각각의 Y", DRV the stated reduction ("X 중 …이 가장 큰 것의 Y", "… 이상인 것들 각각의 Y") —
    and the ask is worded by the answer type. Never a tool title, a wire or paging parameter, a code the
    chain looks up, a raw yyyymmdd or "the n-th item"."""

    name = "template"

    def write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        text = self._write(spec, rng)
        # a real-time answer is reproducible only at a fixed time: the injected date, stated
        return f"{_day(spec.as_of)} 기준으로, {text}" if spec.as_of else text

    def _write(self, spec: QueryInput, rng: np.random.Generator) -> str:
        if spec.block is not None and spec.block.source is None:
            return self._stated_cmp(spec)
        start, named_only = self._start(spec)
        phrases = {"s1": start}
        # A chain is one noun phrase a hop at a time: "기점이 '목포'인 고속도로 노선들의 휴게소 대표 음식 가운데
        # 메뉴가 '소떡소떡'인 것들의 휴게소 편의시설" — never "…을 찾고, 그 …"
        handed: dict[str, str | None] = {}  # step → the entity whose identifier the junction into it handed on
        for j in spec.junctions:
            before = phrases[j.source]
            named = entity_noun(j.field_label)
            handed[j.target] = named
            subject = spec.subjects[j.source]
            if (j.kind != "DRV" and named is not None and handed.get(j.source) == named and before.endswith(subject)
                    and not any(x.step == j.target for x in spec.literals)):
                # the same entity handed on again (a bill's detail, then its receipt, then its proposers): the
                # records are the same bills seen by another service — "…인 것들의 의안 제안자", not "…의 의안
                # 상세 각각의 접수 의안 각각의 의안 제안자"
                phrases[j.target] = before[: -len(subject)] + spec.subjects[j.target]
                continue
            # the records a bare subject names ("고속도로 노선") take a condition before it: "기점이 '목포'인
            # 고속도로 노선들의"; a phrase that states one already takes it after: "… 의안 중 …인 것들의"
            bare = j.source == "s1" and before == spec.subjects["s1"]
            phrases[j.target] = self._hop(j, before, spec, named_only and j.source == "s1", bare)
        if spec.block is None:
            phrase, a = phrases[spec.answer.step], spec.answer
            # a fact of the one record a service holds about the entity the user names is the entity's own:
            # "삼성전자의 대표자명은 누구인가?", not "삼성전자의 기업개황에서 대표자명은"
            # — not a place's: "화성시의 어종명" would not say which of its services the one record is of
            owner = next((x.phrase for x in spec.literals if _is_name(x) and not x.contains
                          and not _PLACE.search(x.phrase)
                          and phrase == f"{x.phrase}의 {spec.subjects[a.step]}"), None)
            if owner is not None and a.kind == "field":
                return self._ask(a, "", within=f"{owner}의")
            return self._ask(a, phrase)
        source = spec.block.source
        assert source is not None  # a block without a source step is a stated comparison, written above
        return self._block(spec, phrases[source])

    @staticmethod
    def _conditions(spec: QueryInput, step: str) -> str:
        """What the user states for `step` beyond its entity: dates and kinds ('2025년 3분기보고서 ')."""
        stated = [x for x in spec.literals if x.step == step and not _is_name(x)]
        dates = sorted((x for x in stated if _DATE.fullmatch(x.phrase)), key=lambda x: x.value)
        if len(dates) == 2:  # a period: its start and end parameters
            if dates[0].value != dates[1].value:
                period = f"{dates[0].phrase}부터 {dates[1].phrase}까지"
            else:  # one day of what the period bounds: "훈련시작일이 2026년 1월 30일인"
                bounded = _PERIOD_END.sub("", spoken(dates[0].label)).strip()
                period = f"{josa(bounded, '이/가')} {dates[0].phrase}인" if bounded else dates[0].phrase
            stated = [x for x in stated if x not in dates]
            return " ".join([period, *dict.fromkeys(x.phrase for x in stated)]) + " "
        said = [x.phrase for x in stated]
        return " ".join(dict.fromkeys(said)) + " " if said else ""

    def _start(self, spec: QueryInput) -> tuple[str, bool]:
        """The start's phrase, and whether it is the entity's name alone (a lookup of its code)."""
        subject = spec.subjects["s1"]
        names = [x for x in spec.literals if x.step == "s1" and _is_name(x)]
        name = names[0] if names else None
        conditions = self._conditions(spec, "s1")
        if name is None:
            return f"{conditions}{subject}", False
        first = spec.junctions[0] if spec.junctions else None
        # a lookup of the name's code, whose code the next step takes: the user just names the entity — when
        # the lookup found that one entity (one record), or the name is a place whose list carries its code
        # on every record ("양주시"); a facility's name hands on its district's code, and is said as such
        block = spec.block
        if first is not None:
            lookup = first.kind == "SEQ" and is_code_like(first.field_label) and _is_itself(name, first.records)
        else:
            lookup = (block is not None and block.kind == "SEM" and block.source == "s1"
                      and all(is_code_like(f) for f in block.fields) and _is_itself(name, block.records))
        if lookup and not conditions and not name.contains:
            return name.phrase, True
        return conditions + _named(name, subject), False

    def _stated_cmp(self, spec: QueryInput) -> str:
        """Two things the user names, one service asked about each: "강남구와 서초구의 X는 몇 건 차이 나는가?"."""
        b, a = spec.block, spec.answer
        assert b is not None and b.lookup is not None
        compared = [next(x for x in spec.literals if x.step == step and x.value == value)
                    for step, value in zip(("s1a", "s1b"), b.values, strict=True)]
        conditions = self._conditions(spec, "s1a").replace(f"{compared[0].phrase} ", "", 1)
        conditions += self._conditions(spec, b.steps[0])
        if is_code_like(b.fields[0]) and all(_is_itself(x, b.records) for x in compared):
            first, second = (x.phrase for x in compared)  # a lookup of each name's code: the names alone
        else:
            first, second = (_named(x, b.lookup) for x in compared)
        pair = f"{conditions}{josa(first, '와/과')} {second}의 {b.subjects[0]}"
        if b.quantity_field is None:
            return f"{josa(pair, '은/는')} 몇 건 차이 나는가?"
        precision = f" ({PRECISION_PHRASE[a.precision]})" if a.precision else ""
        return f"{pair}에서 {b.quantity} 차이(큰 값에서 작은 값을 뺀 값)는 얼마인가?{precision}"

    def _hop(self, j: JunctionInfo, before: str, spec: QueryInput, named_only: bool = False,
             bare: bool = False) -> str:
        """`before` extended by the junction `j`; `named_only`: `before` is an entity's name whose code the
        junction takes ("양주시의 Y", not "양주시의 시군의 Y"); `bare`: `before` is the start's subject alone,
        which a selection states before it ("수강비가 가장 작은 훈련과정의 Y")."""
        subject = f"{self._conditions(spec, j.target)}{spec.subjects[j.target]}"
        names = [x.phrase for x in spec.literals if x.step == j.target and _is_name(x)]
        if names:
            subject = f"{names[0]} {subject}"
        # what the handed-on identifier names ('시군구코드' → 시군구): the hop reads "…의 시군구 각각의 Y"
        named = entity_noun(j.field_label)
        # "법령 중 … 것들 각각의", not "…의 법령"; "… 것의 고속도로 영업소", not "… 것의 영업소의 고속도로 영업소"
        noun = None if named is not None and (named in before or named in subject) else named
        of = f"의 {noun}" if noun else ""
        if j.kind == "SEQ":
            return f"{before}{of if j.records > 1 and not named_only else ''}의 {subject}"
        if j.kind == "FAN":
            return f"{before}에 나오는 {noun} 각각의 {subject}" if noun else f"{before} 각각의 {subject}"
        pivot_label = j.pivot_label or ""
        if j.process == "mode":
            # a bare code names no kind of thing ('고유번호'): "공시가 가장 많은 곳의 기업개황"
            most = named or ("곳" if is_code_like(j.field_label) else j.field_label)
            return f"{josa(before, '이/가')} 가장 많은 {most}의 {subject}"
        # what is handed on is said when it is not the records themselves: "…인 휴게소의 노선 각각의 Y"; the
        # records themselves are many: "…인 고속도로 노선들의 Y"
        picked = j.process in ("max", "min")  # one record, not many
        if picked:
            condition = f"{josa(pivot_label, '이/가')} {_most(pivot_label, j.process == 'max')}"
        else:
            condition = _condition(pivot_label, j.process or "eq", j.pivot or "")
        each = of if picked or not of else f"{of} 각각"
        if bare:
            return f"{condition} {before}{'' if picked or of else '들'}{each}의 {subject}"
        among = "가운데" if j.source != "s1" else "중"  # a hop deep in the chain: "…음식 가운데 …인 것들의"
        return f"{before} {among} {condition} 것{'' if picked else '들'}{each}의 {subject}"

    def _block(self, spec: QueryInput, before: str) -> str:
        b, a = spec.block, spec.answer
        assert b is not None
        precision = f" ({PRECISION_PHRASE[a.precision]})" if a.precision else ""
        steps = b.steps + b.steps[-1:] * (2 - len(b.steps))
        subjects = [f"{self._conditions(spec, step)}{subject}" for step, subject in zip(steps, b.subjects, strict=True)]
        if b.kind == "SEM":
            # a fact of the entity's own one record is the entity's ("강광순의 정당명과 위원회명"), not "강광순의
            # 국회의원에서 정당명" — unless both facts carry one label, or the user states a condition for it;
            # a count says which service lists the records ("경기도 약국 건수")
            plain = a.label != a.by_label and not _PLACE.search(before)  # a place has no one record of its own

            def fact(i: int, field: str | None, label: str | None) -> str:
                if field is None:
                    return f"{subjects[i]} 건수"
                return label or "" if plain and subjects[i] == b.subjects[i] else f"{subjects[i]}에서 {label}"

            facts = [fact(0, a.field, a.label), fact(1, a.by, a.by_label)]
            what = "몇 건" if a.field is None and a.by is None else "무엇"
            return f"{before}의 {josa(facts[0], '와/과')} {josa(facts[1], '은/는')} 각각 {what}인가?"
        if b.kind == "CMP":
            what = entity_noun(b.fields[0]) or ("곳" if is_code_like(b.fields[0]) else b.fields[0])
            pair = f"{before}에 나오는 두 {what}"
            if a.kind == "argmax":
                return (f"{pair} 가운데 {subjects[0]}의 {josa(b.quantity or '', '이/가')} 더 큰 쪽의 "
                        f"{josa(a.label or '', '은/는')} {_what(a.label or '')}인가?")
            if b.quantity_field is None:
                return f"{pair} 각각의 {josa(subjects[0], '은/는')} 몇 건 차이 나는가?"
            return (f"{pair}의 {subjects[0]}에서 {b.quantity} 차이(큰 값에서 작은 값을 뺀 값)는 "
                    f"얼마인가?{precision}")
        threshold = number_phrase(b.threshold or "")
        tested = (f"{before}의 {josa(b.quantity or '', '이/가')} {threshold}" if b.quantity_field is not None
                  else f"{josa(before, '이/가')} {threshold}건")  # how many records the list holds
        # one conditional question, both branches named and neither marked as the one the condition chose:
        # "…이 30건 이상이면 도시공원은, 아니면 체육시설은 모두 몇 건인가?"
        if a.kind == "count":
            return (f"{tested} 이상이면 {josa(subjects[0], '은/는')}, 아니면 {josa(subjects[1], '은/는')} "
                    "모두 몇 건인가?")
        return self._ask(a, "", within=f"{tested} 이상이면 {subjects[0]}에서, 아니면 {subjects[1]}에서")

    @staticmethod
    def _ask(a: AnswerInfo, phrase: str, within: str | None = None) -> str:
        """The question about the records `phrase` names — or, for a condition's two branches, the records
        `within` names ("…이면 A에서, 아니면 B에서")."""
        label = a.label or ""
        precision = f" ({PRECISION_PHRASE[a.precision]})" if a.precision else ""
        at, of, among, listed = ((within, within, within, within) if within is not None else
                                 (f"{phrase}에서", f"{phrase}의", f"{phrase} 중", f"{phrase}에 나오는"))
        if a.kind == "field":
            return (f"{at} {josa(label, '은/는')} 얼마인가?{precision}" if a.number
                    else f"{at} {josa(label, '은/는')} {_what(label)}인가?")
        if a.kind == "count":
            return f"{josa(phrase, '은/는')} 모두 몇 건인가?"
        if a.kind == "sum":  # a column that is itself a total ('정원 합계') is summed as "정원 총합"
            summed = re.sub(r"\s*(?:합계|총계)$", "", label)
            return (f"{of} {summed} 총합은 얼마인가?{precision}" if summed != label
                    else f"{of} {label} 합계는 얼마인가?{precision}")
        if a.kind == "max":
            return f"{among} {label}의 최댓값은 얼마인가?{precision}"
        if a.kind == "argmax":
            return (f"{among} {josa(a.by_label or '', '이/가')} {_most(a.by_label or '', True)} 것의 {josa(label, '은/는')} "
                    f"{_what(label)}인가?")
        return f"{listed} {josa(label, '을/를')} 모두 나열하라."


_PERIOD_END = re.compile(r"\s*(?:From|To|from|to|시작|종료|부터|까지)$")
_PLACE = re.compile(r"(?:특별시|광역시|특별자치시|특별자치도|[시군구동읍면도])$")
_DATE = re.compile(r"\d{4}년( \d{1,2}월( \d{1,2}일)?)?")


_NAME_LABEL = re.compile(r"^(?:검색할\s*)?(?P<noun>[가-힣]*?)\s*(?:명|이름)$")


def _named(name: Literal_, subject: str) -> str:
    """`subject` of the entity the user names, as a person names it: "강남구의 X", "SK하이닉스 종목의 X",
    "경주 고속도로 영업소", "이름에 '백운'이 들어간 X"; a value that is not a name by its label with it
    ("제안자가 '…'인 X")."""
    if name.contains:
        quoted = f"'{name.phrase}'"
        return f"이름에 {josa(quoted, '이/가')} 들어간 {subject}"
    if _PLACE.search(name.phrase):
        return f"{name.phrase}의 {subject}"
    if name.label == "제안자":  # a bill's proposers: "홍길동의원 등 10인이 제안한 의안"
        return f"{josa(name.phrase, '이/가')} 제안한 {subject}"
    label = _NAME_LABEL.match(name.label)
    if label is None:
        return f"{josa(spoken(name.label), '이/가')} '{name.phrase}'인 {subject}"
    noun = label.group("noun")
    if noun and subject.endswith(noun) and not name.phrase.endswith(noun):
        return f"{name.phrase} {subject}"  # the subject is the named thing: "경주 고속도로 영업소"
    if noun and name.phrase[-1] == noun[-1]:  # the name says its kind already: "더불어민주당" is a 정당
        return f"{name.phrase}의 {subject}"
    if noun and noun not in subject and not name.phrase.endswith(noun) and noun not in _NOT_KINDS:
        return f"{name.phrase} {noun}의 {subject}"  # what kind of thing the name is: "SK하이닉스 종목의 주가"
    return f"{name.phrase}의 {subject}"


# names whose label says no kind a person puts after the name ('상호명': "A 상호의" is not said)
_NOT_KINDS = frozenset({"상호", "한글", "정식", "영문", "회사", "시설"})


def _is_itself(name: Literal_, records: int | None) -> bool:
    """Whether a lookup on `name` that returned `records` records is the named entity itself: one record,
    or a place (every record of a district's list carries the district's code)."""
    return records == 1 or _PLACE.search(name.phrase) is not None


def _is_name(literal: Literal_) -> bool:
    """A name the user gives (회사명, 학교명, 구명): the entity the question is about."""
    return literal.phrase == literal.value and HANGUL.search(literal.value) is not None


_AMOUNT = re.compile(r"(?:량|수|건수|인원|횟수|승객수)$")


def _most(label: str, largest: bool) -> str:
    """'가장 큰' of a measure, '가장 많은' of an amount counted (교통량, 이용건수, 인원)."""
    if _AMOUNT.search(label):
        return "가장 많은" if largest else "가장 적은"
    return "가장 큰" if largest else "가장 작은"


_PERSON = re.compile(r"(?:대표자|대표이사|보좌관|비서관|비서|보고자|담당자|제안자|성명)명?$")


def _what(label: str) -> str:
    """The question word for a field: a person is asked after with 누구 ("대표자는 누구인가?")."""
    return "누구" if _PERSON.search(label) else "무엇"


def _condition(label: str, process: str, pivot: str) -> str:
    """A filter as a person states it: "판매가격이 5,500 이하인", "소관 위원회 회부일이 2026년 2월 2일 이후인",
    "프리미엄 메뉴인" (a Y/N flag by what Y means), "프리미엄 메뉴가 아닌"."""
    if process == "eq" and pivot in ("Y", "N"):
        return f"{label}인" if pivot == "Y" else f"{josa(label, '이/가')} 아닌"
    # only the process's own wording is made: a threshold of 20000000 (원) is no day to read as one
    wording: dict[str, Callable[[], str]] = {
        "ge": lambda: f"{number_phrase(pivot)} 이상인", "le": lambda: f"{number_phrase(pivot)} 이하인",
        "eq": lambda: f"'{pivot}'인", "after": lambda: _after(pivot)}
    stated = wording[process]()
    return f"{josa(label, '이/가')} {stated}"


def _after(day: str) -> str:
    """Strictly after a day, as a person says it: from the next day on ("2026년 1월 29일 이후인")."""
    day_named = calendar_day(day)
    if day_named is not None:
        following = day_named + dt.timedelta(days=1)
        return f"{date_phrase(following.strftime('%Y%m%d'))} 이후인"
    return f"{date_phrase(day) or day}보다 늦은"


def _day(iso: str) -> str:
    return date_phrase(iso.replace("-", "")) or iso


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

    def __init__(self, model, fallback: QueryWriter | None = None) -> None:
        self.model = model
        self.fallback = fallback or TemplateWriter()

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
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": orjson.dumps(structure).decode()}]
        reply = self.model.complete(messages, temperature=0.0)
        text = (reply.content or "").strip().splitlines()[0].strip() if reply.content else ""
        return text or self.fallback.write(spec, rng)
