"""Safe arithmetic: the session tool ``evaluate_expression`` and number-answer equivalence for scoring.

Nothing here ever calls ``eval``, ``exec``, ``compile`` or ``sympy.sympify``/``parse_expr`` on input text.
Text goes through three stages:

1. :func:`normalise_expression` rewrites common human/model notation on a token stream, without evaluating
   anything: NFKC (full-width digits), ``×``/``·``/``÷``/``−``, ``^`` → ``**``, superscript powers, LaTeX
   (``\\times``, ``\\cdot``, ``\\div``, ``\\frac{a}{b}``, ``\\sqrt{x}``, ``\\left(``/``\\right)``, ``10^{3}``,
   ``\\pi``), repeating decimals (``8.(3)``, ``8.3̅``, ``8.\\overline{3}`` → ``(25/3)``) and thousands
   separators (``1,234,567``: only where commas group digits in threes and are not inside a function call's
   argument list, where a comma separates arguments).
2. ``ast.parse(text, mode="eval")`` parses the result as a Python expression (parsing never runs code).
3. A whitelist walker builds an exact sympy number from the nodes: numeric literals (floats via their source
   text, so ``0.1 + 0.2 == 0.3`` exactly), unary ``+ -``, binary ``+ - * / // % **``, the constants ``pi``
   and ``e`` and calls of a fixed table of scalar functions. Everything else raises :class:`ExpressionError`.

Size guards: input length, AST node count and depth, exponent size (checked *before* computing a power),
digit count of exact results and magnitude of inexact ones.

Numbers are never judged in plain floating point, where large terms that cancel (``pi**999 % 7``) leave only
noise: every sign, comparison, floor and displayed digit comes from a rigorous interval enclosure
(:mod:`kopa.tools.enclosure`) refined until it decides, and past its precision cap the tool refuses with
reason ``precision`` instead of printing a number it cannot vouch for.
"""

from __future__ import annotations

import ast
import math
import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Literal, TypeVar

import sympy
from pydantic import BaseModel, ConfigDict

from kopa.tools.enclosure import (
    MAX_PRECISION_DIGITS,
    Interval,
    UnsupportedNumber,
    abs_log10_bounds,
    endpoints,
    interval_sign,
    refine,
    round_significant,
)

__all__ = [
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "MAX_INPUT_LENGTH",
    "MAX_NODES",
    "MAX_PRECISION_DIGITS",
    "ErrorReason",
    "EvaluationResult",
    "ExpressionError",
    "evaluate_expression",
    "normalise_expression",
    "numbers_equivalent",
    "parse_expression",
]

MAX_INPUT_LENGTH = 1_000
"""Longest accepted input, in characters, checked before any processing."""
MAX_NODES = 600
"""Most AST nodes (operators included) in a parsed expression."""
MAX_DEPTH = 150
"""Deepest AST nesting accepted (e.g. a sum of ~150 terms, or 150 nested unary minus)."""
MAX_BRACE_DEPTH = 30
"""Deepest LaTeX ``{...}`` nesting accepted."""
MAX_EXPONENT = 1_000
"""Largest |exponent| accepted in ``a ** b``."""
MAX_DIGITS = 1_000
"""Most decimal digits in the numerator or denominator of an exact result (or magnitude of an inexact one)."""
MAX_ROUND_DIGITS = 100
"""Largest |ndigits| accepted in ``round(x, ndigits)``."""
MAX_EXP_ARGUMENT = 2_300
"""Largest |x| accepted in ``exp(x)`` (e**2300 has ~1000 digits)."""
_VALUE_SIGNIFICANT_DIGITS = 10
_EXACT_INTEGER_VALUE_LIMIT = 10**15
"""Integers below this magnitude are shown exactly in ``value``; larger ones are rounded."""
_T = TypeVar("_T")

ErrorReason = Literal[
    "too_long",
    "syntax",
    "forbidden",
    "too_complex",
    "too_large",
    "division_by_zero",
    "domain",
    "argument",
    "precision",
]


class ExpressionError(ValueError):
    """An expression was rejected; ``reason`` says why in one machine-readable word."""

    def __init__(self, reason: ErrorReason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason: ErrorReason = reason
        self.message = message


class EvaluationResult(BaseModel):
    """What the ``evaluate_expression`` tool returns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expression: str
    """The normalised expression text that was parsed."""
    exact: str
    """The exact result as sympy prints it (e.g. ``1951500/45535``, ``sqrt(2)``)."""
    value: str
    """Decimal value: exact for integers below 10**15, else rounded to 10 significant digits."""
    is_integer: bool


# --------------------------------------------------------------------------------------------------------
# Stage 1: normalisation
# --------------------------------------------------------------------------------------------------------

_SUPERSCRIPTS = {
    "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9",
    "⁻": "-", "⁺": "+",
}  # fmt: skip
_SUPERSCRIPT_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]+")
_SUBSCRIPT = re.compile("[\u2080-\u209c]")
_CHAR_MAP = str.maketrans(
    {
        "×": "*", "✕": "*", "·": "*", "⋅": "*", "∙": "*", "∗": "*",
        "÷": "/", "∕": "/",
        "−": "-", "–": "-", "‒": "-",
        "π": " pi ",
    }
)  # fmt: skip

_TOKEN_RE = re.compile(
    r"""
    (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[^\W\d]\w*)
  | (?P<cmd>\\(?:[A-Za-z]+|.))
  | (?P<ws>\s+)
  | (?P<op>.)
    """,
    re.VERBOSE | re.DOTALL,
)

_Token = tuple[str, str]  # (kind, text); kind in num/name/cmd/ws/op

_LATEX_OPS = {"times": "*", "cdot": "*", "ast": "*", "div": "/"}
_LATEX_NAMES = {"pi": "pi", "ln": "ln", "log": "log", "exp": "exp"}
_LATEX_SPACES = {",", ";", ":", "!", " ", "quad", "qquad"}
_LEFT_DELIMS = {"(": "(", "[": "(", "\\{": "("}
_RIGHT_DELIMS = {")": ")", "]": ")", "\\}": ")"}
_MATH_DELIMITERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))


def _tokenise(text: str) -> list[_Token]:
    return [(m.lastgroup or "op", m.group()) for m in _TOKEN_RE.finditer(text)]


def _strip_math_delimiters(text: str) -> str:
    text = text.strip()
    for opening, closing in _MATH_DELIMITERS:
        if len(text) >= len(opening) + len(closing) and text.startswith(opening) and text.endswith(closing):
            return text[len(opening) : len(text) - len(closing)].strip()
    return text


def _ops(*texts: str) -> list[_Token]:
    return [("op", text) for text in texts]


def _skip_ws(tokens: list[_Token], i: int) -> int:
    while i < len(tokens) and tokens[i][0] == "ws":
        i += 1
    return i


def _matching(tokens: list[_Token], i: int, opening: str, closing: str) -> int:
    """Index of the token closing the group opened at ``tokens[i]``."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j][1] == opening:
            depth += 1
        elif tokens[j][1] == closing:
            depth -= 1
            if depth == 0:
                return j
    raise ExpressionError("syntax", f"unbalanced {opening!r}")


def _latex_group(tokens: list[_Token], i: int, command: str) -> tuple[list[_Token], int]:
    """Convert the ``{...}`` group starting at (or after spaces from) ``i``; return it and the next index."""
    i = _skip_ws(tokens, i)
    if i >= len(tokens) or tokens[i][1] != "{":
        raise ExpressionError("syntax", f"{command} needs a {{...}} argument")
    end = _matching(tokens, i, "{", "}")
    return _convert_latex(tokens[i + 1 : end]), end + 1


def _convert_latex(tokens: list[_Token]) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        if kind == "cmd":
            name = text[1:]
            if name in _LATEX_OPS:
                out.append(("op", _LATEX_OPS[name]))
            elif name in _LATEX_NAMES:
                out.append(("name", _LATEX_NAMES[name]))
            elif name in _LATEX_SPACES:
                out.append(("ws", " "))
            elif name in ("left", "right"):
                j = _skip_ws(tokens, i + 1)
                delim = tokens[j][1] if j < len(tokens) else ""
                table = _LEFT_DELIMS if name == "left" else _RIGHT_DELIMS
                if delim in table:
                    out.append(("op", table[delim]))
                elif delim != ".":
                    raise ExpressionError("syntax", f"unsupported delimiter after {text}: {delim!r}")
                i = j + 1
                continue
            elif name in ("frac", "dfrac", "tfrac"):
                numerator, i = _latex_group(tokens, i + 1, text)
                denominator, i = _latex_group(tokens, i, text)
                out += [*_ops("("), *numerator, *_ops(")", "/", "("), *denominator, *_ops(")")]
                continue
            elif name == "sqrt":
                j = _skip_ws(tokens, i + 1)
                index: list[_Token] | None = None
                if j < len(tokens) and tokens[j][1] == "[":
                    end = _matching(tokens, j, "[", "]")
                    index = _convert_latex(tokens[j + 1 : end])
                    j = end + 1
                radicand, i = _latex_group(tokens, j, text)
                if index is None:
                    out += [("name", "sqrt"), ("op", "("), *radicand, ("op", ")")]
                else:
                    out += [*_ops("(", "("), *radicand, *_ops(")", "**", "(", "1", "/", "("), *index]
                    out += _ops(")", ")", ")")
                continue
            else:
                raise ExpressionError("syntax", f"unsupported LaTeX command {text!r}")
        elif text == "{":
            end = _matching(tokens, i, "{", "}")
            inner = tokens[i + 1 : end]
            if [t for t in inner if t[0] != "ws"] == [("op", ",")]:
                out.append(("op", ","))  # "1{,}234": LaTeX's way of writing a thousands separator
            else:
                out += [("op", "("), *_convert_latex(inner), ("op", ")")]
            i = end + 1
            continue
        elif text == "}":
            raise ExpressionError("syntax", "unbalanced '}'")
        else:
            out.append((kind, text))
        i += 1
    return out


def _is_thousands_head(text: str) -> bool:
    return text.isdigit() and 1 <= len(text) <= 3 and not (len(text) > 1 and text[0] == "0")


def _merge_thousands(tokens: list[_Token]) -> list[_Token]:
    """Join ``1,234,567.5`` into one number where the commas cannot be argument separators."""
    out: list[_Token] = []
    call_stack: list[bool] = []  # one entry per open paren: is it a call's argument list?
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        if text == "(":
            previous = next((t for t in reversed(out) if t[0] != "ws"), None)
            call_stack.append(previous is not None and previous[0] == "name")
        elif text == ")" and call_stack:
            call_stack.pop()
        inside_call = bool(call_stack) and call_stack[-1]
        previous_text = next((t[1] for t in reversed(out) if t[0] != "ws"), "")
        if (
            kind == "num"
            and not inside_call
            and _is_thousands_head(text)
            and previous_text not in (",", ".")
            and i + 2 < len(tokens)
            and tokens[i + 1][1] == ","
            and tokens[i + 2][0] == "num"
        ):
            groups = [text]
            j = i + 1
            while j + 1 < len(tokens) and tokens[j][1] == "," and tokens[j + 1][0] == "num":
                groups.append(tokens[j + 1][1])
                j += 2
            *middle, last = groups[1:]
            last_int = last.split(".", 1)[0]
            valid = (
                all(g.isdigit() and len(g) == 3 for g in middle)
                and len(last_int) == 3
                and last_int.isdigit()
                and re.fullmatch(r"\d{3}(?:\.\d*)?", last) is not None
            )
            if valid:
                out.append(("num", "".join(groups)))
            else:  # keep the whole run as written; ast will reject the tuple
                out.extend(tokens[i:j])
            i = j
            continue
        out.append((kind, text))
        i += 1
    return out


_OVERLINES = "\u0304\u0305"  # combining macron and overline, both used to mark a repetend
_REPEATING = re.compile(
    r"(?<![\d.])(?P<int>\d+)\.(?P<fixed>\d*)"
    r"(?:\((?P<paren>\d+)\)|\\overline\s*\{(?P<latex>\d+)\}|(?P<marked>(?:\d[" + _OVERLINES + r"])+))"
)


def _repeating_fraction(match: re.Match[str]) -> str:
    """``8.(3)``, ``8.3̅`` (an overline on each repeating digit) or ``8.\\overline{3}`` as the exact fraction
    ``(25/3)``: a repeating decimal names a rational, and writing it out is the only way to read it exactly."""
    repetend = match["paren"] or match["latex"] or "".join(c for c in match["marked"] if c.isdigit())
    fixed = match["fixed"]
    # I.F(R) = (IFR − IF) / (10^|F| · (10^|R| − 1))
    numerator = int(match["int"] + fixed + repetend) - int(match["int"] + fixed)
    denominator = 10 ** len(fixed) * (10 ** len(repetend) - 1)
    return f"({numerator}/{denominator})"


def normalise_expression(text: str) -> str:
    """Rewrite human/model notation into Python expression syntax without evaluating anything.

    Raises :class:`ExpressionError` (``too_long``, ``syntax``, ``too_complex``) for input it will not rewrite.
    """
    if not isinstance(text, str):
        raise ExpressionError("syntax", f"expected a string, got {type(text).__name__}")
    if len(text) > MAX_INPUT_LENGTH:
        raise ExpressionError("too_long", f"{len(text)} characters; the limit is {MAX_INPUT_LENGTH}")
    if _SUBSCRIPT.search(text):
        raise ExpressionError("syntax", "subscript characters are not accepted")
    # Superscripts first: NFKC would turn "10³" into "103".
    text = _SUPERSCRIPT_RUN.sub(lambda m: "**(" + "".join(_SUPERSCRIPTS[c] for c in m.group()) + ")", text)
    if "\u2044" in unicodedata.normalize("NFKC", text.replace("\u2044", "")):
        raise ExpressionError("syntax", "vulgar fractions such as '½' are not accepted; write 1/2")
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    text = _strip_math_delimiters(text)
    text = _REPEATING.sub(_repeating_fraction, text)
    tokens = _tokenise(text)
    depth = max_depth = 0
    for _, t in tokens:
        depth += (t == "{") - (t == "}")
        max_depth = max(max_depth, depth)
    if max_depth > MAX_BRACE_DEPTH:
        raise ExpressionError("too_complex", f"braces nested deeper than {MAX_BRACE_DEPTH}")
    tokens = _convert_latex(tokens)
    tokens = [("op", "**") if t == ("op", "^") else t for t in tokens]
    tokens = _merge_thousands(tokens)
    normalised = re.sub(r"\s+", " ", "".join(t for _, t in tokens)).strip()
    if not normalised:
        raise ExpressionError("syntax", "empty expression")
    return normalised


# --------------------------------------------------------------------------------------------------------
# Stage 2 and 3: parse and build
# --------------------------------------------------------------------------------------------------------

_DECIMAL_LITERAL = re.compile(r"(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?")
_CONSTANTS: dict[str, sympy.Expr] = {"pi": sympy.pi, "e": sympy.E}


def _digits(n: int) -> int:
    return len(str(abs(n))) if abs(n) < 10**4000 else 4001


def _text(expr: sympy.Expr) -> str:
    try:
        return str(expr)
    except ArithmeticError:  # sympy's printer orders an Add's terms by evaluating them in floating point
        return sympy.sstr(expr, order="none")


def _short(expr: sympy.Expr) -> str:
    text = _text(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def _precision_error(what: str) -> ExpressionError:
    return ExpressionError(
        "precision",
        f"cannot determine {what} reliably: it needs more than {MAX_PRECISION_DIGITS} digits of working "
        "precision (large terms cancel, or the value is exactly an integer, a tie or zero in a form that "
        "cannot be proved); simplify the expression",
    )


def _refined(expr: sympy.Expr, decide: Callable[[Interval], _T | None]) -> _T | None:
    """:func:`refine`, with a node it cannot enclose reported as an :class:`ExpressionError`."""
    try:
        return refine(expr, decide)
    except UnsupportedNumber as exc:
        raise ExpressionError("too_complex", f"could not evaluate {_short(expr)} numerically: {exc}") from None


def _enclosed(expr: sympy.Expr, decide: Callable[[Interval], _T | None], what: str) -> _T:
    """:func:`_refined` that turns giving up into the refusal of :func:`_precision_error`."""
    answer = _refined(expr, decide)
    if answer is None:
        raise _precision_error(what)
    return answer


_PROOF_MAX_OPS = 60
_PROOF_MAX_DIGITS = 30


def _proved_zero(expr: sympy.Expr) -> bool:
    """Whether sympy can *prove* ``expr`` is 0 (``ln(8)/ln(2) - 3``), asked only once enclosures run out.

    ``Expr.equals`` answers True only from a simplification to 0 or a minimal polynomial, never from a
    numeric test. Simplification is costly on long expressions and huge integers, so those are not tried.
    """
    if sympy.count_ops(expr) > _PROOF_MAX_OPS:
        return False
    if any(max(_digits(a.p), _digits(a.q)) > _PROOF_MAX_DIGITS for a in expr.atoms(sympy.Rational)):
        return False
    try:
        return expr.equals(0) is True
    except (ArithmeticError, ValueError, TypeError, NotImplementedError):
        return False


def _sign(expr: sympy.Expr) -> int:
    """-1, 0 or 1, proved: exact for rationals, else from an enclosure that excludes 0 (or a proof of 0)."""
    if expr.is_Rational:
        return int(expr.p > 0) - int(expr.p < 0)
    sign = _refined(expr, interval_sign)
    if sign is not None:
        return sign
    if _proved_zero(expr):
        return 0
    raise _precision_error(f"whether {_short(expr)} is positive, negative or zero")


def _compare(a: sympy.Expr, b: sympy.Expr) -> int:
    return _sign(a - b)


def _log10_bounds(expr: sympy.Expr) -> tuple[float, float]:
    """(lowest, highest) log10 |expr| for a value already known to be non-zero (size guards only)."""
    if expr.is_Rational:
        size = math.log10(abs(int(expr.p))) - math.log10(int(expr.q))
        return size, size
    return _enclosed(expr, abs_log10_bounds, f"the size of {_short(expr)}")


_LARGEST = Fraction(10) ** MAX_DIGITS


def _magnitude(interval: Interval) -> Literal["ok", "large", "small"] | None:
    """Whether an enclosure shows the value within 10**±MAX_DIGITS; ``None`` if it is too wide to tell."""
    bounds = abs_log10_bounds(interval)
    if bounds is None:  # the interval holds 0: only its upper end can be judged
        lower, upper = endpoints(interval)
        return "ok" if max(-lower, upper) <= _LARGEST else None
    if bounds[0] > MAX_DIGITS:
        return "large"
    if bounds[1] > MAX_DIGITS:
        return None
    return "small" if bounds[1] < -MAX_DIGITS else "ok"


def _check(result: sympy.Expr) -> sympy.Expr:
    """Reject non-finite, non-real or oversized intermediate results."""
    if result.has(sympy.zoo):
        raise ExpressionError("division_by_zero", "division by zero")
    if result.has(sympy.nan, sympy.oo, -sympy.oo):
        raise ExpressionError("domain", "the result is not a finite number")
    if result.free_symbols:  # unreachable: the walker never creates symbols
        raise ExpressionError("forbidden", "symbols are not allowed")
    if result.is_Rational:
        if max(_digits(result.p), _digits(result.q)) > MAX_DIGITS:
            raise ExpressionError("too_large", f"an exact intermediate result has over {MAX_DIGITS} digits")
        return result
    if result.has(sympy.I) or result.is_extended_real is False:
        raise ExpressionError("domain", "the result is not a real number")
    size = _enclosed(result, _magnitude, f"the size of {_short(result)}")
    if size == "large":
        raise ExpressionError("too_large", f"an intermediate result exceeds 10**{MAX_DIGITS}")
    if size == "small":
        raise ExpressionError("too_large", f"an intermediate result is below 10**-{MAX_DIGITS} in magnitude")
    return result


def _require_nonzero(divisor: sympy.Expr) -> None:
    if _sign(divisor) == 0:
        raise ExpressionError("division_by_zero", "division by zero")


def _floor_exact(x: sympy.Expr) -> tuple[sympy.Integer, bool]:
    """floor(x), proved, and whether x is exactly that integer."""
    if x.is_Rational:
        floor = sympy.floor(x)
        return floor, bool(floor == x)

    def decide(interval: Interval) -> int | None:
        lower, upper = endpoints(interval)
        return math.floor(lower) if math.floor(lower) == math.floor(upper) else None

    floor = _refined(x, decide)
    if floor is not None:
        return sympy.Integer(floor), False
    # Every enclosure straddles an integer: x is that integer in a form sympy may be able to prove.
    nearest = _enclosed(x, lambda interval: round(sum(endpoints(interval)) / 2), f"floor({_short(x)})")
    if _proved_zero(x - nearest):
        return sympy.Integer(nearest), True
    raise _precision_error(f"floor({_short(x)})")


def _floor(x: sympy.Expr) -> sympy.Integer:
    return _floor_exact(x)[0]


def _round(x: sympy.Expr, ndigits: sympy.Expr | None = None) -> sympy.Expr:
    """Python's ``round`` (ties to even) on the exact value."""
    if ndigits is None:
        places = 0
    else:
        if not ndigits.is_Integer:
            raise ExpressionError("argument", "round()'s second argument must be an integer")
        places = int(ndigits)
        if abs(places) > MAX_ROUND_DIGITS:
            raise ExpressionError("too_large", f"round() to more than {MAX_ROUND_DIGITS} places")
    scale = sympy.Integer(10) ** places
    scaled = _check(x * scale)
    result, tie = _floor_exact(scaled + sympy.Rational(1, 2))
    if tie and result % 2 == 1:  # an exact tie: round half to even
        result -= 1
    return result / scale


def _abs(x: sympy.Expr) -> sympy.Expr:
    return x if _sign(x) >= 0 else -x


def _extreme(direction: int, *args: sympy.Expr) -> sympy.Expr:
    """min (direction -1) or max (1), decided by proved comparisons rather than sympy's heuristics."""
    best = args[0]
    for arg in args[1:]:
        if _compare(arg, best) == direction:
            best = arg
    return best


def _exceeds(x: sympy.Expr, limit: int) -> bool:
    """Whether |x| > limit, proved (exactly for rationals)."""
    return _compare(_abs(x), sympy.Integer(limit)) > 0


def _abs_float(x: sympy.Expr) -> float:
    """|x| to float accuracy, for size estimates of a value already known to be of modest size."""
    if x.is_Rational:
        return float(abs(x))
    return 0.0 if _sign(x) == 0 else 10 ** _log10_bounds(x)[1]


def _power(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    if _exceeds(exponent, MAX_EXPONENT):
        raise ExpressionError("too_large", f"exponent {_short(exponent)} exceeds {MAX_EXPONENT} in magnitude")
    base_sign = _sign(base)
    if base_sign == 0:
        if _sign(exponent) < 0:
            raise ExpressionError("division_by_zero", "zero raised to a negative power")
        return base**exponent
    if base.is_Rational:
        base_size = max(math.log10(abs(int(base.p)) or 1), math.log10(int(base.q)))  # digits to write it
    else:
        base_size = max(abs(bound) for bound in _log10_bounds(base))
    if base_size * _abs_float(exponent) > MAX_DIGITS:
        shown = f"{_short(base)} ** {_short(exponent)}"
        raise ExpressionError("too_large", f"{shown} would exceed {MAX_DIGITS} digits")
    if base_sign < 0 and not exponent.is_Integer:
        raise ExpressionError("domain", "a negative number raised to a non-integer power is not real")
    return base**exponent


def _positive(x: sympy.Expr, function: str) -> sympy.Expr:
    if _sign(x) <= 0:
        raise ExpressionError("domain", f"{function}() needs a positive argument")
    return x


def _log(x: sympy.Expr, base: sympy.Expr | None = None) -> sympy.Expr:
    _positive(x, "log")
    if base is None:
        return sympy.log(x)
    _positive(base, "log")
    if _sign(base - 1) == 0:
        raise ExpressionError("domain", "log() base 1 is undefined")
    return sympy.log(x, base)


def _sqrt(x: sympy.Expr) -> sympy.Expr:
    if _sign(x) < 0:
        raise ExpressionError("domain", "sqrt() of a negative number is not real")
    return sympy.sqrt(x)


def _exp(x: sympy.Expr) -> sympy.Expr:
    if _exceeds(x, MAX_EXP_ARGUMENT):
        raise ExpressionError("too_large", f"exp() argument exceeds {MAX_EXP_ARGUMENT} in magnitude")
    return sympy.exp(x)


_FUNCTIONS: dict[str, tuple[int, int, Callable[..., sympy.Expr]]] = {
    # name: (fewest args, most args, implementation)
    "abs": (1, 1, _abs),
    "round": (1, 2, _round),
    "min": (1, 20, lambda *args: _extreme(-1, *args)),
    "max": (1, 20, lambda *args: _extreme(1, *args)),
    "sqrt": (1, 1, _sqrt),
    "log": (1, 2, _log),
    "ln": (1, 1, _log),
    "log10": (1, 1, lambda x: _log(x, sympy.Integer(10))),
    "log2": (1, 1, lambda x: _log(x, sympy.Integer(2))),
    "exp": (1, 1, _exp),
    "floor": (1, 1, _floor),
    "ceil": (1, 1, lambda x: -_floor(-x)),
}


def _decimal_literal(source: str) -> sympy.Rational:
    match = _DECIMAL_LITERAL.fullmatch(source.replace("_", ""))
    if match is None or not (match["int"] or match["frac"]):
        raise ExpressionError("syntax", f"unsupported number literal {source!r}")
    integer, fraction = match["int"] or "", match["frac"] or ""
    exponent = int(match["exp"] or 0) - len(fraction)
    mantissa = int(integer + fraction or "0")
    if mantissa == 0:
        return sympy.Integer(0)
    if abs(exponent) > 2 * MAX_DIGITS or _digits(mantissa) + exponent > MAX_DIGITS:
        raise ExpressionError("too_large", f"number literal {source!r} is too large")
    if exponent >= 0:
        return sympy.Integer(mantissa * 10**exponent)
    return sympy.Rational(mantissa, 10**-exponent)


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source

    def build(self, node: ast.AST) -> sympy.Expr:
        return _check(self._build(node))

    def _build(self, node: ast.AST) -> sympy.Expr:
        if isinstance(node, ast.Expression):
            return self.build(node.body)
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
            operand = self.build(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Name):
            if node.id in _CONSTANTS and isinstance(node.ctx, ast.Load):
                return _CONSTANTS[node.id]
            raise ExpressionError("forbidden", f"unknown name {node.id!r}; only the constants pi and e exist")
        if isinstance(node, ast.Call):
            return self._call(node)
        raise ExpressionError("forbidden", f"{type(node).__name__} is not allowed in arithmetic")

    def _constant(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if type(value) is int:
            if _digits(value) > MAX_DIGITS:
                raise ExpressionError("too_large", f"an integer literal has over {MAX_DIGITS} digits")
            return sympy.Integer(value)
        if type(value) is float:
            segment = ast.get_source_segment(self.source, node)
            if segment is None:  # pragma: no cover - ast always records positions for parsed source
                raise ExpressionError("syntax", "cannot locate a number literal")
            return _decimal_literal(segment)
        raise ExpressionError("forbidden", f"{type(value).__name__} literals are not allowed")

    def _binary(self, node: ast.BinOp) -> sympy.Expr:
        op = node.op
        if not isinstance(op, ast.Add | ast.Sub | ast.Mult | ast.Div | ast.FloorDiv | ast.Mod | ast.Pow):
            raise ExpressionError("forbidden", f"operator {type(op).__name__} is not allowed")
        left = self.build(node.left)
        right = self.build(node.right)
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Pow):
            return _power(left, right)
        _require_nonzero(right)
        if isinstance(op, ast.Div):
            return left / right
        quotient = _floor(_check(left / right))
        if isinstance(op, ast.FloorDiv):
            return quotient
        return left - right * quotient  # Python's % : the sign follows the divisor

    def _call(self, node: ast.Call) -> sympy.Expr:
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            shown = repr(node.func.id) if isinstance(node.func, ast.Name) else "this"
            raise ExpressionError(
                "forbidden", f"calling {shown} is not allowed; functions: {', '.join(sorted(_FUNCTIONS))}"
            )
        name = node.func.id
        if node.keywords:
            raise ExpressionError("forbidden", f"{name}() takes no keyword arguments")
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            raise ExpressionError("forbidden", f"{name}() takes no starred arguments")
        fewest, most, implementation = _FUNCTIONS[name]
        if not fewest <= len(node.args) <= most:
            expected = str(fewest) if fewest == most else f"{fewest} to {most}"
            raise ExpressionError("argument", f"{name}() takes {expected} arguments, got {len(node.args)}")
        return implementation(*(self.build(arg) for arg in node.args))


def _ast_depth(tree: ast.AST) -> int:
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _parse_normalised(normalised: str) -> sympy.Expr:
    try:
        tree = ast.parse(normalised, mode="eval")
    except (SyntaxError, ValueError) as exc:
        detail = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        raise ExpressionError("syntax", f"not an arithmetic expression: {detail}") from None
    except (RecursionError, MemoryError):
        raise ExpressionError("too_complex", "expression nests too deeply") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise ExpressionError("too_complex", f"{nodes} syntax nodes; the limit is {MAX_NODES}")
    if _ast_depth(tree) > MAX_DEPTH:
        raise ExpressionError("too_complex", f"expression nests deeper than {MAX_DEPTH}")
    try:
        return _Builder(normalised).build(tree)
    except RecursionError:
        raise ExpressionError("too_complex", "expression nests too deeply") from None
    except ArithmeticError as exc:  # sympy's own floating evaluation inside its constructors
        raise ExpressionError("too_complex", f"could not evaluate the expression: {exc!r}") from None


def parse_expression(text: str) -> sympy.Expr:
    """Parse arithmetic text into an exact sympy number (``sympy.Rational`` where the value is rational)."""
    return _parse_normalised(normalise_expression(text))


def format_value(expr: sympy.Expr) -> str:
    """The display form of an exact value: exact integers below 10**15, else 10 significant digits.

    Every digit shown is proved: rationals are rounded on integers, other values from an enclosure narrow
    enough that both of its ends round alike; a value that cannot be pinned down raises ``precision``.
    """
    if expr.is_Integer and abs(expr) < _EXACT_INTEGER_VALUE_LIMIT:
        return str(int(expr))
    if expr.is_Rational:
        decimal = round_significant(Fraction(int(expr.p), int(expr.q)), _VALUE_SIGNIFICANT_DIGITS)
    else:
        decimal = _displayed_digits(expr)
    if decimal.is_zero():
        return "0"
    exponent = decimal.adjusted()
    if -7 <= exponent < 16:
        text = format(decimal, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    mantissa, _, power = format(decimal, "e").partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(power):+d}"


def _displayed_digits(expr: sympy.Expr) -> Decimal:
    """The 10 significant digits of an irrational-form value, from an enclosure whose two ends round alike
    (so every value it holds, the true one included, rounds to them)."""

    def decide(interval: Interval) -> Decimal | None:
        sign = interval_sign(interval)
        if sign is None:
            return None
        if sign == 0:
            return Decimal(0)
        lower, upper = (round_significant(end, _VALUE_SIGNIFICANT_DIGITS) for end in endpoints(interval))
        return lower if lower == upper else None

    digits = _refined(expr, decide)
    if digits is not None:
        return digits
    if _proved_zero(expr):
        return Decimal(0)
    raise _precision_error(f"{_short(expr)} to {_VALUE_SIGNIFICANT_DIGITS} significant digits")


def evaluate_expression(expression: str) -> EvaluationResult:
    """The session tool: evaluate arithmetic exactly; raises :class:`ExpressionError` on rejected input."""
    normalised = normalise_expression(expression)
    result = _parse_normalised(normalised)
    return EvaluationResult(
        expression=normalised,
        exact=_text(result),
        value=format_value(result),
        is_integer=bool(result.is_integer),
    )


# --------------------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------------------

_BOXED = re.compile(r"\\boxed\s*\{")


def _unwrap_answer(text: str) -> str:
    """Strip math delimiters, one whole-answer ``\\boxed{...}`` and a trailing percent sign."""
    text = _strip_math_delimiters(text)
    opening = _BOXED.match(text)
    if opening is not None and text.endswith("}"):
        depth = 0
        for index in range(opening.end() - 1, len(text)):
            depth += (text[index] == "{") - (text[index] == "}")
            if depth == 0:
                break
        if index == len(text) - 1:  # the brace that opens \boxed closes at the very end
            text = _strip_math_delimiters(text[opening.end() : -1])
    if text.endswith("\\%"):
        text = text[:-2].rstrip()
    elif text.endswith("%"):
        text = text[:-1].rstrip()
    return text


def numbers_equivalent(a: str, b: str, *, rel_tol: float = 1e-6) -> bool:
    """Whether two number answers are equal: exactly when both are rational, else within ``rel_tol``.

    Answers may be wrapped in ``\\boxed{...}`` and may end in a percent sign ("12.5%" is 12.5).
    An answer that does not parse is never equivalent to anything.
    """
    try:
        x = parse_expression(_unwrap_answer(a))
        y = parse_expression(_unwrap_answer(b))
    except ExpressionError:
        return False
    if x.is_Rational and y.is_Rational:
        return bool(x == y)
    # |x - y| <= rel_tol * max(|x|, |y|), decided on enclosures; the unevaluated nodes keep sympy from
    # deciding Abs and Max by its own floating comparisons.
    scale = sympy.Max(sympy.Abs(x, evaluate=False), sympy.Abs(y, evaluate=False), evaluate=False)
    slack = sympy.Rational(rel_tol) * scale - sympy.Abs(x - y, evaluate=False)
    try:
        return _sign(slack) >= 0
    except ExpressionError:
        return False
