"""Stage 3: the semantic checker role, on the seed's five criteria.

1. `objective`        the calls match the query's objective, with sensible arguments;
2. `function_choice`  the functions are chosen properly from those available;
3. `call_count`       the number of calls matches the user's intent;
4. `no_errors`        the results contain no errors (here: no empty answer either);
5. `relevant_results` the results are relevant to the functions' purpose.

`RuleChecker` (offline) decides only what rules can decide, and says so: every criterion is reported
`pass`, `fail` or `undecided`, and `DECIDES` words what each rule actually tests — the rest of a
criterion (whether the query's intent is the one the calls serve) needs a reader, i.e. `ChatChecker`, an
OpenAI-compatible model asked the five questions.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, Protocol

import orjson

from kopa.apigen.asks import Ask, ask_of
from kopa.apigen.record import XRecord, XTool
from kopa.apigen.verify import CallOutcome
from kopa.catalog.loader import Catalog
from kopa.catalog.view import param_view
from kopa.edge.plan import GENERIC_NAMES
from kopa.edge.proposer import first_json_object
from kopa.korean.vocabulary import documented_name, param_label, spoken_place, subject, value_phrase
from kopa.llm.client import ChatModel

CHOICE_FLOOR = 0.3  # below this no name of a tool matches the query: the rule cannot tell
CHOICE_CLEAR = 0.6  # a name this well matched is what the query asks for ...
CHOICE_MARGIN = 0.2  # ... when it beats a called tool's best-matched name by this much
PART_SHARE = 0.75  # of an uncalled tool's own bigrams, the share a query must have to ask for it too ...
PART_BIGRAMS = 3  # ... counted only where its name has this many that no called tool's name has
MIN_NAME_BIGRAMS = 4  # a person's name for a tool counts from five characters ('예금보험 가입 금융회사', not '회사')
CRITERIA = ("objective", "function_choice", "call_count", "no_errors", "relevant_results")
REASONS = {"objective": "ungrounded_argument", "function_choice": "wrong_function", "call_count": "duplicate_call",
           "no_errors": "empty_result", "relevant_results": "off_schema_result"}
DECIDES = {
    "objective": "partly: every stated argument value (not a documented default, an enum choice, paging or a key) "
                 "appears in the query (dates also as YYYY년 M월 D일); whether the intent is the one the calls "
                 "serve is not decided",
    "function_choice": "partly: fails when another offered tool's Korean title, or what it answers as a person names "
                       "it, matches the query clearly better than a called tool's (character bigrams); undecided "
                       "when no name matches",
    "call_count": "partly: fails on two identical calls, and on too few: `too_few_calls` where the query lists "
                  "another value beside one a call states ('A와 B', 'A, B 및 C') that is a value of the same parameter "
                  "— of its documented pattern (codes, dates), one of its enum, or one the value cache saw under its "
                  "name — and no call asks about it; `partial_answer` where the calls serve only part of what the "
                  "query asks: it states, anywhere, a name the value cache saw under a parameter of an offered tool "
                  "(or the name a record gives one of its codes, or one of its enum meanings) that no call asks "
                  "about — not a word of a called tool's name or of a called parameter's label, nor a name just "
                  "before an asked one ('경기도 가평군') — or it asks — in words no call's tool "
                  "name or argument accounts for — for what an offered tool that no call uses answers (at least "
                  f"{PART_SHARE:.0%} of that tool's name's character bigrams that no called tool's name has, "
                  f"{PART_BIGRAMS} or more of them), or in the words a person asks it in (`kopa.apigen.asks`: '약국', "
                  "'외국인 투자 현황') where no called tool's ask says them — reported before `wrong_function` where the query asks for every "
                  "called tool as clearly as that criterion requires (the unserved rest trips it too); a name the query states once and means for two tools alike is not decided; more "
                  "calls than the user meant is not decided beyond what `objective` catches",
    "no_errors": "fully: every call answered with records (an empty answer does not answer the query)",
    "relevant_results": "partly: the records carry fields the catalog documents for the tool; undecided for a "
                        "tool outside the catalog",
}


class Semantic:
    """A checker's finding: pass/fail/undecided per criterion, the first failed one's reason code."""

    def __init__(self, criteria: dict[str, str], detail: str = "", reason: str | None = None) -> None:
        self.criteria = criteria
        self.detail = detail
        failed = [c for c in CRITERIA if criteria.get(c) == "fail"]
        self.reason = reason or (REASONS[failed[0]] if failed else None)
        self.passed = not failed and reason is None


class SemanticChecker(Protocol):
    name: str

    def check(self, record: XRecord, outcomes: list[CallOutcome]) -> Semantic: ...


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFC", text)).lower()


def _written(value: Any) -> list[str]:
    """How a query may write a value: an 8-digit date also as 'YYYY년 M월 D일'; a highway facility as people
    say it ('노포(부산)휴게소' as '노포휴게소(부산 방향)')."""
    text = str(value).strip()
    if re.fullmatch(r"\d{8}", text):
        return [f"{text[:4]}년 {int(text[4:6])}월 {int(text[6:8])}일"]
    place = spoken_place(text)
    return [place] if place != text else []


def _forms(value: Any) -> list[str]:
    text = str(value).strip()
    forms = [_norm(text), *(_norm(w) for w in _written(text))]
    if re.fullmatch(r"\d{8}", text):
        forms.append(f"{text[:4]}-{text[4:6]}-{text[6:8]}")
    elif re.fullmatch(r"\d{6}", text):
        forms.append(_norm(f"{text[:4]}년 {int(text[4:6])}월"))
    return forms


def _bigrams(text: str) -> set[str]:
    t = _norm(re.sub(r"[^0-9A-Za-z가-힣]", "", text))
    return {t[i:i + 2] for i in range(len(t) - 1)}


def _names(tool: XTool, catalog: Catalog) -> list[str]:
    """What a query may call the tool: its Korean title and, for a catalog tool, what it answers as a person
    names it (`kopa.korean.vocabulary.subject`: '유가증권시장 상장 종목' for '주식 - 유가증권 종목기본정보'); a
    record's own tool by the head of its description."""
    if tool.name in catalog:
        spec = catalog[tool.name]
        named = subject(spec)
        # a name of a word or two ('회사') is in half the queries: it tells nothing
        return list(dict.fromkeys([spec.spec.title, *([named] if len(_bigrams(named)) >= MIN_NAME_BIGRAMS else [])]))
    return [tool.description.split(":")[0][:40] if ":" in tool.description[:40] else tool.description[:40]]


def _match(name: str, query_bigrams: set[str]) -> float:
    """The share of a name's character bigrams that the query has."""
    bigrams = _bigrams(name)
    return len(bigrams & query_bigrams) / (len(bigrams) or 1)


def serving_tool(record: XRecord, catalog: Catalog) -> tuple[str, float] | None:
    """An offered tool whose name the query asks for as clearly as function choice requires of a called one
    (CHOICE_CLEAR): a "no call" label on such a query is false — the tool serves at least part of it."""
    q = _bigrams(record.query)
    score = {t.name: max(_match(name, q) for name in _names(t, catalog)) for t in record.tools}
    best = max(score, key=lambda n: (score[n], n), default=None)
    return (best, score[best]) if best is not None and score[best] >= CHOICE_CLEAR else None


# Two listed items in a Korean query: "A와 B" (과, 하고, (이)랑), "A, B", "A 및 B"; an item is a date written
# out or a run of characters up to a space or comma (its particle dropped by `_item`).
_DATE_TEXT = r"\d{4}년\s*\d{1,2}월\s*\d{1,2}일"
_ITEM = rf"({_DATE_TEXT}|[^\s,、]+)"
_CONJ = r"(?:와|과|하고|이랑|랑)"
_AFTER = [re.compile(rf"{_CONJ}\s+{_ITEM}"), re.compile(rf"\s*[,、]\s*{_ITEM}"), re.compile(rf"\s+및\s+{_ITEM}")]
_BEFORE = [re.compile(rf"({_DATE_TEXT}|[^\s,、]+?){_CONJ}\s+$"), re.compile(rf"{_ITEM}\s*[,、]\s*$"),
           re.compile(rf"{_ITEM}\s+및\s+$")]
_PARTICLE = re.compile(r"(?:의|은|는|이|가|을|를|에|에서|로|으로|도|와|과|만|까지|부터|인|들)$")
_DAY = re.compile(r"(\d{4})년\s*(\d{1,2})월\s*(\d{1,2})일")
_HANGUL = re.compile(r"[가-힣]")
# what may follow a name a query states (a particle), longest first
_TAILS = sorted(("의", "은", "는", "이", "가", "을", "를", "에", "에서", "로", "으로", "도", "와", "과", "만", "까지", "부터",
                 "인", "이나", "나", "이랑", "랑", "하고", "처럼"), key=len, reverse=True)
_WORD = re.compile(r"[^\s,、]+")
NAME_WORDS = 10  # a name a query states runs over at most this many words ('감염병의 예방 및 관리에 관한 …')


def _ask_phrases(ask: Ask | None) -> list[str]:
    """The words an ask is put in: what it asks, and its own phrasings without their slots."""
    if ask is None:
        return []
    return [ask.what, *(SLOT_TEXT.sub(" ", t) for t in (*ask.alone, *ask.whole))]


SLOT_TEXT = re.compile(r"<[^>]*>")


def _phrases(query: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of every run of one to NAME_WORDS words of the query, read as a name could be: whole,
    and without a particle at its end; a run ends before a comma, and at the end of a sentence."""
    words = [(m.start(), m.start() + len(m.group().rstrip(".?!"))) for m in _WORD.finditer(query)]
    words = [(a, b) for a, b in words if b > a]
    out = []
    for i, (start, _) in enumerate(words):
        for j in range(i, min(len(words), i + NAME_WORDS)):
            end = words[j][1]
            text = query[start:end]
            if j > i and re.search(r"[,、.?!]", query[words[j - 1][1]:words[j][0]]):
                break
            out.append((start, end, text))
            out += [(start, end - len(t), text[: -len(t)]) for t in _TAILS if text.endswith(t) and len(text) > len(t)]
    return out


def _item(text: str) -> str:
    """A listed item as a value: a date written out as YYYYMMDD, a trailing particle dropped."""
    day = _DAY.fullmatch(text)
    if day:
        return f"{day[1]}{int(day[2]):02d}{int(day[3]):02d}"
    return _PARTICLE.sub("", text.strip(" .?!'\""))


def listed_with(query: str, value: str) -> list[str]:
    """The items the query lists next to `value` ("A와 B", "A, B 및 C"): each neighbour joined to it by a
    conjunction or a comma, as a value (`_item`). A value of digits is matched as a whole number."""
    digits = value.isdigit()
    found = re.finditer(rf"(?<!\d){re.escape(value)}(?!\d)" if digits else re.escape(value), query)
    items: list[str] = []
    for match in found:
        rest, head = query[match.end():], query[:match.start()]
        items += [_item(m.group(1)) for m in (p.match(rest) for p in _AFTER) if m]
        items += [_item(m.group(1)) for m in (p.search(head) for p in _BEFORE) if m]
    return [i for i in dict.fromkeys(items) if i and i != value]


class RuleChecker:
    name = "rules"

    def __init__(self, catalog: Catalog, values: dict[str, list[str]] | None = None,
                 names: dict[str, dict[str, str]] | None = None) -> None:
        self.catalog = catalog
        self.values = values or {}  # parameter name → values the value cache saw under it (APIGen's own runs)
        self.names = names or {}  # code field → code → the name its record gives it (the value cache's)
        self._known: dict[tuple[str, str], list[str]] = {}  # (tool, parameter) → `_candidates`, read once

    def _of_param(self, tool_name: str, param: str, item: str) -> bool:
        """Whether `item` is a value of the parameter: its documented pattern, an enum member, a cached value."""
        if item in self.values.get(param, ()):
            return True
        if tool_name not in self.catalog:
            return False
        try:
            spec = self.catalog[tool_name].spec.param(param)
        except KeyError:
            return False
        if spec.enum:
            return item in spec.enum
        pattern = param_view(spec).pattern
        return pattern is not None and re.fullmatch(pattern, item, flags=re.ASCII) is not None

    def _unasked(self, record: XRecord, query: str) -> list[tuple[str, str, str]]:
        """(tool.param, the value a call states, a value listed beside it that no call asks about)."""
        asked = {str(v) for c in record.answers for v in c.arguments.values() if not isinstance(v, dict | list)}
        found = []
        for call in record.answers:
            for param, value in call.arguments.items():
                if isinstance(value, dict | list) or param.lower() in GENERIC_NAMES or len(str(value)) < 2:
                    continue
                for form in dict.fromkeys([str(value), *_written(value)]):
                    for item in listed_with(query, form):
                        # an item is read up to a space: the first or last word of a name a call asks about
                        # whole ('유료도로법' of '유료도로법 시행령', '남구' of '포항시 남구') is that name
                        if item not in asked and not any(a.startswith(f"{item} ") or a.endswith(f" {item}")
                                                         for a in asked) \
                                and self._of_param(call.name, param, item):
                            found.append((f"{call.name}.{param}", str(value), item))
        return found

    def _said(self, record: XRecord) -> list[str]:
        """The texts by which the query states what the calls ask: every argument value as written (dates also
        as YYYY년 M월 D일) and as a person says it, a code's documented name and the name the value cache's
        records give it."""
        said: list[str] = []
        for call in record.answers:
            for param, value in call.arguments.items():
                if isinstance(value, dict | list) or value in (None, ""):
                    continue
                said += [str(value), *_written(value), *self._forms(call.name, param, value)]
                said += [n for n in (self.names.get(param, {}).get(str(value)),) if n]
        return sorted(set(said), key=len, reverse=True)

    def _forms(self, tool_name: str, param: str, value: Any) -> list[str]:
        """A catalog parameter's value as a query may state it: as a person says it (an enum's meaning, 'T' →
        국가기술자격; '22' → 제22대 국회) and by the name its docs give a code ('B10' → 서울특별시교육청)."""
        if tool_name not in self.catalog:
            return []
        try:
            spec = self.catalog[tool_name].spec.param(param)
        except KeyError:
            return []
        said = value_phrase(spec, value)
        said = said.split("'")[1] if said is not None and "'" in said else said  # "지번구분이 '산'인" → 산
        return [t for t in (said, documented_name(spec, value)) if t]

    def _labels(self, record: XRecord) -> set[str]:
        """The words of the called parameters' labels ('고유번호 00241119': the label says which value, not what
        else is asked)."""
        out: set[str] = set()
        for call in record.answers:
            if call.name not in self.catalog:
                continue
            for param in call.arguments:
                try:
                    label = param_label(self.catalog[call.name].spec.param(param))
                except KeyError:
                    continue
                out |= {w for w in label.split() if len(w) >= 2}
        return out

    def _all_names(self, tool: XTool) -> list[str]:
        """Every name of a tool, short ones too ('현행 법령'): its words are what is asked, never a value."""
        if tool.name in self.catalog:
            spec = self.catalog[tool.name]
            return [spec.spec.title, subject(spec)]
        return _names(tool, self.catalog)

    def _candidates(self, tool_name: str, param: str) -> list[str]:
        """Names a query may state for the parameter: those the value cache saw under it, the names its records
        give the codes it takes ('금강통신' of corp_code 01351003), and its enum's meanings — Korean text only (a
        code is never stated bare in running text this rule can read), of two syllables or more (one is a word
        before it is a name)."""
        if (tool_name, param) in self._known:
            return self._known[tool_name, param]
        names = [*self.values.get(param, ()), *self.names.get(param, {}).values()]
        if tool_name in self.catalog:
            try:
                spec = self.catalog[tool_name].spec.param(param)
            except KeyError:
                spec = None
            if spec is not None and spec.enum:
                names += [m for v in spec.enum if (m := value_phrase(spec, v)) is not None and "'" not in m]
        found = [n for n in dict.fromkeys(names) if len(n) >= 2 and _HANGUL.search(n)]
        self._known[tool_name, param] = found
        return found

    def _partial(self, record: XRecord) -> list[str]:
        """What the query asks that no call serves (`partial_answer`): a name it states — one the value cache saw
        under a parameter of an offered tool, or one of that parameter's enum meanings — that no call asks about, read
        anywhere in the query outside the texts that state what the calls ask and the words of the called tools'
        names (a name just before one of them qualifies it: '경기도 의정부시'); and an offered tool no call uses whose name the rest of the query asks
        for, by the bigrams of its name that no called tool's name has."""
        query = record.query
        called = {c.name for c in record.answers}
        # what the calls ask, as the query states it, and the words of the called tools' own names ('현행' of
        # 시행일 기준 현행 법령 is what is asked, not a value of it)
        words = {w for t in record.tools if t.name in called for n in self._all_names(t) for w in n.split()
                 if len(w) >= 2} | self._labels(record)
        spans = [(m.start(), m.end()) for text in [*self._said(record), *words]
                 for m in re.finditer(re.escape(text), query)]
        found = []
        # the called tools' parameters, then those of the offered tools no call uses (their values stated is
        # their ask left unserved)
        params = [(c.name, p) for c in record.answers for p in c.arguments]
        params += [(t.name, p) for t in record.tools if t.name not in called for p in t.parameters]
        known: dict[str, tuple[str, str]] = {}
        for tool_name, param in dict.fromkeys(params):
            if param.lower() not in GENERIC_NAMES:
                for name in self._candidates(tool_name, param):
                    known.setdefault(name, (tool_name, param))
        for start, end, name in _phrases(query):
            if name not in known:
                continue
            after = end + len(query[end:]) - len(query[end:].lstrip(" "))
            if any(a <= start and start + len(name) <= b for a, b in spans) or any(a == after for a, _ in spans):
                continue  # part of a stated value or of what is asked, or a qualifier of a stated value
            tool_name, param = known[name]
            return [f"the query states {name!r} ({tool_name}.{param}) and no call asks about it"]
        rest = query
        for text in sorted({*self._said(record), *self._labels(record)}, key=len, reverse=True):
            rest = rest.replace(text, " ")
        own = set().union(*(_bigrams(n) for t in record.tools if t.name in called for n in _names(t, self.catalog)))
        q = _bigrams(rest)
        for tool in record.tools:
            if tool.name in called:
                continue
            for name in _names(tool, self.catalog):
                distinct = _bigrams(name) - own
                if len(distinct) >= PART_BIGRAMS and len(distinct & q) >= PART_SHARE * len(distinct):
                    found.append(f"the query asks for what {tool.name} answers ({name!r}) and no call uses it")
                    break
        return found or self._asked_unserved(record, rest)

    def _asked_unserved(self, record: XRecord, rest: str) -> list[str]:
        """An offered tool no call uses whose ask — what a person asks of it, as `kopa.apigen.asks` words it
        ('약국', '공중화장실') — the rest of the query says, where no called tool's ask says it too: the words a
        question uses for a tool are seldom the tool's name, so the name's bigrams miss it."""
        called = {c.name for c in record.answers}
        said = " ".join(p for t in record.tools if t.name in called and t.name in self.catalog
                        for p in _ask_phrases(ask_of(self.catalog[t.name])))
        for tool in record.tools:
            if tool.name in called or tool.name not in self.catalog:
                continue
            ask = ask_of(self.catalog[tool.name])
            what = ask.what if ask is not None else ""
            if len(what) >= 2 and what in rest and what not in said:
                return [f"the query asks for what {tool.name} answers ({what!r}) and no call uses it"]
        return []

    def _exempt(self, tool_name: str, param: str, value: Any, library: dict[str, XTool]) -> bool:
        """Arguments a query need not state: keys and format selectors, paging, documented defaults, enums."""
        if param.lower() in GENERIC_NAMES or value in (None, ""):
            return True
        if tool_name in self.catalog:
            try:
                spec = self.catalog[tool_name].spec.param(param)
            except KeyError:
                return False
            return spec.paging or bool(spec.enum) or (spec.default is not None and str(spec.default) == str(value))
        doc = library.get(tool_name)
        p = doc.parameters.get(param) if doc else None
        return p is not None and p.default is not None and str(p.default) == str(value)

    def _named(self, tool_name: str, param: str, value: Any) -> list[str]:
        """A code the parameter's documentation names ('B10 서울특별시교육청'): the query may state the name."""
        if tool_name not in self.catalog:
            return []
        try:
            named = documented_name(self.catalog[tool_name].spec.param(param), value)
        except KeyError:
            return []
        return [] if named is None else [_norm(named)]

    def check(self, record: XRecord, outcomes: list[CallOutcome]) -> Semantic:
        criteria: dict[str, str] = {}
        notes: list[str] = []
        query = _norm(record.query)
        library = {t.name: t for t in record.tools}
        # 1. objective: the values the calls use are the query's
        ungrounded = [(c.name, k, v) for c in record.answers for k, v in c.arguments.items()
                      if not isinstance(v, dict | list) and not self._exempt(c.name, k, v, library)
                      and not any(f and f in query for f in [*_forms(v), *self._named(c.name, k, v)])]
        criteria["objective"] = "fail" if ungrounded else "pass"
        if ungrounded:
            notes.append("not in the query: " + ", ".join(f"{n}.{k}={v!r}" for n, k, v in ungrounded[:3]))
        # 2. function choice: no offered tool's name fits the query clearly better than a called one's
        q = _bigrams(record.query)
        score = {t.name: max(_match(name, q) for name in _names(t, self.catalog)) for t in record.tools}
        called = {c.name for c in record.answers}
        others = [s for n, s in score.items() if n not in called]
        best_other = max(others, default=0.0)
        worst_called = min((score.get(n, 0.0) for n in called), default=0.0)
        if best_other >= CHOICE_CLEAR and worst_called + CHOICE_MARGIN < best_other:
            criteria["function_choice"] = "fail"
            notes.append(f"an uncalled tool's name matches the query ({best_other:.2f} vs {worst_called:.2f})")
        elif max(score.values(), default=0.0) < CHOICE_FLOOR:
            criteria["function_choice"] = "undecided"
        else:
            criteria["function_choice"] = "pass"
        # 3. call count: no call repeated, no listed value left without its call, nothing asked left unserved
        keys = [orjson.dumps([c.name, c.arguments], option=orjson.OPT_SORT_KEYS) for c in record.answers]
        unasked = self._unasked(record, record.query)
        partial = [] if unasked else self._partial(record)
        criteria["call_count"] = "fail" if len(set(keys)) < len(keys) or unasked or partial else "pass"
        if len(set(keys)) < len(keys):
            notes.append("the same call twice")
        elif unasked:
            where, value, item = unasked[0]
            notes.append(f"the query lists {item!r} beside {value!r} ({where}) and no call asks about it")
        elif partial:
            notes.append(partial[0])
        # 4. no errors: every call answered with records
        empty = [o.name for o in outcomes if not o.ok or o.records == 0]
        criteria["no_errors"] = "fail" if empty else "pass"
        if empty:
            notes.append(f"no records from {empty[0]}")
        # 5. results carry the tool's documented fields
        relevant = "pass"
        for o in outcomes:
            if o.name not in self.catalog:
                relevant = "undecided" if relevant == "pass" else relevant
                continue
            documented = {f.name for f in self.catalog[o.name].spec.output}
            if o.sample and documented and not any(documented & set(r) for r in o.sample):
                relevant = "fail"
                notes.append(f"{o.name} answered fields it does not document")
        criteria["relevant_results"] = relevant
        failed = [c for c in CRITERIA if criteria[c] == "fail"]
        too_few = bool(failed) and failed[0] == "call_count" and len(set(keys)) == len(keys)
        reason = ("too_few_calls" if unasked else "partial_answer") if too_few else None
        if partial and criteria["objective"] == "pass" and worst_called >= CHOICE_CLEAR:
            reason = "partial_answer"  # every called tool is one the query asks for: what an uncalled one matches
            # is the rest of the query, left unserved, not a wrong choice
        return Semantic(criteria, "; ".join(notes)[:300], reason=reason)


CHECKER_PROMPT = """당신은 function-calling 학습 데이터의 의미 검증기(semantic checker)입니다.
사용자 질문, 호출된 함수와 인자, 실행 결과를 보고 다음 다섯 기준을 각각 판단하세요.
1. objective: 함수 호출이 질문의 목적에 맞고 인자 값이 타당한가
2. function_choice: 제공된 함수들 가운데 알맞은 함수를 골랐는가
3. call_count: 호출 수가 사용자의 의도와 맞는가
4. no_errors: 실행 결과에 오류가 없는가
5. relevant_results: 실행 결과가 함수의 목적과 질문에 관련된 내용인가
JSON 객체 하나로만 답하세요: {"thought": "...", "criteria": {"objective": "pass" 또는 "fail", ...}}"""


class ChatChecker:
    """The five criteria asked of an OpenAI-compatible model (cached and replayable through CachedChatModel).
    A failed criterion is reported as `model:<criterion>`; a reply that names no verdict is the checker's
    failure, reported as `checker_unparseable` (the sample is not passed on an answer nobody gave)."""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.name = f"openai:{model.model}"

    def messages(self, record: XRecord, outcomes: list[CallOutcome]) -> list[dict[str, Any]]:
        body = {"query": record.query,
                "available_functions": [{"name": t.name, "description": t.description} for t in record.tools],
                "calls": [{"name": c.name, "arguments": c.arguments} for c in record.answers],
                "results": [{"name": o.name, "ok": o.ok, "total_count": o.total_count, "records": o.sample,
                             "error": o.kind} for o in outcomes]}
        return [{"role": "system", "content": CHECKER_PROMPT},
                {"role": "user", "content": json.dumps(body, ensure_ascii=False, sort_keys=True)}]

    def check(self, record: XRecord, outcomes: list[CallOutcome]) -> Semantic:
        reply = self.model.complete(self.messages(record, outcomes), temperature=0.0)
        try:
            answer = first_json_object(reply.content)
            given = answer["criteria"]
            if not isinstance(given, dict):
                raise TypeError("criteria is not an object")
        except (ValueError, KeyError, TypeError) as exc:
            return Semantic({c: "undecided" for c in CRITERIA}, f"checker reply: {exc}", "checker_unparseable")
        criteria = {c: ("fail" if str(given.get(c, "")).lower() == "fail" else
                        "pass" if str(given.get(c, "")).lower() == "pass" else "undecided") for c in CRITERIA}
        failed = [c for c in CRITERIA if criteria[c] == "fail"]
        # the model's own finding, named by criterion (`model:function_choice`): not the rules' codes
        return Semantic(criteria, str(answer.get("thought", ""))[:300], f"model:{failed[0]}" if failed else None)
