"""The three samplers of the seed's pipeline: APIs, few-shot examples, prompt templates.

Every draw takes the caller's random stream (seed, purpose, index), so sample i is the same whichever
samples came before it — except for what verification fed back: the example sampler reads the verified
samples of earlier chunks, which is the seed's feedback loop and is itself deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict

from kopa.apigen.record import XRecord
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import statable, subject_of
from kopa.catalog.loader import Catalog
from kopa.catalog.models import ParamSpec, Tool
from kopa.catalog.view import param_view
from kopa.edge.plan import date_form, is_generic
from kopa.korean.vocabulary import stated_enum, stated_name

if TYPE_CHECKING:
    from kopa.apigen.book import AskBook

Style = Literal["simple", "multiple", "parallel", "parallel_multiple"]
STYLES: tuple[Style, ...] = ("simple", "multiple", "parallel", "parallel_multiple")
STYLE_WEIGHTS = (0.25, 0.25, 0.25, 0.25)
CONTEXTS = ("plain", "scenario")  # the ask alone, or with a line of background
DIFFICULTIES = ("easy", "hard")  # labels stated with every value, or values in running text
EXAMPLES_PER_PROMPT = 2
EXAMPLE_NOTES = ("shape",)  # of an example's provenance, what a generator reads (the offline one's sentence shape)
MULTIPLE_TOOLS = 3  # tools offered in a multiple sample: the one to call and two from the same domain
REAL_SHARE = 0.55  # drawn from the documented endpoints: they verify a little less often, and at least half
# of the verified samples should touch one (issue 27)


class Prompt(BaseModel):
    """What the prompt sampler chose for one sample (stored in its provenance)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    style: Style
    context: str
    difficulty: str
    tools: list[str]  # the sampled library, in the order it is shown
    examples: list[str] = []  # ids of the few-shot examples

    @property
    def template(self) -> str:
        return f"{self.style}/{self.context}/{self.difficulty}"


def draw_style(rng: np.random.Generator) -> Style:
    return STYLES[int(rng.choice(len(STYLES), p=STYLE_WEIGHTS))]


def cached_values(param: ParamSpec, cache: ValueCache, tool: str | None = None) -> list[str]:
    """Values the backend returned under the parameter's name — those `tool` itself returned when there are
    any — that fit its documented pattern (a model that reads the docs would not pass a 29-character code
    where eight digits are documented) and that a person could write in a question (`wording.statable`)."""
    seen = (cache.own.get(tool) or {}).get(param.name) if tool else None
    seen = [v for v in seen or cache.values.get(param.name) or [] if statable(v)]
    pattern = param_view(param).pattern  # the documented pattern (strings only), as a model reads it
    if pattern is None:
        return list(seen)
    return [v for v in seen if re.fullmatch(pattern, v, flags=re.ASCII)]


def fillable(param: ParamSpec, cache: ValueCache) -> bool:
    return bool(param.enum) or param.default is not None or date_form(param_view(param)) is not None \
        or bool(cached_values(param, cache))


def entity_params(tool: Tool) -> list[ParamSpec]:
    """Parameters that carry something a user would say (not paging, format selectors or keys)."""
    return [p for p in tool.spec.params if not is_generic(param_view(p)) and not p.paging]


def stated_param(param: ParamSpec, cache: ValueCache, tool: str, least: int = 1) -> bool:
    """Whether a person can state `least` values of the parameter: enum values with a meaning, or names the
    backend returned — not codes (Phase B's rule for the filters a query adds)."""
    if param.enum:
        return len(stated_enum(param)) >= least
    return sum(stated_name(v) for v in cached_values(param, cache, tool)) >= least


def varying_param(tool: Tool, cache: ValueCache) -> ParamSpec | None:
    """The parameter a parallel sample varies: the first required entity parameter with two or more values a
    person states, else such an optional one ("강남구와 서초구", not "구코드 11680과 11650"), else the first
    required one with two or more cached codes (the API takes only a code)."""
    # not a date, and not the order the answer comes in: nobody wants "the courses, ascending and descending"
    options = [p for p in entity_params(tool) if date_form(param_view(p)) not in ("yyyymmdd", "yyyymm")
               and "정렬" not in p.description]
    stated = [p for p in options if stated_param(p, cache, tool.name, least=2)]
    ranked = [p for p in stated if p.required] + [p for p in stated if not p.required] + \
        [p for p in options if p.required and len(cached_values(p, cache, tool.name)) >= 2]
    return ranked[0] if ranked else None


class APISampler:
    """One or more tools from the validated pool (tools whose probe answered): a domain, then a platform in
    it, then tools of that platform (multiple: of the domain), as the seed samples from its library.

    With a `book` (the offline generator's: `kopa.apigen.book.AskBook`), only the tools it words are drawn;
    a parallel sample asks one tool about several subjects it can state, a multiple sample offers tools
    asked for different things, and a sample of two tools takes two that one person asks about the same
    subject at once (the same kind of subject, in the same place, of one theme: '가평군의 주차장과 약국')."""

    def __init__(self, catalog: Catalog, cache: ValueCache, book: AskBook | None = None) -> None:
        self.catalog = catalog
        self.cache = cache
        self.book = book
        pool = [catalog[n] for n in cache.answered if n in catalog]
        self.usable = [t for t in pool if all(fillable(p, cache) for p in entity_params(t) if p.required)]
        if book is not None:
            book.index([t for t in self.usable if book.ask(t) is not None])
            self.usable = [t for t in self.usable if book.drawable(t)]
        # the documented endpoints and the long tail, each drawn from by domain then platform
        self.pools: dict[bool, dict[str, dict[str, list[Tool]]]] = {True: {}, False: {}}
        for t in self.usable:
            self.pools[t.spec.real].setdefault(t.domain or "session", {}).setdefault(t.platform, []).append(t)
        self.parallel = {t.name for t in self.usable
                         if (book.varies(t) if book is not None else varying_param(t, cache) is not None)}
        self.partners: dict[str, list[Tool]] = {}
        if book is not None:  # two tools asked about the same subjects: of one domain, by the book's pairs
            by_key: dict[tuple, list[Tool]] = {}
            for t in self.usable:
                key = book.key(t)
                if t.name in self.parallel and key is not None:
                    by_key.setdefault((t.domain, *key), []).append(t)
            for group in by_key.values():
                for t in group:
                    self.partners[t.name] = [u for u in group if book.pairs(t, u)]

    def sample(self, style: Style, rng: np.random.Generator) -> list[Tool] | None:
        """Over half of the samples from the documented endpoints (REAL_SHARE; the long tail is 9 of 10 tools, so
        a draw by domain alone would rarely reach them), the rest from the long tail."""
        real = bool(rng.random() < REAL_SHARE)
        by_domain = self.pools[real] or self.pools[not real]
        domains = sorted(by_domain)
        if not domains:
            return None
        domain = domains[int(rng.integers(len(domains)))]
        platforms = sorted(by_domain[domain])
        platform = platforms[int(rng.integers(len(platforms)))]
        local = by_domain[domain][platform]
        if style == "simple":
            return [local[int(rng.integers(len(local)))]]
        if style == "parallel":
            choices = [t for t in local if t.name in self.parallel]
            return [choices[int(rng.integers(len(choices)))]] if choices else None
        if style == "multiple":
            wide = [t for p in platforms for t in by_domain[domain][p]]
            if len(wide) < MULTIPLE_TOOLS:
                return None
            order = [wide[int(i)] for i in rng.permutation(len(wide))]
            if self.book is None:
                return order[:MULTIPLE_TOOLS]
            # tools asked for different things: the query asks for one of them only
            picks: list[Tool] = []
            for t in order:
                if all(self.book.label(t) != self.book.label(u) for u in picks):
                    picks.append(t)
                if len(picks) == MULTIPLE_TOOLS:
                    return picks
            return None
        if self.book is not None:  # parallel_multiple: a tool and one asked about the same subjects
            choices = [t for t in local if self.partners.get(t.name)]
            if not choices:
                return None
            first = choices[int(rng.integers(len(choices)))]
            partners = self.partners[first.name]
            return [first, partners[int(rng.integers(len(partners)))]]
        if len(local) < 2:  # parallel_multiple: two tools of one platform, one of them called twice
            return None
        # two things a person tells apart: not two editions of one table ('의안 수정안 현황', '… 목록')
        order = [local[int(i)] for i in rng.permutation(len(local))]
        picks = [order[0], *[t for t in order[1:] if subject_of(t) != subject_of(order[0])][:1]]
        if len(picks) < 2:
            return None
        return picks if picks[0].name in self.parallel or picks[1].name in self.parallel else None


class ExampleSampler:
    """Few-shot examples from verified data of the same style (the seed's feedback loop). A run adds every verified
    sample, so each is kept small: what a generator reads of an example (its id, query, answers, style and
    sentence shape) as JSON, made a record again when drawn."""

    def __init__(self, verified: Sequence[XRecord]) -> None:
        self.by_style: dict[str, list[bytes]] = {}
        for r in verified:
            self.add(r)

    def add(self, record: XRecord) -> None:
        kept = {"id": record.id, "query": record.query, "tools": [], "style": record.style,
                "answers": [c.model_dump() for c in record.answers],
                "provenance": {k: record.provenance[k] for k in EXAMPLE_NOTES if k in record.provenance}}
        self.by_style.setdefault(record.style or "", []).append(orjson.dumps(kept))

    def sample(self, style: Style, rng: np.random.Generator) -> list[XRecord]:
        pool = self.by_style.get(style, [])
        if not pool:
            return []
        return [XRecord.model_validate_json(pool[int(i)]) for i in rng.permutation(len(pool))[:EXAMPLES_PER_PROMPT]]


class PromptSampler:
    """A template of a context and a difficulty for the style."""

    def sample(self, style: Style, tools: list[Tool], examples: list[XRecord], rng: np.random.Generator) -> Prompt:
        context = CONTEXTS[int(rng.integers(len(CONTEXTS)))]
        difficulty = DIFFICULTIES[int(rng.integers(len(DIFFICULTIES)))]
        return Prompt(style=style, context=context, difficulty=difficulty, tools=[t.name for t in tools],
                      examples=[e.id for e in examples])
