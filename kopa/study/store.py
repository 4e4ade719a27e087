"""grid.duckdb and summary.json of a pruning study folder.

grid.duckdb
  units     one row per finished unit (Phase A run): coordinates and its metrics as exact JSON
  edges     per unit, every edge Phase A attempted or pruned: attempts, successes, pruned, pruned_at
  history   per unit and iteration: pass rates, retained edges, calls
  truth     per skeleton edge: truly bound, touches an endpoint the drift scenario changes
  cells     one row per grid cell: coordinates, its unit, every metric as a column (rebuilt each run)

The parent process is the only writer: a unit's rows go in one transaction, so a kill -9 leaves whole
units or none, and a rerun computes exactly the units `units` lacks.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import orjson

from kopa.fileio import write_atomic
from kopa.study.cell import UnitResult
from kopa.study.grid import Cell, Unit

GRID = "grid.duckdb"


def _connect(folder: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(folder / GRID))
    con.execute("CREATE TABLE IF NOT EXISTS units (unit_id VARCHAR PRIMARY KEY, profile VARCHAR, drift BOOLEAN, "
                "rule VARCHAR, retries VARCHAR, seed INTEGER, metrics VARCHAR)")
    con.execute("CREATE TABLE IF NOT EXISTS edges (unit_id VARCHAR, source VARCHAR, target VARCHAR, attempts INTEGER, "
                "successes INTEGER, pruned BOOLEAN, pruned_at INTEGER)")
    con.execute("CREATE TABLE IF NOT EXISTS history (unit_id VARCHAR, iteration INTEGER, trajectory_pass_rate DOUBLE, "
                "step_success_rate DOUBLE, edges_retained DOUBLE, calls DOUBLE)")
    return con


def done_units(folder: Path) -> set[str]:
    con = _connect(folder)
    try:
        return {row[0] for row in con.execute("SELECT unit_id FROM units").fetchall()}
    finally:
        con.close()


def _insert(con: duckdb.DuckDBPyConnection, table: str, names: list[str], rows: list[tuple], casts: str) -> None:
    if not rows:
        return
    columns = {n: np.array(c, dtype=object) for n, c in zip(names, zip(*rows, strict=True), strict=True)}
    con.register("_rows", columns)
    con.execute(f"INSERT INTO {table} SELECT {casts} FROM _rows")
    con.unregister("_rows")


def save_units(folder: Path, done: list[tuple[Unit, UnitResult]]) -> None:
    con = _connect(folder)
    try:
        con.execute("BEGIN TRANSACTION")
        for unit, result in done:
            con.execute("DELETE FROM units WHERE unit_id = ?", [unit.unit_id])
            con.execute("DELETE FROM edges WHERE unit_id = ?", [unit.unit_id])
            con.execute("DELETE FROM history WHERE unit_id = ?", [unit.unit_id])
            con.execute("INSERT INTO units VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [unit.unit_id, unit.profile, unit.drift, unit.rule, unit.retries, unit.seed,
                         orjson.dumps(result.metrics, option=orjson.OPT_SORT_KEYS).decode()])
            _insert(con, "edges", ["unit_id", "source", "target", "attempts", "successes", "pruned", "pruned_at"],
                    [(unit.unit_id, *e) for e in result.edges],
                    "unit_id, source, target, attempts::INTEGER, successes::INTEGER, pruned::BOOLEAN, "
                    "pruned_at::INTEGER")
            _insert(con, "history", ["unit_id", "iteration", "trajectory_pass_rate", "step_success_rate",
                                     "edges_retained", "calls"],
                    [(unit.unit_id, int(h["iteration"]), h["trajectory_pass_rate"], h["step_success_rate"],
                      h["edges_retained"], h["calls"]) for h in result.history],
                    "unit_id, iteration::INTEGER, trajectory_pass_rate::DOUBLE, step_success_rate::DOUBLE, "
                    "edges_retained::DOUBLE, calls::DOUBLE")
        con.execute("COMMIT")
    finally:
        con.close()


def save_truth(folder: Path) -> None:
    rows = [tuple(r) for r in orjson.loads((folder / "truth.json").read_bytes())]
    con = _connect(folder)
    try:
        con.execute("DROP TABLE IF EXISTS truth")
        con.execute("CREATE TABLE truth (source VARCHAR, target VARCHAR, true_edge BOOLEAN, drift_touched BOOLEAN)")
        _insert(con, "truth", ["source", "target", "true_edge", "drift_touched"], rows,
                "source, target, true_edge::BOOLEAN, drift_touched::BOOLEAN")
    finally:
        con.close()


def unit_metrics(folder: Path) -> dict[str, dict[str, float | int]]:
    con = _connect(folder)
    try:
        return {u: orjson.loads(m) for u, m in con.execute("SELECT unit_id, metrics FROM units").fetchall()}
    finally:
        con.close()


def summary_rows(grid: list[Cell], metrics: dict[str, dict[str, float | int]]) -> list[dict]:
    """One object per cell, in grid order: its coordinates, its unit and every metric."""
    return [{"rate": c.rate, "kind": c.kind, "rule": c.rule, "retries": c.retries, "seed": c.seed,
             "unit": c.unit_id, **metrics[c.unit_id]} for c in grid]


def write_summary(folder: Path, rows: list[dict]) -> None:
    write_atomic(folder / "summary.json", orjson.dumps(rows, option=orjson.OPT_INDENT_2) + b"\n")
    names = [k for k in rows[0] if k not in ("rate", "kind", "rule", "retries", "seed", "unit")] if rows else []
    con = _connect(folder)
    try:
        con.execute("DROP TABLE IF EXISTS cells")
        con.execute("CREATE TABLE cells (rate INTEGER, kind VARCHAR, rule VARCHAR, retries VARCHAR, seed INTEGER, "
                    "unit_id VARCHAR" + "".join(f", {n} DOUBLE" for n in names) + ")")
        _insert(con, "cells", ["rate", "kind", "rule", "retries", "seed", "unit_id", *names],
                [(r["rate"], r["kind"], r["rule"], r["retries"], r["seed"], r["unit"], *(float(r[n]) for n in names))
                 for r in rows],
                "rate::INTEGER, kind, rule, retries, seed::INTEGER, unit_id" + "".join(f", {n}::DOUBLE" for n in names))
    finally:
        con.close()
