"""EDGE Phase A on a subset of real tools: determinism (runs, workers, resume) and what pruning buys."""

from __future__ import annotations

import pytest

from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.report import success_figures
from kopa.edge.run import build_graph
from kopa.edge.truth_study import truth_report

PLATFORMS = {"dart", "krx", "kdic", "gg", "assembly"}
TOOLS = [t for t in load_catalog() if t.platform in PLATFORMS and t.spec.real and t.family != "session"]
SMALL = EdgeConfig(T=4, M=60, seed=7)


def _build(path, config=SMALL, workers=1, **kw):
    phase, skeleton = build_graph(path, config, "sim", workers=workers, tools=TOOLS, **kw)
    return phase, skeleton


def test_same_seed_same_graph_and_posteriors_whatever_the_workers(tmp_path, backend):
    one, _ = _build(tmp_path / "a")
    again, _ = _build(tmp_path / "b")
    four, _ = _build(tmp_path / "c", workers=2)
    a = (tmp_path / "a" / "graph.json").read_bytes()
    assert a == (tmp_path / "b" / "graph.json").read_bytes() == (tmp_path / "c" / "graph.json").read_bytes()
    assert one.history == again.history == four.history
    assert any(e.attempts for e in one.graph.edges.values())


def test_an_interrupted_run_resumes_to_the_same_result(tmp_path, backend):
    _build(tmp_path / "full")
    partial, _ = _build(tmp_path / "resumed", stop_after=2)
    assert partial.iteration == 2 and not (tmp_path / "resumed" / "graph.json").exists()
    resumed, _ = _build(tmp_path / "resumed")
    assert resumed.iteration == SMALL.T
    assert (tmp_path / "resumed" / "graph.json").read_bytes() == (tmp_path / "full" / "graph.json").read_bytes()


def test_a_changed_configuration_is_refused(tmp_path, backend):
    _build(tmp_path / "x", config=EdgeConfig(T=1, M=10, seed=7))
    with pytest.raises(ValueError, match="another configuration"):
        _build(tmp_path / "x", config=EdgeConfig(T=1, M=11, seed=7))


@pytest.mark.slow
def test_pruning_raises_precision_and_pruned_edges_rarely_execute(tmp_path, backend):
    phase, skeleton = _build(tmp_path / "long", config=EdgeConfig(T=30, M=200, seed=3))
    figures = success_figures(phase.graph)
    truth = truth_report(backend.simulator, skeleton, phase.graph)
    assert figures.pruned_count > 0
    assert figures.g_star > figures.skeleton > figures.pruned
    assert truth.g_star_precision > truth.skeleton_precision


def test_pruning_only_updated_edges_decides_as_a_full_pass_every_iteration(tmp_path, backend, monkeypatch):
    from kopa.edge.phase_a import PhaseA

    _build(tmp_path / "incremental", EdgeConfig(T=6, M=60, seed=7))
    original = PhaseA._apply

    def full_pass(self, logs, iteration):
        self._pruning_scanned = False  # every iteration asks every edge
        return original(self, logs, iteration)

    monkeypatch.setattr(PhaseA, "_apply", full_pass)
    full, _ = _build(tmp_path / "full", EdgeConfig(T=6, M=60, seed=7))
    assert any(e.pruned for e in full.graph.edges.values())
    assert (tmp_path / "incremental" / "graph.json").read_bytes() == (tmp_path / "full" / "graph.json").read_bytes()
