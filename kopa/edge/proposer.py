"""The edge-proposer role (seed §5.2): per candidate edge u → v, a feasibility score s_e ∈ [0, 1],
a binding set B_e (v's parameter → u's output field) and default candidates D_e for unbound parameters.

Both read a tool only through its public view (kopa.catalog.view): names, Korean descriptions, types,
documented patterns — never kopa's format identifiers, never the simulator's truth. `OfflineProposer` is
deterministic. `OpenAIProposer` asks a chat model the same question
with the same contract; wrap its model in `kopa.llm.cache.CachedChatModel` to cache and record calls.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from kopa.catalog.view import FieldView, ParamView, ToolView
from kopa.edge.plan import is_generic
from kopa.llm.client import ChatModel


class Proposal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str
    target: str
    score: float
    bindings: dict[str, str] = {}
    defaults: dict[str, list[str]] = {}
    rationale: str = ""


@runtime_checkable
class EdgeProposer(Protocol):
    def propose(self, source: ToolView, target: ToolView) -> Proposal: ...


# ---------------------------------------------------------------- lexical features (the public view only)

# Korean public-API abbreviations, so SIGUN_CD ~ sigunCode and corp_nm ~ corpName.
TOKEN_SYNONYMS = {"cd": "code", "nm": "name", "num": "no", "nmbr": "no", "ymd": "date", "de": "date",
                  "dt": "date", "yr": "year", "yy": "year", "sn": "seq", "idx": "id"}
STOP_TOKENS = frozenset({"srch", "search", "sch", "q", "query", "val", "value", "info"})
KIND_TOKENS = {"code": "code", "id": "code", "no": "code", "seq": "code", "key": "code", "mst": "code",
               "name": "name", "date": "date", "year": "date", "day": "date"}
IDENTIFIER_HEAD = "code"
GENERIC_NAME_TOKENS = frozenset(KIND_TOKENS)  # a name made only of these says what kind of value, not which
# Korean head nouns: 코드/번호/ID are one kind (identifiers), 명/이름/성명/명칭 another, dates a third.
KIND_KOREAN = (("code", ("코드", "번호", "ID", "아이디", "일련번호")),
               ("name", ("명칭", "이름", "성명", "명")),
               ("date", ("일자", "날짜", "연도", "년도", "연월", "기준일")))
# A period or a small documented choice (YYYYMMDD, 기준년분기, 국회 대수, 보고서 코드 11011|11012…): any value
# of the right form works, so binding one is weak evidence of a dependency, and leaving it unbound is easy.
PERIOD_WORDS = re.compile(r"YYYY|\bHH\b|분기|대수")
# Codes of a closed, small population (시도, 시군구, 자치구, 교육청): every dataset of a region holds them all,
# so a value handed on is almost always one the target answers for. Other entities (companies, schools,
# laws, bills) come in thousands, and a dataset holds some of them.
# ... and of those, the ones of a handful of members (17 시도, 17 시도교육청): any dataset holds them all.
FEW_MEMBER_WORDS = re.compile(r"시도|교육청|광역")
CLOSED_SET_WORDS = re.compile(r"시도|시군|자치구|(?<![가-힣])구코드|시·군|시군구|교육청|광역|행정구역|법정동|지역코드")
# A target that reports events (주요사항보고서: 결정, 발생, 신청 …) answers only for the entities that had one.
EVENT_WORDS = re.compile(r"주요사항|결정|발생|신청|제기|개시|중단|정지|폐지|해지|체결")
# Where a dataset is: a 시도 named in its title (else its description) scopes the region codes it holds. A
# Seoul dataset's 자치구 codes are none of a Gyeonggi dataset's 시군 codes, although both are 5-digit
# 시군구코드 (the nesting 경기도 시군 ⊂ 전국 시군구 is told by this wording, not by the pattern).
SIDO_WORDS = re.compile(r"서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충청북도|충북|충청남도|충남|전라북도|전북|"
                        r"전라남도|전남|경상북도|경북|경상남도|경남|제주")
# The wording of a shape alone (숫자 5자리, 영문 대문자·숫자 8자리, PRC_ 뒤에 …): it says how a value is
# written, not which thing it names, so two sides documented with it agree on the shape only.
SHAPE_WORDS = re.compile(r"숫자|영문|대문자|소문자|자리|뒤에|[^가-힣]")
_EXAMPLE = re.compile(r"예\s*[:：]\s*([0-9A-Za-z가-힣_~.\-]+)")
_HANGUL_ALNUM = re.compile(r"[가-힣A-Za-z0-9]+")
_FREE_DIGITS = re.compile(r"^\^[0-9A-Z_]*\\d\{(?:\d+,)?(\d+)\}\$$")
SMALL_CODE_DIGITS = 4  # a code of at most four free digits (노선번호 0010, 영업소 101, 41xxx) names one of few things
_DIGITS = re.compile(r"^\^(?:\d+)?\\d\{(\d+)\}\$$|^\^(\d+)\\d\{(\d+)\}\$$")


def name_tokens(name: str) -> tuple[str, ...]:
    parts = [p.lower() for p in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", name) if p]
    tokens = [TOKEN_SYNONYMS.get(p, p) for p in parts]
    kept = [t for t in tokens if t not in STOP_TOKENS]
    return tuple(kept or tokens)


def _bigrams(text: str) -> frozenset[str]:
    joined = "".join(_HANGUL_ALNUM.findall(text.lower()))
    return frozenset(joined[i:i + 2] for i in range(len(joined) - 1))


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2.0 * len(a & b) / (len(a) + len(b)) if a and b else 0.0


def _desc_head(description: str) -> str:
    """The noun phrase before any parenthesis or colon: '고유번호 (공시대상…)' → '고유번호'."""
    return re.split(r"[(:（,]", description, maxsplit=1)[0].strip()


def digit_length(pattern: str | None) -> int | None:
    """n for an all-digit pattern of fixed length (^\\d{5}$, ^41\\d{3}$), else None."""
    if not pattern:
        return None
    m = _DIGITS.match(pattern)
    if m is None:
        return None
    if m.group(1) is not None:
        return int(m.group(1))
    return len(m.group(2)) + int(m.group(3))


def free_digits(pattern: str | None) -> int | None:
    """How many digits a code's pattern leaves free (^\\d{5}$ → 5, ^41\\d{3}$ → 3, ^A\\d{5}$ → 5), else None."""
    m = _FREE_DIGITS.match(pattern or "")
    return int(m.group(1)) if m else None


def shape_only(doc: str | None) -> bool:
    """True when a format's documented wording describes only the value's shape (숫자 6자리)."""
    return doc is not None and not SHAPE_WORDS.sub("", doc)


@cache
def _scope(title: str, description: str) -> str | None:
    found = set(SIDO_WORDS.findall(title)) or set(SIDO_WORDS.findall(description))
    return found.pop() if len(found) == 1 else None


def region_scope(tool: ToolView) -> str | None:
    """The one 시도 a tool's title (else description) names (경기, 서울 …), or None: nationwide or unsaid."""
    return _scope(tool.title, tool.description)


@dataclass(frozen=True, eq=False)  # identity hash: _item() interns one per signature
class _Item:
    """Match features of one parameter or output field, computed once per distinct documentation."""

    name: str
    norm: str
    tokens: frozenset[str]
    stems: frozenset[str]  # the tokens without the identifier head `code`
    name_bigrams: frozenset[str]
    desc_bigrams: frozenset[str]
    pattern: str | None
    doc: str | None  # the format's documented wording, None when it names only a shape
    kind: str | None
    closed: bool
    region: bool  # worded as a region code (시군, 자치구, 시군구, 지역코드 …)
    small: bool  # one of few values wherever it is used: ≤ SMALL_CODE_DIGITS free digits, or 시도/교육청 wording
    type: str


def _kind(tokens: tuple[str, ...], text: str, pattern: str | None, head: str) -> str | None:
    if PERIOD_WORDS.search(text) or (pattern is not None and "|" in pattern):
        return "date"
    if pattern:
        return "code"
    for token in reversed(tokens):  # the last token is the head: corp_name → name
        if token in KIND_TOKENS:
            return KIND_TOKENS[token]
    for kind, words in KIND_KOREAN:
        if any(head.endswith(w) for w in words):
            return kind
    return None


@cache
def _item(name: str, description: str, pattern: str | None, doc: str | None, type_: str) -> _Item:
    tokens = name_tokens(name)
    head = _desc_head(description)
    text = f"{description} {doc or ''}"
    small = (free_digits(pattern) or 99) <= SMALL_CODE_DIGITS or bool(FEW_MEMBER_WORDS.search(text))
    region = bool(CLOSED_SET_WORDS.search(text))
    # 코드 / code heads nearly every identifier (법령코드, 단축코드, lawCd, srtnCd): sharing it says nothing
    # about which thing two sides name, so names and wording are compared without it where more is left.
    stems = tuple(t for t in tokens if t != IDENTIFIER_HEAD) or tokens
    stem_head = re.sub(r"\s*코드$", "", head)
    return _Item(name=name, norm="".join(tokens), tokens=frozenset(tokens), stems=frozenset(stems),
                 name_bigrams=_bigrams("".join(stems)),
                 desc_bigrams=_bigrams(stem_head if len(stem_head) >= 2 else (head or description)),
                 pattern=pattern, doc=None if shape_only(doc) else doc, kind=_kind(tokens, text, pattern, head),
                 closed=region or small, region=region, small=small, type=type_)


def _feat(item: ParamView | FieldView) -> _Item:
    return _item(item.name, item.description, item.pattern, item.format_description, item.type)


def lexical(p: _Item, f: _Item) -> float:
    """Name and description similarity in [0, 1]: equal normalised names, token overlap, character
    bigrams of the names and of the Korean description heads (고유번호 ~ 고유번호)."""
    desc = 0.85 * _dice(p.desc_bigrams, f.desc_bigrams)
    if p.tokens <= GENERIC_NAME_TOKENS or f.tokens <= GENERIC_NAME_TOKENS:
        # CODE, CD, NO, NM, ID name a kind, not an entity: the same generic name means different things in
        # different datasets, so only the Korean wording can tell what it carries.
        return desc
    if p.norm == f.norm:
        return 1.0
    jaccard = len(p.stems & f.stems) / len(p.stems | f.stems) if p.stems and f.stems else 0.0
    name_s = max(jaccard, 0.8 * _dice(p.name_bigrams, f.name_bigrams))
    return max(name_s, desc)


# How sure a binding is, by what the documentation of the two sides shares. Read as probabilities that
# the field carries what the parameter asks for; the constants were set by reading the calibration curve
# of a development subset (kopa.edge.truth_study) and checked on a disjoint one.
SAME_DOC = 0.9          # the same documented format (pattern and wording) on both sides
SAME_PATTERN = 0.35     # the same pattern, worded differently: 8 digits may be a date or a DART 고유번호
NESTED_PATTERN = 0.3    # both all-digit of one length, patterns differ (41xxx 시군코드 inside 5-digit 시군구코드)
# Both sides worded as region codes with one pattern, or all-digit patterns of one length (경기도 시군코드
# 41xxx is a 5-digit 시군구코드): the same kind of code whatever the wire names (SIGUN_CD, CGG_CD, CODE) —
# whether the target holds the values is the regions' question (closed_coverage), not the names'.
SAME_REGION_CODE = 1.0
ONE_SIDE_DOC = 0.75     # one side documents a format, the other does not: names and wording decide
NO_DOC = 0.7            # neither documents a format
KIND_MISMATCH = 0.3     # an identifier bound to a name or a date
WEAK_LEXICAL = 0.8      # a date/period parameter binds only to a field of the same concept


def match(p: _Item, f: _Item) -> float:
    """How likely output field f carries what parameter p asks for, in [0, 1].

    Documented formats that differ rule a binding out; the same documented format is the strongest
    evidence, the same bare pattern a weak one; otherwise names and Korean descriptions decide. A
    date/period parameter binds only to a field of the same concept (lexical ≥ WEAK_LEXICAL): a
    disclosure's 접수일자 is no 검색시작일자, and binding it would only narrow the query to one day."""
    lex = lexical(p, f)
    if p.kind == "date" and lex < WEAK_LEXICAL:
        return 0.0
    if p.pattern and f.pattern:
        same_length = digit_length(p.pattern) is not None and digit_length(p.pattern) == digit_length(f.pattern)
        if p.region and f.region and (p.pattern == f.pattern or same_length):
            m = SAME_REGION_CODE * (0.85 + 0.15 * lex)
        elif p.pattern == f.pattern and p.doc is not None and p.doc == f.doc:
            m = SAME_DOC * (0.85 + 0.15 * lex)
        elif p.pattern == f.pattern:
            m = SAME_PATTERN + 0.5 * lex
        elif same_length:
            m = NESTED_PATTERN * lex
        else:
            return 0.0
    elif p.pattern or f.pattern:
        m = ONE_SIDE_DOC * lex
    else:
        m = NO_DOC * lex
    if p.kind and f.kind and p.kind != f.kind:
        m *= KIND_MISMATCH
    if p.type != f.type and "boolean" in (p.type, f.type):
        m *= 0.5
    return min(m, 1.0)


def candidate_values(param: ParamView, limit: int = 5) -> list[str]:
    """D_e(p) from the documentation: enum values, the documented default, '예: …' examples in the
    parameter's description and in its format's wording."""
    values: list[str] = []
    values += [str(v) for v in param.enum or ()]
    if param.default is not None:
        values.append(str(param.default))
    values += _EXAMPLE.findall(param.description)
    if param.format_description:
        values += _EXAMPLE.findall(param.format_description)
    out: list[str] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out[:limit]


# ---------------------------------------------------------------- offline proposer

BIND_THRESHOLD = 0.3
# A bound value also has to be one the target holds: the same entity answers only where the target's
# data covers the values the source hands on.
CLOSED_SET_COVERAGE = 0.95   # a code of a small closed population (시군, 자치구, 시도): every dataset holds them
# ... of its region: a 시군구 code handed from one 시도's dataset to another's (서울 자치구 → 경기 시군), or from
# a nationwide one to a regional one, is mostly not a value the target holds; a nationwide dataset of
# 시군구 codes (about 250 of them, 5 free digits) holds part of them.
REGION_MISMATCH = 0.02
NATIONAL_TO_REGIONAL = 0.05
NATIONAL_REGION_CODES = 0.45
# A regional source's codes handed to a nationwide target: a nationwide lookup holds them all, a nationwide
# dataset of a few dozen rows some (the dev subset: 10 of 16 such edges truly bound).
REGIONAL_TO_NATIONAL = 0.6
# An entity of thousands (회사, 학교, 법령, 의안, 국회의원): a tool that takes it as a REQUIRED key is a lookup,
# built to answer for any of them; one that takes it as an OPTIONAL filter lists records of a dataset, which
# holds some of them — filtering by a value handed on from elsewhere mostly finds nothing.
OPEN_SET_KEY_COVERAGE = 0.7
OPEN_SET_FILTER_COVERAGE = 0.35
EVENT_COVERAGE = 0.08        # a target that reports events answers only for the entities that had one
PERIOD_BINDING = 0.5         # binding a date or period alone says little about a dependency
# An unbound required parameter must be guessed: from its documented choices (any works), a period's form
# (a recent one mostly works), examples in its wording (one of them may), or not at all.
GUESS_ENUM = 0.95
GUESS_PERIOD = 0.85
GUESS_EXAMPLE = 0.6
UNGUESSABLE = 0.1
NO_BINDING = 0.1             # an edge with no binding makes no claim: below s_min, ∝ the best near-match


def closed_coverage(source_scope: str | None, target_scope: str | None, small: bool) -> float:
    """How likely a target holds the closed-population codes (region codes above all) a source hands on,
    by where the two datasets are (their 시도, or None for nationwide)."""
    if source_scope is not None and target_scope is not None and source_scope != target_scope:
        return REGION_MISMATCH
    if small:
        return CLOSED_SET_COVERAGE
    if target_scope is not None:
        return CLOSED_SET_COVERAGE if source_scope == target_scope else NATIONAL_TO_REGIONAL
    return NATIONAL_REGION_CODES if source_scope is None else REGIONAL_TO_NATIONAL


class OfflineProposer:
    """Deterministic proposer over the public view: binds each non-generic target parameter to the
    source output field that documents it best and scores

        s_e = Π_bound match(p, f) × coverage(source, target) × Π_unbound-required guessability(p)

    — each factor read as a probability (that the field carries the parameter's entity, that the target
    holds the value handed on, that a required input left unbound can be guessed), so that s_e estimates
    the chance the edge executes with its plan. Coverage reads the population the bound codes name (a
    handful of 시도, the 시군구 of a region, thousands of companies), where the two datasets are (the
    시도 their titles name) and whether the target is a lookup (required key) or a filtered list. Without
    any binding an edge makes no claim, so s_e stays below s_min."""

    name = "offline-lexical-v4"  # v4: region scopes, region-code wording, shape-only formats

    def __init__(self) -> None:
        # (source tool, parameter documentation) → (best match, field). Targets of one source share
        # parameter documentation (corp_code on 50 DART tools), so a build computes each once.
        self._best: dict[tuple[int, _Item], tuple[float, str | None]] = {}
        self._fields: dict[int, tuple[ToolView, list[tuple[str, _Item]]]] = {}

    def _source_fields(self, source: ToolView) -> list[tuple[str, _Item]]:
        hit = self._fields.get(id(source))
        if hit is None or hit[0] is not source:  # keyed by identity; the view is kept so the id stays its own
            hit = self._fields[id(source)] = (source, [(f.name, _feat(f)) for f in source.output])
        return hit[1]

    def _best_field(self, source: ToolView, pf: _Item) -> tuple[float, str | None]:
        fields = self._source_fields(source)
        key = (id(source), pf)
        hit = self._best.get(key)
        if hit is None:
            best: tuple[float, str | None] = (0.0, None)
            for fname, ff in fields:  # first best wins: output order is the catalog's
                m = match(pf, ff)
                if m > best[0]:
                    best = (m, fname)
            hit = self._best[key] = best
        return hit

    def propose(self, source: ToolView, target: ToolView) -> Proposal:
        bindings: dict[str, str] = {}
        defaults: dict[str, list[str]] = {}
        log_score = 0.0
        best_any = 0.0
        entity_bound = False
        closed = True
        small = True  # every closed binding is a code of few values (시도 2 digits, 교육청 B10)
        keyed = True  # every entity binding fills a required input
        notes: list[str] = []
        for param in target.params:
            if is_generic(param):
                continue
            pf = _feat(param)
            best_m, best_f = self._best_field(source, pf)
            best_any = max(best_any, best_m)
            weak = pf.kind == "date"
            # An optional filter is bound only when it carries a code: binding every optional name or date
            # the source also has (시설명 to 시설명 across two datasets) ANDs filters that rarely hold together.
            bindable = param.required or pf.kind == "code"
            if best_f is not None and best_m >= BIND_THRESHOLD and bindable:
                bindings[param.name] = best_f
                log_score += math.log(best_m * (PERIOD_BINDING if weak else 1.0))
                if not weak:
                    entity_bound = True
                    closed = closed and pf.closed  # the parameter's documentation names the population
                    small = small and pf.small
                    keyed = keyed and param.required
                notes.append(f"{param.name}←{best_f} ({best_m:.2f})")
            else:
                defaults[param.name] = candidate_values(param)
                if param.required:
                    guess = (GUESS_ENUM if param.enum else GUESS_PERIOD if weak
                             else GUESS_EXAMPLE if defaults[param.name] else UNGUESSABLE)
                    log_score += math.log(guess)
                    notes.append(f"{param.name}: clarify" + ("" if defaults[param.name] else " (no candidates)"))
        if not bindings:
            return Proposal(source=source.name, target=target.name, score=round(NO_BINDING * best_any, 4),
                            defaults=defaults,
                            rationale="no output field of the source matches a non-generic parameter of the target")
        if entity_bound:
            if EVENT_WORDS.search(target.title):
                coverage = EVENT_COVERAGE
            else:
                coverage = (closed_coverage(region_scope(source), region_scope(target), small) if closed
                            else OPEN_SET_KEY_COVERAGE if keyed else OPEN_SET_FILTER_COVERAGE)
            log_score += math.log(coverage)
            notes.append(f"coverage {coverage:.2f}")
        score = math.exp(log_score)
        return Proposal(source=source.name, target=target.name, score=round(min(max(score, 0.0), 1.0), 4),
                        bindings=bindings, defaults=defaults, rationale="binds " + "; ".join(notes))


# ---------------------------------------------------------------- OpenAI-compatible proposer

SYSTEM_PROMPT = """당신은 한국 공공 API 도구 사이의 의존 관계를 판정하는 edge proposer입니다.
source 도구의 출력 필드 값으로 target 도구의 입력 파라미터를 채워 target을 호출할 수 있는지 판단하세요.
JSON 객체 하나로만 답하세요:
{"score": 0~1 실수 (이 연결이 실제로 실행되어 의미 있는 결과를 낼 가능성),
 "bindings": {"target 파라미터 이름": "source 출력 필드 이름", ...},
 "defaults": {"바인딩하지 않은 target 파라미터 이름": ["시도할 값", ...], ...},
 "rationale": "한두 문장의 근거"}
API 키, 페이지 번호/크기, 응답 형식(type) 같은 일반 파라미터는 바인딩하지 마세요."""


def _documented(item: ParamView | FieldView) -> dict[str, Any]:
    """A field's or parameter's documentation as a JSON schema would carry it: the wording, the pattern."""
    return {"type": item.type, "description": item.text, **({"pattern": item.pattern} if item.pattern else {})}


def _tool_view(tool: ToolView, side: str) -> dict[str, Any]:
    view: dict[str, Any] = {"name": tool.name, "title": tool.title, "description": tool.description}
    if side == "source":
        view["output"] = [{"name": f.name, **_documented(f)} for f in tool.output]
    else:
        view["params"] = [{"name": p.name, "required": p.required, **_documented(p),
                           **({"enum": list(p.enum)} if p.enum else {})}
                          for p in tool.params if not is_generic(p)]
    return view


def edge_messages(source: ToolView, target: ToolView) -> list[dict[str, Any]]:
    """The prompt contract: the system role above and the two catalog views as JSON."""
    body = {"source": _tool_view(source, "source"), "target": _tool_view(target, "target")}
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": json.dumps(body, ensure_ascii=False, sort_keys=True)}]


def first_json_object(text: str | None) -> dict[str, Any]:
    """The first JSON object in a reply, tolerating code fences and prose around it (every chat role
    of EDGE reads its answer with it)."""
    if not text:
        raise ValueError("empty reply")
    stripped = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        start, end = stripped.find("{"), stripped.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON object in the reply") from None
        value = json.loads(stripped[start:end + 1])
    if not isinstance(value, dict):
        raise ValueError(f"reply is a JSON {type(value).__name__}, not an object")
    return value


def parse_proposal(source: ToolView, target: ToolView, content: str | None) -> Proposal:
    """A Proposal from a model's reply. Malformed output is data, not an exception: it becomes score 0
    with the reason. Bindings naming unknown or generic parameters or unknown fields are dropped."""
    try:
        raw = first_json_object(content)
        score = float(raw.get("score", 0.0))
        if math.isnan(score):
            raise ValueError("score is NaN")
    except (ValueError, TypeError) as exc:
        return Proposal(source=source.name, target=target.name, score=0.0, rationale=f"unusable reply: {exc}")
    params = {p.name: p for p in target.params if not is_generic(p)}
    fields = {f.name for f in source.output}
    bindings: dict[str, str] = {}
    dropped: list[str] = []
    raw_bindings = raw.get("bindings")
    if not isinstance(raw_bindings, dict):
        raw_bindings = {}
    for p, f in raw_bindings.items():
        if p in params and isinstance(f, str) and f in fields:
            bindings[p] = f
        else:
            dropped.append(f"{p}←{f}")
    defaults: dict[str, list[str]] = {}
    raw_defaults = raw.get("defaults")
    if not isinstance(raw_defaults, dict):
        raw_defaults = {}
    for p, values in raw_defaults.items():
        if p in params and p not in bindings:
            items = values if isinstance(values, list) else [values]
            defaults[p] = [str(v) for v in items if v is not None and not isinstance(v, dict | list)]
    rationale = str(raw.get("rationale", ""))
    if dropped:
        rationale += f" [dropped invalid bindings: {', '.join(dropped)}]"
    return Proposal(source=source.name, target=target.name, score=round(min(max(score, 0.0), 1.0), 4),
                    bindings=bindings, defaults=defaults, rationale=rationale)


class OpenAIProposer:
    """One chat call per candidate edge; the caller wraps `chat_model` in CachedChatModel to cache,
    record and replay."""

    def __init__(self, chat_model: ChatModel) -> None:
        self.chat_model = chat_model
        self.name = f"chat:{chat_model.model}"

    def propose(self, source: ToolView, target: ToolView) -> Proposal:
        reply = self.chat_model.complete(edge_messages(source, target))
        return parse_proposal(source, target, reply.content)
