"""The 95% interval every report gives for a share (pass@1, Action): a percentile bootstrap over tasks.

A share lives in [0, 1], and a Student-t interval over seed means leaves it (−0.7%) or collapses to a point
where two seeds happen to agree on the total while disagreeing on 20 tasks. Resampling tasks — each task
carrying the mean of all its episodes, every seed and rollout — keeps the interval inside the range (every
resample is a mean of values in it), is defined with one seed, and widens where seeds disagree on a task
(that task's mean is then neither 0 nor 1). Seeded: the same episodes give the same interval on any machine.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
METHOD = f"a percentile bootstrap over tasks ({RESAMPLES:,} resamples; a task counts the mean of its episodes)"


def task_bootstrap(per_task: Mapping[str, Sequence[float]], *, seed: int = 0) -> tuple[float, float, float]:
    """(mean over tasks of each task's mean, low, high): the 95% percentile interval of that mean when the tasks
    are drawn again with replacement. One task, or none, gives the mean as both ends."""
    return mean_bootstrap([statistics.fmean(v) for _, v in sorted(per_task.items()) if len(v)], seed=seed)


def mean_bootstrap(values: Sequence[float], *, seed: int = 0) -> tuple[float, float, float]:
    """(mean, low, high): the 95% percentile bootstrap interval of the mean of independent runs (tasks, seeds).
    Every end is a mean of observed values, so a share stays in [0, 1] and a count at or above 0; the
    interval is a point only where every run gave the same value (with few runs it is near their range)."""
    means = np.array(values, dtype=float)
    if means.size == 0:
        return 0.0, 0.0, 0.0
    mean = float(means.mean())
    if means.size == 1:
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    drawn = means[rng.integers(0, means.size, size=(RESAMPLES, means.size))].mean(axis=1)
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(drawn, [tail, 100 - tail])
    return mean, float(low), float(high)
