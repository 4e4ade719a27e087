"""The `coverage` sampler: every startable edge short of n_min is scheduled, the least-tried first, and
within the same budget it judges more edges than the paper's sampler; the paper's sampler is unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.phase_a import PhaseA
from kopa.edge.run import build_graph, posterior_state

CATALOG = load_catalog()
PLATFORMS = {"dart", "krx"}
TOOLS = [t for t in CATALOG if t.platform in PLATFORMS and t.spec.real and t.family != "session"]
BUDGET = {"T": 6, "M": 100, "seed": 3}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("coverage")
    paper, _ = build_graph(out / "paper", EdgeConfig(**BUDGET), "sim", tools=TOOLS)
    coverage, _ = build_graph(out / "coverage", EdgeConfig(**BUDGET, sampler="coverage"), "sim", tools=TOOLS)
    return paper, coverage


@pytest.fixture(scope="module")
def midway(tmp_path_factory):
    """A coverage run stopped after its first iteration, when many edges are still short of n_min."""
    out = tmp_path_factory.mktemp("coverage-midway")
    phase, _ = build_graph(out, EdgeConfig(**BUDGET, sampler="coverage"), "sim", tools=TOOLS, stop_after=1)
    return phase


def _judged(phase: PhaseA) -> int:
    """Edges with at least n_min attempts (the ones pruning may decide on), counted from the posteriors."""
    return sum(row[4] >= phase.config.n_min for row in posterior_state(phase.graph))


def test_coverage_judges_more_edges_within_the_same_budget(runs):
    paper, coverage = runs  # the same T x M paths; a coverage path may be a step longer (its approach edge)
    assert _judged(coverage) > 2 * _judged(paper)
    assert sum(row[7] for row in posterior_state(coverage.graph)) > sum(row[7] for row in posterior_state(paper.graph))


def test_the_schedule_is_every_routable_edge_short_of_n_min_least_tried_first(midway):
    phase = midway
    iteration = phase.iteration + 1
    schedule = phase.coverage_schedule(iteration)
    assert schedule, "after one iteration edges are still short of n_min"
    attempts = [route[-1].attempts for route in schedule]
    assert attempts == sorted(attempts)
    rng = np.random.default_rng(0)
    for route in schedule:
        edge = route[-1]
        assert not edge.pruned and edge.attempts < phase.config.n_min
        assert phase.filler.fill(phase.catalog[route[0].source], phase.cache, rng) is not None
        if len(route) == 2:  # an approach: an executed, live in-edge of the source from a startable tool
            via = route[0]
            assert via.target == edge.source and via.successes > 0 and not via.pruned
    # independently: an edge short of n_min whose source can start is always scheduled (directly)
    direct = {(r[0].source, r[0].target) for r in schedule if len(r) == 1}
    for key, edge in phase.graph.edges.items():
        tries, answered = phase.starts_seen.get(edge.source, (0, 0))
        fillable = phase.filler.fill(phase.catalog[edge.source], phase.cache, rng) is not None
        if (not edge.pruned and edge.attempts < phase.config.n_min and fillable
                and (answered or tries < phase.config.n_min)):
            assert key in direct, key
    assert phase.coverage_schedule(iteration) is schedule  # once per iteration
    redrawn = phase.coverage_schedule(iteration + 1)
    assert sorted((r[-1].source, r[-1].target) for r in redrawn) == sorted((r[-1].source, r[-1].target)
                                                                          for r in schedule)


def test_the_coverage_run_is_reproducible(runs, tmp_path):
    _, coverage = runs
    again, _ = build_graph(tmp_path / "again", EdgeConfig(**BUDGET, sampler="coverage"), "sim", tools=TOOLS)
    assert posterior_state(again.graph) == posterior_state(coverage.graph)


def test_a_run_folder_made_before_the_sampler_existed_still_matches():
    import hashlib

    import orjson

    from kopa.edge.run import config_digest

    fields = set(EdgeConfig.model_fields) - {"sampler", "update_rule"}  # the fields before either existed
    before = {k: getattr(EdgeConfig(), k) for k in sorted(fields)}
    before = {k: list(v) if isinstance(v, tuple) else v for k, v in before.items()}
    expected = hashlib.sha256(orjson.dumps({"config": before, "backend": "sim"}, option=orjson.OPT_SORT_KEYS))
    assert config_digest(EdgeConfig(), "sim") == expected.hexdigest()
    assert config_digest(EdgeConfig(sampler="coverage"), "sim") != expected.hexdigest()


def test_coverage_on_two_processes_gives_the_same_graph(runs, tmp_path):
    """The schedule reads the start counts; a worker's replica must get them with the posteriors."""
    _, coverage = runs
    two, _ = build_graph(tmp_path / "two", EdgeConfig(**BUDGET, sampler="coverage"), "sim", tools=TOOLS, workers=2)
    assert posterior_state(two.graph) == posterior_state(coverage.graph)
    assert two.starts_seen == coverage.starts_seen
