"""Which number an answer puts forward as its answer, as a careful grader reads it (benchmark/SCORING.md
§2.1, "The stated number" and "Polarity"): the numbers it denies, guesses or offers among others are not
stated; rate bases, the query's own numbers, dates, asides and ranks are context; of the rest, the bold one,
the one after a result marker or the value the last sentence ends on; and its sign as the words around it
give it. Read on the Korean analyzer (`kopa.korean.claims`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from kopa.eval.scoring.numbers import (
    NUMBER,
    Mention,
    boxed_contents,
    boxed_spans,
    distinct_values,
    equal,
    mentions_in,
    prepare,
)
from kopa.korean.claims import (
    Polarity,
    asked_directions,
    counted_by,
    direction,
    is_predicate,
    listed,
    per_unit,
    polarity,
    reversed_comparison,
    sentence_spans,
)


def signed(prepared: str, mention: Mention, query: str) -> Mention:
    """A value written without a sign, signed by the word it is said with: against the direction the question
    asks in (몇 % 늘었나 → 4.50% 줄었습니다 is −4.50; 몇 %p 높은가 → 1.04%p 낮습니다 is −1.04); where it asks
    both ways (늘었거나 줄었는가; 몇 명 많나요? 적다면 얼마나 적은지), by the word itself (3명 적습니다 is −3);
    where it asks in none (몇 % 변했나), by the change it names (6.42% 감소 is −6.42).
    A comparison said the other way round (B가 40문항 더 많습니다, asked how many more A has than B) turns it."""
    turned = bool(query) and reversed_comparison(query, prepared, mention.start)
    if mention.text[:1] in "-−–+":
        return replace(mention, value=-mention.value) if turned else mention  # its sign is written
    said = direction(prepared, mention.end)
    flip = turned
    if said is not None:
        kind, sign = said
        asked = {s for _, s in asked_directions(query)} if query else set()
        if len(asked) == 1:
            flip ^= sign != next(iter(asked))
        else:  # asked both ways (몇 명 많나요? 적다면 얼마나 적은지), the word says it; asked neither, a change does
            flip ^= sign < 0 and (bool(asked) or kind == "change")
    return replace(mention, value=-mention.value) if flip else mention


SAID = {"negated": "denies", "hedged": "only guesses", "alternative": "offers alternatives to"}


def unclaimed(claims: list[tuple[Mention, Polarity]]) -> tuple[str, str]:
    """(method, details) where no number is stated as the answer: each is denied, guessed or one of several
    offered."""
    mention, said = claims[0]
    return (f"number:{said}", f"the answer {SAID[said]} {mention.text!r} (7,500원이 아닙니다, 아마 166명일 "
                                   "것입니다, 166명 또는 167명 claim no number)")


def doubted_box(predicted: str) -> tuple[str, str] | None:
    """A box whose number its sentence denies, guesses or offers among others (\\boxed{7,500원이 아님},
    ``\\boxed{166}명일 수도 있습니다``): the box is read in its sentence with the box itself taken away."""
    spans = boxed_spans(predicted) or []
    flat, last, inner = [], 0, []
    for start, content_start, end in spans:
        flat.append(predicted[last:start])
        offset = sum(map(len, flat))
        content = predicted[content_start:end]
        number = NUMBER.search(content)
        inner.append((offset + number.start(), offset + number.end()) if number else (offset, offset + len(content)))
        flat.append(content)
        last = end + 1
    flat.append(predicted[last:])
    text = "".join(flat)
    for (start, end), content in zip(inner, boxed_contents(predicted) or [], strict=True):
        said = polarity(text, start, end)
        if said != "affirmed":
            return f"number:{said}", f"the answer {SAID[said]} its boxed {content!r}"
    return None


_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__", re.DOTALL)
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_CALENDAR = re.compile(r"\d{4}\s?(?:년|[.\-/])\s?\d{1,2}\s?(?:월|[.\-/])(?:\s?\d{1,2}\s?일?)?|\d{4}\s?년|\d{1,2}\s?월(?:\s?\d{1,2}\s?일)?")
_RESULT = re.compile(r"=|→|⇒|≈|≒|즉|따라서|그러므로|정답|답은|결과는")
_RANKS = frozenset({"위", "번째", "등", "호선", "순위"})  # 1위 역, 8호선: a rank or a name, not a quantity


def put_forward(prepared: str, mentions: list[Mention]) -> list[Mention]:
    """The numbers the answer puts forward as its answer, as a reader finds them: the **bold** one; else,
    with what stands in parentheses, calendar dates and ranks (1위, 8호선) set aside, the one value left, or
    of the last sentence that states a number, its last value when a `=` / `→` / `≈` / 즉 / 따라서 / 답은 stands
    between it and the working before it (24 + 14 + 33 = 71개), or when the sentence ends on it (…비율은
    19.62%입니다, …40개 더 많습니다) unless it is one of a list (1, 2, 3입니다).
    Working before it (7,681면은 1,740면의 4.41배) is not a claim; where no reading finds one value, every
    number counts and several fail."""
    def inside(pattern: re.Pattern[str]) -> list[Mention]:
        spans = [m.span() for m in pattern.finditer(prepared)]
        return [x for x in mentions if any(a <= x.start and x.end <= b for a, b in spans)]

    bold = inside(_BOLD)
    if bold and len(distinct_values(bold)) == 1:
        return bold
    ranks = [m for m in mentions if counted_by(prepared, m.end) in _RANKS]
    aside = {id(m) for m in inside(_PARENTHESES) + inside(_CALENDAR) + ranks}
    told = [m for m in mentions if id(m) not in aside] or mentions
    if len(distinct_values(told)) == 1:
        return told
    start, end = next((a, b) for a, b in reversed(sentence_spans(prepared)) if any(a <= m.start < b for m in told))
    last = [m for m in told if start <= m.start < end]
    final = last[-1]
    earlier = [m for m in told if m.end <= final.start and not equal(m.value, final.value)]
    if earlier and _RESULT.search(prepared, max(m.end for m in earlier), final.start):
        return [final]  # = 5.8719… → 5.87: a result marker between the working and the value
    if is_predicate(prepared, final.end) and not listed(prepared, final.start):
        return [final]
    return told


def own_numbers(prepared: str, mentions: list[Mention], query: str) -> list[Mention]:
    """The numbers that can be the answer's claim: not a rate's base (직원 1인당), not the query's own numbers
    said again with the same word (2025년, 12월까지, 제22대, 3년간 where the query says them) — unless that
    leaves none, when the query's number is the answer."""
    own = [m for m in mentions if not per_unit(prepared, m.end)]
    if query:
        asked = prepare(query)
        echoes = [(m.value, counted_by(asked, m.end)) for m in mentions_in(asked)]
        fresh = [m for m in own if not any(equal(m.value, value) and word is not None
                                           and counted_by(prepared, m.end) == word for value, word in echoes)]
        own = fresh or own
    return own or mentions
