"""The interval every report gives for a share: inside its range, defined with one seed, wide where seeds
disagree on tasks, and the textbook interval where the normal approximation holds."""

from __future__ import annotations

import math
import statistics

from kopa.eval.episode import EpisodeScore, ScoredEpisode
from kopa.eval.intervals import task_bootstrap
from kopa.eval.report import compute_metrics


def test_a_share_stays_in_its_range_even_at_its_edges():
    nearly_all = {f"t{i}": [1.0] for i in range(50)} | {"t50": [0.0]}
    mean, lo, hi = task_bootstrap(nearly_all)
    assert 0.0 <= lo <= mean <= hi <= 1.0 and hi == 1.0
    assert task_bootstrap({"a": [1.0], "b": [1.0]}) == (1.0, 1.0, 1.0)  # nothing varies: a point, honestly
    assert task_bootstrap({"a": [0.0, 1.0]}) == (0.5, 0.5, 0.5)  # one task: no tasks to draw again


def test_it_agrees_with_the_normal_approximation_where_that_holds():
    """400 tasks, 60% passed: the bootstrap interval is within a point of p ± 1.96·sqrt(p(1−p)/n) (computed
    here by hand, not by the code under test)."""
    per_task = {f"t{i:03d}": [1.0 if i % 5 < 3 else 0.0] for i in range(400)}
    mean, lo, hi = task_bootstrap(per_task)
    half = 1.96 * math.sqrt(0.6 * 0.4 / 400)
    assert mean == 0.6 and abs(lo - (0.6 - half)) < 0.01 and abs(hi - (0.6 + half)) < 0.01
    assert task_bootstrap(per_task) == (mean, lo, hi)  # seeded: the same on every run and machine


def _episode(task: str, seed: int, passed: bool) -> ScoredEpisode:
    return ScoredEpisode(task_id=task, domain="finance", platforms=["dart"], policy="oracle", seed=seed, rollout=0,
                         answer=None, target_answer=None, score=EpisodeScore(passed=passed))


def test_two_seeds_that_agree_on_the_total_but_not_on_the_tasks_get_a_real_interval():
    """The robustness study's case: two seeds at 58.8% each while 20 of 51 task verdicts differ. A
    Student-t interval over the two seed means was [58.8, 58.8]; the task bootstrap is not a point."""
    first = [i < 30 for i in range(51)]
    second = [(i < 20) or (30 <= i < 40) for i in range(51)]
    assert sum(first) == sum(second) == 30 and sum(a != b for a, b in zip(first, second, strict=True)) == 20
    episodes = [_episode(f"t{i:02d}", s, p) for s, flags in ((0, first), (1, second)) for i, p in enumerate(flags)]
    overall = compute_metrics(episodes).overall
    assert overall.pass_at_1_seeds == [30 / 51, 30 / 51]
    lo, hi = overall.pass_at_1_ci
    assert hi - lo > 0.1 and 0.0 <= lo < statistics.fmean([30 / 51]) < hi <= 1.0
