"""report.md and plots of a robustness study (kopa.study.robustness): pass@1 per fault rate × policy, with
95% bootstrap intervals over tasks (kopa.eval.intervals), per kind and retry setting; a heatmap per policy and retry setting (kinds × rates);
degradation curves (pass@1 against the rate, one line per kind)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kopa.eval.intervals import METHOD
from kopa.fileio import write_atomic
from kopa.plots import pyplot

if TYPE_CHECKING:
    from kopa.study.robustness import RobustnessConfig


def _ci(value: dict[str, float]) -> str:
    return f"{100 * value['mean']:.1f} [{100 * value['lo']:.1f}, {100 * value['hi']:.1f}]"


def _grown(row: dict[str, Any]) -> str:
    grown = sorted(row["causes_grown"].items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{k} +{v}" for k, v in grown[:3]) or "—"


def tables(config: RobustnessConfig, rows: list[dict[str, Any]]) -> list[str]:
    """Per retry setting and kind: a row per policy, pass@1 (%) with its CI at each rate; then per cell the
    share of episodes that met a fault and the failure causes that grew against rate 0."""
    at = {(r["policy"], r["kind"], r["rate"], r["retries"]): r for r in rows}
    lines: list[str] = []
    for retries in config.retries:
        for kind in config.kinds:
            lines += [f"### {kind}, retries {retries}", "",
                      "| policy | " + " | ".join(f"{rate}%" for rate in config.rates) + " |",
                      "|---|" + "---:|" * len(config.rates)]
            for policy in config.policies:
                lines.append(f"| {policy} | " + " | ".join(_ci(at[(policy, kind, rate, retries)]["pass_at_1"])
                                                          for rate in config.rates) + " |")
            lines += ["", "| policy | rate | Action | met a fault | causes grown vs rate "
                          f"{min(config.rates)}% |", "|---|---:|---:|---:|---|"]
            for policy in config.policies:
                for rate in config.rates:
                    r = at[(policy, kind, rate, retries)]
                    lines.append(f"| {policy} | {rate}% | {_ci(r['action'])} | {100 * r['met_fault']:.1f}% | {_grown(r)} |")
            lines.append("")
    return lines


def write_report(folder: Path, config: RobustnessConfig, rows: list[dict[str, Any]]) -> None:
    episodes = sum(r["episodes"] for r in rows)
    lines = ["# How agents hold up under faults and drift (`kopa study robustness`)", "",
             f"Policies {', '.join(config.policies)}; kinds {', '.join(config.kinds)}; rates "
             f"{', '.join(f'{r}%' for r in config.rates)} of first attempts failing; retries "
             f"{', '.join(config.retries)}; seeds 0..{config.seeds - 1} (fault and policy seed); world `{config.world}`; "
             f"{episodes:,} episodes in all.", "",
             f"pass@1 in percent over every seed's episodes, with its 95% interval: {METHOD} — inside [0, 100], "
             "and wide where seeds disagree on tasks. 'met a fault': the share of "
             "episodes in which at least one HTTP attempt failed environmentally (retried or not). Kind `drift`: the "
             "realistic mix at the rate on the world at drift epoch 1.", "",
             *tables(config, rows), "Plots: " + ", ".join(_plots(folder, config, rows)) + ".", ""]
    write_atomic(folder / "report.md", "\n".join(lines).encode())


def _plots(folder: Path, config: RobustnessConfig, rows: list[dict[str, Any]]) -> list[str]:
    plt = pyplot()
    at = {(r["policy"], r["kind"], r["rate"], r["retries"]): r for r in rows}
    (folder / "plots").mkdir(exist_ok=True)
    written = []
    for retries in config.retries:
        fig, axes = plt.subplots(1, len(config.policies), figsize=(4.2 * len(config.policies), 3.6), squeeze=False)
        for ax, policy in zip(axes[0], config.policies, strict=True):
            grid = [[100 * at[(policy, k, r, retries)]["pass_at_1"]["mean"] for r in config.rates] for k in config.kinds]
            image = ax.imshow(grid, vmin=0, vmax=100, cmap="RdYlGn", aspect="auto")
            ax.set_xticks(range(len(config.rates)), [f"{r}%" for r in config.rates])
            ax.set_yticks(range(len(config.kinds)), list(config.kinds))
            for i, line in enumerate(grid):
                for j, value in enumerate(line):
                    ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=8)
            ax.set_title(f"{policy} (retries {retries})")
            ax.set_xlabel("fault rate")
        fig.colorbar(image, ax=axes[0].tolist(), label="pass@1 (%)")
        name = f"plots/heatmap-retries-{retries}.png"
        fig.savefig(folder / name, dpi=110, metadata={"Software": None})
        plt.close(fig)
        written.append(name)
    fig, axes = plt.subplots(len(config.retries), len(config.policies), figsize=(4.2 * len(config.policies),
                             3.2 * len(config.retries)), squeeze=False)
    for row_axes, retries in zip(axes, config.retries, strict=True):
        for ax, policy in zip(row_axes, config.policies, strict=True):
            for kind in config.kinds:
                cells = [at[(policy, kind, r, retries)]["pass_at_1"] for r in config.rates]
                means = [100 * c["mean"] for c in cells]
                low, high = [100 * c["lo"] for c in cells], [100 * c["hi"] for c in cells]
                # each point with its 95% interval as an error bar, and the band between them
                ax.errorbar(config.rates, means, yerr=[[m - lo for m, lo in zip(means, low, strict=True)],
                                                       [hi - m for m, hi in zip(means, high, strict=True)]],
                            marker="o", capsize=3, label=kind)
                ax.fill_between(config.rates, low, high, alpha=0.12)
            ax.set_title(f"{policy}, retries {retries}")
            ax.set_xlabel("fault rate (%)")
            ax.set_ylabel("pass@1 (%)")
            ax.set_ylim(0, 102)
    axes[0][-1].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    fig.savefig(folder / "plots/curves.png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    written.append("plots/curves.png")
    return written
