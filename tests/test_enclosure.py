"""Rigorous enclosures (kopa.tools.enclosure): every interval holds the true value, at every precision."""

from __future__ import annotations

import random
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

import mpmath
import pytest

from kopa.tools import enclosure
from kopa.tools.enclosure import enclose, endpoints, interval_sign, refine, round_significant
from kopa.tools.expression import parse_expression

with mpmath.workdps(2000):
    _FLOOR = int(mpmath.floor(mpmath.pi**999))  # the integer pi**999 % 7 subtracts, to 496 digits

_CASES = [
    (f"pi**999 - {_FLOOR}", lambda m: m.pi**999 - _FLOOR),
    ("exp(500) / 7", lambda m: m.exp(500) / 7),
    ("log(1.0000000000000000000000000001)", lambda m: m.log(1 + m.mpf(10) ** -28)),
    ("sqrt(2) * sqrt(3) - sqrt(6) + 1/3", lambda m: m.sqrt(2) * m.sqrt(3) - m.sqrt(6) + m.mpf(1) / 3),
    ("2 ** (1/3) - e ** pi", lambda m: m.cbrt(2) - m.e**m.pi),
    ("(-3) ** 7 * pi ** -5", lambda m: (-3) ** 7 * m.pi**-5),
    ("abs(3 - pi) + max(e, pi) - min(e, pi)", lambda m: abs(3 - m.pi) + m.pi - m.e),
    ("exp(-2299)", lambda m: m.exp(-2299)),
]


@pytest.mark.parametrize(("text", "compute"), _CASES, ids=[c[0][:30] for c in _CASES])
@pytest.mark.parametrize("bits", [53, 64, 200, 2000, 8000])
def test_every_enclosure_holds_the_true_value(text, compute, bits):
    expr = parse_expression(text)
    try:
        interval = enclose(expr, bits)
    except enclosure.TooCoarse:  # too coarse to go on at this precision: allowed, never wrong
        return
    lower, upper = endpoints(interval)
    with mpmath.workdps(3000):
        truth = compute(mpmath)
        assert mpmath.mpf(lower.numerator) / lower.denominator <= truth
        assert truth <= mpmath.mpf(upper.numerator) / upper.denominator


def test_refine_sharpens_until_it_decides_and_gives_up_at_the_cap():
    cancelling = parse_expression(_CASES[0][0])
    assert refine(cancelling, interval_sign) == 1  # 0.47…, though at 53 bits the interval spans ±1e483
    assert refine(parse_expression("(sqrt(2)+1)*(sqrt(2)-1) - 1"), interval_sign) is None  # exactly 0


def test_round_significant_agrees_with_decimal_at_ample_precision():
    rng = random.Random(7)
    values = [Fraction(rng.randrange(1, 10**rng.randrange(1, 60)), rng.randrange(1, 10**rng.randrange(1, 60)))
              for _ in range(2000)]
    values += [Fraction(12345678905, 10**10), Fraction(12345678915, 10**10), Fraction(99999999995, 10),
               Fraction(-99999999995, 10**12), Fraction(1, 3)]
    for value in values:
        with localcontext() as context:
            context.prec = 400  # exact enough: no value above has more than ~120 significant digits
            decimal = Decimal(value.numerator) / Decimal(value.denominator)
            quantum = Decimal(1).scaleb(decimal.adjusted() - 9)
            expected = decimal.quantize(quantum, rounding=ROUND_HALF_EVEN)
        assert round_significant(value, 10) == expected
        assert round_significant(value, 10).as_tuple().exponent == expected.as_tuple().exponent
