"""`kopa study pruning`: the fault profiles it injects, the grid it runs, the numbers it reports.

The summary's metrics are recomputed here from grid.duckdb's edges and truth tables with SQL (an
independent path from kopa.study.cell's Python); a resumed study and a second run must give the same
summary.json byte for byte.
"""

from __future__ import annotations

import math
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import orjson
import pytest
from click.testing import CliRunner

from kopa.catalog import load_catalog
from kopa.cli import main
from kopa.study.faults import KINDS, MIX, SINGLE_KINDS, profile_toml
from kopa.study.grid import StudyConfig, cells, units
from kopa.study.pruning import run_study
from sim.faults import ATTEMPT_KINDS, PLATFORM_IDS, decide, expected_rates, load_profile, platform_of

CATALOG = load_catalog()
# A handful of real tools (법령 and DART) whose paths reach their edges within T = 2, M = 20.
TOOLS = tuple(sorted([t.name for t in CATALOG if t.platform == "law" and t.spec.real]
                     + [t.name for t in CATALOG if t.platform == "dart" and t.spec.real][:10]))
TINY = StudyConfig(rates=(0, 20), kinds=(MIX,), rules=("asymmetric", "symmetric"), retries=("off",), seeds=2,
                   T=2, M=20, tools=TOOLS, probe_per_class=20)


def _write(tmp_path: Path, kind: str, rate: float) -> Path:
    path = tmp_path / f"{kind}-{rate}.toml"
    path.write_text(profile_toml(kind, rate), encoding="utf-8")
    return path


# ---------------------------------------------------------------- profiles


@pytest.mark.parametrize("kind", [MIX, *SINGLE_KINDS])
@pytest.mark.parametrize("rate", [0.0, 0.05, 0.2, 0.4])
def test_every_platform_fails_attempt_zero_at_the_rate_asked_for(tmp_path, kind, rate):
    """Read back through the simulator's own expected_rates (maintenance first, then the attempt kinds)."""
    profile = load_profile(str(_write(tmp_path, kind, rate)))
    for platform, by_kind in expected_rates(profile).items():
        assert sum(by_kind.values()) == pytest.approx(rate, abs=1e-12), platform
        if kind in SINGLE_KINDS and rate:
            assert {k for k, v in by_kind.items() if v} == {SINGLE_KINDS[kind]}


def test_the_mix_keeps_the_realistic_proportions_inside_each_platform(tmp_path):
    realistic = load_profile("realistic")
    scaled = load_profile(str(_write(tmp_path, MIX, 0.2)))
    for platform in PLATFORM_IDS:
        a, b = realistic._rates(platform, None), scaled._rates(platform, None)
        factors = {b[k] / a[k] for k in ("maintenance", *ATTEMPT_KINDS) if a[k]}
        assert max(factors) == pytest.approx(min(factors), rel=1e-12)
        assert b["latency"] == a["latency"]


def test_the_realized_first_attempt_failure_rate_is_the_rate_within_binomial_bounds(tmp_path):
    """The fault decision itself (sim.faults.decide) over 6,000 distinct requests on several platforms."""
    profile = load_profile(str(_write(tmp_path, MIX, 0.2)))
    hosts = [("opendart.fss.or.kr", "/api/company.json"), ("www.law.go.kr", "/DRF/lawSearch.do"),
             ("open.neis.go.kr", "/hub/schoolInfo")]
    n = 2000
    for host, path in hosts:
        hits = sum(decide(profile, 3, f"request-{i}", 0, host, path).kind is not None for i in range(n))
        bound = 4 * math.sqrt(0.2 * 0.8 / n)
        assert abs(hits / n - 0.2) < bound, (platform_of(host, path), hits / n)


def test_at_rate_zero_every_kind_shares_one_run_and_rules_and_retries_do_not():
    config = StudyConfig(rates=(0, 10), kinds=(MIX, "timeout", "drift"), seeds=2)
    grid = cells(config)
    assert len(grid) == 2 * 3 * 3 * 2 * 2
    # rate 0: the two non-drift kinds share units; drift keeps its own; rules × retries × seeds stay apart
    assert len(units(config, Path("/x"))) == (2 * 3 * 2 * 2) + (3 * 3 * 2 * 2)
    assert {c.profile for c in grid if c.rate == 0} == {"none-0"}
    assert {c.kind for c in grid} == {MIX, "timeout", "drift"} and set(config.kinds) <= set(KINDS)


# ---------------------------------------------------------------- the tiny grid


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study") / "tiny"
    rows = run_study(folder, TINY)
    return folder, rows


def test_summary_has_one_object_per_cell_in_grid_order(tiny):
    folder, rows = tiny
    summary = orjson.loads((folder / "summary.json").read_bytes())
    assert summary == rows
    assert [(r["rate"], r["kind"], r["rule"], r["retries"], r["seed"]) for r in summary] == [
        (c.rate, c.kind, c.rule, c.retries, c.seed) for c in cells(TINY)]
    assert any(r["pruned_edges"] for r in summary)  # the recomputation below has something to check
    assert any(r["environmental_steps"] for r in summary if r["rate"] == 20)
    assert all(r["environmental_steps"] == 0 and r["fault_events"] == 0 for r in summary if r["rate"] == 0)


def test_summary_metrics_match_an_sql_recomputation_from_the_grid(tiny):
    folder, rows = tiny
    con = duckdb.connect(str(folder / "grid.duckdb"), read_only=True)
    try:
        skeleton_true, skeleton_all = con.execute("SELECT sum(true_edge::INT), count(*) FROM truth").fetchone()
        for r in rows:
            pruned, wrongly, attempted, true_attempted = con.execute(
                "SELECT count(*) FILTER (WHERE e.pruned), count(*) FILTER (WHERE e.pruned AND t.true_edge), "
                "count(*) FILTER (WHERE e.attempts > 0), count(*) FILTER (WHERE e.attempts > 0 AND t.true_edge) "
                "FROM edges e JOIN truth t USING (source, target) WHERE e.unit_id = ?", [r["unit"]]).fetchone()
            false_pruned = pruned - wrongly
            assert (r["skeleton_edges"], r["true_edges"]) == (skeleton_all, skeleton_true)
            assert (r["pruned_edges"], r["wrongly_pruned"], r["attempted_edges"]) == (pruned, wrongly, attempted)
            assert r["false_retained"] == skeleton_all - skeleton_true - false_pruned
            assert r["wrongly_pruned_share"] == pytest.approx(wrongly / skeleton_true)
            retained = skeleton_all - pruned
            assert r["g_star_precision"] == pytest.approx((skeleton_true - wrongly) / retained)
            assert r["g_star_recall"] == pytest.approx((skeleton_true - wrongly) / skeleton_true)
            calls = con.execute("SELECT sum(calls) FROM history WHERE unit_id = ?", [r["unit"]]).fetchone()[0]
            assert r["calls"] == calls
            assert true_attempted <= attempted
    finally:
        con.close()


def test_truth_is_the_edge_truth_study_s(tiny):
    from kopa.backends.spec import open_backend
    from kopa.edge.graph import ToolGraph
    from kopa.edge.truth_study import edge_is_true

    folder, _ = tiny
    skeleton = ToolGraph.load_json(folder / "skeleton.json")
    simulator = open_backend("sim").simulator
    rows = orjson.loads((folder / "truth.json").read_bytes())
    assert [(s, t) for s, t, *_ in rows] == sorted(skeleton.edges)
    assert [bool(v) for _, _, v, _ in rows] == [edge_is_true(simulator, skeleton.edges[k]) for k in sorted(skeleton.edges)]


def test_the_realized_rate_is_read_from_the_fault_log(tiny):
    _, rows = tiny
    for r in rows:
        if r["rate"] == 0:
            assert r["realized_rate"] == 0.0
        else:
            assert r["faulted_first_attempts"] > 0 and r["first_attempts"] >= r["distinct_first_requests"]
            assert r["realized_rate"] == r["faulted_first_attempts"] / r["first_attempts"]
            n = r["distinct_first_requests"]
            assert abs(r["realized_rate_distinct"] - 0.2) < 4 * math.sqrt(0.16 / n) + 1 / n


def test_a_resumed_study_gives_the_same_summary_byte_for_byte(tiny, tmp_path):
    folder, _ = tiny
    resumed = tmp_path / "resumed"
    assert run_study(resumed, TINY, stop_after=3) is None
    assert not (resumed / "summary.json").exists()
    con = duckdb.connect(str(resumed / "grid.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM units").fetchone()[0] == 3
    con.close()
    run_study(resumed, TINY)
    assert (resumed / "summary.json").read_bytes() == (folder / "summary.json").read_bytes()
    assert (resumed / "report.md").read_bytes() == (folder / "report.md").read_bytes()


def test_two_runs_are_byte_identical_whatever_the_workers(tiny, tmp_path):
    folder, _ = tiny
    again = tmp_path / "again"
    run_study(again, TINY, workers=2)
    for name in ("summary.json", "report.md", "truth.json", "skeleton.json"):
        assert (again / name).read_bytes() == (folder / name).read_bytes(), name


@pytest.mark.ray
def test_the_same_study_on_ray_is_byte_identical(tiny, tmp_path):
    pytest.importorskip("ray")
    folder, _ = tiny
    on_ray = tmp_path / "ray"
    run_study(on_ray, TINY, executor="ray", workers=2)
    for name in ("summary.json", "report.md", "truth.json", "skeleton.json"):
        assert (on_ray / name).read_bytes() == (folder / name).read_bytes(), name


def test_a_folder_with_another_configuration_is_refused_by_field(tiny):
    from kopa.errors import UserError

    folder, _ = tiny
    with pytest.raises(UserError, match=r"another configuration \(T: 2 → 3\)"):
        run_study(folder, TINY.model_copy(update={"T": 3}))


def test_the_report_answers_the_20_percent_question_with_numbers(tiny):
    folder, rows = tiny
    text = (folder / "report.md").read_text(encoding="utf-8")
    answer = text.split("## Answer", 1)[1].split("##", 1)[0]
    a = [r["wrongly_pruned"] for r in rows if r["rate"] == 20 and r["rule"] == "asymmetric"]
    s = [r["wrongly_pruned"] for r in rows if r["rate"] == 20 and r["rule"] == "symmetric"]
    assert f"asymmetric {sum(a) / len(a):.1f} true edges wrongly pruned" in answer
    assert f"symmetric {sum(s) / len(s):.1f}" in answer
    diff = [x - y for x, y in zip(a, s, strict=True)]
    mean = statistics.fmean(diff)
    # two seeds: a resample of two runs has mean d1, (d1 + d2) / 2 or d2 with chances 1/4, 1/2, 1/4, so the
    # 2.5th and 97.5th percentiles of the bootstrap are the smaller and the larger seed's difference
    low, high = min(diff), max(diff)
    expected = ("**Yes**" if high < 0 else "**Not shown**" if mean < 0
                else "**No**: the two rules prune exactly" if not any(diff) else "**No**: the asymmetric")
    assert answer.strip().startswith(expected)
    assert f"{mean:+.1f} [{low:+.1f}, {high:+.1f}]" in answer
    # every interval the report gives stays in its range: shares in [0, 100]%, counts at or above 0
    for section in text.split("\n## ")[1:]:
        title = section.splitlines()[0]
        if title.startswith(("Answer", "Realized", "Drift")):
            continue
        for lo, hi in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", section):
            assert 0 <= float(lo) <= float(hi), (title, lo, hi)
            assert "%" not in title or float(hi) <= 100, (title, hi)
    assert (folder / "plots" / "heatmap_wrongly_pruned.png").stat().st_size > 0
    assert (folder / "plots" / "curves_wrongly_pruned.png").stat().st_size > 0


def test_a_drift_unit_switches_to_epoch_one_after_half_the_iterations(tiny):
    from kopa.study.cell import run_unit
    from kopa.study.grid import Unit

    folder, _ = tiny
    drift = run_unit(Unit(folder=str(folder), profile="none-0", drift=True, rule="asymmetric", retries="off",
                          seed=0, unit_id="drift-check"))
    plain = run_unit(Unit(folder=str(folder), profile="none-0", drift=False, rule="asymmetric", retries="off",
                          seed=0, unit_id="plain-check"))
    assert 0 < drift.metrics["requests_after_drift"] < drift.metrics["first_attempts"]
    assert plain.metrics["requests_after_drift"] == 0
    # the first T // 2 iterations are served undrifted: they are the same as without drift
    assert drift.history[: TINY.T // 2] == plain.history[: TINY.T // 2]


# ---------------------------------------------------------------- the command


def test_help_teaches_with_examples():
    result = CliRunner().invoke(main, ["study", "pruning", "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output and "kopa study pruning --rates 0,20" in result.output
    for option in ("--rates", "--kinds", "--rules", "--retries", "--seeds", "-T", "-M", "--out", "--executor",
                   "--address", "--workers"):
        assert option in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["--kinds", "mix,earthquake"], "valid: mix"),
    (["--rules", "lenient"], "valid: asymmetric"),
    (["--retries", "maybe"], "valid: off, on"),
    (["--rates", "0,150"], "between 0 and 100"),
    (["--rates", "a"], "comma-separated integers"),
    (["--platforms", "nowhere"], "unknown platform"),
    (["--backend", "live"], "needs the in-process simulator"),
    (["--backend", "sim:drift=default"], "the study sets drift itself"),
])
def test_bad_options_are_one_line_errors(tmp_path, args, message):
    result = CliRunner().invoke(main, ["study", "pruning", *args, "-o", str(tmp_path / "s")])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_the_command_runs_a_small_grid_and_prints_the_answer(tmp_path):
    result = CliRunner().invoke(main, ["study", "pruning", "--rates", "0,20", "--kinds", "mix", "--rules",
                                       "asymmetric,symmetric", "--retries", "off", "--seeds", "2", "-T", "1",
                                       "-M", "10", "--platforms", "law", "-o", str(tmp_path / "s")])
    assert result.exit_code == 0, result.output
    assert "at 20% faults" in result.output
    summary = orjson.loads((tmp_path / "s" / "summary.json").read_bytes())
    assert len(summary) == 2 * 2 * 2
    # the grid's time said before it starts (timed on part of its first run), and beside it what it took
    before, after = result.output.index("estimate: about "), result.output.index("took ")
    assert before < after and "for 8 runs on 1 worker" in result.output
    assert re.search(r"took [\d.]+ (s|min); estimated [\d.]+ (s|min) \([+-]\d+%\)", result.output)
    # the count the progress bar ran is the count the summary names (rate 0: one run for the mix and its rules)
    assert "4 cells × 2 seeds, from 8 runs" in result.output


def _finished_units(folder: Path) -> int:
    """Units in grid.duckdb, or -1 while the study process holds the file (it opens it per batch)."""
    try:
        con = duckdb.connect(str(folder / "grid.duckdb"), read_only=True)
    except duckdb.Error:
        return -1
    try:
        return con.execute("SELECT count(*) FROM units").fetchone()[0]
    except duckdb.Error:
        return -1
    finally:
        con.close()


@pytest.mark.slow
def test_kill_minus_nine_then_rerun_continues_to_the_same_summary(tmp_path):
    config = TINY.model_copy(update={"T": 3, "M": 40, "seeds": 3})
    total = len(units(config, tmp_path))
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    script = ("from pathlib import Path; from kopa.study.grid import StudyConfig; "
              "from kopa.study.pruning import run_study; "
              f"run_study(Path({str(out)!r}), StudyConfig.model_validate_json({config.model_dump_json()!r}))")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 300
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "grid.duckdb").exists() and (done := _finished_units(out)) >= 1:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 1 <= done < total and not (out / "summary.json").exists()  # it was killed mid-grid
    run_study(out, config)
    run_study(tmp_path / "fresh", config)
    assert (out / "summary.json").read_bytes() == (tmp_path / "fresh" / "summary.json").read_bytes()
