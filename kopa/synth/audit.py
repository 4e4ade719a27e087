"""What a reader of the corpus checks first: do the queries read as questions, and is the corpus balanced.

`query_audit` counts the queries that quote a tool's catalog title, name a paging parameter, pick "the n-th
item", or carry a raw yyyymmdd or a value the chain itself looks up — each of which would make the task a
trajectory written out rather than a question. `mix` sets the domain and platform shares beside
KOPA-Bench's and counts the tasks that touch a documented (real) endpoint.
"""

from __future__ import annotations

import re
from collections import Counter

from kopa.catalog.loader import Catalog
from kopa.eval.lint import mentions
from kopa.eval.task import load_tasks
from kopa.rng import stream
from kopa.synth.candidate import Candidate
from kopa.synth.handoffs import intermediate_values

_NTH = re.compile(r"(?:첫|두|세|네|다섯|\d+)\s*번째")
_RAW_DAY = re.compile(r"(?<!\d)(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)")
_PAGING_WORDS = ("페이지", "요청시작위치", "요청종료위치", "한 페이지", "결과 수")


def _data_tools(c: Candidate, catalog: Catalog) -> list[str]:
    return sorted({s.call for top in c.task.golden for s in [top, *(top.parallel or [])]
                   if s.call and catalog[s.call].family != "session"})


def query_audit(kept: list[Candidate], catalog: Catalog) -> dict[str, int]:
    """How many queries break each rule (goal: none), and the total."""
    out = Counter({"queries": len(kept), "title": 0, "paging": 0, "nth_item": 0, "code_or_raw_date": 0})
    for c in kept:
        query, tools = c.task.query, [catalog[t] for t in _data_tools(c, catalog)]
        out["title"] += any(t.spec.title in query for t in tools)
        paging = {p.name for t in tools for p in t.spec.params if p.paging}
        out["paging"] += any(w in query for w in _PAGING_WORDS) or any(
            re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", query) for n in paging)
        out["nth_item"] += _NTH.search(query) is not None
        out["code_or_raw_date"] += (_RAW_DAY.search(query) is not None
                                    or any(mentions(query, v) for v in intermediate_values(c)))
    return dict(out)


def mix(kept: list[Candidate], catalog: Catalog) -> dict:
    """Domain and platform shares of the corpus and of KOPA-Bench, and the share touching a real endpoint."""
    bench = load_tasks()
    return {
        "domains": dict(sorted(Counter(c.task.domain for c in kept).items())),
        "bench_domains": dict(sorted(Counter(t.domain for t in bench).items())),
        "platforms": dict(sorted(Counter(p for c in kept for p in c.task.platforms).items())),
        "bench_platforms": dict(sorted(Counter(p for t in bench for p in t.platforms).items())),
        "real": sum(any(catalog[t].spec.real for t in _data_tools(c, catalog)) for c in kept),
        "tasks": len(kept),
        "bench_tasks": len(bench),
    }


def render(audit: dict[str, int], balance: dict) -> list[str]:
    """The report's sections for both."""
    n = audit["queries"] or 1
    lines = ["## Queries", "", "| queries that … | count | share | goal |", "|---|---:|---:|---:|"]
    for key, what, goal in (("title", "quote a tool's catalog title", "0"),
                            ("paging", "name a paging parameter", "0"),
                            ("nth_item", "pick \"the n-th item\"", "0"),
                            ("code_or_raw_date", "carry a raw yyyymmdd or a value the chain looks up", "≤ 5%")):
        lines.append(f"| {what} | {audit[key]} | {100 * audit[key] / n:.1f}% | {goal} |")
    total, bench_total = balance["tasks"] or 1, balance["bench_tasks"] or 1
    lines += ["", "## Balance beside KOPA-Bench", "", "| domain | tasks | share | KOPA-Bench |", "|---|---:|---:|---:|"]
    for domain in sorted(set(balance["domains"]) | set(balance["bench_domains"])):
        here, there = balance["domains"].get(domain, 0), balance["bench_domains"].get(domain, 0)
        lines.append(f"| {domain} | {here} | {100 * here / total:.1f}% | {100 * there / bench_total:.1f}% |")
    lines += ["", "| platform | tasks using it | share | KOPA-Bench |", "|---|---:|---:|---:|"]
    for platform in sorted(set(balance["platforms"]) | set(balance["bench_platforms"])):
        here, there = balance["platforms"].get(platform, 0), balance["bench_platforms"].get(platform, 0)
        lines.append(f"| {platform} | {here} | {100 * here / total:.1f}% | {100 * there / bench_total:.1f}% |")
    lines += ["", f"Tasks touching a documented (real) endpoint: {balance['real']} of {balance['tasks']} "
                  f"({100 * balance['real'] / total:.1f}%; goal ≥ 50%).", ""]
    return lines


def sample(kept: list[Candidate], n: int, seed: int = 0) -> list[Candidate]:
    """A seeded sample of `n` tasks (all of them when there are fewer), in dataset order."""
    picks = stream(seed, "edge-sample", str(len(kept))).permutation(len(kept))[:n]
    return [kept[int(i)] for i in sorted(picks)]


def trajectory_lines(c: Candidate) -> list[str]:
    """The golden trajectory as a reader follows it: one line a step, with how its arguments are bound."""
    lines = []
    for top in c.task.golden:
        for step in [top, *(top.parallel or [])] if top.parallel else [top]:
            if step.call is None:
                continue
            args = ", ".join(f"{k}={v}" for k, v in step.args.items())
            each = f" for each {step.for_each}" if step.for_each else ""
            pages = " (every page)" if step.pages == "all" else ""
            together = " [together]" if top.parallel else ""
            lines.append(f"{step.id} {step.call}({args}){each}{pages}{together}")
    return lines
