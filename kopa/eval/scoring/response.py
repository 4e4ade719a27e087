"""RESPONSE: does the final answer state the golden answer? Number, string and judge answers (seed §4.4).

The contract is written out in ``benchmark/SCORING.md``; this module is its number and string halves and
hands judge answers (and string answers the rules cannot settle) to a :mod:`kopa.eval.judge` judge. Numbers
are read by :mod:`kopa.eval.scoring.numbers`, the one an answer puts forward found by
:mod:`kopa.eval.scoring.claimed`, a string stated in prose by :mod:`kopa.eval.scoring.stated`.

Nothing here evaluates answer text as code: numbers go through ``kopa.tools.expression`` (a whitelisted
AST walker over exact sympy numbers), strings through normalisation and regular expressions. There is no
containment rule anywhere: an answer passes by stating the target, not by mentioning it among others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import sympy

from kopa.eval.judge import Judge, OfflineJudge
from kopa.eval.scoring.claimed import SAID, doubted_box, own_numbers, put_forward, signed, unclaimed
from kopa.eval.scoring.numbers import (
    LATEX_WRAPPERS,
    MONEY_UNITS,
    Mention,
    absolute,
    boxed_contents,
    decimal,
    distinct_values,
    equal,
    extract_boxed,
    in_money_unit,
    mentions_in,
    number_mentions,
    prepare,
    read_boxed_number,
)
from kopa.eval.scoring.stated import placement
from kopa.eval.task import AnswerKey, AnswerSpec, Rubric, RubricFact
from kopa.eval.verdict import ResponseVerdict
from kopa.korean.claims import asked_measure, counted_by, doubting_sentences, other_measure, polarity
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
        doubted = doubted_box(predicted)
        if doubted is not None:
            return _fail(*doubted)
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        distinct = distinct_values(mentions)
        if len(distinct) > 1:
            return _fail("number:several-boxed", f"{len(distinct)} different boxed values: "
                                                 f"{[m.text for m in distinct]}")
    else:
        prepared = prepare(predicted)
        found = mentions_in(prepared)
        if not found:
            return _fail("number:no-number", "the answer states no number")
        claims = [(m, polarity(prepared, m.start, m.end)) for m in own_numbers(prepared, found, query)]
        affirmed = [m for m, said in claims if said == "affirmed"]
        if not affirmed:
            return _fail(*unclaimed(claims))
        how, mentions = "stated", put_forward(prepared, affirmed)
        if money:
            mentions = [in_money_unit(m, money) for m in mentions]
        distinct = distinct_values(mentions)
        if len(distinct) > 1:
            return _fail("number:several-numbers", f"{len(distinct)} different numbers and no \\boxed{{}}: "
                                                   f"{[m.text for m in distinct][:8]}")
    stated = distinct[0] if how == "boxed" else signed(prepared, distinct[0], query)
    asked = asked_measure(query) if query and how == "stated" else None
    if asked is not None and other_measure(asked, counted_by(prepared, stated.end)):
        return _fail("number:unit", f"{stated.text!r} is said in {counted_by(prepared, stated.end)}; the question "
                                    f"asks in {asked}")
    if spec.unit != "percent" and any(m.percent for m in mentions):
        return _fail("number:unit", f"{stated.text!r} is stated in percent; the target {key.display} is not "
                                    "(12.5% is the claim 0.125)")
    return _compare(how, stated, target, key, spec.precision)


def _compare(how: str, stated: Mention, target: sympy.Expr, key: AnswerKey, precision: int | None
             ) -> ResponseVerdict:
    value = stated.value
    shown = f"{stated.text!r} = {decimal(value)}" if str(value) != stated.text else repr(stated.text)
    if equal(value, target):
        return ResponseVerdict(passed=True, method=f"number:{how}:exact", details=f"{shown} == {key.exact}")
    gap = absolute(value - target)
    if precision is not None:
        bound = sympy.Rational(1, 2 * 10**precision)
        ok = bool(gap <= bound)
        relation = "≤" if ok else ">"
        return ResponseVerdict(passed=ok, method=f"number:{how}:precision",
                               details=f"{shown}: |stated − {key.exact}| = {decimal(gap)} {relation} "
                                       f"½·10^-{precision} (precision {precision})")
    if target.is_integer:
        return _fail(f"number:{how}", f"{shown} ≠ {key.exact} (an integer target is matched exactly)")
    ok = bool(gap <= RELATIVE_TOLERANCE * absolute(target))
    relation = "≤" if ok else ">"
    return ResponseVerdict(passed=ok, method=f"number:{how}:relative",
                           details=f"{shown}: |stated − {key.exact}| = {decimal(gap)} {relation} "
                                   f"1e-9·|{key.exact}| (no precision given)")


# --------------------------------------------------------------------------------------------------
# Strings
# --------------------------------------------------------------------------------------------------

def _apply_form(form: str, value: str) -> str:
    return form.replace("{}", value)


def _unwrap(candidate: str) -> str:
    """The candidate without LaTeX dressing: ``\\text{반대}`` → 반대, ``$...$`` dropped."""
    return LATEX_WRAPPERS.sub(lambda m: m.group(1), candidate).replace("$", " ")


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
            return _fail(f"string:{said}", f"the answer {SAID[said]} {key.display!r}")
        if place.listed:
            return _fail("string:listed", f"{key.display!r} is one of a list of candidates the answer names")
        return None  # joined by 와/과/및: two candidates or one longer name — the judge decides
    places = {item: placement(candidate, [item, *(_apply_form(f, item) for f in spec.item_forms)]) for item in key.items}
    if any(p is None or "affirmed" not in p.polarities for p in places.values()):
        unclaimed = next((p for p in places.values() if p is not None and "affirmed" not in p.polarities), None)
        if unclaimed is not None:
            denied = unclaimed.polarities[0]
            return _fail(f"string:{denied}", f"the answer {SAID[denied]} an item of its list")
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


_ETCETERA = re.compile(r"(?:^|\s)등(?=$|\s|이|을|의|에|도|과|으로|입니다|이다|임)")
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
