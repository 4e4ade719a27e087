"""RESPONSE: does the final answer state the golden answer? Number, string and judge answers (seed §4.4).

The contract is written out in ``benchmark/SCORING.md``; this module is its number and string halves and
hands judge answers (and string answers the rules cannot settle) to a :mod:`kopa.eval.judge` judge.

Nothing here evaluates answer text as code: numbers go through ``kopa.tools.expression`` (a whitelisted
AST walker over exact sympy numbers), strings through normalisation and regular expressions. There is no
containment rule anywhere: an answer passes by stating the target, not by mentioning it among others.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import sympy

from kopa.eval.judge import Judge, OfflineJudge
from kopa.eval.task import AnswerKey, AnswerSpec, Rubric, RubricFact
from kopa.eval.verdict import ResponseVerdict
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


def boxed_contents(text: str) -> list[str] | None:
    """The contents of every ``\\boxed{...}`` (balanced braces), in order; None when one is never closed."""
    found: list[str] = []
    for match in _BOXED.finditer(text):
        depth = 1
        for index in range(match.end(), len(text)):
            depth += (text[index] == "{") - (text[index] == "}")
            if depth == 0:
                found.append(text[match.end() : index].strip())
                break
        else:
            return None
    return found


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
    rf"|(?P<korean>(?:{_NUM}억(?:\s?{_NUM}(?:천|백)?만(?!큼))?|{_NUM}(?:천|백)?만(?!큼)|{_NUM}천(?!만))"
    rf"(?:\s?{_NUM}천(?!만))?(?:\s?{_NUM}(?![\d.]|\s?[천백만억]))?)"
    rf"|(?P<plain>{_NUM})"
    r")(?P<percent>\s?(?:\\%\s?[pP](?![A-Za-z])|\\%|%\s?[pP](?![A-Za-z])|%\s?포인트|%|퍼센트\s?포인트|퍼센트))?"
)
_KOREAN_PART = re.compile(rf"(?P<n>{_NUM})(?P<sub>천|백)?(?P<unit>만|억)?")
_KOREAN_MAGNITUDE = {"천": 10**3, "백": 10**2, "만": 10**4, "억": 10**8}
_LEADING_ZEROS = re.compile(r"(?<![\d.])0+(?=\d)")
_PERCENT_SUFFIX = re.compile(r"\s?(?:\\%\s?[pP]|\\%|%\s?[pP]|%\s?포인트|%|퍼센트\s?포인트|퍼센트)$")
_APPROXIMATELY = re.compile(r"^(?:약|대략|approximately|approx\.?|about|≈|~|∼)\s*", re.IGNORECASE)
_UNIT_RESIDUE = re.compile(r"[^\W\d_]+")  # unit and framing words around a boxed number: 건, 원, kcal, 약


@dataclass(frozen=True)
class Mention:
    """One number an answer states: its text, its exact value and whether it carries % / %p / 퍼센트;
    `won`: the multiplier to won its own words state (억원 10^8, 만원 10^4, 원 1; a Korean magnitude written
    into it, 7억 1,480만, is already in its value: 1), None when it states no money unit."""

    text: str
    value: sympy.Expr
    percent: bool
    won: int | None = None


# A money unit right after a number: the magnitude its words give it (after "2811.42 억원", "3,000원")
_MONEY_AFTER = re.compile(r"\s?(?P<magnitude>억|천만|백만|만|천)?\s?원|\s?(?P<bare>억|만)(?![가-힣])")
MONEY_UNITS = {"억원": 10**8, "천만원": 10**7, "백만원": 10**6, "만원": 10**4, "천원": 10**3}
_MONEY_MAGNITUDE = {"억": 10**8, "천만": 10**7, "백만": 10**6, "만": 10**4, "천": 10**3}


def _won(kind: str, after: str) -> int | None:
    """What a number's own words multiply it by to make won (`Mention.won`)."""
    money = _MONEY_AFTER.match(after)
    if kind == "korean":  # 7억 1,480만: the magnitude is in the value already
        return 1
    if money is None:
        return None
    word = money["magnitude"] or money["bare"]
    return _MONEY_MAGNITUDE[word] if word else 1


def in_money_unit(mention: Mention, unit: str) -> Mention:
    """`mention` read in the money `unit` the target is counted in: a bare number as it stands, one with
    its own money words converted (2,811.42억원 in 억원 is 2811.42; 7억 1,480만원 in 만원 is 71480)."""
    if mention.won is None:
        return mention
    return Mention(text=mention.text, value=mention.value * mention.won / MONEY_UNITS[unit], percent=mention.percent,
                   won=None)


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
    return text.replace("{,}", ",")


def _value(kind: str, body: str) -> sympy.Expr:
    if kind == "korean":
        total = sympy.Integer(0)
        for part in _KOREAN_PART.finditer(body):
            number = _parse_number_text(part["n"])
            multiplier = _KOREAN_MAGNITUDE[part["sub"]] if part["sub"] else 1
            multiplier *= _KOREAN_MAGNITUDE[part["unit"]] if part["unit"] else 1
            total += number * multiplier
        return total
    return _parse_number_text(body)


def _parse_number_text(text: str) -> sympy.Expr:
    """A span the scanner matched: its commas group thousands, its leading zeros are not octal."""
    text = text.replace(",", "").replace("−", "-").replace("–", "-")
    return parse_expression(_LEADING_ZEROS.sub("", text))


def number_mentions(text: str) -> list[Mention]:
    """Every number the text states, in order: fractions, LaTeX fractions, repeating decimals, scientific
    notation, thousands groups, Korean magnitudes (3만, 1억 2천만) and a percent suffix, as exact values."""
    mentions: list[Mention] = []
    prepared = _prepare(text)
    for match in _NUMBER.finditer(prepared):
        kind = next(k for k in ("repeat", "frac", "sci", "exp", "power", "ratio", "korean", "plain") if match[k])
        try:
            value = _value(kind, match["body"])
        except ExpressionError:
            continue  # a span the scanner took for a number but the parser refuses (e.g. 1/0): no number
        if match["sign"] in ("-", "−", "–"):
            value = -value
        mentions.append(Mention(text=match.group().strip(), value=value, percent=bool(match["percent"]),
                                won=_won(kind, prepared[match.end():])))
    return mentions


def read_boxed_number(content: str) -> Mention:
    """The number a ``\\boxed{}`` holds: an arithmetic expression (``\\frac{25}{3}``, ``1.234 \\times
    10^3``), or one number with unit words around it (``1,234건``, ``약 44\\%``). Raises ExpressionError."""
    # As written first: the expression parser reads superscripts and LaTeX itself ((1.1)², \frac{}{}).
    text = _APPROXIMATELY.sub("", content.strip().strip("$").strip())
    suffix = _PERCENT_SUFFIX.search(text)
    bare = text[: suffix.start()].strip() if suffix else text
    try:
        return Mention(text=content, value=parse_expression(_LEADING_ZEROS.sub("", bare)), percent=bool(suffix))
    except ExpressionError:
        pass
    text = _prepare(text)
    mentions = number_mentions(text)
    if len(mentions) == 1:
        residue = _NUMBER.sub(" ", text, count=1)
        if all(_UNIT_RESIDUE.fullmatch(word) for word in residue.split()):
            return Mention(text=content, value=mentions[0].value, percent=mentions[0].percent, won=mentions[0].won)
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


def _score_number(spec: AnswerSpec, key: AnswerKey, predicted: str) -> ResponseVerdict:
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
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        distinct = _distinct(mentions)
        if len(distinct) > 1:
            return _fail("number:several-boxed", f"{len(distinct)} different boxed values: "
                                                 f"{[m.text for m in distinct]}")
    else:
        how, mentions = "stated", number_mentions(predicted)
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        if not mentions:
            return _fail("number:no-number", "the answer states no number")
        distinct = _distinct(mentions)
        if len(distinct) > 1:
            return _fail("number:several-numbers", f"{len(distinct)} different numbers and no \\boxed{{}}: "
                                                   f"{[m.text for m in distinct][:8]}")
    stated = distinct[0]
    if spec.unit != "percent" and any(m.percent for m in mentions):
        return _fail("number:unit", f"{stated.text!r} is stated in percent; the target {key.display} is not "
                                    "(12.5% is the claim 0.125)")
    return _compare(how, stated, target, key, spec.precision)


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


_PLACEHOLDER = "\ue000"  # a private-use character: survives normalise_text, never in an answer


def _item_shape(spec: AnswerSpec, items: list[str]) -> Callable[[str], bool]:
    """Whether a text names an item of the same kind as the target's: one of the item forms around
    another value (제15조 for 제{}조), or a bare number where the target items are numbers."""
    numeric = all(normalise_text(i).isdigit() for i in items)
    value = r"\d+" if numeric else r"\S+"
    patterns = []
    for form in spec.item_forms:
        marked = normalise_text(form.replace("{}", _PLACEHOLDER))
        if _PLACEHOLDER in marked and marked != _PLACEHOLDER:
            patterns.append(re.compile(re.escape(marked).replace(re.escape(_PLACEHOLDER), value)))

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
    verdict = _score_string_rules(spec, key, candidate)
    if verdict is not None:
        return verdict
    rubric = key.rubric or automatic_rubric(spec, key)
    return _ask(judge or _offline(), query, rubric, key, candidate, strict=True,
                prefix="string rules failed (no exact, alias, item-form, pattern or item-set match); ")


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
    if spec.type == "number":
        return _score_number(spec, key, predicted)
    if spec.type == "string":
        return _score_string(spec, key, predicted, judge, query)
    rubric = key.rubric or automatic_rubric(spec, key)
    return _ask(judge or _offline(), query, rubric, key, predicted, strict=False)
