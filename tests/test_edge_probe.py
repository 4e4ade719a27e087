"""The held-out probe: evidence pruning never saw, drawn afresh, reproducible, and never a posterior's."""

from __future__ import annotations

import duckdb
import orjson
import pytest

from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.probe import probe_fault_spec, run_probe, save_probe
from kopa.edge.report import probe_figures, render_markdown, success_figures
from kopa.edge.run import build_graph, posterior_state
from kopa.tools.runtime import ToolRuntime

CATALOG = load_catalog()
PLATFORMS = {"dart", "krx", "kdic", "gg", "assembly"}
TOOLS = [t for t in CATALOG if t.platform in PLATFORMS and t.spec.real and t.family != "session"]
SMALL = EdgeConfig(T=6, M=60, seed=7)
SPEC = "faults:realistic,seed=5@sim"


@pytest.fixture(scope="module")
def converged(tmp_path_factory):
    """One small Phase A run (with faults, so the probe's fault seed matters) and the calls it made."""
    calls: list[tuple[str, str]] = []
    original = ToolRuntime.call

    def recording(self, name, args=None, *a, **kw):
        calls.append((name, orjson.dumps(args, option=orjson.OPT_SORT_KEYS, default=str).decode()))
        return original(self, name, args, *a, **kw)

    out = tmp_path_factory.mktemp("phase-a")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ToolRuntime, "call", recording)
        phase, skeleton = build_graph(out, SMALL, SPEC, tools=TOOLS)
    return phase, skeleton, out, calls


def test_the_probe_changes_no_posterior_count_or_cache(converged, tmp_path):
    phase, _, out, _ = converged
    before = (orjson.dumps(posterior_state(phase.graph)), orjson.dumps(phase.cache), phase.iteration)
    graph_json = (out / "graph.json").read_bytes()
    results = run_probe(phase, CATALOG, SPEC, per_class=40)
    assert results and any(r.reached for r in results)
    assert (orjson.dumps(posterior_state(phase.graph)), orjson.dumps(phase.cache), phase.iteration) == before
    # and a run of the same configuration that is never probed ends with the same graph
    unprobed, _ = build_graph(tmp_path / "unprobed", SMALL, SPEC, tools=TOOLS)
    assert orjson.dumps(posterior_state(unprobed.graph)) == before[0]
    assert (tmp_path / "unprobed" / "graph.json").read_bytes() == graph_json


def test_the_probe_draws_its_own_arguments_not_phase_a_s(converged, monkeypatch):
    phase, _, _, phase_a_calls = converged
    probe_calls: list[tuple[str, str]] = []
    original = ToolRuntime.call

    def recording(self, name, args=None, *a, **kw):
        if name != "issue_api_key":
            probe_calls.append((name, orjson.dumps(args, option=orjson.OPT_SORT_KEYS, default=str).decode()))
        return original(self, name, args, *a, **kw)

    monkeypatch.setattr(ToolRuntime, "call", recording)
    results = run_probe(phase, CATALOG, SPEC, per_class=40)
    phase_a = [c for c in phase_a_calls if c[0] != "issue_api_key"]
    assert probe_calls and probe_calls != phase_a[: len(probe_calls)]
    # Some of the probe's calls were never sent by Phase A: fresh arguments, not a replay of the attempts.
    assert set(probe_calls) - set(phase_a)
    # The probe's arguments are the ones it records.
    recorded = {(r.source, r.source_args) for r in results if r.source_args != "null"}
    assert recorded <= set(probe_calls)


def test_the_probe_uses_a_fault_seed_of_its_own():
    fresh = probe_fault_spec(SPEC, 7)
    assert fresh.startswith("faults:realistic,seed=") and fresh.endswith("@sim") and fresh != SPEC
    assert probe_fault_spec(SPEC, 7) == fresh != probe_fault_spec(SPEC, 8)
    assert probe_fault_spec("faults:realistic@sim", 7) != probe_fault_spec("faults:realistic,seed=1@sim", 7)
    assert probe_fault_spec("sim", 7) == "sim"


def test_probe_results_are_the_same_on_a_rerun_and_with_four_workers(converged, tmp_path):
    phase, _, _, _ = converged
    one = run_probe(phase, CATALOG, SPEC, per_class=40)
    again = run_probe(phase, CATALOG, SPEC, per_class=40)
    four = run_probe(phase, CATALOG, SPEC, per_class=40, workers=4)
    assert one == again == four
    tables = []
    for name, results in (("a", one), ("b", four)):
        (tmp_path / name).mkdir()
        save_probe(tmp_path / name, results)
        con = duckdb.connect(str(tmp_path / name / "edges.duckdb"))
        tables.append(con.execute("SELECT * FROM probe ORDER BY source, target, repeat").fetchall())
        con.close()
    assert tables[0] == tables[1] and len(tables[0]) == len(one)


def test_the_sample_takes_at_most_n_edges_per_class(converged):
    phase, _, _, _ = converged
    results = run_probe(phase, CATALOG, SPEC, per_class=10, repeats=1)
    pruned = {(r.source, r.target) for r in results if r.pruned}
    kept = {(r.source, r.target) for r in results if not r.pruned}
    assert len(kept) == 10 and len(pruned) == min(10, sum(e.pruned for e in phase.graph.edges.values()))
    assert all(phase.graph.edges[k].pruned for k in pruned) and not any(phase.graph.edges[k].pruned for k in kept)


def test_the_report_shows_the_probe_figures_beside_the_in_run_ones_and_the_paper(converged):
    phase, _, _, _ = converged
    results = run_probe(phase, CATALOG, SPEC, per_class=40)
    probe = probe_figures(phase.graph, results, 2)
    reached = [r for r in results if r.reached and not r.pruned]
    assert probe.g_star == pytest.approx(100.0 * sum(r.succeeded for r in reached) / len(reached))
    text = render_markdown("t", success_figures(phase.graph), phase.history, None, {}, probe)
    assert "| measure | held-out probe | in-run (decided pruning) | paper |" in text
    assert f"| G* edges that execute | {probe.g_star:.1f}% | {success_figures(phase.graph).g_star:.1f}% | 62.7% |" in text
    assert f"| pruned edges that never succeeded | {probe.pruned_never:.1f}% |" in text
    assert "70.5%" in text and "27.7%" in text and "50.2%" in text and "14.8%" in text
    assert f"{probe.probed} edges probed × 2" in text
