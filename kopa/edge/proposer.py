"""The edge-proposer role (seed §5.2): per candidate edge u → v, a feasibility score s_e ∈ [0, 1],
a binding set B_e (v's parameter → u's output field) and default candidates D_e for unbound parameters.

`OfflineProposer` is deterministic and reads only what the catalog shows (names, Korean descriptions,
types, formats) — never the simulator's truth. `OpenAIProposer` asks a chat model the same question
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

from kopa.catalog.formats import FORMATS
from kopa.catalog.models import FieldSpec, ParamSpec, Tool
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
    def propose(self, source: Tool, target: Tool) -> Proposal: ...


# ---------------------------------------------------------------- lexical features (catalog only)

# Formats that carry a date/period rather than an entity: binding one is weak evidence of a dependency
# (any date can be supplied) but an unbound one is easy to clarify.
WEAK_FORMATS = frozenset({"yyyymmdd", "yyyymm", "yyyy", "hh", "date_range", "yyyyq", "age", "reprt_code"})
WEAK_LEXICAL = 0.8  # a date/period parameter binds only to a field of the same concept
# (field format, parameter format) pairs whose value sets nest: every 경기도 시군코드 is a 시군구코드, but a
# 서울 자치구 코드 fails a 41xxx pattern, so the direction matters.
COMPATIBLE_FORMATS = frozenset({("sigun_cd", "sigungu_code")})
# Korean public-API abbreviations, so SIGUN_CD ~ sigunCode and corp_nm ~ corpName.
TOKEN_SYNONYMS = {"cd": "code", "nm": "name", "num": "no", "nmbr": "no", "ymd": "date", "de": "date",
                  "dt": "date", "yr": "year", "yy": "year", "sn": "seq", "idx": "id"}
STOP_TOKENS = frozenset({"srch", "search", "sch", "q", "query", "val", "value", "info"})
KIND_TOKENS = {"code": "code", "id": "code", "no": "code", "seq": "code", "key": "code", "mst": "code",
               "name": "name", "date": "date", "year": "date", "day": "date"}
# Korean head nouns: 코드/번호/ID are one kind (identifiers), 명/이름/성명/명칭 another, dates a third.
KIND_KOREAN = (("code", ("코드", "번호", "ID", "아이디", "일련번호")),
               ("name", ("명칭", "이름", "성명", "명")),
               ("date", ("일자", "날짜", "연도", "년도", "연월", "기준일")))
_EXAMPLE = re.compile(r"예\s*[:：]\s*([0-9A-Za-z가-힣_~.\-]+)")
_HANGUL_ALNUM = re.compile(r"[가-힣A-Za-z0-9]+")


def _name_tokens(name: str) -> tuple[str, ...]:
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


@dataclass(frozen=True, eq=False)  # identity hash: _item() interns one per signature
class _Item:
    """Match features of one parameter or output field, computed once per distinct signature."""

    name: str
    norm: str
    tokens: frozenset[str]
    name_bigrams: frozenset[str]
    desc_bigrams: frozenset[str]
    fmt: str | None
    kind: str | None
    type: str


def _kind(tokens: tuple[str, ...], fmt: str | None, head: str) -> str | None:
    if fmt in WEAK_FORMATS:
        return "date"
    if fmt:
        return "code"
    for token in reversed(tokens):  # the last token is the head: corp_name → name
        if token in KIND_TOKENS:
            return KIND_TOKENS[token]
    for kind, words in KIND_KOREAN:
        if any(head.endswith(w) for w in words):
            return kind
    return None


@cache
def _item(name: str, description: str, fmt: str | None, type_: str) -> _Item:
    tokens = _name_tokens(name)
    head = _desc_head(description)
    return _Item(name=name, norm="".join(tokens), tokens=frozenset(tokens),
                 name_bigrams=_bigrams("".join(tokens)), desc_bigrams=_bigrams(head or description),
                 fmt=fmt, kind=_kind(tokens, fmt, head), type=type_)


def _feat(spec: ParamSpec | FieldSpec) -> _Item:
    return _item(spec.name, spec.description, spec.format, spec.type)


def lexical(p: _Item, f: _Item) -> float:
    """Name and description similarity in [0, 1]: equal normalised names, token overlap, character
    bigrams of the names and of the Korean description heads (고유번호 ~ 고유번호)."""
    if p.norm == f.norm:
        return 1.0
    jaccard = len(p.tokens & f.tokens) / len(p.tokens | f.tokens) if p.tokens and f.tokens else 0.0
    name_s = max(jaccard, 0.8 * _dice(p.name_bigrams, f.name_bigrams))
    return max(name_s, 0.85 * _dice(p.desc_bigrams, f.desc_bigrams))


def match(p: _Item, f: _Item) -> float:
    """How well output field f fills parameter p, in [0, 1]. Same format is the strongest evidence;
    two different documented formats rule a binding out; otherwise names and descriptions decide.
    A date/period parameter binds only to a field of the same concept (lexical ≥ WEAK_LEXICAL): a
    disclosure's 접수일자 is no 검색시작일자, and binding it would only narrow the query to one day."""
    lex = lexical(p, f)
    if p.kind == "date" and lex < WEAK_LEXICAL:
        return 0.0
    if p.fmt and f.fmt:
        if p.fmt == f.fmt:
            m = 0.7 + 0.3 * lex
        elif (f.fmt, p.fmt) in COMPATIBLE_FORMATS:
            m = 0.45 + 0.3 * lex
        else:
            return 0.0
    elif p.fmt or f.fmt:
        m = 0.85 * lex
    else:
        m = 0.8 * lex
    if p.kind and f.kind and p.kind != f.kind:
        m *= 0.3
    if p.type != f.type and "boolean" in (p.type, f.type):
        m *= 0.5
    return m


def candidate_values(param: ParamSpec, limit: int = 5) -> list[str]:
    """D_e(p) from the catalog: enum values, the documented default, '예: …' examples in the
    parameter's description and in its format's description."""
    values: list[str] = []
    values += [str(v) for v in param.enum or []]
    if param.default is not None:
        values.append(str(param.default))
    values += _EXAMPLE.findall(param.description)
    if param.format and param.format in FORMATS:
        values += _EXAMPLE.findall(FORMATS[param.format][1])
    out: list[str] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out[:limit]


# ---------------------------------------------------------------- offline proposer

def _evidence(param: ParamSpec, pf: _Item) -> float:
    weight = KIND_WEIGHT.get(pf.kind, 0.6)
    if pf.kind == "code" and not pf.fmt:
        weight = UNFORMATTED_CODE
    return weight * (1.0 if param.required else OPTIONAL_WEIGHT)


BIND_THRESHOLD = 0.5
# Evidence weight of a binding by what it carries: a documented code format is the strongest claim;
# a free-text name (시설명, 시군명) or a date often matches by wording alone.
KIND_WEIGHT = {"code": 1.0, "name": 0.6, "date": 0.6, None: 0.6}
UNFORMATTED_CODE = 0.8     # a code-like parameter without a documented format
OPTIONAL_WEIGHT = 0.85     # binding an optional filter says less than binding a required input
CLARIFIABLE = 0.5          # an unbound required param with documented candidates or a weak format
UNGUESSABLE = 0.15         # an unbound required entity param with nothing to try
OPTIONAL_ONLY = 0.7        # coverage when the target has no required non-generic params


class OfflineProposer:
    """Deterministic lexical proposer: binds each non-generic target parameter to the source output
    field that matches it best, and scores s_e = strength × coverage, where strength is the best
    (entity-weighted) binding and coverage the geometric mean of how each required parameter gets
    its value. Without any binding an edge makes no claim, so s_e stays below s_min."""

    name = "offline-lexical-v2"

    def __init__(self) -> None:
        # (source tool, parameter signature) → (best match, field). Targets of one source share
        # parameter signatures (corp_code on 50 DART tools), so a build computes each once.
        self._best: dict[tuple[str, _Item], tuple[float, str | None]] = {}
        self._fields: dict[str, list[tuple[str, _Item]]] = {}

    def _best_field(self, source: Tool, pf: _Item) -> tuple[float, str | None]:
        key = (source.name, pf)
        hit = self._best.get(key)
        if hit is None:
            fields = self._fields.get(source.name)
            if fields is None:
                fields = self._fields[source.name] = [(f.name, _feat(f)) for f in source.spec.output]
            best_m, best_f = 0.0, None
            for fname, ff in fields:  # first best wins: output order is the catalog's
                m = match(pf, ff)
                if m > best_m:
                    best_m, best_f = m, fname
            hit = self._best[key] = (best_m, best_f)
        return hit

    def propose(self, source: Tool, target: Tool) -> Proposal:
        bindings: dict[str, str] = {}
        defaults: dict[str, list[str]] = {}
        strength = 0.0
        best_any = 0.0
        coverage_logs: list[float] = []
        notes: list[str] = []
        for param in target.spec.params:
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
                strength = max(strength, best_m * _evidence(param, pf))
                value = best_m
                notes.append(f"{param.name}←{best_f} ({best_m:.2f})")
            else:
                defaults[param.name] = candidate_values(param)
                value = CLARIFIABLE if (weak or defaults[param.name]) else UNGUESSABLE
                if param.required:
                    notes.append(f"{param.name}: clarify" + ("" if defaults[param.name] else " (no candidates)"))
            if param.required:
                coverage_logs.append(math.log(value))
        coverage = math.exp(sum(coverage_logs) / len(coverage_logs)) if coverage_logs else OPTIONAL_ONLY
        if bindings:
            score = strength * coverage
            rationale = "binds " + "; ".join(notes)
        else:
            score = 0.15 * best_any
            rationale = "no output field of the source matches a non-generic parameter of the target"
        return Proposal(source=source.name, target=target.name, score=round(min(max(score, 0.0), 1.0), 4),
                        bindings=bindings, defaults=defaults, rationale=rationale)


# ---------------------------------------------------------------- OpenAI-compatible proposer

SYSTEM_PROMPT = """당신은 한국 공공 API 도구 사이의 의존 관계를 판정하는 edge proposer입니다.
source 도구의 출력 필드 값으로 target 도구의 입력 파라미터를 채워 target을 호출할 수 있는지 판단하세요.
JSON 객체 하나로만 답하세요:
{"score": 0~1 실수 (이 연결이 실제로 실행되어 의미 있는 결과를 낼 가능성),
 "bindings": {"target 파라미터 이름": "source 출력 필드 이름", ...},
 "defaults": {"바인딩하지 않은 target 파라미터 이름": ["시도할 값", ...], ...},
 "rationale": "한두 문장의 근거"}
API 키, 페이지 번호/크기, 응답 형식(type) 같은 일반 파라미터는 바인딩하지 마세요."""


def _tool_view(tool: Tool, side: str) -> dict[str, Any]:
    view: dict[str, Any] = {"name": tool.name, "title": tool.spec.title, "description": tool.spec.description}
    if side == "source":
        view["output"] = [{"name": f.name, "type": f.type, "description": f.description,
                           **({"format": f.format} if f.format else {})} for f in tool.spec.output]
    else:
        view["params"] = [{"name": p.name, "type": p.type, "required": p.required, "description": p.description,
                           **({"format": p.format} if p.format else {}),
                           **({"enum": p.enum} if p.enum else {})}
                          for p in tool.spec.params if not is_generic(p)]
    return view


def edge_messages(source: Tool, target: Tool) -> list[dict[str, Any]]:
    """The prompt contract: the system role above and the two catalog views as JSON."""
    body = {"source": _tool_view(source, "source"), "target": _tool_view(target, "target")}
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": json.dumps(body, ensure_ascii=False, sort_keys=True)}]


def _json_object(text: str | None) -> dict[str, Any]:
    """The first JSON object in a reply, tolerating code fences and prose around it."""
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


def parse_proposal(source: Tool, target: Tool, content: str | None) -> Proposal:
    """A Proposal from a model's reply. Malformed output is data, not an exception: it becomes score 0
    with the reason. Bindings naming unknown or generic parameters or unknown fields are dropped."""
    try:
        raw = _json_object(content)
        score = float(raw.get("score", 0.0))
        if math.isnan(score):
            raise ValueError("score is NaN")
    except (ValueError, TypeError) as exc:
        return Proposal(source=source.name, target=target.name, score=0.0, rationale=f"unusable reply: {exc}")
    params = {p.name: p for p in target.spec.params if not is_generic(p)}
    fields = {f.name for f in source.spec.output}
    bindings: dict[str, str] = {}
    dropped: list[str] = []
    raw_bindings = raw.get("bindings") if isinstance(raw.get("bindings"), dict) else {}
    for p, f in raw_bindings.items():
        if p in params and isinstance(f, str) and f in fields:
            bindings[p] = f
        else:
            dropped.append(f"{p}←{f}")
    defaults: dict[str, list[str]] = {}
    raw_defaults = raw.get("defaults") if isinstance(raw.get("defaults"), dict) else {}
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

    def propose(self, source: Tool, target: Tool) -> Proposal:
        reply = self.chat_model.complete(edge_messages(source, target))
        return parse_proposal(source, target, reply.content)
