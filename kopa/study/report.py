"""report.md and plots/ of a pruning study, from summary.json's rows alone (so it re-renders anywhere).

Means across seeds with 95% percentile-bootstrap intervals over the seeds' runs (kopa.eval.intervals:
every end a mean of observed values, so shares stay in [0, 100]% and counts at or above 0; one seed gives
no interval and the report says so); the rule comparison at a rate is paired by seed (the same seed draws
the same paths' randomness and the same fault seed under every rule), so its interval is on the per-seed
differences.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import numpy as np

from kopa.eval.intervals import mean_bootstrap
from kopa.fileio import write_atomic
from kopa.plots import pyplot
from kopa.study.faults import MIX
from kopa.study.grid import StudyConfig

HEADLINE_RATE = 20


def _group(rows: list[dict], *keys: str) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        out[tuple(r[k] for k in keys)].append(r)
    return out


def _fmt(values: list[float], pct: bool = False, digits: int = 1) -> str:
    if not values:
        return "—"
    mean, lo, hi = mean_bootstrap(values)
    scale = 100.0 if pct else 1.0
    if len(values) == 1:
        return f"{mean * scale:.{digits}f} (one seed)"
    return f"{mean * scale:.{digits}f} [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


def headline(rows: list[dict], retries: str, kind: str = MIX, rate: int = HEADLINE_RATE) -> str | None:
    """The plain answer: does the asymmetric rule prune fewer true edges than the symmetric one here?"""
    by = {(r["rule"], r["seed"]): r for r in rows if r["kind"] == kind and r["rate"] == rate and r["retries"] == retries}
    seeds = sorted({s for rule, s in by if rule == "asymmetric"} & {s for rule, s in by if rule == "symmetric"})
    if not seeds:
        return None
    a = [by[("asymmetric", s)]["wrongly_pruned"] for s in seeds]
    b = [by[("symmetric", s)]["wrongly_pruned"] for s in seeds]
    a_share = [by[("asymmetric", s)]["wrongly_pruned_share"] for s in seeds]
    b_share = [by[("symmetric", s)]["wrongly_pruned_share"] for s in seeds]
    diff = [x - y for x, y in zip(a, b, strict=True)]
    mean, lo, hi = mean_bootstrap(diff)
    if hi < 0:
        verdict = "**Yes**: the asymmetric rule prunes fewer true edges than the symmetric one"
    elif statistics.fmean(diff) < 0:
        verdict = ("**Not shown**: the asymmetric rule prunes fewer true edges on average, but the 95% interval "
                   "of the paired difference includes 0")
    elif mean == 0 and lo == hi == 0:
        verdict = "**No**: the two rules prune exactly the same true edges"
    else:
        verdict = "**No**: the asymmetric rule does not prune fewer true edges than the symmetric one"
    return (f"{verdict} at {rate}% faults ({kind}, retries {retries}, {len(seeds)} seeds): asymmetric "
            f"{statistics.fmean(a):.1f} true edges wrongly pruned (share {_fmt(a_share, pct=True)}%), symmetric "
            f"{statistics.fmean(b):.1f} (share {_fmt(b_share, pct=True)}%); paired difference asymmetric − "
            f"symmetric {mean:+.1f} [{lo:+.1f}, {hi:+.1f}] edges per run.")


def _metric_table(rows: list[dict], kind: str, metric: str, pct: bool, config: StudyConfig) -> list[str]:
    groups = _group([r for r in rows if r["kind"] == kind], "rate", "rule", "retries")
    cols = [(rule, x) for x in config.retries for rule in config.rules]
    lines = ["| rate | " + " | ".join(f"{rule}, retries {x}" for rule, x in cols) + " |",
             "|---:|" + "---:|" * len(cols)]
    for rate in config.rates:
        cells = [_fmt([r[metric] for r in groups.get((rate, rule, x), [])], pct=pct) for rule, x in cols]
        lines.append(f"| {rate}% | " + " | ".join(cells) + " |")
    return lines


def render(config: StudyConfig, rows: list[dict]) -> str:
    first = rows[0]
    realized = _group(rows, "kind", "rate")
    lines = [
        "# Pruning robustness under injected faults (`kopa study pruning`)", "",
        f"{first['skeleton_edges']} skeleton edges ({first['true_edges']} truly bound, skeleton precision "
        f"{first['skeleton_precision']:.3f}) over "
        + (f"{len(config.tools)} named tools" if config.tools is not None else f"the platforms {', '.join(config.platforms)}")
        + f"; Phase A with T = {config.T} iterations of M = {config.M} paths (the paper's: T = 100, M = 500; "
        f"its other settings as the paper's); {config.seeds} seed{'s' if config.seeds != 1 else ''}; "
        f"{len(rows)} cells. Fault rate r = share of first attempts failing environmentally (realistic mix: the "
        "`realistic` profile scaled per platform so each fails attempt 0 at r; a single kind: that kind alone at r; "
        "drift: the mix at r plus the default drift scenario, epoch 0 → 1 after iteration T/2). Retries off = one "
        "attempt, on = RetryPolicy(max_attempts=5). Truth: the undrifted bindings (kopa.edge.truth_study); "
        "intervals: 95% percentile bootstrap of the mean over the seeds' runs (2,000 seeded resamples; with "
        "few seeds it is near the seeds' range, and a point only where every seed agreed).", "",
        "## Answer", ""]
    for retries in config.retries:
        line = headline(rows, retries)
        lines += [line if line is not None else
                  f"No cells at {HEADLINE_RATE}% with both the asymmetric and symmetric rules (retries {retries}).", ""]
    lines += ["## Realized fault rate (from the fault log)", "",
              "Share of first attempts that met an injected fault, as measured from each run's fault log (mean "
              "over the kind's cells): over every request sent / over distinct requests, beside the nominal rate r "
              "the profile was scaled to. Phase A sends many requests more than once (defaults, the value cache), "
              "and a fault is a function of the request and the attempt, so a repeated request meets the same "
              "fault each time: the two measures differ, and neither need equal r.", "",
              "| kind | " + " | ".join(f"nominal {r}%: all / distinct" for r in config.rates) + " |",
              "|---|" + "---:|" * len(config.rates)]
    for kind in config.kinds:
        lines.append(f"| {kind} | " + " | ".join(
            f"{100 * statistics.fmean(r['realized_rate'] for r in realized[(kind, rate)]):.1f}% / "
            f"{100 * statistics.fmean(r['realized_rate_distinct'] for r in realized[(kind, rate)]):.1f}%"
            for rate in config.rates) + " |")
    lines += ["", "## True edges wrongly pruned (count per run, mean [95% CI])", ""]
    for kind in config.kinds:
        lines += [f"### {kind}", "", *_metric_table(rows, kind, "wrongly_pruned", False, config), ""]
    lines += ["## Share of true edges wrongly pruned (%)", ""]
    for kind in config.kinds:
        lines += [f"### {kind}", "", *_metric_table(rows, kind, "wrongly_pruned_share", True, config), ""]
    lines += ["![wrongly pruned share, heatmap](plots/heatmap_wrongly_pruned.png)", "",
              "![wrongly pruned share vs fault rate](plots/curves_wrongly_pruned.png)", ""]
    for metric, title, pct in (("pruned_edges", "Edges pruned (count per run)", False),
                               ("false_retained_share", "False edges retained (%)", True),
                               ("g_star_precision", "G* precision (%)", True),
                               ("g_star_recall", "G* recall of the skeleton's true edges (%)", True),
                               ("probe_g_star", "Held-out probe: G* edges that execute (%)", False),
                               ("probe_pruned", "Held-out probe: pruned edges that execute (%)", False),
                               ("last_prune_iteration", "Convergence: last iteration that pruned an edge", False),
                               ("pruned_last_quarter_share", "Convergence: share of prunings in the last quarter (%)",
                                True)):
        lines += [f"## {title} — realistic mix", "", *_metric_table(rows, MIX, metric, pct, config), ""]
    if "drift" in config.kinds:
        lines += ["## Drift", "", "Edges touching an endpoint the drift scenario changes, pruned (mean per run); "
                  "the mix at the same rate is the control.", "", "| rate | rule | retries | drift | mix |",
                  "|---:|---|---|---:|---:|"]
        groups = _group(rows, "kind", "rate", "rule", "retries")
        for rate in config.rates:
            for rule in config.rules:
                for x in config.retries:
                    d = groups.get(("drift", rate, rule, x), [])
                    m = groups.get((MIX, rate, rule, x), [])
                    lines.append(f"| {rate}% | {rule} | {x} | {_fmt([r['drift_touched_pruned'] for r in d])} | "
                                 f"{_fmt([r['drift_touched_pruned'] for r in m])} |")
        lines += ["", f"{first['drift_touched_edges']} skeleton edges touch a drifted endpoint.", ""]
    return "\n".join(lines)


def write_plots(directory: Path, config: StudyConfig, rows: list[dict]) -> None:
    plt = pyplot()

    directory.mkdir(parents=True, exist_ok=True)
    groups = _group(rows, "kind", "rate", "rule", "retries")
    kinds, rules, retries, rates = config.kinds, config.rules, config.retries, config.rates
    fig, axes = plt.subplots(len(retries), len(kinds), figsize=(2.6 * len(kinds) + 1, 2.4 * len(retries) + 0.6),
                             squeeze=False, layout="constrained")
    vmax = max((r["wrongly_pruned_share"] for r in rows), default=0.0) * 100 or 1.0
    image = None
    for i, x in enumerate(retries):
        for j, kind in enumerate(kinds):
            ax = axes[i][j]
            grid = np.array([[100 * statistics.fmean(r["wrongly_pruned_share"] for r in groups[(kind, rate, rule, x)])
                              for rule in rules] for rate in rates])
            image = ax.imshow(grid, cmap="Reds", vmin=0, vmax=vmax, aspect="auto")
            for a in range(len(rates)):
                for b in range(len(rules)):
                    ax.text(b, a, f"{grid[a, b]:.1f}", ha="center", va="center", fontsize=7)
            ax.set_xticks(range(len(rules)), rules, fontsize=7)
            ax.set_yticks(range(len(rates)), [f"{r}%" for r in rates], fontsize=7)
            ax.set_title(f"{kind}, retries {x}", fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.8, label="true edges wrongly pruned (%)")
    fig.savefig(directory / "heatmap_wrongly_pruned.png", dpi=110)
    plt.close(fig)
    fig, axes = plt.subplots(len(retries), len(kinds), figsize=(2.6 * len(kinds) + 1, 2.4 * len(retries) + 0.6),
                             squeeze=False, sharey=True)
    for i, x in enumerate(retries):
        for j, kind in enumerate(kinds):
            ax = axes[i][j]
            span = (max(rates) - min(rates)) or 1
            for k, rule in enumerate(rules):
                stats = [mean_bootstrap([100 * r["wrongly_pruned_share"] for r in groups[(kind, rate, rule, x)]]) for rate in rates]
                means = [s[0] for s in stats]
                dodge = (k - (len(rules) - 1) / 2) * 0.012 * span  # rules that coincide stay visible
                ax.errorbar([rate + dodge for rate in rates], means, yerr=[[m - s[1] for m, s in zip(means, stats, strict=True)],
                                                [s[2] - m for m, s in zip(means, stats, strict=True)]],
                            marker="o", markersize=3, capsize=2, label=rule)
            ax.set_title(f"{kind}, retries {x}", fontsize=8)
            ax.set_xlabel("fault rate (%)", fontsize=7)
            ax.tick_params(labelsize=7)
    axes[0][0].set_ylabel("true edges wrongly pruned (%)", fontsize=7)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(directory / "curves_wrongly_pruned.png", dpi=110)
    plt.close(fig)


def write_report(folder: Path, config: StudyConfig, rows: list[dict]) -> None:
    write_atomic(folder / "report.md", render(config, rows).encode())
    write_plots(folder / "plots", config, rows)
