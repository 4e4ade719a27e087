"""KOPA-Bench's offline baselines side by side: the oracle (the ceiling every target is computed from) and
the failure-mode policies, each a weak agent with one known habit, so a newcomer sees in one run what the
benchmark measures and which cause it names when an agent fails.

Each baseline is an ordinary run folder (`<out>/<policy>/`: episodes, scores, report, plots), resumable as
any run; the comparison (`<out>/report.md`, `<out>/plots/baselines.png`) reads only their metrics.
"""

from __future__ import annotations

from pathlib import Path

from kopa.eval.report import Metrics
from kopa.plots import pyplot

# The order the comparison is read in: the ceiling first, then the habits from mildest to worst.
BASELINES: dict[str, str] = {
    "oracle": "plays the golden trajectory: the ceiling",
    "first_page_only": "reads only the first page of anything paged",
    "skip_key": "never issues API keys (the 'Invalid API key' failure)",
    "skip_lookup": "skips the first code lookup and passes a name where its code belongs",
}


def first_of(metrics: dict[str, Metrics]) -> Metrics:
    return next(iter(metrics.values()))


def top_causes(metrics: Metrics, limit: int = 2) -> str:
    """The most frequent failure causes, as `cause n`; a dash when every episode passed."""
    ranked = sorted(metrics.causes.items(), key=lambda item: -item[1])[:limit]
    return ", ".join(f"{cause} {n}" for cause, n in ranked) or "-"


def render_comparison(metrics: dict[str, Metrics]) -> str:
    """The comparison report: one row per baseline, with links to each baseline's own report."""
    first = first_of(metrics)
    lines = ["# KOPA-Bench — offline baselines", "",
             f"{first.overall.tasks} tasks · {first.rollouts} rollout(s) per task · seeds {first.seeds} · "
             "scored from the stored episodes with the offline judge.", "",
             "pass@1 is the mean over rollouts, then over tasks; Action is (Corr + Eff)/2 gated on the outcome; "
             "a failure's cause is the first of the scoring contract's causes that explains it "
             "(`benchmark/SCORING.md`).", "",
             "| policy | what it does | pass@1 | Action | calls per episode | failures by cause | report |",
             "|---|---|---:|---:|---:|---|---|"]
    for name, m in metrics.items():
        causes = ", ".join(f"{c} {n}" for c, n in m.causes.items()) or "-"
        lines.append(f"| {name} | {BASELINES.get(name, '')} | {m.overall.pass_at_1:.4f} | {m.overall.action:.4f} "
                     f"| {m.calls / m.episodes:.2f} | {causes} | [{name}/report.md]({name}/report.md) |")
    lines += ["", "![pass@1 and Action per baseline](plots/baselines.png)", ""]
    return "\n".join(lines)


def write_plot(metrics: dict[str, Metrics], path: Path) -> None:
    """pass@1 and Action per baseline, grouped bars."""
    plt = pyplot()

    path.parent.mkdir(parents=True, exist_ok=True)
    names = list(metrics)
    x = range(len(names))
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for offset, label, color, values in (
            (-0.2, "pass@1", "#4C72B0", [m.overall.pass_at_1 for m in metrics.values()]),
            (0.2, "Action", "#DD8452", [m.overall.action for m in metrics.values()])):
        bars = ax.bar([i + offset for i in x], values, width=0.4, label=label, color=color)
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(list(x), names)
    ax.set_ylim(0, 1.22)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_title(f"KOPA-Bench offline baselines ({first_of(metrics).overall.tasks} tasks)")
    ax.legend(loc="upper right", ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_comparison(metrics: dict[str, Metrics], out_dir: Path) -> Path:
    """Write `<out>/report.md` and its plot; returns the report's path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_plot(metrics, out_dir / "plots" / "baselines.png")
    report = out_dir / "report.md"
    report.write_text(render_comparison(metrics), encoding="utf-8")
    return report
