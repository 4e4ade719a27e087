"""What a trainer checks before spending GPUs on a set of rollout groups.

- the share of groups whose rollouts all got the same reward (all 0 or all 1): their GRPO advantages are
  0, they teach nothing, and a set that is mostly such groups wastes its rollouts;
- pass@1 (the mean reward of a group's n rollouts, averaged over groups) and pass@n (the share of groups
  with at least one success) — the paper's pass@1 and pass@4 for n = 4;
- the advantages: how many rollouts carry a non-zero one, their mean magnitude;
- reward by domain and by junction type, by which policy played (for the mixed policy), and the call
  and token counts (what the rollouts cost).

The junction type of a task: a synthesized task's pattern category (SEQ, FAN, DRV, SEM, CMP, COND, or
MIXED for a composition, as EDGE Phase B labels it); a KOPA-Bench task's golden structure — SEQ (calls
one after another), FAN (a call per value of an earlier result), PAR (calls issued together), or MIXED
(fan-out and parallel groups both).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from kopa.eval.task import GoldenStep, Task
from kopa.fileio import write_atomic
from kopa.plots import pyplot
from kopa.rl.advantages import group_advantages, zero_variance

if TYPE_CHECKING:
    from kopa.rl.rollouts import RolloutConfig

_PATTERN = re.compile(r"^[A-Z]+(\+[A-Z]+)*$")


def _shapes(steps: list[GoldenStep]) -> set[str]:
    found: set[str] = set()
    for step in steps:
        if step.parallel:
            found.add("PAR")
            found |= _shapes(step.parallel)
        elif step.for_each is not None:
            found.add("FAN")
    return found


def junction_type(task: Task) -> str:
    for tag in task.tags:
        if _PATTERN.match(tag):
            kinds = tag.split("+")
            return kinds[0] if len(kinds) == 1 else "MIXED"
    shapes = _shapes(list(task.golden))
    if not shapes:
        return "SEQ"
    return shapes.pop() if len(shapes) == 1 else "MIXED"


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Slice(_Frozen):
    """The groups of one domain, junction type or the whole set."""

    name: str
    groups: int
    pass_at_1: float
    pass_at_n: float
    zero_variance: float


class PlayedShare(_Frozen):
    played: str
    rollouts: int
    reward: float


class GroupStats(_Frozen):
    groups: int
    rollouts: int
    n: int
    zero_variance: float  # share of groups with one reward for all rollouts
    all_failed: float
    all_passed: float
    pass_at_1: float
    pass_at_n: float
    nonzero_advantage: float  # share of rollouts with a non-zero advantage
    mean_abs_advantage: float
    max_abs_advantage: float
    calls_per_rollout: float
    malformed_calls: int
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    errors: int  # infrastructure failures (reward 0, reported apart)
    by_domain: list[Slice]
    by_junction: list[Slice]
    by_played: list[PlayedShare]


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 6) if values else 0.0


def _slice(name: str, groups: list[dict[str, Any]]) -> Slice:
    rewards = [[r["reward"] for r in g["rollouts"]] for g in groups]
    return Slice(name=name, groups=len(groups), pass_at_1=_mean([sum(r) / len(r) for r in rewards]),
                 pass_at_n=_mean([float(max(r) > 0) for r in rewards]),
                 zero_variance=_mean([float(zero_variance(r)) for r in rewards]))


def _by(groups: list[dict[str, Any]], key: str) -> list[Slice]:
    parts: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in groups:
        parts[g[key]].append(g)
    return [_slice(name, parts[name]) for name in sorted(parts)]


def group_stats(groups: list[dict[str, Any]], n: int, *, norm_by_std: bool = True) -> GroupStats:
    rewards = [[r["reward"] for r in g["rollouts"]] for g in groups]
    advantages = [a for r in rewards for a in group_advantages(r, norm_by_std=norm_by_std)]
    flat = [r for g in groups for r in g["rollouts"]]
    played: dict[str, list[float]] = defaultdict(list)
    for r in flat:
        played[r["played"]].append(r["reward"])
    whole = _slice("all", groups)
    return GroupStats(
        groups=len(groups), rollouts=len(flat), n=n, zero_variance=whole.zero_variance,
        all_failed=_mean([float(max(r) == 0) for r in rewards]),
        all_passed=_mean([float(min(r) == 1) for r in rewards]),
        pass_at_1=whole.pass_at_1, pass_at_n=whole.pass_at_n,
        nonzero_advantage=_mean([float(abs(a) > 1e-12) for a in advantages]),
        mean_abs_advantage=_mean([abs(a) for a in advantages]),
        max_abs_advantage=round(max((abs(a) for a in advantages), default=0.0), 6),
        calls_per_rollout=_mean([float(r["calls"]) for r in flat]),
        malformed_calls=sum(r["malformed_calls"] for r in flat), llm_calls=sum(r["llm_calls"] for r in flat),
        prompt_tokens=sum(r["prompt_tokens"] for r in flat),
        completion_tokens=sum(r["completion_tokens"] for r in flat),
        errors=sum(r["error"] is not None for r in flat),
        by_domain=_by(groups, "domain"), by_junction=_by(groups, "junction"),
        by_played=[PlayedShare(played=name, rollouts=len(v), reward=_mean(v)) for name, v in sorted(played.items())],
    )


def summary_rows(stats: GroupStats) -> list[tuple[str, str]]:
    """The headline figures as (label, value), for the terminal table and the report."""
    n = stats.n
    return [
        ("groups × rollouts", f"{stats.groups} × {n} = {stats.rollouts}"),
        ("zero-variance groups (no signal)", f"{stats.zero_variance:.4f}  (all failed {stats.all_failed:.4f}, "
                                             f"all passed {stats.all_passed:.4f})"),
        ("pass@1", f"{stats.pass_at_1:.4f}"),
        (f"pass@{n}", f"{stats.pass_at_n:.4f}"),
        ("rollouts with a non-zero advantage", f"{stats.nonzero_advantage:.4f}"),
        ("mean absolute advantage (max)", f"{stats.mean_abs_advantage:.4f} ({stats.max_abs_advantage:.4f})"),
        ("calls per rollout", f"{stats.calls_per_rollout:.2f}  (malformed {stats.malformed_calls})"),
        ("LLM calls / prompt / completion tokens",
         f"{stats.llm_calls} / {stats.prompt_tokens} / {stats.completion_tokens}"),
        ("infrastructure errors", str(stats.errors)),
    ]


def _slice_table(title: str, slices: list[Slice], n: int) -> list[str]:
    lines = [f"## {title}", "", f"| {title.split()[-1]} | groups | pass@1 | pass@{n} | zero-variance |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {s.name} | {s.groups} | {s.pass_at_1:.4f} | {s.pass_at_n:.4f} | {s.zero_variance:.4f} |"
              for s in slices]
    return [*lines, ""]


def render_report(stats: GroupStats, config: RolloutConfig) -> str:
    lines = ["# GRPO rollout groups", "",
             f"policy `{config.policy}` · backend `{config.backend}` · seed {config.seed} · "
             f"{config.n} rollouts per task · advantages {'(r − mean) / (std + ε)' if config.norm_adv_by_std else 'r − mean'}",
             "", "| figure | value |", "|---|---|"]
    lines += [f"| {label} | {value} |" for label, value in summary_rows(stats)]
    lines.append("")
    lines += _slice_table("Reward by domain", stats.by_domain, stats.n)
    lines += _slice_table("Reward by junction", stats.by_junction, stats.n)
    lines += ["## Who played", "", "| played | rollouts | mean reward |", "|---|---:|---:|"]
    lines += [f"| {p.played} | {p.rollouts} | {p.reward:.4f} |" for p in stats.by_played]
    return "\n".join([*lines, ""])


def write_report(path: Path, stats: GroupStats, config: RolloutConfig, groups: list[dict[str, Any]]) -> None:
    """report.md and plots/groups.png beside it."""
    write_plot(path.parent / "plots" / "groups.png", groups, stats.n)
    text = render_report(stats, config) + "\n![groups by successes, pass@1 by domain](plots/groups.png)\n"
    write_atomic(path, text.encode())


def write_plot(path: Path, groups: list[dict[str, Any]], n: int) -> None:
    """Left: how many groups had k successes out of n (the two ends, k = 0 and k = n, teach nothing);
    right: pass@1 and pass@n by domain."""
    plt = pyplot()

    path.parent.mkdir(parents=True, exist_ok=True)
    successes = [sum(r["reward"] for r in g["rollouts"]) for g in groups]
    counts = [sum(1 for s in successes if round(s) == k) for k in range(n + 1)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    colors = ["#C44E52" if k in (0, n) else "#4C72B0" for k in range(n + 1)]
    bars = left.bar(range(n + 1), counts, color=colors)
    left.bar_label(bars, fontsize=8)
    left.set_xticks(range(n + 1))
    left.set_xlabel(f"successes out of {n} (red: zero variance, no signal)")
    left.set_ylabel("groups")
    by_domain = _by(groups, "domain")
    x = range(len(by_domain))
    right.bar([i - 0.2 for i in x], [s.pass_at_1 for s in by_domain], width=0.4, label="pass@1", color="#4C72B0")
    right.bar([i + 0.2 for i in x], [s.pass_at_n for s in by_domain], width=0.4, label=f"pass@{n}", color="#DD8452")
    right.set_xticks(list(x), [s.name for s in by_domain], fontsize=8)
    right.set_ylim(0, 1.15)
    right.legend(loc="upper right", ncol=2, frameon=False, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
