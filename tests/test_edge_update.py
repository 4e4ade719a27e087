"""EDGE Phase A's update rule and edge choice (seed §5.2), unit by unit, with the config's values.

classify is checked on constructed outcomes against the paper's rule; a changed config value must move
the posterior by exactly that change. The Thompson choice is checked against an independent numerical
integration of P[edge i has the largest draw]; the ε fallback against binomial bounds on its rate.
"""

from __future__ import annotations

import math
import re
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import ValidationError

import kopa.edge
from kopa.catalog import load_catalog
from kopa.edge.config import EdgeConfig
from kopa.edge.graph import Edge, ToolGraph
from kopa.edge.phase_a import (
    IGNORED,
    ArgumentFiller,
    PathLog,
    PhaseA,
    StepOutcome,
    classify,
    thompson_choice,
    update_posterior,
)
from kopa.edge.plan import ParamSource, is_generic
from kopa.rng import stream
from kopa.tools.results import ToolError, ToolResult

# Dyadic values: every sum below is exact in binary floating point, so "exactly" means ==.
CUSTOM = EdgeConfig(alpha_semantic=1.75, alpha_generic=0.25, beta_structural=(0.5, 2.0),
                    beta_environmental=(0.125, 0.625))
TODAY = date(2025, 6, 30)


def _ok(records: int = 2) -> ToolResult:
    return ToolResult(tool="t", arguments={}, ok=True, records=[{"f": str(i)} for i in range(records)],
                      total_count=records)


def _err(error_class: str, kind: str) -> ToolResult:
    return ToolResult(tool="t", arguments={}, ok=False,
                      error=ToolError(error_class=error_class, kind=kind, code=kind, message=kind))


def _edge(alpha: float = 1.5, beta: float = 1.25, source: str = "u", target: str = "v") -> Edge:
    return Edge(source=source, target=target, score=0.5, alpha=alpha, beta=beta, prior_alpha=alpha,
                prior_beta=beta)


def _step(result: ToolResult, bound: bool, config: EdgeConfig, edge: tuple[str, str] = ("u", "v")) -> StepOutcome:
    outcome, kind, da, db = classify(result, upstream_bound=bound, config=config)
    return StepOutcome(edge, "v", outcome, kind, da, db, len(result.records))


def _stub_phase(graph: ToolGraph, config: EdgeConfig, catalog=None, runtime=None) -> PhaseA:
    """PhaseA over a hand-built graph: the backend is only asked for its virtual 'today'."""
    backend = SimpleNamespace(today=lambda: TODAY)
    return PhaseA(graph, catalog, backend, config, runtime_factory=(lambda: runtime) if runtime else None)


# ---------------------------------------------------------------- classify

def test_success_is_semantic_when_an_upstream_value_was_bound_else_generic():
    assert classify(_ok(), upstream_bound=True, config=CUSTOM) == ("semantic", None, 1.75, 0.0)
    assert classify(_ok(), upstream_bound=False, config=CUSTOM) == ("generic", None, 0.25, 0.0)
    # No records is no success, bound or not: nothing was found for the value sent.
    empty = ToolResult(tool="t", arguments={}, ok=True, records=[], total_count=0)
    assert classify(empty, upstream_bound=True, config=CUSTOM) == ("structural", "no_data", 0.0, 0.5)


def test_structural_failures_take_the_configured_range_no_data_low_a_malformed_binding_high():
    low, high = CUSTOM.beta_structural
    for kind in ("no_data", "page_out_of_range"):
        assert classify(_err("structural", kind), True, CUSTOM) == ("structural", kind, 0.0, low)
    for kind in ("bad_param", "unknown_service", "some_new_kind"):
        assert classify(_err("structural", kind), True, CUSTOM) == ("structural", kind, 0.0, high)


def test_environmental_failures_interpolate_inside_the_configured_range():
    low, high = CUSTOM.beta_environmental
    expected = {"rate_limit": 0.0, "maintenance": 1 / 7, "timeout": 2 / 7, "connection": 2 / 7,
                "server_error": 4 / 7, "malformed": 1.0, "some_new_kind": 4 / 7}
    for kind, p in expected.items():
        outcome, got_kind, da, db = classify(_err("environmental", kind), True, CUSTOM)
        assert (outcome, got_kind, da) == ("environmental", kind, 0.0)
        assert db == pytest.approx(low + p * (high - low), abs=1e-15)
        assert low <= db <= high
    assert classify(_err("environmental", "rate_limit"), True, CUSTOM)[3] == low
    assert classify(_err("environmental", "malformed"), True, CUSTOM)[3] == high


def test_auth_failures_are_no_evidence_whatever_the_config():
    for kind in ("missing_key", "invalid_key"):
        assert classify(_err("auth", kind), True, CUSTOM) == ("auth", kind, 0.0, 0.0)
        assert classify(_err("auth", kind), False, EdgeConfig()) == ("auth", kind, 0.0, 0.0)


def test_the_defaults_are_the_papers_values_to_the_last_bit():
    """The paper's increments as literals: the defaults must reproduce them exactly (not approximately),
    or every default graph would drift from the ones built before the increments were configurable."""
    d = EdgeConfig()
    assert classify(_ok(), True, d)[2:] == (1.0, 0.0)
    assert classify(_ok(), False, d)[2:] == (0.3, 0.0)
    assert classify(_err("structural", "no_data"), True, d)[3] == 1.0
    assert classify(_err("structural", "bad_param"), True, d)[3] == 1.5
    paper = {"rate_limit": 0.1, "maintenance": 0.2, "timeout": 0.3, "connection": 0.3, "server_error": 0.5,
             "malformed": 0.8, "unlisted": 0.5}
    assert {k: classify(_err("environmental", k), True, d)[3] for k in paper} == paper
    # The asymmetry the paper argues for: any environmental penalty is lighter than any structural one.
    env = [classify(_err("environmental", k), True, d)[3] for k in paper]
    struct = [classify(_err("structural", k), True, d)[3] for k in ("no_data", "bad_param")]
    assert max(env) < min(struct)


# ---------------------------------------------------------------- update rules (the pruning study's axis)

ENV_KINDS = ("rate_limit", "maintenance", "timeout", "connection", "server_error", "malformed", "some_new_kind")


def _non_environmental() -> list[tuple[ToolResult, bool]]:
    return [(_ok(), True), (_ok(), False), (_err("structural", "no_data"), True),
            (_err("structural", "bad_param"), True), (_err("auth", "invalid_key"), True),
            (ToolResult(tool="t", arguments={}, ok=True, records=[], total_count=0), True)]


@pytest.mark.parametrize("rule", ["asymmetric", "symmetric", "ignore"])
def test_a_rule_changes_nothing_but_environmental_failures(rule):
    """Successes, structural, auth and empty answers are read the same under every rule."""
    ruled = CUSTOM.model_copy(update={"update_rule": rule})
    for result, bound in _non_environmental():
        assert classify(result, bound, ruled) == classify(result, bound, CUSTOM)


def test_the_asymmetric_rule_is_the_default_and_the_papers_weak_penalty():
    assert EdgeConfig().update_rule == "asymmetric"
    ruled = CUSTOM.model_copy(update={"update_rule": "asymmetric"})
    for kind in ENV_KINDS:
        assert classify(_err("environmental", kind), True, ruled) == classify(_err("environmental", kind), True, CUSTOM)
    assert classify(_err("environmental", "rate_limit"), True, ruled)[3] == CUSTOM.beta_environmental[0]


def test_the_symmetric_rule_penalises_an_environmental_failure_as_an_untabled_structural_one():
    """Exactly the Δβ of a structural failure of a kind classify does not table (the high end of
    beta_structural), whatever the environmental kind; the outcome keeps its class."""
    ruled = CUSTOM.model_copy(update={"update_rule": "symmetric"})
    structural = classify(_err("structural", "an_untabled_kind"), True, ruled)[3]
    assert structural == CUSTOM.beta_structural[1]
    for kind in ENV_KINDS:
        assert classify(_err("environmental", kind), True, ruled) == ("environmental", kind, 0.0, structural)


def test_the_ignore_rule_gives_no_evidence_and_no_attempt():
    ruled = CUSTOM.model_copy(update={"update_rule": "ignore", "n_min": 1, "eps_prune": 1.0})
    for kind in ENV_KINDS:
        assert classify(_err("environmental", kind), True, ruled) == (IGNORED, kind, 0.0, 0.0)
    edge = _edge()
    for _ in range(5):
        update_posterior(edge, _step(_err("environmental", "timeout"), True, ruled))
    assert (edge.alpha, edge.beta, edge.attempts, edge.successes) == (_edge().alpha, _edge().beta, 0, 0)
    # n_min = 1 and eps_prune = 1 would prune any attempted edge: an ignored failure leaves it standing.
    assert not edge.should_prune(ruled.n_min, ruled.tau, ruled.eps_prune)
    update_posterior(edge, _step(_err("structural", "bad_param"), True, ruled))
    assert edge.attempts == 1 and edge.should_prune(ruled.n_min, ruled.tau, ruled.eps_prune)


def test_under_asymmetric_and_symmetric_an_environmental_failure_is_an_attempt():
    for rule in ("asymmetric", "symmetric"):
        edge = _edge()
        update_posterior(edge, _step(_err("environmental", "timeout"), True, CUSTOM.model_copy(
            update={"update_rule": rule})))
        assert edge.attempts == 1 and edge.beta > _edge().beta


def test_the_default_rule_is_left_out_of_dumps_and_digests_so_old_run_folders_keep_theirs():
    from kopa.edge.run import config_digest

    default = EdgeConfig()
    assert "update_rule" not in default.model_dump() and "update_rule" not in default.model_dump_json()
    assert EdgeConfig.model_validate(default.model_dump(mode="json")) == default
    digests = {rule: config_digest(EdgeConfig(update_rule=rule), "sim") for rule in ("asymmetric", "symmetric", "ignore")}
    assert len(set(digests.values())) == 3
    for rule in ("symmetric", "ignore"):
        dumped = EdgeConfig(update_rule=rule).model_dump(mode="json")
        assert dumped["update_rule"] == rule and EdgeConfig.model_validate(dumped).update_rule == rule
    with pytest.raises(ValidationError, match="update_rule"):
        EdgeConfig(update_rule="lenient")


@pytest.mark.parametrize(("update", "result", "bound", "moves"), [
    ({"alpha_semantic": 2.25}, _ok(), True, "alpha"),
    ({"alpha_generic": 0.75}, _ok(), False, "alpha"),
    ({"beta_structural": (1.0, 2.0)}, _err("structural", "no_data"), True, "beta"),
    ({"beta_structural": (0.5, 2.5)}, _err("structural", "bad_param"), True, "beta"),
    ({"beta_environmental": (0.625, 0.625)}, _err("environmental", "rate_limit"), True, "beta"),
    ({"beta_environmental": (0.125, 1.125)}, _err("environmental", "malformed"), True, "beta"),
], ids=["alpha_semantic", "alpha_generic", "beta_structural-low", "beta_structural-high",
        "beta_environmental-low", "beta_environmental-high"])
def test_a_changed_config_value_moves_the_posterior_by_exactly_that_amount(update, result, bound, moves):
    """Each update raises one config value of CUSTOM by 0.5; the edge's posterior after the same outcome
    must differ by exactly 0.5 in the parameter that value feeds, and not at all in the other."""
    after = EdgeConfig(**{**CUSTOM.model_dump(), **update})
    a, b = _edge(), _edge()
    update_posterior(a, _step(result, bound, CUSTOM))
    update_posterior(b, _step(result, bound, after))
    other = "beta" if moves == "alpha" else "alpha"
    assert getattr(b, moves) - getattr(a, moves) == 0.5
    assert getattr(a, moves) != getattr(_edge(), moves)  # the outcome did move it
    assert getattr(b, other) == getattr(a, other) == getattr(_edge(), other)
    assert (a.attempts, a.successes, a.semantic_successes) == (b.attempts, b.successes, b.semantic_successes)


def test_an_iteration_applies_the_configured_increments_to_each_edge_in_path_order():
    """Through PhaseA._apply, as a real iteration does: each edge's posterior is its prior plus the sum
    of the increments of its attempts (computed here from the config, not from the step records), and
    the path's first call (no edge) touches no posterior."""
    graph = ToolGraph(["s", "u", "v"])
    for key in (("s", "u"), ("u", "v")):
        graph.add(_edge(source=key[0], target=key[1]))
    config = CUSTOM.model_copy(update={"n_min": 100})  # no pruning here
    phase = _stub_phase(graph, config)
    log = PathLog(1, 0)
    log.steps = [
        StepOutcome(None, "s", *classify(_ok(), False, config), 2),
        StepOutcome(("s", "u"), "u", *classify(_ok(), True, config), 2),
        StepOutcome(("u", "v"), "v", *classify(_err("environmental", "malformed"), True, config), 0),
    ]
    second = PathLog(1, 1, steps=[StepOutcome(("s", "u"), "u", *classify(_err("structural", "bad_param"),
                                                                         True, config), 0)])
    phase._apply([log, second], iteration=1)
    su, uv = graph.edges[("s", "u")], graph.edges[("u", "v")]
    assert (su.alpha, su.beta) == (1.5 + config.alpha_semantic, 1.25 + config.beta_structural[1])
    assert (su.attempts, su.successes, su.semantic_successes) == (2, 1, 1)
    assert (uv.alpha, uv.beta) == (1.5, 1.25 + config.beta_environmental[1])
    assert (uv.attempts, uv.successes) == (1, 0)


def test_pruning_reads_n_min_tau_and_eps_prune_from_the_config():
    """One structural failure on a weak edge: P[θ > τ] for Beta(1.5, 3.25) is ≈ 0.20 (checked here by
    integration), so it is pruned with ε_prune = 0.3 and n_min = 1, and kept when either differs."""
    x = np.linspace(0.0, 1.0, 200_001)
    a, b = 1.5, 1.25 + CUSTOM.beta_structural[1]
    pdf = np.exp((a - 1) * np.log(np.clip(x, 1e-300, None)) + (b - 1) * np.log(np.clip(1 - x, 1e-300, None))
                 + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))
    above = float(np.trapezoid(np.where(x > 0.5, pdf, 0.0), x))
    assert 0.1 < above < 0.3
    outcomes = {}
    for name, update in {"prune": {"n_min": 1, "eps_prune": 0.3}, "n_min": {"n_min": 2, "eps_prune": 0.3},
                         "eps": {"n_min": 1, "eps_prune": above - 0.01},
                         "tau": {"n_min": 1, "eps_prune": 0.3, "tau": 0.2}}.items():
        graph = ToolGraph(["u", "v"])
        graph.add(_edge())
        config = CUSTOM.model_copy(update=update)
        phase = _stub_phase(graph, config)
        phase._apply([PathLog(1, 0, steps=[_step(_err("structural", "bad_param"), True, config)])], iteration=1)
        outcomes[name] = (graph.edges[("u", "v")].pruned, graph.edges[("u", "v")].pruned_at)
    assert outcomes == {"prune": (True, 1), "n_min": (False, None), "eps": (False, None), "tau": (False, None)}


def test_a_path_classifies_each_call_with_the_run_config():
    """run_path end to end on a scripted runtime: the start tool's call is a generic success, the bound
    call's outcome carries the config's increment."""
    catalog = load_catalog()
    real = [t for t in catalog if t.spec.real and t.family != "session"]
    filler = ArgumentFiller(TODAY.isoformat())
    source = next(t for t in real if filler.fill(t, {}, stream(0, "probe")) is not None)
    target, param = next((t, req[0]) for t in real if t.name != source.name
                         for req in [[p.name for p in t.spec.params if p.required and not is_generic(p)]]
                         if len(req) == 1)
    graph = ToolGraph([source.name, target.name])
    edge = _edge(source=source.name, target=target.name)
    edge.plan = {param: ParamSource(kind="UPSTREAM", field="code")}
    graph.add(edge)

    class Scripted:
        def __init__(self, answer: ToolResult) -> None:
            self.answer, self.calls = answer, []

        def call(self, name, args):
            self.calls.append((name, args))
            if name == source.name:
                return ToolResult(tool=name, arguments=args, ok=True, records=[{"code": "X1"}], total_count=1)
            return self.answer

    for answer, outcome, da, db in [(_ok(), "semantic", CUSTOM.alpha_semantic, 0.0),
                                    (_err("structural", "bad_param"), "structural", 0.0, CUSTOM.beta_structural[1]),
                                    (_err("environmental", "rate_limit"), "environmental", 0.0,
                                     CUSTOM.beta_environmental[0])]:
        runtime = Scripted(answer)
        phase = _stub_phase(graph, CUSTOM, catalog, runtime)
        log = phase.run_path(1, 0, runtime)
        assert runtime.calls[1] == (target.name, {param: "X1"})
        first, second = log.steps
        assert (first.edge, first.outcome, first.delta_alpha) == (None, "generic", CUSTOM.alpha_generic)
        assert (second.edge, second.outcome, second.delta_alpha, second.delta_beta) == (
            (source.name, target.name), outcome, da, db)


# ---------------------------------------------------------------- Thompson choice

def _p_largest(params: list[tuple[float, float]], points: int = 400_001) -> np.ndarray:
    """P[θ_i is the largest of independent θ_j ~ Beta(a_j, b_j)] = ∫ f_i(x) Π_{j≠i} F_j(x) dx, by the
    trapezoid rule on a fine grid (densities from lgamma, CDFs by cumulative integration)."""
    x = np.linspace(0.0, 1.0, points)
    inner = x[1:-1]
    pdfs = []
    for a, b in params:
        log = (a - 1) * np.log(inner) + (b - 1) * np.log1p(-inner) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
        pdf = np.concatenate([[0.0 if a > 1 else (b if a == 1 else np.inf)], np.exp(log),
                              [0.0 if b > 1 else (a if b == 1 else np.inf)]])
        pdfs.append(pdf)
    dx = x[1] - x[0]
    cdfs = [np.concatenate([[0.0], np.cumsum((p[1:] + p[:-1]) / 2) * dx]) for p in pdfs]
    out = []
    for i, pdf in enumerate(pdfs):
        integrand = pdf * np.prod([c for j, c in enumerate(cdfs) if j != i], axis=0)
        out.append(float(np.trapezoid(integrand, x)))
    return np.array(out)


def test_thompson_choice_follows_each_edge_with_the_probability_its_draw_is_largest():
    params = [(2.0, 5.0), (3.0, 3.0), (6.0, 4.0), (1.0, 1.0), (1.5, 1.25)]
    edges = [_edge(a, b, target=f"v{i}") for i, (a, b) in enumerate(params)]
    expected = _p_largest(params)
    assert expected.sum() == pytest.approx(1.0, abs=1e-6)
    rng = stream(11, "test-thompson")
    n = 40_000
    counts = np.zeros(len(edges))
    for _ in range(n):
        chosen, explored = thompson_choice(edges, rng, eps_explore=0.0)
        assert not explored
        counts[edges.index(chosen)] += 1
    sigma = np.sqrt(n * expected * (1 - expected))
    assert np.all(np.abs(counts - n * expected) <= 5 * sigma), (counts / n, expected)
    chi2 = float(np.sum((counts - n * expected) ** 2 / (n * expected)))
    assert chi2 < 23.5  # χ²(4 d.o.f.) at p = 1e-4
    # Not the posterior-mean argmax: the best-mean edge (6, 4) is followed far from always.
    assert counts[2] / n < 0.6 and counts[0] > 0


def test_with_no_fallback_the_choice_is_the_argmax_of_one_beta_draw_per_edge():
    """The rule itself, replayed on a second generator with the same seed: one uniform (the ε test),
    then one Beta draw per edge in out-edge order; the largest wins."""
    edges = [_edge(a, b, target=f"v{i}") for i, (a, b) in enumerate([(1, 1), (2, 3), (4, 1.5)])]
    rng, replay = stream(5, "test-rule"), stream(5, "test-rule")
    for _ in range(500):
        chosen, _ = thompson_choice(edges, rng, eps_explore=0.0)
        replay.random()
        draws = [replay.beta(e.alpha, e.beta) for e in edges]
        assert chosen is edges[int(np.argmax(draws))]


def test_the_fallback_is_taken_at_the_configured_rate_and_picks_uniformly():
    # One edge dominates the posteriors, so Thompson alone would almost never pick the others: the
    # fallback is their only way in, the floor the paper puts under cold-start edges.
    edges = [_edge(1000.0, 1.0, target="hot")] + [_edge(1.0, 1000.0, target=f"cold{i}") for i in range(3)]
    for eps in (0.05, 0.1, 0.3):
        rng = stream(3, "test-eps", str(eps))
        n = 20_000
        explored = np.zeros(len(edges))
        taken = 0
        for _ in range(n):
            chosen, was_explored = thompson_choice(edges, rng, eps_explore=eps)
            if was_explored:
                taken += 1
                explored[edges.index(chosen)] += 1
            else:
                assert chosen is edges[0]
        assert abs(taken - n * eps) <= 5 * math.sqrt(n * eps * (1 - eps)), (eps, taken / n)
        share = 1 / len(edges)
        assert np.all(np.abs(explored - taken * share) <= 5 * math.sqrt(taken * share * (1 - share)))


def test_the_fallback_is_never_taken_when_eps_is_zero_and_always_when_one():
    edges = [_edge(1.0, 1.0, target=f"v{i}") for i in range(3)]
    rng = stream(9, "test-eps-ends")
    assert not any(thompson_choice(edges, rng, 0.0)[1] for _ in range(20_000))
    assert all(thompson_choice(edges, rng, 1.0)[1] for _ in range(2_000))


def test_phase_a_chooses_among_live_edges_with_the_configured_eps():
    graph = ToolGraph(["u", "a", "b", "c"])
    for t in ("a", "b", "c"):
        graph.add(_edge(target=t))
    graph.edges[("u", "b")].pruned = True
    phase = _stub_phase(graph, EdgeConfig(eps_explore=1.0))
    rng = stream(1, "test-live")
    seen = {phase._choose_edge("u", rng).target for _ in range(2_000)}
    assert seen == {"a", "c"}
    assert phase._choose_edge("a", rng) is None  # no out-edges: the path ends
    # The choice reads the config's ε: with ε = 1 the pick is rng.integers(2) after one uniform.
    rng, replay = stream(2, "test-live"), stream(2, "test-live")
    for _ in range(200):
        replay.random()
        assert phase._choose_edge("u", rng).target == ["a", "c"][int(replay.integers(2))]


# ---------------------------------------------------------------- the config itself

def test_out_of_range_values_are_refused_by_name():
    for bad in ({"beta_structural": (1.5, 1.0)}, {"beta_environmental": (-0.1, 0.8)}, {"eps_explore": 1.5},
                {"tau": -0.1}, {"M": 0}, {"phi": 0}, {"max_path_len": 0}, {"alpha_semantic": -1.0}):
        with pytest.raises(ValidationError, match=next(iter(bad))):
            EdgeConfig(**bad)


def test_every_config_field_is_read_by_the_edge_code():
    """The bug this file guards against: a field that only changes the config digest. Each field must be
    read as `config.<field>` somewhere in kopa/edge (the loop, the skeleton or the run)."""
    folder = Path(kopa.edge.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in folder.glob("*.py") if p.name != "config.py")
    unread = [name for name in EdgeConfig.model_fields if not re.search(rf"\bconfig\.{name}\b", source)]
    assert unread == []
