"""LaTeX numbers as latex2sympy2_extended reads them (the parser behind math-verify, verl's and TRL's math
rewards): its normaliser drops unit text (``\\text{kcal}``), spacing and ``\\dfrac``-style variants, and its
grammar reads what a model writes in a box. A decimal it reads as a float is made exact again from its own
digits, so 571.1 is 5711/10, not a binary fraction."""

from __future__ import annotations

import logging

import sympy
from latex2sympy2_extended import NormalizationConfig, latex2sympy, normalize_latex

_NORMAL = NormalizationConfig(basic_latex=True, units=True, malformed_operators=True, nits=True, boxed="none",
                              equations=False)
logging.getLogger("latex2sympy2_extended").setLevel(logging.ERROR)  # it logs every text it cannot read


def read_latex_number(text: str) -> sympy.Expr | None:
    """The one number `text` writes in LaTeX, exact; None when it is not a number (a set, an equation, a
    symbol, words)."""
    normal = normalize_latex(text.replace("{,}", ""), _NORMAL)  # 14{,}342: a thousands separator, not a set
    try:
        expr = latex2sympy(normal, normalization_config=None)
    except Exception:  # the parser raises bare Exceptions for text it cannot read: no number
        return None
    if not isinstance(expr, sympy.Expr) or expr.free_symbols or not expr.is_number:
        return None
    exact = expr.xreplace({f: sympy.Rational(str(f)) for f in expr.atoms(sympy.Float)})
    return exact if exact.is_real else None  # not 1/0 (zoo), 0/0 (nan) or an imaginary number
