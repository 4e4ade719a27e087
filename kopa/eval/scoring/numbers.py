"""Numbers an answer writes, read exactly (benchmark/SCORING.md §2.1, "Forms that are read"): what a
``\\boxed{}`` holds, every number a text states with its span, unit and percent mark, Korean numerals
(through `kopa.korean.numerals`) and LaTeX (through latex2sympy2_extended, `kopa.eval.scoring.latex`).

Nothing here evaluates answer text as code: numbers go through ``kopa.tools.expression`` (a whitelisted AST
walker over exact sympy numbers).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

import sympy

from kopa.eval.scoring.latex import read_latex_number
from kopa.korean.claims import only_unit_words
from kopa.korean.numerals import digits_and_spans
from kopa.tools.expression import ExpressionError, parse_expression

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
LATEX_WRAPPERS = re.compile(r"\\(?:text|mathrm|textrm|textbf|mathbf|mbox|operatorname)\s*\{([^{}]*)\}")

_NUM = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?"
_SIGNED = r"[-−–+]?\s?" + _NUM
_POW = r"(?:\^\s*\{\s*[-−+]?\d+\s*\}|\^\s*[-−+]?\d+|\*\*\s*[-−+]?\d+)"
_TIMES = r"(?:\\times|\\cdot|[×✕·⋅*])"
NUMBER = re.compile(
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
    `won`: 1 when it is said in won — 원 after it, or Korean magnitude words in it (7억 1,480만, 2,811.42억원:
    the magnitude is in its value) — None when it states no money."""

    text: str
    value: sympy.Expr
    percent: bool
    won: int | None = None
    start: int = 0  # where it stands in the text it was read from (after `prepare`)
    end: int = 0


# A money unit right after a number: the magnitude its words give it (after "2811.42 억원", "3,000원")
_WON_AFTER = re.compile(r"\s?원")
MONEY_UNITS = {"억원": 10**8, "천만원": 10**7, "백만원": 10**6, "만원": 10**4, "천원": 10**3}


def _won(after: str) -> int | None:
    """1 when the number is said in won (원 follows: 26,020원), else None (`Mention.won`). A magnitude word
    before 원 (7억 1,480만원) is in the number already: `prepare` wrote it as digits."""
    return 1 if _WON_AFTER.match(after) else None


def in_money_unit(mention: Mention, unit: str) -> Mention:
    """`mention` read in the money `unit` the target is counted in: a bare number as it stands, one with
    its own money words converted (2,811.42억원 in 억원 is 2811.42; 7억 1,480만원 in 만원 is 71480)."""
    if mention.won is None:
        return mention
    return replace(mention, value=mention.value * mention.won / MONEY_UNITS[unit], won=None)


def prepare(text: str) -> Prepared:
    """Superscript powers as ``^{..}`` (NFKC would turn 10³ into 103), unit exponents (m²) dropped, NFKC,
    LaTeX text wrappers unwrapped, ``{,}`` as a comma, Korean numerals as digits."""

    def superscript(match: re.Match[str]) -> str:
        if not match["base"]:
            return ""  # m², km²: an exponent of a unit, not of a number
        return match["base"] + "^{" + match["run"].translate(_SUPERSCRIPTS) + "}"

    text = _SUPERSCRIPT_RUN.sub(superscript, text)
    text = unicodedata.normalize("NFKC", text)
    text = LATEX_WRAPPERS.sub(lambda m: " " + m.group(1) + " ", text)
    digits, numerals = digits_and_spans(_LATEX_SPACES.sub(" ", text.replace("{,}", ",")))
    prepared = Prepared(digits)
    prepared.worded = frozenset((n.start, n.end) for n in numerals if n.sino)
    return prepared


class Prepared(str):
    """An answer's text as the number scanner reads it (`prepare`). `worded`: the spans of the numbers it wrote
    in Korean magnitude words (7억 1,480만, now 714800000), which count in won where the query asks money,
    with 원 or without (SCORING.md §2.1, "Money units")."""

    worded: frozenset[tuple[int, int]] = frozenset()


def _parse_number_text(text: str) -> sympy.Expr:
    """A span the scanner matched: its commas group thousands, its leading zeros are not octal."""
    text = text.replace(",", "").replace("−", "-").replace("–", "-")
    return parse_expression(_LEADING_ZEROS.sub("", text))


def number_mentions(text: str) -> list[Mention]:
    """Every number the text states, in order: fractions, LaTeX fractions, repeating decimals, scientific
    notation, thousands groups, Korean numerals (3만, 1억 2천만, 7천5백, 아홉 명: `kopa.korean.numerals`) and
    a percent suffix, as exact values; spans are in `prepare(text)`."""
    return mentions_in(prepare(text))


def mentions_in(prepared: str) -> list[Mention]:
    mentions: list[Mention] = []
    for match in NUMBER.finditer(prepared):
        try:
            value = _parse_number_text(match["body"])
        except ExpressionError:
            continue  # a span the scanner took for a number but the parser refuses (e.g. 1/0): no number
        if match["sign"] in ("-", "−", "–"):
            value = -value
        worded = any(match.start() <= a and b <= match.end() for a, b in getattr(prepared, "worded", ()))
        mentions.append(Mention(text=match.group().strip(), value=value, percent=bool(match["percent"]),
                                won=1 if worded else _won(prepared[match.end():]), start=match.start(),
                                end=match.end()))
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
    prepared = prepare(text)
    mentions = mentions_in(prepared)
    if len(mentions) == 1 and only_unit_words(prepared, mentions[0].start, mentions[0].end):
        return replace(mentions[0], text=content)
    raise ExpressionError("syntax", f"{content!r} is not one number")


def distinct_values(mentions: list[Mention]) -> list[Mention]:
    out: list[Mention] = []
    for mention in mentions:
        if not any(equal(mention.value, seen.value) for seen in out):
            out.append(mention)
    return out


def absolute(expr: sympy.Expr) -> sympy.Expr:
    """|expr|: exact for rationals, 50 significant digits otherwise (sqrt(2), pi in a boxed expression)."""
    if expr.is_Rational:
        return abs(expr)
    return abs(sympy.N(expr, 50))


def equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    if a.is_Rational and b.is_Rational:
        return bool(a == b)
    scale = max(sympy.Integer(1), absolute(b))
    return bool(absolute(a - b) <= sympy.Float("1e-45", 50) * scale)


def decimal(expr: sympy.Expr) -> str:
    return str(sympy.N(expr, 12))
