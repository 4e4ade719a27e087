"""RESPONSE: does the final answer state the golden answer? Number, string and judge answers (seed §4.4).

The contract is written out in ``benchmark/SCORING.md``; this module is its number and string halves and
hands judge answers (and string answers the rules cannot settle) to a :mod:`kopa.eval.judge` judge.

Nothing here evaluates answer text as code: numbers go through ``kopa.tools.expression`` (a whitelisted
AST walker over exact sympy numbers), strings through normalisation and regular expressions. There is no
containment rule anywhere: an answer passes by stating the target, not by mentioning it among others.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace

import sympy

from kopa.eval.judge import Judge, OfflineJudge
from kopa.eval.scoring.latex import read_latex_number
from kopa.eval.scoring.stated import placement
from kopa.eval.task import AnswerKey, AnswerSpec, Rubric, RubricFact
from kopa.eval.verdict import ResponseVerdict
from kopa.korean.claims import (
    Polarity,
    asked_directions,
    asked_measure,
    counted_by,
    direction,
    doubting_sentences,
    is_predicate,
    listed,
    only_unit_words,
    other_measure,
    per_unit,
    polarity,
    reversed_comparison,
    sentence_spans,
)
from kopa.korean.numerals import with_digits
from kopa.korean.text import normalise_text
from kopa.tools.expression import ExpressionError, parse_expression

__all__ = [
    "RELATIVE_TOLERANCE",
    "Mention",
    "ResponseVerdict",
    "automatic_rubric",
    "boxed_contents",
    "extract_boxed",
    "number_mentions",
    "read_boxed_number",
    "score_response",
    "split_items",
]

RELATIVE_TOLERANCE = sympy.Rational(1, 10**9)
"""A non-integer target whose query names no precision: |stated − exact| ≤ 1e-9·|exact| passes. The
displayed value (10 significant digits) is within 5e-10 of the exact one, so it passes; 8.33 for 25/3
does not."""


def _fail(method: str, details: str) -> ResponseVerdict:
    return ResponseVerdict(passed=False, method=method, details=details)


# --------------------------------------------------------------------------------------------------
# \boxed{...}
# --------------------------------------------------------------------------------------------------

_BOXED = re.compile(r"\\boxed\s*\{")


def boxed_spans(text: str) -> list[tuple[int, int, int]] | None:
    """(where ``\\boxed{`` starts, where its content starts, where it ends) for every box, in order, braces
    balanced; None when one is never closed."""
    found: list[tuple[int, int, int]] = []
    for match in _BOXED.finditer(text):
        depth = 1
        for index in range(match.end(), len(text)):
            depth += (text[index] == "{") - (text[index] == "}")
            if depth == 0:
                found.append((match.start(), match.end(), index))
                break
        else:
            return None
    return found


def boxed_contents(text: str) -> list[str] | None:
    """The contents of every ``\\boxed{...}`` (balanced braces), in order; None when one is never closed."""
    spans = boxed_spans(text)
    return None if spans is None else [text[start:end].strip() for _, start, end in spans]


def extract_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}``; None when there is none or one is unclosed."""
    contents = boxed_contents(text)
    return contents[-1] if contents else None


# --------------------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------------------

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile("(?P<base>\\d?)(?P<run>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+)")
_LATEX_WRAPPERS = re.compile(r"\\(?:text|mathrm|textrm|textbf|mathbf|mbox|operatorname)\s*\{([^{}]*)\}")

_NUM = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
_SIGNED = r"[-−–+]?\s?" + _NUM
_POW = r"(?:\^\s*\{\s*[-−+]?\d+\s*\}|\^\s*[-−+]?\d+|\*\*\s*[-−+]?\d+)"
_TIMES = r"(?:\\times|\\cdot|[×✕·⋅*])"
_NUMBER = re.compile(
    r"(?<![0-9A-Za-z.])(?:(?P<sign>[-−–+])\s?)?(?P<body>"
    r"(?P<repeat>\d+\.\d*(?:\(\d+\)|\\overline\s*\{\d+\}|(?:\d[\u0304\u0305])+))"
    rf"|(?P<frac>\\[dt]?frac\s*\{{\s*{_SIGNED}\s*\}}\s*\{{\s*{_SIGNED}\s*\}})"
    rf"|(?P<sci>{_NUM}\s*{_TIMES}\s*10\s*{_POW})"
    rf"|(?P<exp>{_NUM}[eE][-+]?\d+(?![A-Za-z]))"
    rf"|(?P<power>{_NUM}\s*{_POW})"
    rf"|(?P<ratio>(?<![/\d]){_NUM}\s*/\s*{_NUM}(?!\s*/)(?![\d.]))"  # 2024/01/30 is no fraction
    rf"|(?P<plain>{_NUM})"
    r")(?P<percent>\s?(?:\\%\s?[pP](?![A-Za-z])|\\%|%\s?[pP](?![A-Za-z])|%\s?포인트|%|퍼센트\s?포인트|퍼센트))?"
)
_LEADING_ZEROS = re.compile(r"(?<![\d.])0+(?=\d)")
_PERCENT_SUFFIX = re.compile(r"\s?(?:\\%\s?[pP]|\\%|%\s?[pP]|%\s?포인트|%|퍼센트\s?포인트|퍼센트)$")
_APPROXIMATELY = re.compile(r"^(?:약|대략|approximately|approx\.?|about|≈|~|∼|\\approx|\\sim)\s*", re.IGNORECASE)
_LATEX_SPACES = re.compile(r"\\[,;:!> ]|\\q?quad\b")  # \, \; \  \quad: LaTeX's spaces


@dataclass(frozen=True)
class Mention:
    """One number an answer states: its text, its exact value and whether it carries % / %p / 퍼센트;
    `won`: the multiplier to won its own words state (억원 10^8, 만원 10^4, 원 1; a Korean magnitude written
    into it, 7억 1,480만, is already in its value: 1), None when it states no money unit."""

    text: str
    value: sympy.Expr
    percent: bool
    won: int | None = None
    start: int = 0  # where it stands in the text it was read from (after `_prepare`)
    end: int = 0


# A money unit right after a number: the magnitude its words give it (after "2811.42 억원", "3,000원")
_MONEY_AFTER = re.compile(r"\s?(?P<magnitude>억|천만|백만|만|천)?\s?원|\s?(?P<bare>억|만)(?![가-힣])")
MONEY_UNITS = {"억원": 10**8, "천만원": 10**7, "백만원": 10**6, "만원": 10**4, "천원": 10**3}
_MONEY_MAGNITUDE = {"억": 10**8, "천만": 10**7, "백만": 10**6, "만": 10**4, "천": 10**3}


def _won(after: str) -> int | None:
    """What a number's own words multiply it by to make won (`Mention.won`)."""
    money = _MONEY_AFTER.match(after)
    if money is None:
        return None
    word = money["magnitude"] or money["bare"]
    return _MONEY_MAGNITUDE[word] if word else 1


def in_money_unit(mention: Mention, unit: str) -> Mention:
    """`mention` read in the money `unit` the target is counted in: a bare number as it stands, one with
    its own money words converted (2,811.42억원 in 억원 is 2811.42; 7억 1,480만원 in 만원 is 71480)."""
    if mention.won is None:
        return mention
    return replace(mention, value=mention.value * mention.won / MONEY_UNITS[unit], won=None)


def _prepare(text: str) -> str:
    """Superscript powers as ``^{..}`` (NFKC would turn 10³ into 103), unit exponents (m²) dropped, NFKC,
    LaTeX text wrappers unwrapped, ``{,}`` as a comma."""

    def superscript(match: re.Match[str]) -> str:
        if not match["base"]:
            return ""  # m², km²: an exponent of a unit, not of a number
        return match["base"] + "^{" + match["run"].translate(_SUPERSCRIPTS) + "}"

    text = _SUPERSCRIPT_RUN.sub(superscript, text)
    text = unicodedata.normalize("NFKC", text)
    text = _LATEX_WRAPPERS.sub(lambda m: " " + m.group(1) + " ", text)
    return with_digits(_LATEX_SPACES.sub(" ", text.replace("{,}", ",")))


def _parse_number_text(text: str) -> sympy.Expr:
    """A span the scanner matched: its commas group thousands, its leading zeros are not octal."""
    text = text.replace(",", "").replace("−", "-").replace("–", "-")
    return parse_expression(_LEADING_ZEROS.sub("", text))


def number_mentions(text: str) -> list[Mention]:
    """Every number the text states, in order: fractions, LaTeX fractions, repeating decimals, scientific
    notation, thousands groups, Korean numerals (3만, 1억 2천만, 7천5백, 아홉 명: `kopa.korean.numerals`) and
    a percent suffix, as exact values; spans are in `_prepare(text)`."""
    return _mentions_in(_prepare(text))


def _mentions_in(prepared: str) -> list[Mention]:
    mentions: list[Mention] = []
    for match in _NUMBER.finditer(prepared):
        try:
            value = _parse_number_text(match["body"])
        except ExpressionError:
            continue  # a span the scanner took for a number but the parser refuses (e.g. 1/0): no number
        if match["sign"] in ("-", "−", "–"):
            value = -value
        mentions.append(Mention(text=match.group().strip(), value=value, percent=bool(match["percent"]),
                                won=_won(prepared[match.end():]), start=match.start(), end=match.end()))
    return mentions


def read_boxed_number(content: str) -> Mention:
    """The number a ``\\boxed{}`` holds: an arithmetic expression (``\\frac{25}{3}``, ``1.234 \\times
    10^3``), LaTeX as latex2sympy2_extended reads it (``571.1\\,\\text{kcal}``, ``14{,}342\\,\\text{대}``), or
    one number with unit words around it (``1,234건``, ``약 44\\%``, ``1,522원/L``). Raises ExpressionError."""
    # As written first: the expression parser reads superscripts and LaTeX itself ((1.1)², \frac{}{}).
    text = _APPROXIMATELY.sub("", content.strip().strip("$").strip())
    suffix = _PERCENT_SUFFIX.search(text)
    bare = text[: suffix.start()].strip() if suffix else text
    try:
        return Mention(text=content, value=parse_expression(_LEADING_ZEROS.sub("", bare)), percent=bool(suffix))
    except ExpressionError:
        pass
    latex = read_latex_number(bare)
    if latex is not None:
        return Mention(text=content, value=latex, percent=bool(suffix))
    prepared = _prepare(text)
    mentions = _mentions_in(prepared)
    if len(mentions) == 1 and only_unit_words(prepared, mentions[0].start, mentions[0].end):
        return replace(mentions[0], text=content)
    raise ExpressionError("syntax", f"{content!r} is not one number")


def _distinct(mentions: list[Mention]) -> list[Mention]:
    out: list[Mention] = []
    for mention in mentions:
        if not any(_equal(mention.value, seen.value) for seen in out):
            out.append(mention)
    return out


def _absolute(expr: sympy.Expr) -> sympy.Expr:
    """|expr|: exact for rationals, 50 significant digits otherwise (sqrt(2), pi in a boxed expression)."""
    if expr.is_Rational:
        return abs(expr)
    return abs(sympy.N(expr, 50))


def _equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    if a.is_Rational and b.is_Rational:
        return bool(a == b)
    scale = max(sympy.Integer(1), _absolute(b))
    return bool(_absolute(a - b) <= sympy.Float("1e-45", 50) * scale)


def _decimal(expr: sympy.Expr) -> str:
    return str(sympy.N(expr, 12))


def _score_number(spec: AnswerSpec, key: AnswerKey, predicted: str, query: str = "") -> ResponseVerdict:
    if key.exact is None:
        return _fail("number:no-key", "the answer key has no exact value")
    target = parse_expression(key.exact)
    boxes = boxed_contents(predicted)
    if boxes is None:
        return _fail("number:boxed-unclosed", "a \\boxed{ is never closed")
    money = MONEY_UNITS.get(spec.unit or "") and spec.unit
    if boxes:
        how, mentions = "boxed", []
        for content in boxes:
            try:
                mentions.append(read_boxed_number(content))
            except ExpressionError as exc:
                return _fail("number:boxed-unparsed", f"\\boxed{{{content}}} is not a number: {exc}")
        doubted = _doubted_box(predicted)
        if doubted is not None:
            return doubted
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        distinct = _distinct(mentions)
        if len(distinct) > 1:
            return _fail("number:several-boxed", f"{len(distinct)} different boxed values: "
                                                 f"{[m.text for m in distinct]}")
    else:
        prepared = _prepare(predicted)
        found = _mentions_in(prepared)
        if not found:
            return _fail("number:no-number", "the answer states no number")
        claims = [(m, polarity(prepared, m.start, m.end)) for m in _own_numbers(prepared, found, query)]
        affirmed = [m for m, said in claims if said == "affirmed"]
        if not affirmed:
            return _unclaimed(claims)
        how, mentions = "stated", _put_forward(prepared, affirmed)
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        distinct = _distinct(mentions)
        if len(distinct) > 1:
            return _fail("number:several-numbers", f"{len(distinct)} different numbers and no \\boxed{{}}: "
                                                   f"{[m.text for m in distinct][:8]}")
    stated = distinct[0] if how == "boxed" else _signed(prepared, distinct[0], query)
    asked = asked_measure(query) if query and how == "stated" else None
    if asked is not None and other_measure(asked, counted_by(prepared, stated.end)):
        return _fail("number:unit", f"{stated.text!r} is said in {counted_by(prepared, stated.end)}; the question "
                                    f"asks in {asked}")
    if spec.unit != "percent" and any(m.percent for m in mentions):
        return _fail("number:unit", f"{stated.text!r} is stated in percent; the target {key.display} is not "
                                    "(12.5% is the claim 0.125)")
    return _compare(how, stated, target, key, spec.precision)


def _signed(prepared: str, mention: Mention, query: str) -> Mention:
    """A value written without a sign, signed by the word it is said with: against the direction the question
    asks in (몇 % 늘었나 → 4.50% 줄었습니다 is −4.50; 몇 %p 높은가 → 1.04%p 낮습니다 is −1.04), or, where the
    question asks in none or both (몇 % 변했나, 늘었거나 줄었는가), by the change it names (6.42% 감소 is −6.42).
    A comparison said the other way round (B가 40문항 더 많습니다, asked how many more A has than B) turns it."""
    turned = bool(query) and reversed_comparison(query, prepared, mention.start)
    if mention.text[:1] in "-−–+":
        return replace(mention, value=-mention.value) if turned else mention  # its sign is written
    said = direction(prepared, mention.end)
    flip = turned
    if said is not None:
        kind, sign = said
        asked = {s for _, s in asked_directions(query)} if query else set()
        flip ^= sign != next(iter(asked)) if len(asked) == 1 else (kind == "change" and sign < 0)
    return replace(mention, value=-mention.value) if flip else mention


_SAID = {"negated": "denies", "hedged": "only guesses", "alternative": "offers alternatives to"}


def _unclaimed(claims: list[tuple[Mention, Polarity]]) -> ResponseVerdict:
    """No number is stated as the answer: each is denied, guessed or one of several offered."""
    mention, said = claims[0]
    return _fail(f"number:{said}", f"the answer {_SAID[said]} {mention.text!r} (7,500원이 아닙니다, 아마 166명일 "
                                   "것입니다, 166명 또는 167명 claim no number)")


def _doubted_box(predicted: str) -> ResponseVerdict | None:
    """A box whose number its sentence denies, guesses or offers among others (\\boxed{7,500원이 아님},
    ``\\boxed{166}명일 수도 있습니다``): the box is read in its sentence with the box itself taken away."""
    spans = boxed_spans(predicted) or []
    flat, last, inner = [], 0, []
    for start, content_start, end in spans:
        flat.append(predicted[last:start])
        offset = sum(map(len, flat))
        content = predicted[content_start:end]
        number = _NUMBER.search(content)
        inner.append((offset + number.start(), offset + number.end()) if number else (offset, offset + len(content)))
        flat.append(content)
        last = end + 1
    flat.append(predicted[last:])
    text = "".join(flat)
    for (start, end), content in zip(inner, boxed_contents(predicted) or [], strict=True):
        said = polarity(text, start, end)
        if said != "affirmed":
            return _fail(f"number:{said}", f"the answer {_SAID[said]} its boxed {content!r}")
    return None


_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__", re.DOTALL)
_PARENTHESES = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_CALENDAR = re.compile(r"\d{4}\s?(?:년|[.\-/])\s?\d{1,2}\s?(?:월|[.\-/])(?:\s?\d{1,2}\s?일?)?|\d{4}\s?년|\d{1,2}\s?월(?:\s?\d{1,2}\s?일)?")
_RESULT = re.compile(r"=|→|⇒|≈|≒|즉|따라서|그러므로|정답|답은|결과는")
_RANKS = frozenset({"위", "번째", "등", "호선", "순위"})  # 1위 역, 8호선: a rank or a name, not a quantity


def _put_forward(prepared: str, mentions: list[Mention]) -> list[Mention]:
    """The numbers the answer puts forward as its answer, as a reader finds them: the **bold** one; else,
    with what stands in parentheses, calendar dates and ranks (1위, 8호선) set aside, the one value left, or
    in the last sentence that states a number the value after its last `=` / `→` / `≈` / 즉 / 따라서 / 답은, or
    the value its
    sentence ends on (…비율은 19.62%입니다, …40개 더 많습니다) unless that value is one of a list (1, 2, 3입니다).
    Working before it (7,681면은 1,740면의 4.41배) is not a claim; where no reading finds one value, every
    number counts and several fail."""
    def inside(pattern: re.Pattern[str]) -> list[Mention]:
        spans = [m.span() for m in pattern.finditer(prepared)]
        return [x for x in mentions if any(a <= x.start and x.end <= b for a, b in spans)]

    bold = inside(_BOLD)
    if bold and len(_distinct(bold)) == 1:
        return bold
    ranks = [m for m in mentions if counted_by(prepared, m.end) in _RANKS]
    aside = {id(m) for m in inside(_PARENTHESES) + inside(_CALENDAR) + ranks}
    told = [m for m in mentions if id(m) not in aside] or mentions
    if len(_distinct(told)) == 1:
        return told
    start, end = next((a, b) for a, b in reversed(sentence_spans(prepared)) if any(a <= m.start < b for m in told))
    last = [m for m in told if start <= m.start < end]
    marker = max((r.end() for r in _RESULT.finditer(prepared, start, end)), default=None)
    after = [m for m in last if marker is not None and m.start >= marker]
    if after and len(_distinct(after)) == 1:
        return after
    final = last[-1]
    earlier = [m for m in told if m.end <= final.start and not _equal(m.value, final.value)]
    if earlier and _RESULT.search(prepared, max(m.end for m in earlier), final.start):
        return [final]  # = 5.8719… → 5.87: a result marker between the working and the value
    if is_predicate(prepared, final.end) and not listed(prepared, final.start):
        return [final]
    return told


def _own_numbers(prepared: str, mentions: list[Mention], query: str) -> list[Mention]:
    """The numbers that can be the answer's claim: not a rate's base (직원 1인당), not the query's own numbers
    said again with the same word (2025년, 12월까지, 제22대, 3년간 where the query says them) — unless that
    leaves none, when the query's number is the answer."""
    own = [m for m in mentions if not per_unit(prepared, m.end)]
    if query:
        asked = _prepare(query)
        echoes = [(m.value, counted_by(asked, m.end)) for m in _mentions_in(asked)]
        fresh = [m for m in own if not any(_equal(m.value, value) and word is not None
                                           and counted_by(prepared, m.end) == word for value, word in echoes)]
        own = fresh or own
    return own or mentions


def _compare(how: str, stated: Mention, target: sympy.Expr, key: AnswerKey, precision: int | None
             ) -> ResponseVerdict:
    value = stated.value
    shown = f"{stated.text!r} = {_decimal(value)}" if str(value) != stated.text else repr(stated.text)
    if _equal(value, target):
        return ResponseVerdict(passed=True, method=f"number:{how}:exact", details=f"{shown} == {key.exact}")
    gap = _absolute(value - target)
    if precision is not None:
        bound = sympy.Rational(1, 2 * 10**precision)
        ok = bool(gap <= bound)
        relation = "≤" if ok else ">"
        return ResponseVerdict(passed=ok, method=f"number:{how}:precision",
                               details=f"{shown}: |stated − {key.exact}| = {_decimal(gap)} {relation} "
                                       f"½·10^-{precision} (precision {precision})")
    if target.is_integer:
        return _fail(f"number:{how}", f"{shown} ≠ {key.exact} (an integer target is matched exactly)")
    ok = bool(gap <= RELATIVE_TOLERANCE * _absolute(target))
    relation = "≤" if ok else ">"
    return ResponseVerdict(passed=ok, method=f"number:{how}:relative",
                           details=f"{shown}: |stated − {key.exact}| = {_decimal(gap)} {relation} "
                                   f"1e-9·|{key.exact}| (no precision given)")


# --------------------------------------------------------------------------------------------------
# Strings
# --------------------------------------------------------------------------------------------------

def _apply_form(form: str, value: str) -> str:
    return form.replace("{}", value)


def _unwrap(candidate: str) -> str:
    """The candidate without LaTeX dressing: ``\\text{반대}`` → 반대, ``$...$`` dropped."""
    return _LATEX_WRAPPERS.sub(lambda m: m.group(1), candidate).replace("$", " ")


_FRAMING_PREFIX = re.compile(r"^\s*(?:최종\s*)?(?:정답|답)\s*(?:은|는|:)?\s*")
_COPULA_SUFFIX = re.compile(r"\s*(?:입니다|이에요|예요|에요|이다|임)\s*[.!。]?\s*$")
_ITEM_SEPARATOR = re.compile(r"[、;/·\n]+|,(?!(?<=\d,)\d{3}(?!\d))|\s+(?:및|그리고|and)\s+", re.IGNORECASE)
_GLUED_CONJUNCTION = re.compile(r"(?:와|과|이고|이며)\s+")


def _strip_framing(text: str) -> str:
    text = _FRAMING_PREFIX.sub("", text)
    return _COPULA_SUFFIX.sub("", text).strip()


def split_items(candidate: str, accepts: Callable[[str], bool] | None = None) -> list[str]:
    """The items a list answer names, split on , 、 ; / · newlines and 및/그리고/and; a glued 와/과/이고/이며
    splits only where what stands before it is an accepted item (so 결과 is not split into 결 + 과).
    Framing (정답은 … 입니다) around the whole list and copulas after an item are removed."""
    items: list[str] = []
    for chunk in _ITEM_SEPARATOR.split(_strip_framing(candidate)):
        rest = _strip_framing(chunk)
        while rest:
            for match in _GLUED_CONJUNCTION.finditer(rest):
                head = rest[: match.start()]
                if accepts is not None and accepts(head):
                    items.append(head.strip())
                    rest = rest[match.end() :]
                    break
            else:
                items.append(rest.strip())
                break
    return [i for i in items if normalise_text(i)]


def _item_forms(spec: AnswerSpec, value: str) -> set[str]:
    forms = {normalise_text(value)} | {normalise_text(_apply_form(f, value)) for f in spec.item_forms}
    return {f for f in forms if f}


def _score_string_rules(spec: AnswerSpec, key: AnswerKey, candidate: str) -> ResponseVerdict | None:
    answer = normalise_text(candidate)
    for alias in key.aliases:
        if answer == normalise_text(alias):
            return ResponseVerdict(passed=True, method="string:alias", details=f"{answer!r} is an alias")
    if spec.pattern:
        try:
            if re.fullmatch(spec.pattern, answer):
                return ResponseVerdict(passed=True, method="string:pattern", details=f"/{spec.pattern}/")
        except re.error as exc:
            return _fail("string:bad-pattern", f"{spec.pattern!r}: {exc}")
    if key.items is None:
        if answer in _item_forms(spec, key.display):
            return ResponseVerdict(passed=True, method="string:exact", details=f"{answer!r}")
        return None
    forms = {item: _item_forms(spec, item) for item in key.items}

    def which(text: str) -> str | None:
        normal = normalise_text(_strip_framing(text))
        return next((item for item, accepted in forms.items() if normal in accepted), None)

    if _ETCETERA.search(normalise_text(candidate)):
        return None  # 제5조, 제19조 등: the list says it is not all
    shaped = _item_shape(spec, key.items)
    named = split_items(candidate, accepts=lambda head: which(head) is not None or shaped(head))
    found = [which(i) for i in named]
    items = {f for f in found if f is not None}
    if named and None not in found and items == set(key.items):
        in_order = list(dict.fromkeys(found))
        if spec.ordered and in_order != list(dict.fromkeys(key.items)):
            return _fail("string:items-order", f"the items {in_order} are not in the order the query asks for: "
                                               f"{key.items}")
        return ResponseVerdict(passed=True, method="string:items",
                               details=f"the {len(items)} items {sorted(items)}, no others"
                                       + (", in the order asked" if spec.ordered else ""))
    if named and all(f is not None or shaped(i) for f, i in zip(found, named, strict=True)):
        # Every item the answer names has the target items' shape (제15조 beside 제5조): the sets decide.
        stated = sorted({f if f is not None else normalise_text(_strip_framing(i)) for f, i in
                         zip(found, named, strict=True)})
        return _fail("string:items", f"the answer names the items {stated}, the target is {sorted(key.items)}")
    return None


def _score_string_claim(spec: AnswerSpec, key: AnswerKey, candidate: str) -> ResponseVerdict | None:
    """An answer in sentences (benchmark/SCORING.md §2.2, "Prose"): the target stated and claimed passes;
    stated only under negation, as a guess, among alternatives or as one of a list of candidates fails, as
    does a wrong form the answer claims. None (the judge decides) where the target is not found as written,
    or a list answer names items of the target's shape that are not targets."""
    for wrong in key.rubric.wrong if key.rubric else []:
        stated = placement(candidate, [wrong])
        if stated is not None and "affirmed" in stated.polarities:
            return _fail("string:wrong-form", f"the answer states the wrong answer {wrong!r}")
    if key.items is None:
        place = placement(candidate, [key.display, *key.aliases, *(_apply_form(f, key.display) for f in spec.item_forms)])
        if place is None:
            return None
        if place.claimed:
            return ResponseVerdict(passed=True, method="string:claimed",
                                   details=f"{key.display!r} is stated as the answer in its sentence")
        said = next((p for p in place.polarities if p != "affirmed"), None)
        if said is not None:
            return _fail(f"string:{said}", f"the answer {_SAID[said]} {key.display!r}")
        if place.listed:
            return _fail("string:listed", f"{key.display!r} is one of a list of candidates the answer names")
        return None  # joined by 와/과/및: two candidates or one longer name — the judge decides
    places = {item: placement(candidate, [item, *(_apply_form(f, item) for f in spec.item_forms)]) for item in key.items}
    if any(p is None or "affirmed" not in p.polarities for p in places.values()):
        unclaimed = next((p for p in places.values() if p is not None and "affirmed" not in p.polarities), None)
        if unclaimed is not None:
            denied = unclaimed.polarities[0]
            return _fail(f"string:{denied}", f"the answer {_SAID[denied]} an item of its list")
        return None
    if _ETCETERA.search(normalise_text(candidate)):
        return None  # 제5조, 제19조 등: the list says it is not all
    shaped = _item_shape(spec, key.items)
    named = {normalise_text(m.group()) for p in _shape_patterns(spec) for m in p.finditer(normalise_text(candidate))}
    if any(shaped(n) and not any(n in _item_forms(spec, i) for i in key.items) for n in named):
        return None  # another item of the same kind is named too: the judge decides
    if spec.ordered:
        firsts = sorted(key.items, key=lambda i: min(
            (m.start() for f in _item_forms(spec, i) for m in re.finditer(re.escape(f), normalise_text(candidate))),
            default=0))
        if firsts != list(key.items):
            return _fail("string:items-order", f"the items are not in the order the query asks for: {key.items}")
    return ResponseVerdict(passed=True, method="string:claimed-items",
                           details=f"the {len(key.items)} items are each stated as the answer")


_ETCETERA = re.compile(r"(?:^|\s)등(?:이|을|의|에|도|과|\s|$)")
_PLACEHOLDER = "\ue000"  # a private-use character: survives normalise_text, never in an answer


def _shape_patterns(spec: AnswerSpec, numeric: bool = True) -> list[re.Pattern[str]]:
    """The item forms as patterns around any value (제{}조 → 제\\d+조), on normalised text."""
    value = r"\d+" if numeric else r"\S+"
    patterns = []
    for form in spec.item_forms:
        marked = normalise_text(form.replace("{}", _PLACEHOLDER))
        if _PLACEHOLDER in marked and marked != _PLACEHOLDER:
            patterns.append(re.compile(re.escape(marked).replace(re.escape(_PLACEHOLDER), value)))
    return patterns


def _item_shape(spec: AnswerSpec, items: list[str]) -> Callable[[str], bool]:
    """Whether a text names an item of the same kind as the target's: one of the item forms around
    another value (제15조 for 제{}조), or a bare number where the target items are numbers."""
    numeric = all(normalise_text(i).isdigit() for i in items)
    patterns = _shape_patterns(spec, numeric)

    def shaped(text: str) -> bool:
        normal = normalise_text(_strip_framing(text))
        return (numeric and normal.isdigit()) or any(p.fullmatch(normal) for p in patterns)

    return shaped


def automatic_rubric(spec: AnswerSpec, key: AnswerKey) -> Rubric:
    """A string answer's rubric when its task gives none: one fact per target value or item, accepted in
    the target's own form, its aliases (single values) and every item form; no wrong forms."""
    if key.items is not None:
        facts = [RubricFact(fact=f"항목: {item}",
                            forms=[item, *(_apply_form(f, item) for f in spec.item_forms)])
                 for item in key.items]
    else:
        forms = [key.display, *key.aliases, *(_apply_form(f, key.display) for f in spec.item_forms)]
        facts = [RubricFact(fact=f"정답: {key.display}", forms=forms)]
    return Rubric(facts=facts)


def _ask(judge: Judge, query: str, rubric: Rubric, key: AnswerKey, answer: str, *, strict: bool,
         prefix: str = "") -> ResponseVerdict:
    verdict = judge.judge(query, rubric, key, answer, strict=strict)
    if not prefix:
        return verdict
    return ResponseVerdict(passed=verdict.passed, method=f"string:{verdict.method}",
                           details=f"{prefix}{verdict.details}")


def _offline() -> Judge:
    return OfflineJudge()


def _score_string(spec: AnswerSpec, key: AnswerKey, predicted: str, judge: Judge | None, query: str
                  ) -> ResponseVerdict:
    boxes = boxed_contents(predicted)
    if boxes is None:
        return _fail("string:boxed-unclosed", "a \\boxed{ is never closed")
    if len({normalise_text(_unwrap(b)) for b in boxes}) > 1:
        return _fail("string:several-boxed", f"{len(boxes)} different boxed answers: {boxes[:5]}")
    candidate = _unwrap(boxes[0] if boxes else predicted)
    verdict = _score_string_rules(spec, key, candidate) or _score_string_claim(spec, key, candidate)
    if verdict is not None:
        return verdict
    rubric = key.rubric or automatic_rubric(spec, key)
    return _ask(judge or _offline(), query, rubric, key, candidate, strict=True,
                prefix="string rules failed (no exact, alias, item-form, pattern or item-set match); ")


_CALL_MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|tool_call|>", "<function=")


def is_tool_call(text: str) -> bool:
    """A final message that is a tool call written out: a JSON object (or list of them) with a name and its
    arguments, fenced or not, or a chat template's call markers."""
    if any(marker in text for marker in _CALL_MARKERS):
        return True
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        parsed = json.loads(body)
    except ValueError:
        return False
    calls = parsed if isinstance(parsed, list) else [parsed]
    return bool(calls) and all(isinstance(c, dict) and "name" in c and ("arguments" in c or "parameters" in c)
                               for c in calls)


def score_response(spec: AnswerSpec, key: AnswerKey, predicted: str | None, judge: Judge | None = None,
                   *, query: str = "") -> ResponseVerdict:
    """Score one final answer against the key the golden run produced (contract: benchmark/SCORING.md).

    number: the stated number (the \\boxed{} content, else the one number the answer states) equals the
    exact value, or lies within half a unit of the precision the query asks for. string: normalised
    equality with the target, an alias or an item form, a full pattern match, or the same set of items;
    else ``judge`` (default: the offline judge) in strict mode. judge: ``judge`` grades the rubric.
    """
    if predicted is None or not predicted.strip():
        return _fail(f"{spec.type}:no-answer", "no final answer")
    if is_tool_call(predicted):
        return _fail(f"{spec.type}:tool-call", "the final message is a tool call (a model's call that was not "
                                               "parsed as one), not an answer")
    if spec.type == "number":
        verdict = _score_number(spec, key, predicted, query)
    elif spec.type == "string":
        verdict = _score_string(spec, key, predicted, judge, query)
    else:
        verdict = _ask(judge or _offline(), query, key.rubric or automatic_rubric(spec, key), key, predicted,
                       strict=False)
    return _doubted(verdict, predicted)


def _doubted(verdict: ResponseVerdict, predicted: str) -> ResponseVerdict:
    """A pass the rules (or the offline judge) gave to an answer that elsewhere guesses or offers alternatives
    as a whole (…입니다. 다만 확실하지 않습니다.) is undecidable: the doubt may be about the answer. A model
    judge's verdict stands: it read the whole answer."""
    if verdict.passed is not True or ("judge:" in verdict.method and "judge:offline" not in verdict.method):
        return verdict
    doubts = doubting_sentences(_unwrap(predicted))
    if not doubts:
        return verdict
    return ResponseVerdict(passed=None, method=f"{verdict.method}:doubted",
                           details=f"{verdict.details}; but the answer also says {doubts[0][:80]!r}, a doubt "
                                   "that may be about the answer")
