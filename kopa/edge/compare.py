"""Finished Phase A runs side by side (`kopa edge graph compare A B …`): the paper's sampler beside
`--sampler coverage`, one update rule beside another, a configuration beside the paper's figures.

Every number is read from what the runs wrote — `config.json`, `figures.json` and the `edges` table of
`edges.duckdb` — so the table says exactly what each run's own report says, in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from kopa.edge.report import PAPER
from kopa.errors import UserError
from kopa.fileio import read_json


def load_run(folder: Path) -> dict[str, Any]:
    """A finished run's configuration, figures and attempt coverage; a one-line error for anything else."""
    for name in ("config.json", "figures.json", "edges.duckdb"):
        if not (folder / name).exists():
            raise UserError(f"{folder}: no {name} — not a finished `kopa edge graph build` run folder")
    manifest = read_json(folder / "config.json", what="an EDGE run's config", error=UserError)
    figures = read_json(folder / "figures.json", what="an EDGE run's figures", error=UserError)
    if not isinstance(figures.get("success"), dict):  # always written; probe and truth may be null
        raise UserError(f"{folder / 'figures.json'}: not an EDGE run's figures (no success figures)")
    config = manifest.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("n_min"), int) \
            or not isinstance(manifest.get("backend"), str):
        raise UserError(f"{folder / 'config.json'}: not an EDGE run's config (no config.n_min or backend)")
    n_min = config["n_min"]
    try:
        con = duckdb.connect(str(folder / "edges.duckdb"), read_only=True)
        try:
            counts = con.execute(
                "SELECT count(*), count(*) FILTER (attempts > 0), count(*) FILTER (attempts >= ?) FROM edges",
                [n_min]).fetchone()
        finally:
            con.close()
    except duckdb.Error as exc:  # not a DuckDB file, or one without the edges table
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise UserError(f"{folder / 'edges.duckdb'}: not an EDGE run's edges table ({reason})") from exc
    assert counts is not None  # an aggregate answers one row
    edges, attempted, judged = counts
    return {"name": folder.name, "config": manifest["config"], "backend": manifest["backend"],
            "figures": figures, "edges": edges, "attempted": attempted, "judged": judged}


def _get(run: dict[str, Any], *path: str) -> Any:
    value: Any = run["figures"]
    for key in path:
        if not isinstance(value, dict) or value.get(key) is None:
            return None
        value = value[key]
    return value


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}%"


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


Row = tuple[str, Callable[[dict[str, Any]], str], str]

ROWS: list[Row] = [
    ("sampler", lambda r: r["config"].get("sampler", "paper"), "—"),
    ("update rule", lambda r: r["config"].get("update_rule", "asymmetric"), "asymmetric"),
    ("backend", lambda r: f"`{r['backend']}`", "—"),
    ("T × M", lambda r: f"{r['config']['T']} × {r['config']['M']}", "100 × 500"),
    ("skeleton edges", lambda r: f"{r['edges']:,}", "—"),
    ("attempted at least once", lambda r: f"{r['attempted'] / r['edges']:.1%}" if r["edges"] else "—", "—"),
    ("judged (≥ n_min attempts)", lambda r: f"{r['judged'] / r['edges']:.1%}" if r["edges"] else "—", "—"),
    ("pruned", lambda r: f"{_get(r, 'success', 'pruned_count') or 0:,}", "—"),
    ("probe: skeleton edges that execute", lambda r: _pct(_get(r, "probe", "skeleton")), f"{PAPER['skeleton']}%"),
    ("probe: G* edges that execute", lambda r: _pct(_get(r, "probe", "g_star")), f"{PAPER['g_star']}%"),
    ("probe: pruned edges that execute", lambda r: _pct(_get(r, "probe", "pruned")), f"{PAPER['pruned']}%"),
    ("probe: pruned edges never succeeded", lambda r: _pct(_get(r, "probe", "pruned_never")),
     f"{PAPER['pruned_never']}%"),
    ("probe: retained edges never succeeded", lambda r: _pct(_get(r, "probe", "retained_never")),
     f"{PAPER['retained_never']}%"),
    ("truth: skeleton precision", lambda r: _num(_get(r, "truth", "skeleton_precision")), "—"),
    ("truth: G* precision", lambda r: _num(_get(r, "truth", "g_star_precision")), "—"),
    ("truth: G* recall of the skeleton's true edges", lambda r: _num(_get(r, "truth", "g_star_recall")), "—"),
    ("truth: pruned edges truly bound", lambda r: _num(_get(r, "truth", "pruned_precision")), "—"),
    ("proposer ECE / AUROC, documented tools",
     lambda r: f"{_num(_get(r, 'truth', 'calibration_real', 'ece'))} / "
               f"{_num(_get(r, 'truth', 'calibration_real', 'auroc'))}", "—"),
    ("proposer ECE / AUROC, generated tools",
     lambda r: f"{_num(_get(r, 'truth', 'calibration_generated', 'ece'))} / "
               f"{_num(_get(r, 'truth', 'calibration_generated', 'auroc'))}", "—"),
]


def compare_markdown(folders: list[Path]) -> str:
    runs = [load_run(f) for f in folders]
    header = "| measure | " + " | ".join(r["name"] for r in runs) + " | paper |"
    rule = "|---|" + "---:|" * (len(runs) + 1)
    lines = ["# EDGE Phase A runs side by side", "", header, rule]
    lines += [f"| {label} | " + " | ".join(cell(r) for r in runs) + f" | {paper} |" for label, cell, paper in ROWS]
    lines += ["", "probe = the held-out probe after convergence (evidence pruning never saw); truth = against the "
                  "simulator's true bindings; a dash where a run has no such figure (no probe, or not on the simulator)."]
    return "\n".join(lines) + "\n"
