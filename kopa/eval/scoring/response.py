"""RESPONSE: does the final answer match the golden answer (number, string or judge type; seed §4.4)?

Nothing here evaluates answer text as code: numbers go through ``kopa.tools.expression`` (a whitelisted
AST walker over exact sympy numbers), strings through normalisation and regular expressions.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from pydantic import BaseModel

from kopa.eval.task import AnswerSpec
from kopa.tools.expression import ExpressionError, numbers_equivalent, parse_expression

if TYPE_CHECKING:
    from kopa.eval.judge import Judge

__all__ = ["ResponseVerdict", "extract_boxed", "extract_number", "normalise_text", "score_response"]


class ResponseVerdict(BaseModel):
    passed: bool | None  # None: undecidable (a judge that cannot decide)
    method: str
    details: str


_BOXED = re.compile(r"\\boxed\s*\{")
# A number as people and models write it: sign, thousands groups or plain digits, decimals, exponent, %.
# The look-behind keeps "v2.1" or "A-3" from yielding a negative number, and digits glued to Korean
# units ("1,234건") still match.
_NUMBER = re.compile(
    r"(?<![\d.,])(?<![A-Za-z])[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s*%)?"
)


def extract_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (balanced braces); None when there is none or it is unclosed."""
    found: str | None = None
    for match in _BOXED.finditer(text):
        depth = 1
        for index in range(match.end(), len(text)):
            depth += (text[index] == "{") - (text[index] == "}")
            if depth == 0:
                found = text[match.end() : index].strip()
                break
    return found


def extract_number(text: str) -> tuple[str | None, str]:
    """The number an answer states, and how it was found: boxed, the whole text, or the last number span."""
    boxed = extract_boxed(text)
    if boxed is not None:
        return boxed, "boxed"
    stripped = text.strip()
    if stripped:
        try:  # a whole answer such as "1.234 × 10^3" or "12.5%": parsed, never executed
            parse_expression(stripped.removesuffix("%").removesuffix("\\").strip())
            return stripped, "whole"
        except ExpressionError:
            pass
    spans = _NUMBER.findall(text)
    if spans:
        return spans[-1].replace("−", "-"), "last-number"
    return None, "none"


_PUNCT_CATEGORIES = ("P", "S")  # punctuation and symbols (·, ~, ₩ …) fold to spaces


def normalise_text(text: str) -> str:
    """NFKC, casefold, punctuation/symbols → spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(c)[0] in _PUNCT_CATEGORIES else c for c in text)
    return " ".join(text.split())


def _score_number(spec: AnswerSpec, target: str, predicted: str) -> ResponseVerdict:
    candidate, how = extract_number(predicted)
    if candidate is None:
        return ResponseVerdict(passed=False, method="number:no-number", details="the answer states no number")
    ok = numbers_equivalent(candidate, target, rel_tol=spec.tolerance)
    if not ok and _rounds_to(target, candidate):
        # "43.80" or "44" for 43.7966289: the target rounded at the answer's own precision — the way a
        # person states a computed percentage. Integers (counts) still have to match exactly.
        return ResponseVerdict(passed=True, method=f"number:{how}:rounded",
                               details=f"{target!r} rounds to {candidate!r}")
    relation = "==" if ok else "!="
    return ResponseVerdict(passed=ok, method=f"number:{how}", details=f"{candidate!r} {relation} {target!r}")


def _rounds_to(target: str, candidate: str) -> bool:
    """True when a non-integer target, rounded to the candidate's decimal places, is the candidate."""
    from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

    try:
        t = Decimal(target.replace(",", "").strip())
        c = Decimal(candidate.replace(",", "").strip().rstrip("%").strip())
    except InvalidOperation:
        return False
    if t == t.to_integral_value():
        return False
    places = max(0, -c.as_tuple().exponent) if isinstance(c.as_tuple().exponent, int) else 0
    if places > 6:
        return False
    return t.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP) == c


def _string_match(spec: AnswerSpec, target: str, predicted: str) -> ResponseVerdict | None:
    answer, wanted = normalise_text(predicted), normalise_text(target)
    if wanted and answer == wanted:
        return ResponseVerdict(passed=True, method="string:exact", details=f"{wanted!r}")
    if wanted and wanted in answer:
        return ResponseVerdict(passed=True, method="string:contains", details=f"{wanted!r} in answer")
    # A list target (golden lists are joined with ", "): every item present, in any order.
    items = [normalise_text(i) for i in target.split(",")]
    if len(items) > 1 and all(items) and all(i in answer for i in items):
        return ResponseVerdict(passed=True, method="string:items", details=f"all {len(items)} items present")
    if spec.pattern:
        try:
            if re.search(spec.pattern, answer):
                return ResponseVerdict(passed=True, method="string:pattern", details=f"/{spec.pattern}/")
        except re.error as exc:
            return ResponseVerdict(passed=False, method="string:bad-pattern", details=f"{spec.pattern!r}: {exc}")
    return None


def _ask(judge: Judge, query: str, spec: AnswerSpec, target: str, predicted: str, prefix: str
         ) -> ResponseVerdict:
    verdict = judge.judge(query, spec.rubric, target, predicted)
    return ResponseVerdict(passed=verdict.passed, method=verdict.method,
                           details=f"{prefix}{verdict.details}" if prefix else verdict.details)


def score_response(spec: AnswerSpec, target: str, predicted: str | None, judge: Judge | None = None,
                   *, query: str = "") -> ResponseVerdict:
    """Score one final answer against the target the golden trajectory produced.

    number: exact for rationals, ``spec.tolerance`` relative otherwise. string: normalised exact,
    containment, every item of a list target, or ``spec.pattern``; then ``judge`` if given. judge: the
    target contained verbatim passes without a judge; otherwise ``judge`` (default: the offline judge).
    """
    if predicted is None or not predicted.strip():
        return ResponseVerdict(passed=False, method=f"{spec.type}:no-answer", details="no final answer")
    if spec.type == "number":
        return _score_number(spec, target, predicted)
    if spec.type == "string":
        verdict = _string_match(spec, target, predicted)
        if verdict is not None:
            return verdict
        if judge is None:
            return ResponseVerdict(passed=False, method="string:no-match",
                                   details=f"{normalise_text(target)!r} not in answer; no judge to fall back on")
        return _ask(judge, query, spec, target, predicted, "string rules failed; ")
    wanted = normalise_text(target)
    if wanted and wanted in normalise_text(predicted):
        return ResponseVerdict(passed=True, method="judge:target-contained", details="the target verbatim")
    if judge is None:
        from kopa.eval.judge import OfflineJudge

        judge = OfflineJudge()
    return _ask(judge, query, spec, target, predicted, "")
