"""`kopa edge graph compare`: runs side by side, every number read from what each run wrote."""

from __future__ import annotations

import duckdb
import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.edge.config import EdgeConfig
from kopa.edge.run import config_digest


def _run_folder(path, sampler: str, attempts: list[int], probe_g_star: float, precision: float):
    path.mkdir()
    config = EdgeConfig(sampler=sampler)
    (path / "config.json").write_bytes(orjson.dumps({"config": config.model_dump(mode="json"), "backend": "sim",
                                                     "digest": config_digest(config, "sim")}))
    figures = {"success": {"pruned_count": 1}, "probe": {"g_star": probe_g_star},
               "truth": {"g_star_precision": precision, "calibration_real": {"ece": 0.1, "auroc": 0.9}}}
    (path / "figures.json").write_bytes(orjson.dumps(figures))
    con = duckdb.connect(str(path / "edges.duckdb"))
    con.execute("CREATE TABLE edges (source VARCHAR, target VARCHAR, attempts INTEGER)")
    con.executemany("INSERT INTO edges VALUES (?, ?, ?)", [(f"u{i}", "v", a) for i, a in enumerate(attempts)])
    con.close()
    return path


def test_the_table_puts_each_run_s_own_numbers_side_by_side(tmp_path):
    a = _run_folder(tmp_path / "paper-run", "paper", [0, 1, 2, 5], 61.25, 0.8125)
    b = _run_folder(tmp_path / "coverage-run", "coverage", [2, 2, 3, 0], 70.5, 0.9375)
    result = CliRunner().invoke(main, ["edge", "graph", "compare", str(a), str(b), "--out", str(tmp_path / "t.md")])
    assert result.exit_code == 0, result.output
    table = (tmp_path / "t.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:] for line in table.splitlines()
            if line.startswith("| ")}
    assert rows["measure"][:2] == ["paper-run", "coverage-run"]
    assert rows["sampler"][:2] == ["paper", "coverage"]
    # n_min = 2: judged = attempts >= 2, attempted = attempts > 0, as shares of the four edges
    assert rows["judged (≥ n_min attempts)"][:2] == [f"{2 / 4:.1%}", f"{3 / 4:.1%}"]
    assert rows["attempted at least once"][:2] == [f"{3 / 4:.1%}", f"{3 / 4:.1%}"]
    assert rows["probe: G* edges that execute"] == ["61.2%", "70.5%", "62.7% |"]
    assert rows["truth: G* precision"][:2] == ["0.812", "0.938"]
    assert rows["proposer ECE / AUROC, generated tools"][:2] == ["— / —", "— / —"]  # not in these figures


def test_a_folder_that_is_not_a_finished_run_is_one_line(tmp_path):
    (tmp_path / "half").mkdir()
    result = CliRunner().invoke(main, ["edge", "graph", "compare", str(tmp_path / "half")])
    assert result.exit_code == 2
    assert "no config.json" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("sampler", ["paper", "coverage"])
def test_the_sampler_row_reads_the_manifest(tmp_path, sampler):
    from kopa.edge.compare import load_run

    run = load_run(_run_folder(tmp_path / "r", sampler, [1], 50.0, 0.5))
    assert run["config"].get("sampler", "paper") == sampler and run["judged"] == 0 and run["attempted"] == 1
