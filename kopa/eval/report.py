"""Reports: pass@1 (mean over n rollouts), pass@k (share of tasks with a success), the unbiased pass@k
estimator, 95% intervals (kopa.eval.intervals) and each seed's pass@1, per domain and platform, Action, call accounting, failure causes —
Markdown and PNG. A report reads scored episodes only (``scores.jsonl``), so it re-renders anywhere."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter, defaultdict
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pydantic import BaseModel

from kopa.eval.causes import CAUSES
from kopa.eval.episode import LIMITS, UNPLAYED, ScoredEpisode
from kopa.eval.intervals import METHOD, task_bootstrap
from kopa.fileio import read_appended
from kopa.plots import pyplot


def unbiased_pass_at_k(n: int, c: int, k: int) -> float:
    """1 − C(n−c, k) / C(n, k): the chance that at least one of k draws from n rollouts succeeds."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


class GroupMetrics(BaseModel):
    name: str
    tasks: int
    pass_at_1: float
    pass_at_1_ci: tuple[float, float]  # 95%: kopa.eval.intervals.METHOD (inside [0, 1], defined with one seed)
    pass_at_1_seeds: list[float] = []  # pass@1 of each policy seed, in seed order (one value: one seed)
    pass_at_k: float
    action: float


class ModelInfo(BaseModel):
    """The model a run evaluated, from its config.json: what a reader needs to know what was measured."""

    id: str
    server: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None  # None: the server's default
    max_turns: int | None = None
    llm_retries: int | None = None


class Metrics(BaseModel):
    policy: str
    model: ModelInfo | None = None  # the openai policy's model; None for the offline baselines
    kopa_version: str = ""
    episodes: int
    rollouts: int
    seeds: list[int]
    overall: GroupMetrics
    unbiased_pass_at_k: dict[int, float]
    domains: list[GroupMetrics]
    platforms: list[GroupMetrics]
    causes: dict[str, int]
    not_played: int  # episodes the model or MCP server failed to play: apart, in no figure above
    not_played_causes: dict[str, str] = {}  # by kind of failure (ChatModelError, …): its count and one message
    limits: dict[str, int] = {}  # episodes that met each cut or limit (LIMITS)
    correctness: float  # mean Corr over scored episodes, ungated
    efficiency: float  # mean Eff over scored episodes, ungated
    calls: int  # every call the policies made, malformed and refused ones included
    malformed_calls: int
    model_requests: int = 0  # a model policy's requests that came through ...
    model_attempts: int = 0  # ... and every attempt they took (retries = attempts − requests)


def _group(name: str, episodes: list[ScoredEpisode]) -> GroupMetrics:
    by_seed: dict[int, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for e in episodes:
        by_seed[e.seed][e.task_id].append(e.score.passed)
    p1 = [statistics.fmean(statistics.fmean(v) for v in by_seed[s].values()) for s in sorted(by_seed)]
    pk = [statistics.fmean(float(any(v)) for v in tasks.values()) for tasks in by_seed.values()]
    per_task: dict[str, list[float]] = defaultdict(list)
    for e in episodes:
        per_task[e.task_id].append(float(e.score.passed))
    _, lo, hi = task_bootstrap(per_task)
    return GroupMetrics(name=name, tasks=len(per_task), pass_at_1=statistics.fmean(p1), pass_at_1_ci=(lo, hi),
                        pass_at_1_seeds=p1, pass_at_k=statistics.fmean(pk),
                        action=statistics.fmean(e.score.action for e in episodes))


def compute_metrics(episodes: list[ScoredEpisode], not_played: int = 0) -> Metrics:
    """The figures over the played episodes; `not_played` (and any episode an older kopa stored with an
    infrastructure error) is counted apart, never as a failure of the policy."""
    unplayed = [e for e in episodes if e.error is not None]
    episodes = [e for e in episodes if e.error is None]
    not_played += len(unplayed)
    if not episodes:
        raise ValueError("no episodes to report on")
    rollouts = max(e.rollout for e in episodes) + 1
    per_task: dict[tuple[int, str], list[bool]] = defaultdict(list)
    for e in episodes:
        per_task[(e.seed, e.task_id)].append(e.score.passed)
    unbiased = {k: statistics.fmean(unbiased_pass_at_k(len(v), sum(v), k) for v in per_task.values())
                for k in range(1, rollouts + 1)}
    by_domain: dict[str, list[ScoredEpisode]] = defaultdict(list)
    by_platform: dict[str, list[ScoredEpisode]] = defaultdict(list)
    for e in episodes:
        by_domain[e.domain].append(e)
        for p in e.platforms:
            by_platform[p].append(e)
    causes = Counter(e.failure_cause for e in episodes if e.failure_cause)
    return Metrics(policy=episodes[0].policy, episodes=len(episodes), rollouts=rollouts,
                   seeds=sorted({e.seed for e in episodes}), overall=_group("all", episodes),
                   unbiased_pass_at_k=unbiased,
                   domains=[_group(d, v) for d, v in sorted(by_domain.items())],
                   platforms=[_group(p, v) for p, v in sorted(by_platform.items())],
                   causes={c: causes[c] for c in CAUSES if causes[c]},
                   not_played=not_played,
                   limits={x: n for x in LIMITS if (n := sum(x in e.limits for e in episodes))},
                   correctness=statistics.fmean(e.score.correctness for e in episodes),
                   efficiency=statistics.fmean(e.score.efficiency for e in episodes),
                   calls=sum(e.calls for e in episodes), malformed_calls=sum(e.malformed_calls for e in episodes),
                   model_requests=sum(e.model_requests for e in episodes),
                   model_attempts=sum(e.model_attempts for e in episodes))


def _table(rows: list[GroupMetrics], k: int) -> list[str]:
    """One column per figure: pass@k beside pass@1 only where k > 1 (with one rollout they are the same), and
    each seed's pass@1 where there are several."""
    with_k = k > 1
    seeds = max((len(r.pass_at_1_seeds) for r in rows), default=1) > 1
    out = [f"| group | tasks | pass@1 | 95% interval |{' by seed |' if seeds else ''}{f' pass@{k} |' if with_k else ''}"
           " Action |", f"|---|---:|---:|---|{'---|' if seeds else ''}{'---:|' if with_k else ''}---:|"]
    for r in rows:
        by_seed = f" {' / '.join(f'{v:.4f}' for v in r.pass_at_1_seeds)} |" if seeds else ""
        out.append(f"| {r.name} | {r.tasks} | {r.pass_at_1:.4f} | [{r.pass_at_1_ci[0]:.4f}, {r.pass_at_1_ci[1]:.4f}] "
                   f"|{by_seed}{f' {r.pass_at_k:.4f} |' if with_k else ''} {r.action:.4f} |")
    return out


def _model_line(m: Metrics) -> str:
    if m.model is None:
        return f"kopa {m.kopa_version}" if m.kopa_version else ""
    info = m.model
    tokens = info.max_tokens if info.max_tokens is not None else "the server's default"
    return (f"model `{info.id}` at `{info.server or 'the OpenAI API'}` · temperature {info.temperature:g} · "
            f"max_tokens {tokens} · max_turns {info.max_turns} · --llm-retries {info.llm_retries} · "
            f"kopa {m.kopa_version}")


def render_markdown(m: Metrics, title: str, scored_with: str | None = None) -> str:
    k = m.rollouts
    lines = [f"# KOPA-Bench — {title}", "",
             f"policy `{m.policy}` · {m.episodes} episodes · {m.rollouts} rollouts per task · seeds {m.seeds}", "",
             *([_model_line(m), ""] if _model_line(m) else []),
             *([scored_with, ""] if scored_with else []),
             "pass@1 is the mean over rollouts (then over tasks); pass@k the share of tasks with at least one "
             f"success among the k rollouts; the 95% interval is {METHOD}"
             + (", so it reflects the tasks drawn and, where seeds disagree on a task, the seeds; one seed (no "
                "spread across seeds to show)." if len(m.seeds) == 1 else
                "; beside it each seed's pass@1.") + " Action is (Corr + Eff)/2, gated on the outcome.", "", "## Overall", "", *_table([m.overall], k), "",
             "Unbiased pass@k estimator: " + ", ".join(f"k={kk}: {v:.4f}" for kk, v in m.unbiased_pass_at_k.items()),
             "", f"Ungated means: Corr {m.correctness:.4f} · Eff {m.efficiency:.4f}. Calls: {m.calls} "
             f"({m.calls / m.episodes:.2f} per episode), {m.malformed_calls} malformed "
             "(unparsable arguments or a tool not offered; counted in N_total and the budget)."
             + (f" Model requests: {m.model_requests}, in {m.model_attempts} attempts "
                f"({m.model_attempts - m.model_requests} retried; --llm-retries)." if m.model_requests else ""),
             "", "## By domain", "", *_table(m.domains, k), "", "## By platform", "", *_table(m.platforms, k), "",
             "## Failures by cause", ""]
    if m.causes:
        lines += ["| cause | episodes |", "|---|---:|", *[f"| {c} | {n} |" for c, n in m.causes.items()]]
    else:
        lines.append("No failed episode.")
    if m.limits:
        lines += ["", "Episodes that met a cut or limit (set in config.json; a result reads differently under "
                      "others): " + ", ".join(f"{x} {n}" for x, n in m.limits.items()) + "."]
    if m.not_played:
        lines += ["", f"**{m.not_played} episode(s) not played**: the model server or an MCP server failed "
                      "(unplayed.jsonl says why). They are in no figure above; run the same command again to "
                      "play them."]
        if m.not_played_causes:
            lines += ["", "| why not played | episodes, and one of them |", "|---|---|",
                      *[f"| {kind} | {told} |" for kind, told in m.not_played_causes.items()]]
    lines += ["", "![pass@1 by domain](plots/pass_by_domain.png)", "", "![failures](plots/failure_causes.png)", ""]
    return "\n".join(lines)


def write_plots(m: Metrics, directory: Path) -> None:
    plt = pyplot()

    directory.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    names = [d.name for d in m.domains]
    values = [d.pass_at_1 for d in m.domains]
    errors = [[v - d.pass_at_1_ci[0] for v, d in zip(values, m.domains, strict=True)],
              [d.pass_at_1_ci[1] - v for v, d in zip(values, m.domains, strict=True)]]
    ax.bar(names, values, yerr=errors, capsize=4, color="#4C72B0")
    ax.bar(names, [d.pass_at_k for d in m.domains], color="none", edgecolor="#DD8452", label=f"pass@{m.rollouts}")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("pass@1")
    ax.set_title(f"{m.policy}: pass@1 by domain (95% bootstrap interval over tasks"
                 + (", one seed)" if len(m.seeds) == 1 else ")"))
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(directory / "pass_by_domain.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(7, 3))
    causes = m.causes or {"none": 0}
    ax.barh(list(causes), list(causes.values()), color="#C44E52")
    ax.set_xlabel("failed episodes")
    ax.set_title(f"{m.policy}: failures by cause")
    fig.tight_layout()
    fig.savefig(directory / "failure_causes.png", dpi=110)
    plt.close(fig)


def _scored_with(out_dir: Path) -> str | None:
    """One line saying how the scores were made, from the folder's ``scoring.json``."""
    path = out_dir / "scoring.json"
    if not path.exists():
        return None
    info = json.loads(path.read_text(encoding="utf-8"))
    judge = f"judge model `{info['judge_model']}`" if info.get("judge_model") else "the offline judge"
    return f"Scored from `{info.get('run')}` against task set `{info.get('task_set')}` with {judge}."


def _model_of(out_dir: Path) -> ModelInfo | None:
    """The model of a run folder's config.json (a folder scored elsewhere, or an offline policy: None)."""
    path = out_dir / "config.json"
    try:
        folder = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        return None
    config = folder.get("config") if isinstance(folder, dict) else None  # kopa.eval.runner.read_config's layout
    if not isinstance(config, dict) or not config.get("model"):
        return None
    return ModelInfo(id=config["model"], server=config.get("base_url"), temperature=config.get("temperature", 0.0),
                     max_tokens=config.get("max_tokens"), max_turns=config.get("max_turns"),
                     llm_retries=config.get("llm_retries"))


def _why_not_played(lines: list[bytes]) -> dict[str, str]:
    """The unplayed episodes of a run folder by kind of failure (the exception's name that opens each error):
    how many, and the first one's message, cut to a line (a table cell)."""
    found: dict[str, list[str]] = {}
    for line in lines:
        try:
            error = str(json.loads(line).get("error") or "unknown")
        except (ValueError, AttributeError):
            continue
        kind, _, _ = error.partition(":")
        found.setdefault(kind.strip() if kind.strip().isidentifier() else "other", []).append(error)
    return {kind: f"{len(errors)}: {' '.join(errors[0].split())[:160].replace('|', '/')}"
            for kind, errors in sorted(found.items())}


def kopa_version() -> str:
    try:
        return version("kopa")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def write_report(out_dir: Path, episodes: list[ScoredEpisode]) -> Metrics:
    """report.md, metrics.json and the plots of a folder's scored episodes; the episodes its last run could
    not play (unplayed.jsonl, when the folder is a run folder) are counted apart."""
    unplayed = read_appended(out_dir / UNPLAYED, bytes)
    metrics = compute_metrics(episodes, len(unplayed))
    metrics = metrics.model_copy(update={"model": _model_of(out_dir), "kopa_version": kopa_version(),
                                         "not_played_causes": _why_not_played(unplayed)})
    (out_dir / "report.md").write_text(render_markdown(metrics, out_dir.name, _scored_with(out_dir)),
                                       encoding="utf-8")
    (out_dir / "metrics.json").write_text(metrics.model_dump_json(indent=2), encoding="utf-8")
    write_plots(metrics, out_dir / "plots")
    return metrics
