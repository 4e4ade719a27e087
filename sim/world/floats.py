"""Float sums that do not depend on the Python version.

From Python 3.12, `sum()` of floats compensates rounding errors (Neumaier); up to 3.11 it added left to
right, rounding each step. The two differ in the last bit now and then, and a world decides counts from
such sums (a region's share of 600 schools, rounded): on 3.13 the small world held 599 schools and its
school, NEIS and long-tail tables differed. Every sum that feeds a world or a target goes through here,
with 3.11's rounding, so the worlds and KOPA-Bench's targets stay what they were.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from functools import reduce


def sequential_sum(values: Iterable[float]) -> float:
    """The values added left to right, each addition rounded (what `sum()` returned before 3.12)."""
    return reduce(operator.add, values, 0)
