"""`kopa study pruning`: the fault-injection study of pruning robustness, into a resumable study folder.

runs/<name>/config.json      the StudyConfig and its digest (a folder made with another one is refused)
runs/<name>/skeleton.json    G_0, built once: faults cannot change the skeleton
runs/<name>/truth.json       per skeleton edge: truly bound (kopa.edge.truth_study), touches a drifted endpoint
runs/<name>/profiles/*.toml  the fault profile of every (kind, rate) of the grid
runs/<name>/grid.duckdb      units, edges, history, truth, cells (kopa.study.store)
runs/<name>/summary.json     one object per cell: coordinates and every metric
runs/<name>/report.md, plots/

Units run on an executor (kopa.executor) in batches, so a progress bar advances and every finished batch
is saved; a rerun (after kill -9 or --stop-after) computes only the units grid.duckdb lacks. Results are
in grid order whatever ran where, so summary.json is byte-identical across reruns, resumes and executors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson

from kopa.errors import UserError
from kopa.executor import run_in_batches
from kopa.fileio import RunFolder, writes_run
from kopa.study.backends import check_world
from kopa.study.cell import run_unit
from kopa.study.estimate import grid_seconds
from kopa.study.grid import StudyConfig, cells, units
from kopa.study.prepare import build_skeleton_once, write_profiles, write_truth_once
from kopa.study.report import write_report
from kopa.study.store import done_units, save_truth, save_units, summary_rows, unit_metrics, write_summary

DERIVED = ("skeleton.json", "truth.json", "grid.duckdb", "grid.duckdb.wal", "summary.json", "report.md")


def open_folder(folder: Path, config: StudyConfig, *, force: bool = False) -> None:
    if any(c in str(folder) for c in ",@"):
        raise UserError(f"--out {folder}: the path may not contain ',' or '@' (it becomes part of a backend string)")
    manifest = {"config": config.model_dump(mode="json"), "digest": config.digest()}
    RunFolder(folder, what="a pruning study", error=UserError).claim(
        manifest, body=orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS), force=force,
        stale=DERIVED)


@writes_run("folder", what="a pruning study", error=UserError, writer="another `kopa study pruning`")
def run_study(folder: Path, config: StudyConfig, *, executor: str = "local", workers: int = 1,
              address: str | None = None, force: bool = False, stop_after: int | None = None,
              on_start: Callable[[int, int], None] | None = None,
              on_batch: Callable[[int], None] | None = None,
              on_estimate: Callable[[float, int], None] | None = None) -> list[dict] | None:
    """Run (or resume) the study; the summary rows when every unit is done, else None (stop_after).

    on_start(units to run, units already done) and on_batch(units finished in the batch) drive a
    progress bar; on_estimate(seconds, units) hears the grid's time before it starts, from the first unit
    timed in part (set-up, one iteration, the probe); stop_after stops after that many units of this call
    (a test's interruption)."""
    check_world(config.world)
    open_folder(folder, config, force=force)
    skeleton = build_skeleton_once(folder, config)
    write_truth_once(folder, config, skeleton)
    write_profiles(folder, {c.profile for c in cells(config)})
    save_truth(folder)
    done = done_units(folder)
    todo = [u for u in units(config, folder) if u.unit_id not in done]
    if stop_after is not None:
        todo = todo[:stop_after]
    if on_estimate is not None and todo:
        timed: dict[str, float] = {}
        run_unit(todo[0], iterations=1, timings=timed)
        # the set-up loads the world once per process: counted once, not per run
        per_unit = timed["iterations"] * timed["iteration"] + timed["probe"]
        on_estimate(timed["setup"] + grid_seconds(per_unit, len(todo), workers), len(todo))
    if on_start is not None:
        on_start(len(todo), len(done))
    run_in_batches(run_unit, todo, lambda done_: save_units(folder, done_), executor=executor, workers=workers,
                   address=address, on_batch=on_batch)
    metrics = unit_metrics(folder)
    grid = cells(config)
    if any(c.unit_id not in metrics for c in grid):
        return None
    rows = summary_rows(grid, metrics)
    write_summary(folder, rows)

    write_report(folder, config, rows)
    return rows
