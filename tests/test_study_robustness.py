"""`kopa study robustness`: the grid's cells played and summarised — checked against `kopa bench run` on the
same fault profile and seed (an independent path through the CLI), retries absorbing faults, the same bytes
after a resume and with two worker processes."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.runner import read_scores
from kopa.study.robustness import RobustnessConfig, run_study

ONLY = ("finance-001", "finance-004", "law-003", "traffic-002", "education-003", "politics-001")
CONFIG = RobustnessConfig(policies=("oracle", "first_page_only"), kinds=("mix", "drift"), rates=(0, 40),
                          retries=("off", "on"), seeds=2, only=ONLY)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("robustness") / "study"
    rows = run_study(folder, CONFIG)
    assert rows is not None
    return folder, {(r["policy"], r["kind"], r["rate"], r["retries"]): r for r in rows}


def test_faults_lower_the_score_and_retries_absorb_them(study):
    _, at = study
    for retries in ("off", "on"):
        assert at[("oracle", "mix", 0, retries)]["pass_at_1"]["mean"] == 1.0
        for kind in ("mix", "drift"):  # drift at rate 0: the drifted world, no fault injected
            assert at[("oracle", kind, 0, retries)]["met_fault"] == 0.0
    off, on = at[("oracle", "mix", 40, "off")], at[("oracle", "mix", 40, "on")]
    assert off["met_fault"] > 0.3 and on["met_fault"] > 0.3  # 40% of first attempts fail: most episodes meet one
    assert off["pass_at_1"]["mean"] < on["pass_at_1"]["mean"] <= 1.0
    assert off["causes_grown"]  # and the report says which failure causes grew
    for row in at.values():
        ci = row["pass_at_1"]
        assert ci["lo"] <= ci["mean"] <= ci["hi"] and row["seeds"] == 2 and row["episodes"] == 2 * len(ONLY)


def test_a_cell_passes_what_kopa_bench_run_passes_on_the_same_profile_and_seed(study, tmp_path):
    """The cell (first_page_only, mix at 40%, retries on, seed 1) against `kopa bench run --faults PROFILE,seed=1`
    (the runtime's default retries are the study's 'on'): the same tasks pass."""
    folder, _ = study
    out = tmp_path / "bench"
    result = CliRunner().invoke(main, ["bench", "run", "--policy", "first_page_only", "-n", "1", "--policy-seeds", "1",
                                       "--faults", f"{folder / 'profiles' / 'mix-40.toml'},seed=1",
                                       "--only", ",".join(ONLY), "--out", str(out)], prog_name="kopa")
    assert result.exit_code in (0, 1), result.output  # 1: episodes the faults stopped are kept apart there
    passed_bench = sorted(s.task_id for s in read_scores(out) if s.score.passed)
    import duckdb

    con = duckdb.connect(str(folder / "grid.duckdb"), read_only=True)
    passed_study = sorted(r[0] for r in con.execute(
        "SELECT task_id FROM episodes WHERE unit_id = 'first_page_only.mix-40.retries-on.seed-1' AND passed").fetchall())
    con.close()
    assert passed_study == passed_bench and passed_study


def test_a_resumed_study_and_two_workers_write_the_same_bytes(study, tmp_path):
    folder, _ = study
    first = (folder / "summary.json").read_bytes()
    stopped = tmp_path / "resumed"
    assert run_study(stopped, CONFIG, stop_after=5) is None  # interrupted: no summary yet
    assert run_study(stopped, CONFIG) is not None
    assert (stopped / "summary.json").read_bytes() == first
    two = tmp_path / "two"
    run_study(two, CONFIG, workers=2)
    assert (two / "summary.json").read_bytes() == first and (two / "report.md").read_bytes() == \
        (folder / "report.md").read_bytes()
    summary = orjson.loads(first)
    assert summary["config"]["seeds"] == 2 and len(summary["cells"]) == 2 * 2 * 2 * 2


def test_the_command_prints_the_table_and_refuses_a_policy_it_does_not_know(tmp_path):
    result = CliRunner().invoke(main, ["study", "robustness", "--policies", "oracle", "--kinds", "mix", "--rates", "0,20",
                                       "--retries", "off", "--seeds", "1", "--only", "law-003", "-o", str(tmp_path / "s")],
                                prog_name="kopa")
    assert result.exit_code == 0, result.output
    assert "| oracle | 100.0 [100.0, 100.0] |" in result.output and (tmp_path / "s" / "plots" / "curves.png").exists()
    assert result.output.index("estimate: about ") < result.output.index("took ")
    assert "for 2 runs on 1 worker (timed from the first run's first episodes)" in result.output
    assert "2 cells × 1 seed, from 2 runs" in result.output
    bad = CliRunner().invoke(main, ["study", "robustness", "--policies", "oracel", "-o", str(tmp_path / "t")],
                             prog_name="kopa")
    assert bad.exit_code == 2 and "--policies ['oracel']" in bad.output
    assert not (tmp_path / "t").exists()  # refused before the folder is claimed


@pytest.mark.ray
def test_the_same_study_on_ray_is_byte_identical(study, tmp_path):
    pytest.importorskip("ray")
    folder, _ = study
    on_ray = tmp_path / "ray"
    run_study(on_ray, CONFIG, executor="ray", workers=2)
    for name in ("summary.json", "report.md"):
        assert (on_ray / name).read_bytes() == (folder / name).read_bytes(), name


def test_a_model_server_that_fails_stops_the_study_and_counts_nothing(tmp_path, monkeypatch):
    """The agent's server down is no fault of the agent's: one line, exit 2, no unit saved (a rerun plays it)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there
    monkeypatch.setenv("KOPA_AGENT_API_KEY", "none")
    result = CliRunner().invoke(main, ["study", "robustness", "--policies", "openai", "--role",
                                       f"agent=m@http://127.0.0.1:{port}/v1", "--kinds", "mix", "--rates", "0",
                                       "--retries", "off", "--seeds", "1", "--only", "law-003",
                                       "-o", str(tmp_path / "s")], prog_name="kopa")
    assert result.exit_code == 2 and "the model server failed" in result.output, result.output
    import duckdb

    con = duckdb.connect(str(tmp_path / "s" / "grid.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM units").fetchone() == (0,)
    con.close()
