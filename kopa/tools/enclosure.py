"""Rigorous enclosures of exact sympy numbers: the numeric half of ``evaluate_expression``.

Floating evaluation of an exact value such as ``pi**999 - 449492...7602`` (what ``pi**999 % 7`` builds)
loses every digit: the two terms agree in their first 496 digits, so at 15 or 50 digits of precision the
difference is noise, and sympy's ``evalf`` printed that noise as 7.1e+336. Asking for "more digits until
the answer looks stable" is a heuristic that can be fooled the same way. Interval arithmetic cannot: every
operation rounds its lower end down and its upper end up, so the true value always lies inside the
interval, and a wide interval *says* that more precision is needed instead of returning a wrong number.

:func:`refine` evaluates at doubling binary precision until a caller's question (the sign, the floor, the
first 10 significant digits) has one answer over the whole interval, and gives up (``None``) at
:data:`MAX_PRECISION_DIGITS`; the caller then refuses rather than guesses.

The arithmetic is mpmath's ``libmpi`` on raw tuples with an explicit precision argument: no global context
is touched, so concurrent evaluations in threads cannot change each other's precision.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import TypeVar

import sympy
from mpmath.libmp import (
    finf,
    fnan,
    fninf,
    from_int,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cmp,
    mpf_e,
    mpf_shift,
    mpf_sign,
    mpf_sub,
    round_ceiling,
    round_floor,
    to_rational,
)
from mpmath.libmp.libmpi import (
    mpi_abs,
    mpi_add,
    mpi_div,
    mpi_exp,
    mpi_log,
    mpi_mul,
    mpi_pi,
    mpi_pow_int,
    mpi_sqrt,
)

__all__ = [
    "MAX_PRECISION_DIGITS",
    "Interval",
    "TooCoarse",
    "UnsupportedNumber",
    "abs_log10_bounds",
    "enclose",
    "endpoints",
    "interval_sign",
    "refine",
    "round_significant",
]

MAX_PRECISION_DIGITS = 2_500
"""Most decimal digits of working precision :func:`refine` tries before giving up.

Intermediate values are kept within 10**±1000 (``MAX_DIGITS``), so two terms cancelling from 10**1000 down
to a value near 10**-1000 still leave room for its 10 displayed digits; anything needing more is refused."""
_START_BITS = 64
_MAX_BITS = math.ceil(MAX_PRECISION_DIGITS * math.log2(10))
_LOG10_2 = math.log10(2)

MpfTuple = tuple[int, int, int, int]
Interval = tuple[MpfTuple, MpfTuple]
"""mpmath's raw interval: (lower end, upper end), each an mpf tuple (sign, mantissa, exponent, bitcount)."""

T = TypeVar("T")


class UnsupportedNumber(ValueError):
    """The expression holds a node this module has no enclosure for (never produced by the whitelist)."""


class TooCoarse(Exception):
    """The enclosure at this precision is too wide to go on (e.g. the argument of log reaches 0)."""


def _finite(interval: Interval) -> Interval:
    lower, upper = interval
    if lower in (finf, fninf, fnan) or upper in (finf, fninf, fnan):
        raise TooCoarse
    return interval


def _widen(interval: Interval, prec: int) -> Interval:
    """Push both ends of a transcendental result out by a few ulps.

    mpmath rounds its elementary functions in the requested direction; the widening makes the enclosure
    hold even if one of them is off by an ulp, at the cost of bits nobody displays.
    """
    lower, upper = interval
    lower = mpf_sub(lower, mpf_shift(mpf_abs(lower), 2 - prec), prec, round_floor)
    upper = mpf_add(upper, mpf_shift(mpf_abs(upper), 2 - prec), prec, round_ceiling)
    return lower, upper


def _integer(n: int, prec: int) -> Interval:
    return from_int(n, prec, round_floor), from_int(n, prec, round_ceiling)


def enclose(expr: sympy.Expr, prec: int) -> Interval:
    """An interval of ``prec``-bit ends that contains the exact value of ``expr``.

    Raises :class:`TooCoarse` when this precision cannot separate what an operation needs separated, and
    :class:`UnsupportedNumber` for a node outside the whitelist's vocabulary.
    """
    memo: dict[sympy.Expr, Interval] = {}

    def walk(node: sympy.Expr) -> Interval:
        if node not in memo:
            memo[node] = _finite(_node(node, prec, walk))
        return memo[node]

    return walk(expr)


def _node(node: sympy.Expr, prec: int, walk: Callable[[sympy.Expr], Interval]) -> Interval:
    if node.is_Integer:
        return _integer(int(node), prec)
    if node.is_Rational:
        return mpi_div(_integer(int(node.p), prec), _integer(int(node.q), prec), prec)
    if node is sympy.pi:
        return _widen(mpi_pi(prec), prec)
    if node is sympy.E:
        return _widen((mpf_e(prec, round_floor), mpf_e(prec, round_ceiling)), prec)
    if node.is_Add or node.is_Mul:
        combine = mpi_add if node.is_Add else mpi_mul
        parts = [walk(arg) for arg in node.args]
        result = parts[0]
        for part in parts[1:]:
            result = _finite(combine(result, part, prec))
        return result
    if node.is_Pow:
        return _power(walk(node.base), node.exp, prec, walk)
    if isinstance(node, sympy.exp):
        return _widen(mpi_exp(walk(node.args[0]), prec), prec)
    if isinstance(node, sympy.log):
        argument = walk(node.args[0])
        if mpf_sign(argument[0]) <= 0:
            if mpf_sign(argument[1]) <= 0:
                raise UnsupportedNumber("log of a non-positive number")
            raise TooCoarse
        return _widen(mpi_log(argument, prec), prec)
    if isinstance(node, sympy.Abs):
        return mpi_abs(walk(node.args[0]), prec)
    if isinstance(node, sympy.Min | sympy.Max):
        parts = [walk(arg) for arg in node.args]
        direction = -1 if isinstance(node, sympy.Min) else 1
        return _extreme([p[0] for p in parts], direction), _extreme([p[1] for p in parts], direction)
    raise UnsupportedNumber(f"no numeric enclosure for {type(node).__name__}")


def _extreme(values: list[MpfTuple], direction: int) -> MpfTuple:
    """The least (direction -1) or greatest (1) of some mpf tuples, which Python cannot order directly."""
    best = values[0]
    for value in values[1:]:
        if mpf_cmp(value, best) == direction:
            best = value
    return best


def _power(base: Interval, exponent: sympy.Expr, prec: int, walk: Callable[[sympy.Expr], Interval]) -> Interval:
    if exponent.is_Integer:
        n = int(exponent)
        if n < 0 and mpf_sign(base[0]) <= 0 <= mpf_sign(base[1]):
            raise TooCoarse  # 1 / (an interval holding 0)
        return mpi_pow_int(base, n, prec)
    lower, upper = base
    if exponent == sympy.S.Half:
        if mpf_sign(upper) < 0:
            raise UnsupportedNumber("square root of a negative number")
        # The evaluator proved every radicand non-negative before building sqrt(); rounding alone can
        # push the lower end below 0.
        return _widen(mpi_sqrt((fzero if mpf_sign(lower) < 0 else lower, upper), prec), prec)
    if mpf_sign(lower) <= 0:
        if mpf_sign(upper) <= 0:
            raise UnsupportedNumber("a non-positive number raised to a non-integer power")
        raise TooCoarse
    logarithm = _widen(mpi_log(base, prec), prec)
    return _widen(mpi_exp(_finite(mpi_mul(walk(exponent), logarithm, prec)), prec), prec)


def refine(expr: sympy.Expr, decide: Callable[[Interval], T | None]) -> T | None:
    """The first non-``None`` answer of ``decide`` on enclosures of doubling precision; ``None`` at the cap."""
    bits = _START_BITS
    while True:
        try:
            answer = decide(enclose(expr, bits))
        except TooCoarse:
            answer = None
        if answer is not None:
            return answer
        if bits >= _MAX_BITS:
            return None
        bits = min(2 * bits, _MAX_BITS)


def endpoints(interval: Interval) -> tuple[Fraction, Fraction]:
    """Both ends as exact fractions (an mpf is a binary fraction, so this loses nothing)."""
    return Fraction(*to_rational(interval[0])), Fraction(*to_rational(interval[1]))


def interval_sign(interval: Interval) -> int | None:
    """-1, 0 or 1 when the whole interval has that sign, else ``None``."""
    lower, upper = interval
    if mpf_sign(lower) > 0:
        return 1
    if mpf_sign(upper) < 0:
        return -1
    if lower == fzero and upper == fzero:
        return 0
    return None


def abs_log10_bounds(interval: Interval) -> tuple[float, float] | None:
    """(lowest, highest) log10 |x| over an interval that excludes 0, to float accuracy; ``None`` if it may hold 0.

    For size guards only: they compare against limits such as 10**1000, where a relative error of 1e-15
    does not matter.
    """
    if interval_sign(interval) in (None, 0):
        return None
    a, b = (_log10_abs(end) for end in interval)
    return min(a, b), max(a, b)


def _log10_abs(value: MpfTuple) -> float:
    _, mantissa, exponent, _ = mpf_abs(value)
    return math.log10(mantissa) + exponent * _LOG10_2  # math.log10 takes Python ints of any size


def round_significant(value: Fraction, digits: int) -> Decimal:
    """``value`` rounded half-to-even to ``digits`` significant digits, computed exactly on integers.

    The result keeps the exponent of the unrounded value (9.99999999996 gives 10.00000000 with 11 digits),
    as ``Decimal.quantize`` does, so callers format both paths alike.
    """
    if value == 0:
        return Decimal(0)
    negative = value < 0
    p, q = abs(value.numerator), value.denominator
    # 10**k <= p/q < 10**(k+1); the bit lengths give k to within one, then one step each way fixes it.
    k = math.floor((p.bit_length() - q.bit_length()) * _LOG10_2)
    while not _at_least_power_of_ten(p, q, k):
        k -= 1
    while _at_least_power_of_ten(p, q, k + 1):
        k += 1
    shift = digits - 1 - k
    numerator, denominator = (p * 10**shift, q) if shift >= 0 else (p, q * 10**-shift)
    n, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and n % 2 == 1):
        n += 1
    return Decimal((int(negative), tuple(int(d) for d in str(n)), -shift))


def _at_least_power_of_ten(p: int, q: int, k: int) -> bool:
    return p >= q * 10**k if k >= 0 else p * 10**-k >= q

