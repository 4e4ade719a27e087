"""Group-relative advantages, computed as GRPO computes them.

For the rewards r_1 … r_n of one task's group, A_i = (r_i − mean) / (std + ε) with the sample standard
deviation (n − 1 in the denominator, as torch.std), or A_i = r_i − mean without the std normalisation
(Dr. GRPO's switch, verl's ``algorithm.norm_adv_by_std_in_grpo``). A group of one has mean 0 and std 1,
as in verl, so its advantage is its reward. A group whose rewards are all equal has advantages 0: it
teaches nothing, which is why the share of such groups is the first statistic a trainer looks at.

Plain Python floats (no torch): kopa computes them without verl; a test checks verl's own function
returns the same numbers to 1e-6.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

EPSILON = 1e-6  # verl's default epsilon


def group_advantages(rewards: Sequence[float], *, norm_by_std: bool = True, epsilon: float = EPSILON
                     ) -> list[float]:
    """The advantages of one group's rollouts, in the rewards' order."""
    n = len(rewards)
    if n == 0:
        return []
    if n == 1:
        mean, std = 0.0, 1.0
    else:
        mean = math.fsum(rewards) / n
        std = math.sqrt(math.fsum((r - mean) ** 2 for r in rewards) / (n - 1))
    if norm_by_std:
        return [(r - mean) / (std + epsilon) for r in rewards]
    return [r - mean for r in rewards]


def zero_variance(rewards: Sequence[float]) -> bool:
    """Every rollout of the group got the same reward: no learning signal."""
    return len(set(rewards)) <= 1
