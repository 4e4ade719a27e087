"""Is a training set held out from KOPA-Bench? The paper's audit (§6): benchmark queries a training query
repeats (0/145 verbatim) and the share of the benchmark's data tools the training tasks use (62.2%); and its
held-out-platform study, which leaves platforms out of synthesis and evaluates on the benchmark tasks that
need only those platforms' tools (31 tasks for 서울 열린데이터광장, DART and KRX).

Near-verbatim is measured too, which the paper does not report: a training query whose character 4-grams
overlap a benchmark query's by at least `NEAR` (Jaccard) — a paraphrase that changes a word or two.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from kopa.catalog.loader import Catalog
from kopa.eval.task import Task

NEAR = 0.6  # Jaccard of character 4-grams: a query sharing most of its wording with a benchmark query
GRAM = 4


def query_form(text: str) -> str:
    """A query as compared for repeats: NFKC, casefolded, every run of non-word characters one space."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\W_]+", " ", text).strip()


def _grams(text: str) -> frozenset[str]:
    form = query_form(text).replace(" ", "")
    return frozenset(form[i:i + GRAM] for i in range(max(len(form) - GRAM + 1, 1)))


def data_tools(tasks: Iterable[Task], catalog: Catalog) -> set[str]:
    """The tools the tasks' golden trajectories call, session tools (keys, dates, arithmetic) left out."""
    return {s.call for t in tasks for step in t.golden for s in ([step] if step.parallel is None else step.parallel)
            if s.call and catalog[s.call].family != "session"}


def platforms_of(task: Task, catalog: Catalog) -> set[str]:
    """The platforms whose data tools the task's golden trajectory calls."""
    return {catalog[n].platform for n in data_tools([task], catalog)}


def audit(train: Sequence[Task], bench: Sequence[Task], catalog: Catalog) -> dict[str, Any]:
    """Benchmark queries a training query repeats (contains, after `query_form`) or nearly repeats, and how
    the two sets' data tools overlap: `bench_covered` is the share of the benchmark's data tools the training
    tasks call (the paper's tool-universe overlap), `dataset_in_bench` the converse."""
    forms = [query_form(t.query) for t in train]
    asked = {b.id: query_form(b.query) for b in bench}
    verbatim = sorted(i for i, form in asked.items() if form and any(form in f for f in forms))
    grams = [_grams(t.query) for t in train]
    near: list[tuple[str, float]] = []
    for b in bench:
        mine = _grams(b.query)
        best = max((len(mine & g) / len(mine | g) for g in grams), default=0.0)
        if best >= NEAR:
            near.append((b.id, round(best, 3)))
    bench_tools = {n for t in bench for n in t.available_tools if catalog[n].family != "session"}
    used = data_tools(train, catalog)
    return {"bench_tasks": len(bench), "verbatim": len(verbatim), "verbatim_ids": verbatim[:20],
            "near_verbatim": len(near), "near_verbatim_ids": [i for i, _ in sorted(near, key=lambda x: -x[1])][:20],
            "near_threshold": NEAR, "bench_tools": len(bench_tools), "dataset_tools": len(used),
            "bench_covered": len(bench_tools & used) / (len(bench_tools) or 1),
            "dataset_in_bench": len(bench_tools & used) / (len(used) or 1)}


def held_out_subset(bench: Sequence[Task], platforms: Iterable[str], catalog: Catalog) -> list[Task]:
    """The benchmark tasks whose golden trajectories call data tools of `platforms` only: what a model that
    never trained on those platforms is evaluated on."""
    held = frozenset(platforms)
    return [task for task in bench if (used := platforms_of(task, catalog)) and used <= held]


def audit_table(found: dict[str, Any]) -> list[str]:
    """The audit as a Markdown table beside the paper's figures."""
    return ["| check | here | paper |", "|---|---:|---:|",
            f"| benchmark queries repeated verbatim | {found['verbatim']}/{found['bench_tasks']} | 0/145 |",
            f"| benchmark queries repeated nearly (character 4-grams, Jaccard ≥ {found['near_threshold']}) | "
            f"{found['near_verbatim']}/{found['bench_tasks']} | — |",
            f"| tool-universe overlap (benchmark data tools the dataset uses) | "
            f"{100 * found['bench_covered']:.1f}% of {found['bench_tools']} | 62.2% |",
            f"| dataset tools that KOPA-Bench offers | {100 * found['dataset_in_bench']:.1f}% of "
            f"{found['dataset_tools']} | — |"]
