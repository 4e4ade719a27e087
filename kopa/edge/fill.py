"""The one first-call value filler: a parameter's value is the first that a declared precedence of sources
gives, each source a candidate list, a single value, or a guess taken at a rate.

Phase A, Phase B and APIGen fill a parameter no upstream call fixes, and they differ on purpose in what
they may use — Phase A any value its validated cache saw (it probes; a wrong guess is evidence), Phase B
only what a person states (a code from the cache must be looked up by the chain), APIGen also an unchecked
guess (its checkers are what is studied) — so each declares its precedence as a generator of sources
(`phase_a.ArgumentFiller`, `synth.trajectory.param_value`, `apigen.generator.TemplateGenerator`) and this
module draws from it. A source is built only when every earlier one gave nothing, and only a source that
gives draws from the stream, so a precedence reads as the rules it states.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class OneOf:
    """One of `values`, uniformly; nothing when there are none."""

    values: Sequence[Any]

    def draw(self, rng: np.random.Generator) -> Any:
        return self.values[int(rng.integers(len(self.values)))] if self.values else None


@dataclass(frozen=True)
class Given:
    """`value` itself (None is nothing): a documented default, a date from the virtual today."""

    value: Any

    def draw(self, rng: np.random.Generator) -> Any:
        return self.value


@dataclass(frozen=True)
class Guess:
    """One of `values`, but only on a share `rate` of the draws (a value that may not fit, tried anyway)."""

    values: Sequence[Any]
    rate: float

    def draw(self, rng: np.random.Generator) -> Any:
        if not self.values or rng.random() >= self.rate:
            return None
        return self.values[int(rng.integers(len(self.values)))]


Source = OneOf | Given | Guess


def first_value(sources: Iterable[Source], rng: np.random.Generator) -> Any:
    """The first value a source gives, in the declared order; None when none gives one."""
    for source in sources:
        value = source.draw(rng)
        if value is not None:
            return value
    return None
