"""The mixed policy: each rollout plays the oracle, or one failure-mode habit, drawn from its own stream.

GRPO learns only from groups whose rollouts disagree; the oracle alone always succeeds and each habit
alone fails the same way every time, so neither gives a group with a signal. A mixture is the offline
stand-in for a sampling model: rollout i of task t plays the oracle with probability ``oracle_share``,
else a habit picked uniformly — a draw from the stream (seed, 'rl-mix', 't#i'), so the choice depends on
nothing but those three, wherever and in whatever order the rollouts run.

Spelled ``mixed`` (oracle share 0.5, every habit) or ``mixed:0.7`` or ``mixed:0.5,skip_key,skip_lookup``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kopa.errors import UserError
from kopa.eval.environment import Environment
from kopa.eval.episode import PolicyOutput
from kopa.eval.policies.offline import POLICIES
from kopa.eval.task import Target, Task
from kopa.rng import stream

HABITS = ("first_page_only", "skip_key", "skip_lookup")
DEFAULT_SHARE = 0.5


class PolicySpecError(UserError, ValueError):
    """A --policy mixed:… spelling that names no share or an unknown habit."""


@dataclass(frozen=True)
class MixedPolicy:
    seed: int = 0
    oracle_share: float = DEFAULT_SHARE
    habits: tuple[str, ...] = HABITS
    name: str = field(default="mixed", init=False)

    def choose(self, task_id: str, rollout: int) -> str:
        """Which offline policy plays this rollout."""
        rng = stream(self.seed, "rl-mix", f"{task_id}#{rollout}")
        if rng.random() < self.oracle_share or not self.habits:
            return "oracle"
        return self.habits[int(rng.integers(len(self.habits)))]

    def run(self, task: Task, env: Environment, target: Target, rollout: int) -> PolicyOutput:
        return POLICIES[self.choose(task.id, rollout)]().run(task, env, target, rollout)


def parse_mixed(spec: str, seed: int) -> MixedPolicy:
    """``mixed[:SHARE][,HABIT…]`` → the policy; a bad share or habit is a one-line error."""
    _, _, rest = spec.partition(":")
    parts = [p.strip() for p in rest.split(",") if p.strip()]
    share = DEFAULT_SHARE
    if parts and not parts[0].isidentifier():
        try:
            share = float(parts.pop(0))
        except ValueError:
            raise PolicySpecError(f"--policy {spec!r}: the oracle share must be a number in [0, 1]") from None
    if not 0.0 <= share <= 1.0:
        raise PolicySpecError(f"--policy {spec!r}: the oracle share must be in [0, 1], not {share}")
    unknown = [p for p in parts if p not in HABITS]
    if unknown:
        raise PolicySpecError(f"--policy {spec!r}: unknown habit(s) {unknown}; valid: {', '.join(HABITS)}")
    return MixedPolicy(seed=seed, oracle_share=share, habits=tuple(parts) or HABITS)
