"""`kopa compare synth APIGEN_RUN EDGE_RUN`: the system-level comparison the EDGE paper leaves open (§7) —
APIGen and EDGE Phase B on the same inventory and backend, each with its budget of tool calls stated.

Every number is read from the two run folders or recomputed from them:

- dataset statistics through `kopa.synth.dataset.shape_statistics` (the statistics Phase B reports), an
  APIGen sample being a task whose calls are all in one turn and hand nothing on (no junction, so its
  one-to-many share is 0 by construction — which is the point of the comparison);
- verification drops: APIGen's three stages by reason, Phase B's dropped.jsonl by stage and reason;
- robustness: every sample re-executed on a drifted backend (drift epoch 1) and a faulty one (the harsh
  profile). An APIGen sample reproduces when every call answers the same records (SHA-256 of the records,
  as verification stored it); a Phase B task when its golden steps, executed again, give the same answer.
  Drift changes only the documented endpoints, so each side is also read on its samples that call one, and
  the verdict compares those (overall shares would compare the two tool mixes); chaining, hops and
  cardinality are APIGen's by construction and are stated as such, not compared;
- solve rates: both datasets played as KOPA-Bench episodes by the offline baselines — and, with
  `--role agent=MODEL[@URL]`, by that model — through `kopa bench run`'s runner and scorer (`kopa.apigen.solve`),
  compared on one criterion, every reference call matched (the only one an APIGen sample, with no final answer,
  has), each side's own verdict beside it; and, from the oracle's episodes, what the calls did (records per
  call, pages read beyond the first), measured rather than stated.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from kopa.apigen.record import XRecord
from kopa.apigen.run import ApigenError, read_verified
from kopa.apigen.solve import executed_figures, play, solve_summary, write_apigen_tasks
from kopa.apigen.verify import execute, issue_keys
from kopa.backends.spec import open_backend
from kopa.catalog.loader import Catalog, load_catalog
from kopa.eval.baselines import BASELINES
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, execute_golden
from kopa.fileio import read_json, write_atomic
from kopa.plots import pyplot
from kopa.synth.candidate import Candidate
from kopa.synth.dataset import (
    PAPER_ROWS,
    SynthError,
    TaskShape,
    read_candidates,
    read_kept,
    shape_of,
    shape_statistics,
)
from kopa.tools.runtime import ToolRuntime

Progress = Callable[[str, int, int], None]


# ------------------------------------------------------------------------------------------ reading runs

def apigen_shape(record: XRecord, catalog: Catalog) -> TaskShape:
    tools = tuple(dict.fromkeys(c.name for c in record.answers if c.name in catalog))
    domain = next((catalog[t].domain for t in tools if catalog[t].domain), None)
    return TaskShape(calls=len(record.answers), parallel=len(record.answers) > 1, turns=1, domain=domain, tools=tools)


def _edge_budget(run: Path, kept_all: list[Candidate]) -> dict[str, Any]:
    """Phase A's calls (its history) and Phase B's calls of the candidates it kept — failed synthesis
    attempts leave no call count, so Phase B's figure is a lower bound."""
    config = read_json(run / "config.json", what="a synthesis run's config", error=SynthError)
    phase_a = None
    history_file = Path(config.get("graph_run", "")) / "history.json"
    if history_file.exists():
        history = read_json(history_file, what="Phase A's history", error=SynthError).get("iterations")
        if not isinstance(history, list) or not all(isinstance(row, dict) for row in history):
            raise SynthError(f"{history_file}: not Phase A's history (no list of iterations)")
        phase_a = int(sum(row.get("calls", 0) for row in history))
    candidates = read_candidates(run)
    phase_b = sum(len(c.target.calls) for c in candidates)
    return {"phase_a": phase_a, "phase_b_at_least": phase_b, "backend": config.get("backend")}


def coverage(shapes: list[TaskShape]) -> dict[str, Any]:
    turns = [s.turns for s in shapes]
    return {"domains": dict(sorted(Counter(s.domain or "-" for s in shapes).items())),
            "tools": len({t for s in shapes for t in s.tools}),
            "turns_median": statistics.median(turns) if turns else 0, "turns_max": max(turns, default=0)}


# ------------------------------------------------------------------------------------------ robustness

def reproduces_apigen(records: list[XRecord], spec: str, catalog: Catalog, progress: Progress | None = None,
                      label: str = "", retried: list[bool] | None = None) -> list[bool]:
    """Per sample: every call answers the records verification stored. `retried` collects, per sample,
    whether a call needed the runtime's retries."""
    runtime = ToolRuntime(open_backend(spec), catalog=catalog)
    issue_keys(runtime, catalog)
    out = []
    for k, record in enumerate(records):
        stored = [r.get("digest") for r in record.provenance.get("results", [])]
        outcomes = execute(record, runtime, catalog)
        out.append(len(stored) == len(outcomes) and all(o.ok and o.digest == d for o, d in zip(outcomes, stored,
                                                                                                 strict=True)))
        if retried is not None:
            retried.append(any(o.attempts > 1 for o in outcomes))
        if progress is not None:
            progress(label, k + 1, len(records))
    return out


def reproduces_edge(kept: list[Candidate], spec: str, progress: Progress | None = None, label: str = "",
                    retried: list[bool] | None = None) -> list[bool]:
    """Per task: its golden steps, executed again on `spec` (as `kopa bench targets` executes them), end in
    the stored answer with every call answered."""
    backend = open_backend(spec)
    out = []
    for k, c in enumerate(kept):
        env = None
        try:
            env = Environment(c.task, backend)
            run = execute_golden(c.task, env)
            out.append(all(call.result.ok for call in env.calls) and run.answer == c.target.answer)
        except (GoldenError, RuntimeError):
            out.append(False)
        if retried is not None:
            retried.append(env is not None and any(len(call.result.attempts) > 1 for call in env.calls))
        if progress is not None:
            progress(label, k + 1, len(kept))
    return out


def _documented(catalog: Catalog, tools: Any) -> bool:
    """Whether a sample calls a documented (real) endpoint, the only kind drift changes."""
    return any(name in catalog and catalog[name].spec.real for name in tools)


def _note(shares: dict[str, float], intervals: dict[str, list[float]], name: str, flags: list[bool],
          documented: list[bool]) -> None:
    """A backend's reproduction share and its interval, over all samples and over those calling a documented
    endpoint."""
    on_documented = [f for f, d in zip(flags, documented, strict=True) if d]
    for key, subset in ((name, flags), (f"{name} · documented", on_documented)):
        shares[key], intervals[key] = _share(subset), wilson(subset)
        shares[f"{key} · n"] = len(subset)


def _share(flags: list[bool]) -> float:
    return sum(flags) / (len(flags) or 1)


def wilson(flags: list[bool], z: float = 1.96) -> list[float]:
    """The 95% Wilson score interval of a share (sound near 0% and 100%, where most robustness shares lie,
    unlike the normal approximation); [0, 1] for no sample."""
    n = len(flags)
    if n == 0:
        return [0.0, 1.0]
    p = sum(flags) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # at 0 of n and n of n the bound is exactly 0 or 1; rounding would put it just inside
    return [0.0 if p == 0 else max(0.0, centre - half), 1.0 if p == 1 else min(1.0, centre + half)]


# ------------------------------------------------------------------------------------------ solve rates

def solve_as_episodes(a_sample: list[XRecord], e_ids: list[str], catalog: Catalog, a_backend: str, edge_run: Path,
                      e_backend: str, out: Path, *, progress: Progress | None = None, model: str | None = None,
                      base_url: str | None = None, llm_cache: str | None = None, llm_mode: str = "auto"
                      ) -> dict[str, Any]:
    """Both datasets played as KOPA-Bench episodes by every offline baseline (and the named model), by the same
    runner and scorer: per policy and side, the share with every reference call matched and the share passed on
    the side's own basis, each with its 95% Wilson interval, and Action; from the oracle's episodes, what the
    calls did (records per call, pages beyond the first). Run folders go to <out>/solve/<side>/<policy>/."""
    a_ids = write_apigen_tasks(a_sample, catalog, a_backend, out / "apigen-tasks")
    policies = list(BASELINES) + (["openai"] if model else [])
    rates: dict[str, dict[str, Any]] = {}
    executed: dict[str, Any] = {}
    for k, policy in enumerate(policies):
        rates[policy] = {}
        for side, task_set, ids, backend in (("apigen", out / "apigen-tasks", a_ids, a_backend),
                                             ("edge", edge_run, e_ids, e_backend)):
            run = out / "solve" / side / policy
            scored = play(task_set, ids, backend, run, policy, model=model, base_url=base_url, llm_cache=llm_cache,
                          llm_mode=llm_mode) if ids else []
            flags = solve_summary(scored)
            rates[policy][side] = {"played": flags["played"], "action": flags["action"],
                                   **_rate("matched", flags["matched"]), **_rate("passed", flags["passed"])}
            if policy == "oracle":
                figures = executed_figures(run, scored)
                executed[side] = {**{key: figures[key] for key in ("tasks", "calls_mean", "records_per_call_mean",
                                                                    "records_per_call_median")},
                                  **_rate("later_page", figures["later_page"]),
                                  **_rate("more_pages", figures["more_pages"])}
        if progress is not None:
            progress("solve rates as KOPA-Bench episodes", k + 1, len(policies))
    return {"model": model, "policies": rates, "executed": executed}


def _rate(name: str, flags: list[bool]) -> dict[str, Any]:
    return {name: _share(flags), f"{name}_ci": wilson(flags)}


# ------------------------------------------------------------------------------------------ the report

def compare_runs(apigen_run: Path, edge_run: Path, out: Path, *, drift: str, faulty: str, limit: int | None = None,
                 progress: Progress | None = None, model: str | None = None, base_url: str | None = None,
                 llm_cache: str | None = None, llm_mode: str = "auto") -> str:
    catalog = load_catalog()
    records = read_verified(apigen_run)
    records = [r for r in records if r.answers]
    a_stats_file = read_json(apigen_run / "stats.json", what="an APIGen run's stats", error=ApigenError)
    if "table" not in a_stats_file:
        raise ApigenError(f"{apigen_run / 'stats.json'}: not an APIGen run's stats (no table)")
    a_config = read_json(apigen_run / "config.json", what="an APIGen run's config", error=ApigenError)
    kept = read_kept(edge_run)
    e_config = read_json(edge_run / "config.json", what="a synthesis run's config", error=SynthError)
    a_shapes = [apigen_shape(r, catalog) for r in records]
    e_shapes = [shape_of(c) for c in kept]
    a_stats, e_stats = shape_statistics(a_shapes), shape_statistics(e_shapes)
    a_cov, e_cov = coverage(a_shapes), coverage(e_shapes)
    e_budget = _edge_budget(edge_run, kept)
    a_sample, e_sample = records[:limit] if limit else records, kept[:limit] if limit else kept
    robust: dict[str, dict[str, float]] = {"apigen": {}, "edge": {}}
    intervals: dict[str, dict[str, list[float]]] = {"apigen": {}, "edge": {}}  # 95% Wilson, beside each share
    retried: dict[str, list[bool]] = {"apigen": [], "edge": []}
    # Drift changes the documented endpoints only, so each side is also read on its samples that call one:
    # the two datasets' shares of such samples differ, and the overall figures would compare tool mixes.
    documented = {"apigen": [_documented(catalog, (c.name for c in r.answers)) for r in a_sample],
                  "edge": [_documented(catalog, (g.tool for g in c.target.calls)) for c in e_sample]}
    for name, spec in (("as built", a_config.get("backend", "sim")), ("drift", drift), ("faults", faulty)):
        flags = reproduces_apigen(a_sample, spec, catalog, progress, f"APIGen on {spec}",
                                  retried["apigen"] if name == "faults" else None)
        _note(robust["apigen"], intervals["apigen"], name, flags, documented["apigen"])
    for name, spec in (("as built", e_config.get("backend", "sim")), ("drift", drift), ("faults", faulty)):
        flags = reproduces_edge(e_sample, spec, progress, f"EDGE on {spec}",
                                retried["edge"] if name == "faults" else None)
        _note(robust["edge"], intervals["edge"], name, flags, documented["edge"])
    for side in ("apigen", "edge"):
        robust[side]["faults_retried"] = _share(retried[side])
        robust[side]["documented_share"] = _share(documented[side])
    drops_e = _edge_drops(edge_run)
    solve = solve_as_episodes(a_sample, [c.task.id for c in e_sample], catalog, a_config.get("backend", "sim"),
                              edge_run, e_config.get("backend", "sim"), out, progress=progress, model=model,
                              base_url=base_url, llm_cache=llm_cache or str(out / "llm-cache"), llm_mode=llm_mode)
    a_pool = ", ".join(a_config.get("platforms") or []) or "every platform"
    a_pool += " (tools with a live endpoint)" if a_config.get("real_only") else " (live and simulator-only tools)"
    graph = Path(e_config.get("graph_run", "")) / "graph.json"
    e_pool = f"{len(orjson.loads(graph.read_bytes()).get('nodes', []))} tools" if graph.exists() else "an unknown G*"
    result = {"apigen": {"pool": a_pool, "statistics": a_stats, "coverage": a_cov, "calls": a_stats_file.get("calls"),
                         "table": a_stats_file["table"], "robustness": robust["apigen"],
                         "intervals": intervals["apigen"], "sampled": len(a_sample),
                         "styles": dict(sorted(Counter(r.style for r in records).items()))},
              "edge": {"pool": e_pool, "statistics": e_stats, "coverage": e_cov, "budget": e_budget, "drops": drops_e,
                       "robustness": robust["edge"], "intervals": intervals["edge"], "sampled": len(e_sample),
                       "junctions": dict(sorted(Counter(j.kind for c in kept for j in c.junctions).items())),
                       "mix": dict(sorted(Counter(c.category for c in kept).items()))},
              "backends": {"drift": drift, "faults": faulty}, "solve": solve}
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "comparison.json", orjson.dumps(result, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2))
    _plots(out / "plots", result)
    text = render(apigen_run.name, edge_run.name, result)
    (out / "report.md").write_text(text, encoding="utf-8")
    return text


def _edge_drops(run: Path) -> dict[str, Any]:
    drops: Counter[str] = Counter()
    path = run / "dropped.jsonl"
    if path.exists():
        for line in path.read_bytes().splitlines():
            d = orjson.loads(line)
            drops[f"{d['stage']}:{d['reason']}"] += 1
    failures: Counter[str] = Counter()
    fpath = run / "failures.jsonl"
    if fpath.exists():
        for line in fpath.read_bytes().splitlines():
            failures[orjson.loads(line)["failure"]["reason"]] += 1
    candidates = sum(1 for _ in (run / "candidates.jsonl").read_bytes().splitlines()) \
        if (run / "candidates.jsonl").exists() else 0
    return {"candidates": candidates, "dropped": dict(sorted(drops.items())), "synthesis_failures":
            dict(sorted(failures.items()))}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def render(a_name: str, e_name: str, r: dict[str, Any]) -> str:
    a, e = r["apigen"], r["edge"]
    sa, se = a["statistics"], e["statistics"]
    budget = e["budget"]
    e_calls = (f"{budget['phase_a']:,} Phase A + ≥ {budget['phase_b_at_least']:,} Phase B"
               if budget["phase_a"] is not None else f"≥ {budget['phase_b_at_least']:,} Phase B (Phase A unknown)")
    e_total = (budget["phase_a"] or 0) + budget["phase_b_at_least"]
    note = "" if abs(a["calls"] - e_total) <= 0.1 * max(e_total, 1) else \
        " **The budgets differ by more than 10%: rerun APIGen with `--budget` to match.**"
    lines = [f"# APIGen `{a_name}` vs EDGE Phase B `{e_name}`", "",
             f"Inventory: APIGen {a['pool']}; EDGE Phase B on G* of {e['pool']}. Tool calls spent — APIGen: "
             f"{a['calls']:,}; EDGE: {e_calls}.{note}", "",
             "## Dataset statistics", "", "| statistic | APIGen | EDGE Phase B |", "|---|---:|---:|",
             f"| tasks (verified) | {sa['tasks']} | {se['tasks']} |",
             f"| one-to-many chaining share | — (by construction: no call hands anything on) | "
             f"{_pct(se['one_to_many'])} |",
             f"| median / max cardinality (records fed to a junction) | — (no junction) | "
             f"{se['card_median']:g} / {se['card_max']:,} |",
             f"| hops (sequential turns, median / max) | 1 / 1 (by construction: one turn) | "
             f"{e['coverage']['turns_median']:g} / {e['coverage']['turns_max']} |",
             f"| calls per task (mean / max) | {sa['calls_mean']:.2f} / {sa['calls_max']} | "
             f"{se['calls_mean']:.2f} / {se['calls_max']} |",
             f"| tasks with ≥ 4 calls | {_pct(sa['hops4'])} | {_pct(se['hops4'])} |",
             f"| parallel share (two or more calls in one turn) | {_pct(sa['parallel'])} | {_pct(se['parallel'])} |",
             f"| junction types | none (calls hand nothing on) | "
             f"{', '.join(f'{k} {v}' for k, v in e['junctions'].items()) or 'none'} |",
             f"| styles / task types | {', '.join(f'{k} {v}' for k, v in a['styles'].items())} | "
             f"{', '.join(f'{k} {v}' for k, v in e['mix'].items())} |",
             f"| domains | {_domains(a['coverage'])} | {_domains(e['coverage'])} |",
             f"| data tools covered | {a['coverage']['tools']} | {e['coverage']['tools']} |", "",
             "## Beside the paper's dataset comparison", "",
             "| dataset | one-to-many chaining | median cardinality | max |", "|---|---:|---:|---:|"]
    lines += [f"| {n} (paper) | {x} | {y} | {z} |" for n, x, y, z in PAPER_ROWS]
    lines += ["| KOPA (paper) | 81.2% | 27 | 224,958 |",
              "| **APIGen, this run** | — (none by construction) | — | — |",
              f"| **EDGE Phase B, this run** | {_pct(se['one_to_many'])} | {se['card_median']:g} | "
              f"{se['card_max']:,} |", "", "## Verification drops", "",
              "| pipeline | stage | reason | dropped | share of generated |", "|---|---|---|---:|---:|"]
    t = a["table"]
    for stage, reasons in t["reasons"].items():
        for reason, k in reasons.items():
            lines.append(f"| APIGen | {stage} | {reason} | {k} | {_pct(k / (t['generated'] or 1))} |")
    for reason, k in t["not_counted"].items():
        lines.append(f"| APIGen | execution (not counted) | {reason} | {k} | {_pct(k / (t['generated'] or 1))} |")
    n_e = e["drops"]["candidates"] or 1
    for key, k in e["drops"]["dropped"].items():
        stage, reason = key.split(":", 1)
        lines.append(f"| EDGE | filter stage {stage} | {reason} | {k} | {_pct(k / n_e)} |")
    lines += ["", f"APIGen pass rate {_pct(t['pass_rate'])} of {t['generated']} generated; EDGE kept {se['tasks']} of "
              f"{e['drops']['candidates']} candidates (synthesis attempts that failed before a candidate: "
              f"{sum(e['drops']['synthesis_failures'].values())}).", "",
              "## Robustness: share of samples that still reproduce their answer", "",
              "Each share with its 95% Wilson interval and the samples it is over.", "",
              "| backend | APIGen | EDGE Phase B |", "|---|---:|---:|"]
    for name, spec in (("as built", "the run's own"), ("drift", r["backends"]["drift"]),
                       ("faults", r["backends"]["faults"])):
        lines.append(f"| {name} (`{spec}`) | {_cell(a, name)} | {_cell(e, name)} |")
        key = f"{name} · documented"
        lines.append(f"| {name}, samples calling a documented endpoint | {_cell(a, key)} | {_cell(e, key)} |")
    lines.append(f"| samples calling a documented endpoint (drift changes only those) | "
                 f"{_pct(a['robustness']['documented_share'])} | {_pct(e['robustness']['documented_share'])} |")
    lines.append(f"| samples whose calls needed the runtime's retries under faults | {_pct(a['robustness']['faults_retried'])} "
                 f"| {_pct(e['robustness']['faults_retried'])} |")
    lines += ["", f"Re-executed: {a['sampled']} APIGen samples, {e['sampled']} EDGE tasks.", "",
              "## Verdict", "", _verdict(r), "", *_solve_lines(r.get("solve")), "",
              "Plots: plots/robustness.png, plots/statistics.png.", ""]
    return "\n".join(lines)


def _cell(side: dict[str, Any], key: str) -> str:
    """'93.7% [91.9–95.1] of 894'; a report from before intervals (no 'intervals') shows the share alone."""
    shown = _pct(side["robustness"][key])
    if key not in side.get("intervals", {}):
        return shown
    lo, hi = side["intervals"][key]
    return f"{shown} [{100 * lo:.1f}–{100 * hi:.1f}] of {side['robustness'][f'{key} · n']:,}"


def _solve_lines(solve: dict[str, Any] | None) -> list[str]:
    if solve is None:  # a report written before solve rates were played as episodes
        return []
    rates, executed = solve["policies"], solve["executed"]
    first = next(iter(rates.values()))
    lines = ["## Solve rates, both datasets as KOPA-Bench episodes", "",
             "Each task played once by each policy through `kopa bench run`'s runner and scored by `kopa bench "
             "score`'s scorer. Solved = every reference call matched (ACTION correctness 1), the one criterion an "
             "APIGen sample has (no final answer); each side's own verdict is beside it — APIGen's end state "
             "(ENVIRONMENT), EDGE's final answer (RESPONSE). Each share with its 95% Wilson interval.", "",
             "| policy | what it does | APIGen: every call matched | APIGen: passed | EDGE: every call matched | "
             "EDGE: passed | Action APIGen / EDGE |", "|---|---|---:|---:|---:|---:|---:|"]
    for policy, sides in rates.items():
        a, e = sides["apigen"], sides["edge"]
        name, what = (f"`{solve['model']}`", "the named model") if policy == "openai" else \
            (policy, BASELINES.get(policy, ""))
        lines.append(f"| {name} | {what} | {_ci(a, 'matched')} | {_ci(a, 'passed')} | {_ci(e, 'matched')} | "
                     f"{_ci(e, 'passed')} | {a['action']:.3f} / {e['action']:.3f} |")
    lines += ["", f"Played: {first['apigen']['played']:,} APIGen tasks, {first['edge']['played']:,} EDGE tasks; run "
              "folders under solve/<side>/<policy>/ (`kopa bench view` shows each episode).", ""]
    if executed:
        a, e = executed["apigen"], executed["edge"]
        lines += ["## Measured from the oracle's executed calls", "",
                  "| figure | APIGen | EDGE Phase B |", "|---|---:|---:|",
                  f"| calls per task (mean) | {a['calls_mean']:.2f} | {e['calls_mean']:.2f} |",
                  f"| records returned per answered call (mean / median) | {a['records_per_call_mean']:.1f} / "
                  f"{a['records_per_call_median']:g} | {e['records_per_call_mean']:.1f} / "
                  f"{e['records_per_call_median']:g} |",
                  f"| tasks that read a page beyond the first | {_ci(a, 'later_page')} | {_ci(e, 'later_page')} |",
                  f"| tasks with an answer longer than the page that carried it | {_ci(a, 'more_pages')} | "
                  f"{_ci(e, 'more_pages')} |", ""]
    return lines


def _ci(side: dict[str, Any], key: str) -> str:
    lo, hi = side[f"{key}_ci"]
    return f"{_pct(side[key])} [{100 * lo:.1f}–{100 * hi:.1f}]"


def _separated(a_ci: list[float], e_ci: list[float]) -> str | None:
    """Which side is higher where the 95% intervals do not overlap; None where they do."""
    return "APIGen" if a_ci[0] > e_ci[1] else "EDGE Phase B" if e_ci[0] > a_ci[1] else None


def _domains(cov: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in cov["domains"].items())


def _verdict(r: dict[str, Any]) -> str:
    """Only what the runs measured: chaining, hops and cardinality are APIGen's by construction (its calls
    hand nothing on), so they are stated, not compared; robustness is compared on the samples that call a
    documented endpoint (drift changes nothing else), so the tool mix does not decide it."""
    a, e = r["apigen"], r["edge"]
    parts = [f"By construction APIGen has no chains (one turn, no junction); {_pct(e['statistics']['one_to_many'])} "
             "of EDGE's tasks chain one-to-many."]
    for name in ("drift", "faults"):
        key = f"{name} · documented"
        (a_lo, a_hi), (e_lo, e_hi) = a["intervals"][key], e["intervals"][key]
        # a winner only where the 95% intervals do not overlap: a difference within them is not one the runs show
        better = _separated([a_lo, a_hi], [e_lo, e_hi])
        said = (f"reproduced better by **{better}**" if better else
                "**no difference the runs can show** (the 95% intervals overlap)")
        parts.append(f"Under {name}, on samples calling a documented endpoint: {said} "
                     f"(APIGen {_cell(a, key)}, EDGE {_cell(e, key)}).")
    for policy, sides in ((r.get("solve") or {}).get("policies") or {}).items():
        if policy == "oracle":  # the ceiling: it replays the reference calls on both sides
            continue
        pa, pe = sides["apigen"], sides["edge"]
        harder = _separated(pe["matched_ci"], pa["matched_ci"])  # the side it solves less often is the harder
        name = f"`{r['solve']['model']}`" if policy == "openai" else f"`{policy}`"
        said = f"**{harder}** is the harder dataset" if harder else "no difference the runs can show"
        parts.append(f"Solved by {name}: {said} (every call matched: APIGen {_ci(pa, 'matched')}, "
                     f"EDGE {_ci(pe, 'matched')}).")
    return " ".join(parts)


def _plots(directory: Path, r: dict[str, Any]) -> None:
    plt = pyplot()

    directory.mkdir(parents=True, exist_ok=True)
    names = ["as built", "drift", "faults"]
    xs = range(len(names))
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.bar([x - 0.2 for x in xs], [100 * r["apigen"]["robustness"][n] for n in names], width=0.4, label="APIGen")
    ax.bar([x + 0.2 for x in xs], [100 * r["edge"]["robustness"][n] for n in names], width=0.4, label="EDGE Phase B")
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("% reproducing its answer")
    ax.set_ylim(0, 105)
    ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "robustness.png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    keys = [("one_to_many", "one-to-many"), ("parallel", "parallel"), ("hops4", "≥ 4 calls")]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    xs = range(len(keys))
    ax.bar([x - 0.2 for x in xs], [100 * r["apigen"]["statistics"][k] for k, _ in keys], width=0.4, label="APIGen")
    ax.bar([x + 0.2 for x in xs], [100 * r["edge"]["statistics"][k] for k, _ in keys], width=0.4,
           label="EDGE Phase B")
    ax.set_xticks(list(xs), [label for _, label in keys])
    ax.set_ylabel("% of tasks")
    ax.legend()
    fig.tight_layout()
    fig.savefig(directory / "statistics.png", dpi=110, metadata={"Software": None})
    plt.close(fig)
