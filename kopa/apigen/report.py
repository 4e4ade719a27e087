"""The seed's Table 1 per generator (verified, format / execution / semantic fails, pass rate), reason counts
per stage, samples of each style, and the run's Markdown report.

The pass rate is verified / counted samples: a sample whose execution met an environmental (or auth)
failure that outlived the runtime's retries is not a bad sample, so it is shown in its own column and
left out of the denominator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from kopa.apigen.semantic import CRITERIA, DECIDES
from kopa.plots import pyplot

if TYPE_CHECKING:
    from kopa.apigen.record import XRecord
    from kopa.apigen.run import Item

# The seed's Table 1 (generated with four models; pass rate over all generated samples).
PAPER_TABLE = [("DeepSeek-Coder-33B-Inst", 13_769, 4_311, 15_496, 6_424, 34.42),
               ("Mixtral-8x7B-Inst", 15_385, 3_311, 12_341, 7_963, 38.46),
               ("Mixtral-8x22B-Inst", 26_384, 1_680, 5_073, 6_863, 65.96),
               ("DeepSeek-V2-Chat (236B)", 33_659, 817, 3_359, 2_165, 84.15)]
STAGES = ("format", "execution", "semantic")


class Tally:
    """What the report and the feedback loop's budget need of the samples decided so far, counted as they are
    decided (a run never holds its samples): the stage table's counts, the calls spent, the first verified sample
    of each style, and a tally of its own per style the prompt asked for (`sub`)."""

    def __init__(self, sub: bool = True) -> None:
        self.generated = 0
        self.verified = 0
        self.counted = 0
        self.calls = 0
        self.retried_calls = 0
        self.fails: Counter[str] = Counter()
        self.reasons: dict[str, Counter[str | None]] = {s: Counter() for s in STAGES}
        self.not_counted: Counter[str | None] = Counter()
        self.criteria: dict[str, Counter[str]] = {c: Counter() for c in CRITERIA}
        self.samples: dict[str, XRecord] = {}  # the first verified sample of each style (the record's own)
        self.styles: dict[str, Tally] | None = {} if sub else None

    def add(self, item: Item) -> None:
        v = item.verdict
        self.generated += 1
        self.calls += item.calls
        self.retried_calls += v.retried_calls
        self.verified += v.passed
        if v.counted:
            self.counted += 1
            if v.stage is not None:
                self.fails[v.stage] += 1
                self.reasons[v.stage][v.reason] += 1
        else:
            self.not_counted[v.reason] += 1
        if v.criteria:
            for c in CRITERIA:
                self.criteria[c][v.criteria.get(c, "-")] += 1
        r = item.record
        if v.passed and r is not None and r.style and r.style not in self.samples:
            self.samples[r.style] = r
        style = style_of(item)
        if self.styles is not None and style:
            self.styles.setdefault(style, Tally(sub=False)).add(item)

    def table(self) -> dict[str, Any]:
        apart = dict(sorted(self.not_counted.items()))  # type: ignore[arg-type]
        return {"generated": self.generated, "verified": self.verified,
                "fails": {s: self.fails[s] for s in STAGES},
                "reasons": {s: dict(sorted(self.reasons[s].items())) for s in STAGES},  # type: ignore[arg-type]
                "not_counted": apart, "not_counted_total": sum(apart.values()),
                "retried_calls": self.retried_calls, "pass_rate": self.verified / (self.counted or 1),
                "criteria": {c: dict(sorted(self.criteria[c].items())) for c in CRITERIA}}

    def style_counts(self) -> dict[str, int]:
        return {s: t.generated for s, t in sorted((self.styles or {}).items())}


def stage_table(items: Iterable[Item]) -> dict[str, Any]:
    tallied = Tally(sub=False)
    for i in items:
        tallied.add(i)
    return tallied.table()


def table_rows(name: str, table: dict[str, Any]) -> list[str]:
    f = table["fails"]
    return [f"| **{name}** | {table['verified']} | {f['format']} | {f['execution']} | {f['semantic']} | "
            f"{100 * table['pass_rate']:.2f}% | {table['not_counted_total']} |"]


def render_table(name: str, table: dict[str, Any], with_paper: bool = True) -> str:
    lines = ["| generator | verified | format fails | execution fails | semantic fails | pass rate | "
             "environmental (not counted) |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines += table_rows(name, table)
    if with_paper:
        lines += [f"| {m} (paper) | {v:,} | {a:,} | {b:,} | {c:,} | {r:.2f}% | — |" for m, v, a, b, c, r in PAPER_TABLE]
    return "\n".join(lines)


def render_reasons(table: dict[str, Any]) -> str:
    lines = ["| stage | reason | samples |", "|---|---|---:|"]
    for stage in STAGES:
        for reason, k in table["reasons"][stage].items():
            lines.append(f"| {stage} | {reason} | {k} |")
    for reason, k in table["not_counted"].items():
        lines.append(f"| execution (not counted) | {reason} | {k} |")
    return "\n".join(lines)


def style_of(item: Item) -> str | None:
    """The style the prompt asked for (generate), else the record's own (a third-party file's, if any)."""
    if item.prompt is not None:
        return item.prompt.get("style")
    return item.record.style if item.record is not None else None


def render_report(name: str, tallied: Tally, stats: dict[str, Any], relevance: list[str | None]) -> str:
    """`relevance`: the construction of each relevance sample, in order."""
    about = stats["about"]
    table = tallied.table()
    lines = [f"# APIGen — {name}", "",
             f"Generator `{about['generator']}`, semantic checker `{about['checker']}`, backend `{about['backend']}`; "
             f"{stats['calls']} tool calls spent ({about.get('probe_calls', 0)} probing the value cache"
             + (f", budget {about['budget']}" if about.get("budget") else "") + ").", "",
             "## Verification (the seed's Table 1 shape)", "", render_table(about["generator"], table), "",
             f"Pass rate = verified / samples counted; {table['not_counted_total']} samples met an environmental or "
             f"auth failure that outlived the runtime's retries and are not counted; {table['retried_calls']} calls "
             "were retried after an environmental failure and then answered.", "",
             "## Reasons", "", render_reasons(table), "",
             "## Semantic checker: what it decides", "", "| criterion | decided | pass / fail / undecided |",
             "|---|---|---|"]
    for c in CRITERIA:
        counts = table["criteria"].get(c, {})
        decided = DECIDES[c] if about["checker"] == "rules" else "by the model"
        lines.append(f"| {c} | {decided} | {counts.get('pass', 0)} / {counts.get('fail', 0)} / "
                     f"{counts.get('undecided', 0)} |")
    lines += ["", "## Styles", "", "| style | samples | verified | pass rate |", "|---|---:|---:|---:|"]
    for style in stats["styles"]:
        sub = (tallied.styles or {})[style].table()
        lines.append(f"| {style} | {sub['generated']} | {sub['verified']} | {100 * sub['pass_rate']:.1f}% |")
    lines += ["", "## One verified sample per style", ""]
    for style, r in tallied.samples.items():
        calls = orjson.dumps([{"name": c.name, "arguments": c.arguments} for c in r.answers]).decode()
        lines += [f"- **{style}** `{r.id}`: {r.query}", f"  `{calls}`"]
    kinds = Counter(relevance)
    lines += ["", "## Relevance detection", "",
              f"{len(relevance)} samples ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items())) or 'none'}) from "
              "the verified ones, the seed's 8,000 / 60,000 share: relevance.jsonl.", "",
              "Plot: plots/stages.png.", ""]
    return "\n".join(lines)


def write_plots(directory: Path, table: dict[str, Any]) -> None:
    plt = pyplot()

    directory.mkdir(parents=True, exist_ok=True)
    labels = ["verified", *STAGES, "not counted"]
    values = [table["verified"], *(table["fails"][s] for s in STAGES), table["not_counted_total"]]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.bar(labels, values, color=["#55A868", "#C44E52", "#DD8452", "#8172B3", "#999999"])
    ax.set_ylabel("samples")
    ax.set_title(f"APIGen verification (pass rate {100 * table['pass_rate']:.1f}%)")
    fig.tight_layout()
    fig.savefig(directory / "stages.png", dpi=110, metadata={"Software": None})
    plt.close(fig)
