"""`kopa study robustness`: how an agent's KOPA-Bench score degrades under injected faults and endpoint drift.

A cell is (policy, fault kind, rate, retries, seed); its unit plays every task of the task set once on
`faults:<kind at rate>,seed=<seed>@<world>` (kind `drift`: the realistic mix at the rate on the world at
drift epoch 1 of the default scenario), with the runtime retrying environmental failures (retries on: up to 5
attempts with backoff on the virtual clock) or not (off: one attempt). The seed is the fault seed and the
policy seed. At rate 0 every kind but drift injects nothing, so those cells share one unit.

runs/<name>/config.json      the RobustnessConfig and its digest (a folder made with another one is refused)
runs/<name>/profiles/*.toml  the fault profile of every (kind, rate) — `kopa.study.faults.profile_toml`, the
                             pruning study's: rate r is the share of first attempts failing
runs/<name>/grid.duckdb      units (finished units) and episodes (one row per task and unit)
runs/<name>/summary.json     one object per (policy, kind, rate, retries): pass@1 and Action over the seeds
                             (mean, 95% bootstrap interval over tasks), the share of episodes that met a fault, failure causes
runs/<name>/report.md, plots/heatmap-*.png, plots/curves.png

Units run on an executor in batches (a progress bar advances per batch, each finished batch is saved in one
transaction); a rerun plays only the units grid.duckdb lacks. summary.json is in grid order whatever ran
where: the same bytes with 1 or N workers and on Ray.
"""

from __future__ import annotations

import hashlib
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import duckdb
import orjson
from pydantic import BaseModel, ConfigDict, Field

from kopa.errors import UserError
from kopa.eval.intervals import task_bootstrap
from kopa.eval.policies.offline import POLICIES
from kopa.eval.runner import RunConfig, make_policy, play_one, select_tasks
from kopa.eval.scoring.episode import score_stored
from kopa.eval.task import task_set
from kopa.executor import current, run_in_batches
from kopa.fileio import RunFolder, write_atomic, writes_run
from kopa.study.backends import check_world, open_unit_backend
from kopa.study.estimate import grid_seconds
from kopa.study.faults import DRIFT, MIX
from kopa.study.grid import RETRY_ATTEMPTS
from kopa.study.prepare import write_profiles
from kopa.study.robustness_report import write_report
from kopa.tools.runtime import RetryPolicy

Retries = Literal["on", "off"]
DEFAULT_RATES = (0, 10, 20, 40)
DEFAULT_KINDS = (MIX, "rate_limit", "timeout", "server_error", "truncated", DRIFT)
DEFAULT_POLICIES = ("oracle", "first_page_only")
MODEL_POLICY = "openai"  # `--role agent=MODEL[@URL]`: the model plays, as in `kopa bench run --policy openai`
DEFAULT_RETRIES: tuple[Retries, ...] = ("off", "on")
DEFAULT_SEEDS = 3
DRIFT_SCENARIO = "default"
ESTIMATE_EPISODES = 5  # of the first unit, timed before the grid to estimate it
GRID = "grid.duckdb"
DERIVED = (GRID, f"{GRID}.wal", "summary.json", "report.md")


class RobustnessConfig(BaseModel):
    """Everything a study folder's results depend on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rates: tuple[int, ...] = DEFAULT_RATES
    kinds: tuple[str, ...] = DEFAULT_KINDS
    policies: tuple[str, ...] = DEFAULT_POLICIES
    retries: tuple[Retries, ...] = DEFAULT_RETRIES
    seeds: int = Field(DEFAULT_SEEDS, ge=1)
    world: str = "sim"
    task_set: str | None = None
    only: tuple[str, ...] = ()
    model: str | None = None  # the openai policy's model and where it is served
    base_url: str | None = None
    llm_cache: str | None = None

    def digest(self) -> str:
        return hashlib.sha256(orjson.dumps(self.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)).hexdigest()

    def run_config(self, policy: str) -> RunConfig:
        return RunConfig(policy=policy, task_set=self.task_set, only=list(self.only), model=self.model,
                         base_url=self.base_url, llm_cache=self.llm_cache)


class Cell(BaseModel):
    model_config = ConfigDict(frozen=True)

    policy: str
    kind: str
    rate: int
    retries: Retries
    seed: int

    @property
    def profile(self) -> str:
        return "none-0" if self.rate == 0 and self.kind != DRIFT else f"{MIX if self.kind == DRIFT else self.kind}-{self.rate}"

    @property
    def unit_id(self) -> str:
        return f"{self.policy}.{self.profile}{'+drift' if self.kind == DRIFT else ''}.retries-{self.retries}.seed-{self.seed}"


class Unit(BaseModel):
    """One cell's episodes to play: picklable, with the configuration the worker rebuilds everything from."""

    model_config = ConfigDict(frozen=True)

    folder: str
    config: dict[str, Any]
    cell: Cell


def cells(config: RobustnessConfig) -> list[Cell]:
    """The grid in its canonical order."""
    return [Cell(policy=p, kind=k, rate=r, retries=x, seed=s) for p in config.policies for k in config.kinds
            for r in config.rates for x in config.retries for s in range(config.seeds)]


def units(config: RobustnessConfig, folder: Path) -> list[Unit]:
    seen: dict[str, Unit] = {}
    for c in cells(config):
        seen.setdefault(c.unit_id, Unit(folder=str(folder), config=config.model_dump(mode="json"), cell=c))
    return list(seen.values())


# ------------------------------------------------------------------------------------------ one unit

def _player(config: RobustnessConfig, policy: str) -> tuple[list, dict, Any]:
    """The task set's tasks, targets and the policy, built once per process and configuration."""
    def build() -> tuple[list, dict, Any]:
        run = config.run_config(policy)
        found = task_set(config.task_set)
        return select_tasks(run, found.tasks()), found.targets(), None if policy == MODEL_POLICY else POLICIES[policy]()
    return current("robustness-player", f"{config.digest()}:{policy}", build)


def run_unit(unit: Unit, *, limit: int | None = None, timings: list[float] | None = None) -> list[dict[str, Any]]:
    """Play the cell's episodes; one row per task: verdict, ACTION, failure cause, whether a fault struck.
    `limit` (only the first tasks) and `timings` (filled with the set-up's seconds, then each episode's) are
    for timing a unit before a grid."""
    started = time.perf_counter()
    config = RobustnessConfig.model_validate(unit.config)
    cell = unit.cell
    tasks, targets, offline = _player(config, cell.policy)
    tasks = tasks[:limit] if limit is not None else tasks
    policy = offline if offline is not None else make_policy(config.run_config(MODEL_POLICY), cell.seed)
    profile = str(Path(unit.folder) / "profiles" / f"{cell.profile}.toml")
    backend = open_unit_backend(config.world, profile, cell.seed, DRIFT_SCENARIO if cell.kind == DRIFT else None, 1)
    retry = RetryPolicy(max_attempts=RETRY_ATTEMPTS[cell.retries])
    rows = []
    for task in tasks:
        if timings is not None:
            timings.append(time.perf_counter() - started)
            started = time.perf_counter()
        episode, transcript = play_one(task, targets[task.id], policy, backend, cell.seed, 0, retry=retry)
        attempts = [a for r in (transcript.results if transcript else []) for a in r.get("attempts") or []]
        struck = sum(a.get("outcome") == "environmental" for a in attempts)
        if episode.error is not None and episode.error.startswith("ChatModelError"):
            # the model server failed, not the agent: nothing of this unit is saved, a rerun plays it again
            raise UserError(f"{cell.unit_id} {task.id}: the model server failed ({episode.error[:200]}); "
                            "run the same command again")
        if episode.error is not None:  # the episode stopped under the faults: a failure, with why
            rows.append({"task_id": task.id, "domain": task.domain, "passed": False, "action": 0.0,
                         "failure_cause": _stopped(episode.error), "met_fault": struck > 0,
                         "faulted_attempts": struck})
            continue
        scored = score_stored(task, targets[task.id], episode)
        rows.append({"task_id": task.id, "domain": task.domain, "passed": scored.score.passed,
                     "action": scored.score.action, "failure_cause": scored.failure_cause,
                     "met_fault": struck > 0, "faulted_attempts": struck})
    if timings is not None:
        timings.append(time.perf_counter() - started)
    return rows


def _stopped(error: str) -> str:
    """Why an episode stopped before an answer: the oracle replays its golden trajectory and cannot go on once a
    call it reads from failed (`chain_broken`); otherwise the task's own set-up call failed (`setup_failed`).
    In `kopa bench run` both are kept apart as unplayed; here they are what the faults did, so they count."""
    return "chain_broken" if error.startswith("GoldenError") else "setup_failed"


# ------------------------------------------------------------------------------------------ the folder

def _connect(folder: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(folder / GRID))
    con.execute("CREATE TABLE IF NOT EXISTS units (unit_id VARCHAR PRIMARY KEY)")
    con.execute("CREATE TABLE IF NOT EXISTS episodes (unit_id VARCHAR, task_id VARCHAR, domain VARCHAR, passed BOOLEAN, "
                "action DOUBLE, failure_cause VARCHAR, met_fault BOOLEAN, faulted_attempts INTEGER)")
    return con


def _save(folder: Path, done: list[tuple[Unit, list[dict[str, Any]]]]) -> None:
    con = _connect(folder)
    try:
        con.execute("BEGIN TRANSACTION")  # whole units or none: a kill -9 loses only the batch in flight
        for unit, rows in done:
            con.execute("INSERT INTO units VALUES (?)", [unit.cell.unit_id])
            con.executemany("INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [[unit.cell.unit_id, r["task_id"], r["domain"], r["passed"], r["action"],
                              r["failure_cause"], r["met_fault"], r["faulted_attempts"]] for r in rows])
        con.execute("COMMIT")
    finally:
        con.close()


def _episodes(folder: Path) -> dict[str, list[dict[str, Any]]]:
    con = _connect(folder)
    try:
        found: dict[str, list[dict[str, Any]]] = {}
        names = ("task_id", "passed", "action", "failure_cause", "met_fault")
        for unit_id, *values in con.execute(f"SELECT unit_id, {', '.join(names)} FROM episodes ORDER BY unit_id, task_id"
                                            ).fetchall():
            found.setdefault(unit_id, []).append(dict(zip(names, values, strict=True)))
        for (unit_id,) in con.execute("SELECT unit_id FROM units").fetchall():
            found.setdefault(unit_id, [])
        return found
    finally:
        con.close()


def _ci(rows: list[dict[str, Any]], field: str) -> dict[str, float]:
    """Mean of a share over the cell's episodes (every seed) and its 95% interval: kopa.eval.intervals.METHOD —
    inside [0, 1], and wide where seeds disagree on tasks even when their totals agree."""
    per_task: dict[str, list[float]] = {}
    for r in rows:
        per_task.setdefault(r["task_id"], []).append(float(r[field]))
    mean, lo, hi = task_bootstrap(per_task)
    return {"mean": round(mean, 6), "lo": round(lo, 6), "hi": round(hi, 6)}


def summary_rows(config: RobustnessConfig, episodes: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per (policy, kind, rate, retries): the seeds' pass@1 and Action with 95% intervals, the share of
    episodes that met a fault, failure causes, and the causes that grew against the same policy's rate-0
    cell of the kind."""
    groups: dict[tuple, list[Cell]] = {}
    for c in cells(config):
        groups.setdefault((c.policy, c.kind, c.rate, c.retries), []).append(c)
    rows = []
    for (policy, kind, rate, retries), members in groups.items():
        per_seed = [episodes[c.unit_id] for c in members]
        all_rows = [r for seed_rows in per_seed for r in seed_rows]
        causes = Counter(r["failure_cause"] for r in all_rows if r["failure_cause"] and not r["passed"])
        rows.append({"policy": policy, "kind": kind, "rate": rate, "retries": retries, "seeds": len(members),
                     "episodes": len(all_rows),
                     "pass_at_1": _ci(all_rows, "passed"), "action": _ci(all_rows, "action"),
                     "met_fault": round(sum(r["met_fault"] for r in all_rows) / (len(all_rows) or 1), 6),
                     "failure_causes": dict(sorted(causes.items()))})
    base = {(r["policy"], r["kind"], r["retries"]): r["failure_causes"] for r in rows if r["rate"] == min(config.rates)}
    for r in rows:
        before = base.get((r["policy"], r["kind"], r["retries"]), {})
        r["causes_grown"] = {k: v - before.get(k, 0) for k, v in r["failure_causes"].items() if v > before.get(k, 0)}
    return rows


def open_folder(folder: Path, config: RobustnessConfig, *, force: bool = False) -> None:
    if any(c in str(folder) for c in ",@"):
        raise UserError(f"--out {folder}: the path may not contain ',' or '@' (it becomes part of a backend string)")
    manifest = {"config": config.model_dump(mode="json"), "digest": config.digest()}
    RunFolder(folder, what="a robustness study", error=UserError).claim(
        manifest, body=orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS), force=force,
        stale=DERIVED)


def check(config: RobustnessConfig) -> None:
    """Refuse what cannot run, before the folder is claimed: one line each."""
    check_world(config.world)
    unknown = [p for p in config.policies if p != MODEL_POLICY and p not in POLICIES]
    if unknown:
        raise UserError(f"--policies {unknown}: valid: {', '.join([*POLICIES, MODEL_POLICY])}")
    if MODEL_POLICY in config.policies and not config.model:
        raise UserError("--policies openai needs a model: --role agent=MODEL[@URL]")
    try:
        select_tasks(config.run_config(config.policies[0]))  # an unknown --only, a folder that is no task set
    except ValueError as exc:
        raise UserError(f"--only: {exc}") from exc


@writes_run("folder", what="a robustness study", error=UserError, writer="another `kopa study robustness`")
def run_study(folder: Path, config: RobustnessConfig, *, executor: str = "local", workers: int = 1,
              address: str | None = None, force: bool = False, stop_after: int | None = None,
              on_start: Callable[[int, int], None] | None = None,
              on_batch: Callable[[int], None] | None = None,
              on_estimate: Callable[[float, int], None] | None = None) -> list[dict[str, Any]] | None:
    """Run (or resume) the study; the summary rows when every unit is done, else None (stop_after).
    on_estimate(seconds, units) hears the grid's time before it starts, from a few episodes of its first unit
    timed and scaled to the unit's tasks."""
    check(config)
    open_folder(folder, config, force=force)
    write_profiles(folder, {c.profile for c in cells(config)})
    done = set(_episodes(folder))
    todo = [u for u in units(config, folder) if u.cell.unit_id not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    if on_estimate is not None and todo:
        tasks = len(_player(config, todo[0].cell.policy)[0])
        timed: list[float] = []  # the set-up (the world's load among it: once per process), then each episode
        run_unit(todo[0], limit=min(ESTIMATE_EPISODES, tasks), timings=timed)
        # each run's first episode is its cold one (a fresh backend, empty caches): timed apart from the others
        first, rest = (timed[1], timed[2:]) if len(timed) > 1 else (0.0, [])
        per_unit = first + (tasks - 1) * (statistics.fmean(rest) if rest else first)
        on_estimate(timed[0] + grid_seconds(per_unit, len(todo), workers), len(todo))
    if on_start is not None:
        on_start(len(todo), len(done))
    run_in_batches(run_unit, todo, lambda done_: _save(folder, done_), executor=executor, workers=workers,
                   address=address, on_batch=on_batch)
    episodes = _episodes(folder)
    if any(c.unit_id not in episodes for c in cells(config)):
        return None
    rows = summary_rows(config, episodes)
    write_atomic(folder / "summary.json", orjson.dumps({"config": config.model_dump(mode="json"), "cells": rows},
                                                       option=orjson.OPT_INDENT_2) + b"\n")
    write_report(folder, config, rows)
    return rows
