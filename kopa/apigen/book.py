"""The offline generator's book of asks on a value cache: which tools it can word (`kopa.apigen.asks`), the
subjects it can state for each (values the tool itself returned, valid for the subject's kind; a bill only
with the title its record gives its number), the values it states for the rest of a call (an enum's
meaning, a date from the virtual today, a name the tool returned, a code by the name its docs give it), and
which two tools ask about the same subject (one information need, for a sample of two tools).

Every choice draws from the caller's stream; the subject pools (values any indexed tool returned for a kind)
are built from the tools in the order they are indexed, so a run that indexes the same tools gets the same
pools.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from kopa.apigen.asks import REGION_PREFIX, Ask, ask_of, broad, display, scope, subject_param, themes, valid
from kopa.apigen.sampler import cached_values
from kopa.apigen.values import ValueCache
from kopa.apigen.wording import listing, statable
from kopa.catalog.models import ParamSpec, Tool
from kopa.catalog.view import param_view
from kopa.edge.plan import date_form, dated_value, is_generic
from kopa.korean.dates import date_phrase
from kopa.korean.sentence import fill, placeholders
from kopa.korean.vocabulary import documented_name, stated_enum, value_phrase

SLOT = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)(?::[가-힣]+)?>")


@dataclass(frozen=True)
class Said:
    """A value a call sends and the phrase that states it (None: sent unstated — a default, or one `same`
    states)."""

    value: Any
    phrase: str | None


def _typed(p: ParamSpec, value: Any) -> Any:
    """A cached value as the parameter's type: an integer parameter gets a number, not its digits."""
    return int(value) if p.type == "integer" and str(value).lstrip("-").isdigit() else value


def is_question(template: str) -> bool:
    """A template that is a whole sentence ('<s:은> 어디에 있나요?'), not a noun phrase to put in a frame."""
    return template.rstrip().endswith(("?", "."))


class AskBook:
    def __init__(self, cache: ValueCache, day: str, guess_rate: float) -> None:
        self.cache = cache
        self.day = day
        self.guess_rate = guess_rate
        self._asks: dict[str, Ask | None] = {}
        self._own: dict[str, list[str]] = {}
        self.names: dict[tuple[str, str], str] = {}  # (kind, value) → the title a bill's record gives its number
        self.pools: dict[tuple[str, str], list[str]] = {}  # (kind, scope) → values any indexed tool returned
        self._indexed: set[str] = set()

    # ------------------------------------------------------------ what a tool is asked

    def ask(self, tool: Tool) -> Ask | None:
        if tool.name not in self._asks:
            self._asks[tool.name] = ask_of(tool)
        return self._asks[tool.name]

    def subject(self, tool: Tool) -> ParamSpec | None:
        ask = self.ask(tool)
        return None if ask is None else subject_param(tool, ask)

    def key(self, tool: Tool) -> tuple[str, str] | None:
        """The subject's kind and where it lies ('region', 'gg'): two tools of one key can be asked about the
        same subject."""
        ask = self.ask(tool)
        return None if ask is None or ask.by is None else (ask.by, scope(tool) if ask.by == "region" else "")

    def label(self, tool: Tool) -> str:
        """What the tool is asked for, to tell two offered tools apart."""
        ask = self.ask(tool)
        if ask is None:
            return tool.name
        return ask.what or (ask.whole[0] if ask.whole else tool.name)

    def own(self, tool: Tool) -> list[str]:
        """The subjects a person can state for the tool, from its own answers."""
        if tool.name in self._own:
            return self._own[tool.name]
        ask, p = self.ask(tool), self.subject(tool)
        values: list[str] = []
        if ask is not None and p is not None and ask.by is not None:
            if ask.source is not None:
                field, pattern = ask.source
                for text in (self.cache.own.get(tool.name) or {}).get(field) or []:
                    found = re.search(pattern, text) if pattern else None
                    values.append(found.group(1) if found else text if pattern is None else "")
            else:
                values = cached_values(p, self.cache, tool.name)
            where = scope(tool)
            out = []
            for v in dict.fromkeys(values):
                if not v or not statable(v) or not valid(ask.by, v, where):
                    continue
                if ask.by == "bill":
                    name = self.cache.name_of(p.name, v)
                    # a title the record garbles ('상법법 일부개정법률안') is none a person writes
                    if name is None or not statable(name) or not name.endswith("법률안") or "법법" in name:
                        continue
                    self.names[("bill", v)] = name
                out.append(v)
            values = out
        self._own[tool.name] = values
        return values

    def index(self, tools: list[Tool]) -> None:
        """Add the tools' subjects to the pools of their kind (in the order given; a tool once)."""
        for tool in tools:
            key = self.key(tool)
            if key is None or tool.name in self._indexed:
                continue
            self._indexed.add(tool.name)
            bucket = self.pools.setdefault(key, [])
            bucket += [v for v in self.own(tool) if v not in bucket]

    def broad(self, tool: Tool) -> bool:
        ask = self.ask(tool)
        return ask is not None and broad(tool, ask.by)

    def guesses(self, tool: Tool) -> list[str]:
        """The subjects a guess takes for the tool: any its kind's tools returned where it answers for any of
        them (`asks.broad`), else those returned under its parameter's name by any tool (APIGen's guess: a value
        seen under the name, unchecked, which verification is there to catch)."""
        key, p, ask = self.key(tool), self.subject(tool), self.ask(tool)
        if key is None or p is None or ask is None or ask.by is None:
            return []
        if self.broad(tool):
            return self.pools.get(key, [])
        where = scope(tool)
        return [v for v in self.cache.values.get(p.name) or [] if statable(v) and valid(ask.by, v, where)
                and (ask.by != "bill" or ("bill", v) in self.names)]

    def candidates(self, tool: Tool) -> list[str]:
        return list(dict.fromkeys([*self.own(tool), *(self.guesses(tool) if self.broad(tool) else ())]))

    # ------------------------------------------------------------ the other values of a call

    def options(self, tool: Tool, p: ParamSpec) -> list[Said]:
        """The values of `p` a query can state, each with its phrase: an enum's meaning (or the ask's own word
        for it), a date from the virtual today, a name the tool returned, a code by the name its docs give."""
        ask = self.ask(tool)
        said = (ask.say.get(p.name) if ask is not None else None) or {}
        if p.enum:
            values = [v for v in p.enum if v in said] if said else stated_enum(p)
            phrases = [(v, said.get(v) or value_phrase(p, v)) for v in values]
            # a kind said only with its label ("제안자구분이 '의원'인") is no phrase a query states
            return [Said(v, phrase) for v, phrase in phrases if phrase and "'" not in phrase]
        form = date_form(param_view(p))
        if form is not None:
            day = dated_value(param_view(p), self.day)
            return [] if day is None else [Said(_typed(p, day), date_phrase(str(day)))]
        out = []
        for v in cached_values(p, self.cache, tool.name):
            phrase = said.get(v) if said else value_phrase(p, v) or documented_name(p, v)
            if phrase and statable(phrase):
                out.append(Said(_typed(p, v), phrase))
        return out

    def fillable(self, tool: Tool, p: ParamSpec) -> bool:
        return bool(self.options(tool, p)) or p.default is not None

    def _rest_fillable(self, tool: Tool, slots: set[str]) -> bool:
        """Every required parameter not said by a slot is stated in the lead or sent at its default."""
        ask = self.ask(tool)
        same = ask.same if ask is not None else {}
        return all(p.name in slots or p.name in same or is_generic(param_view(p)) or p.paging
                   or self.fillable(tool, p) for p in tool.spec.params if p.required)

    def wholes(self, tool: Tool) -> list[str]:
        """The ask's whole-set templates whose every slot can be filled."""
        ask = self.ask(tool)
        if ask is None:
            return []
        out = []
        for template in ask.whole:
            slots = {name for name, _ in placeholders(template)}
            try:
                params = [tool.spec.param(s) for s in slots]
            except KeyError:
                continue
            if all(self.options(tool, p) for p in params) and self._rest_fillable(tool, slots):
                out.append(template)
        return out

    def about(self, tool: Tool) -> bool:
        """Whether the tool can be asked about a subject it returned."""
        p = self.subject(tool)
        return p is not None and bool(self.own(tool)) and self._rest_fillable(tool, {p.name})

    def drawable(self, tool: Tool) -> bool:
        return self.ask(tool) is not None and (self.about(tool) or bool(self.wholes(tool)))

    def varies(self, tool: Tool) -> bool:
        """Whether two subjects or more can be asked of the tool at once (not two street addresses)."""
        return self.about(tool) and self.key(tool) != ("address", "") and self._two(self.candidates(tool))

    def shared(self, one: Tool, other: Tool) -> list[str]:
        """The subjects both tools answer for: any of the kind where both answer for any (`asks.broad`), else
        those the one that does not returned (both returned, where neither does)."""
        if self.broad(one) and self.broad(other):  # both returned them, where two did; else either did
            both = [v for v in self.own(one) if v in set(self.own(other))]
            return both if len(both) >= 2 else list(dict.fromkeys([*self.own(one), *self.own(other)]))
        if self.broad(other):
            return self.own(one)
        if self.broad(one):
            return self.own(other)
        return [v for v in self.own(one) if v in set(self.own(other))]

    def theme(self, one: Tool, other: Tool | None = None) -> str | None:
        """The theme of what is asked of `one` (that `other` is asked under too, where there is another)."""
        a = self.ask(one)
        if a is None:
            return None
        if other is None:
            return a.theme
        b = self.ask(other)
        return next((t for t in themes(a) if b is not None and t in themes(b)), None)

    def pairs(self, one: Tool, other: Tool) -> bool:
        """Two tools one person asks about the same subjects at once: the same kind of subject in the same
        place, a theme both are asked under, two different things asked, and two subjects or more both answer for."""
        a, b = self.ask(one), self.ask(other)
        return (a is not None and b is not None and a.pairs and b.pairs and one.name != other.name
                and self.key(one) is not None
                and self.key(one) == self.key(other) and self.theme(one, other) is not None and a.root != b.root
                and a.what != b.what and self.about(one) and self.about(other) and self._two(self.shared(one, other)))

    # ------------------------------------------------------------ drawing

    def draw(self, tool: Tool, p: ParamSpec, rng: np.random.Generator) -> Said | None:
        options = self.options(tool, p)
        if options:
            return options[int(rng.integers(len(options)))]
        return None if p.default is None else Said(p.default, None)

    def subjects(self, tool: Tool, n: int, rng: np.random.Generator, partner: Tool | None = None,
                 prefix: str = "") -> list[str]:
        """n subjects of the tool (both tools answer for, where a partner asks about the same ones): those it
        returned, and at the guess rate one guess (`guesses`) among them — none beside a partner (two tools
        asked about a guess are two chances to find nothing). `prefix`: a bill's number starts with its term's ('22…' of 제22대 국회)."""
        own = self.own(tool) if partner is None else self.shared(tool, partner)
        guessed = self.guesses(tool) if partner is None else []
        own, guessed = ([v for v in values if v.startswith(prefix)] for values in (own, guessed))
        picks: list[str] = []
        guess = rng.random() < self.guess_rate
        for k in range(n):
            # not a name inside another ('…법률' beside '…법률 시행규칙'): two asks that read as one
            options = [v for v in (guessed if guess and k == 0 else own) if self._apart(v, picks)] or \
                [v for v in (*own, *guessed) if self._apart(v, picks)]
            if not options:
                break
            picks.append(options[int(rng.integers(len(options)))])
        return picks

    @classmethod
    def _two(cls, values: list[str]) -> bool:
        """Whether two of `values` can be asked side by side (`_apart`)."""
        return any(cls._apart(v, [u]) for k, v in enumerate(values) for u in values[:k])

    @staticmethod
    def _apart(value: str, picks: list[str]) -> bool:
        return all(value not in p and p not in value for p in picks)

    def say(self, tool: Tool, values: list[str], rng: np.random.Generator, compact: bool = False
            ) -> tuple[str, list[str]]:
        """The subjects as a query states them, and each one's own phrase: '경기도 가평군과 고양시', '강순영, 도진빈
        의원', '고용보험법 일부개정법률안(의안번호 2200463)'. `compact`: listed with commas (what is asked is listed
        with 과 after it)."""
        ask = self.ask(tool)
        kind = ask.by if ask is not None and ask.by is not None else "name"
        items = [display(kind, v, self.names.get(("bill", v))) for v in values]
        # a bill ends in its number's parenthesis: listed with commas, where 과 would follow the number
        joined = ", ".join(items) if compact or len(items) < 2 or kind == "bill" else listing(items, rng)
        if kind == "region":
            prefix = REGION_PREFIX[scope(tool)]
            text = joined if not prefix or values == ["경기도"] else f"{prefix} {joined}"
            return text, items
        if kind == "member":
            role = "국회의원" if rng.random() < 0.35 else "의원"
            if len(items) == 2 and not compact and rng.random() < 0.3:
                text = fill("<a:과> <b>", {"a": {"say": f"{items[0]} {role}"}, "b": {"say": f"{items[1]} {role}"}})
                return text, [f"{i} {role}" for i in items]
            return f"{joined} {role}", [f"{i} {role}" for i in items]
        return joined, items
