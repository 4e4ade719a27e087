"""Faults as a transport wrapper, retries in the runtime: rates, determinism across workers, recovery."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

from kopa.backends import open_backend
from kopa.tools.accounting import FaultAccount
from kopa.tools.runtime import RetryPolicy, ToolRuntime


def workload(backend, n: int) -> list[tuple[str, dict]]:
    """n distinct small calls (distinct requests: a fault decision is per request fingerprint) over DART
    공시검색 and 금융위 주식시세, from the world's own codes."""
    world = backend.simulator.world
    corps = world.table("dart_corp").cols["corp_code"].vocab.tolist()
    stocks = [s for s in world.table("dart_corp").cols["stock_code"].vocab.tolist() if s.strip()]
    calls = []
    for i in range(n):
        j = i // 2
        if i % 2:
            calls.append(("search_dart_disclosures", {"corp_code": corps[j % len(corps)],
                                                      "page_count": 1 + (j // len(corps)) % 100}))
        else:
            calls.append(("get_stock_price_trend", {"likeSrtnCd": stocks[j % len(stocks)],
                                                    "numOfRows": 1 + (j // len(stocks)) % 97}))
    assert len({(name, tuple(sorted(a.items()))) for name, a in calls}) == n
    return calls


def run_episodes(backend, calls, workers: int, retry: RetryPolicy | None = None):
    """Episodes of 50 calls each, run by `workers` threads; results in call order."""
    chunks = [calls[i : i + 50] for i in range(0, len(calls), 50)]

    def episode(chunk):
        runtime = ToolRuntime(backend, retry=retry)
        runtime.call("issue_api_key", {"platform": "dart"})
        runtime.call("issue_api_key", {"platform": "krx"})
        return [runtime.call(name, args) for name, args in chunk]

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [r for chunk in pool.map(episode, chunks) for r in chunk]


def test_fault_log_is_identical_across_runs_and_worker_counts(simulator):
    logs = []
    for workers in (1, 4, 1):
        backend = open_backend("faults:harsh,seed=3@sim")
        run_episodes(backend, workload(backend, 600), workers)
        logs.append(backend.fault_log.to_jsonl())
    assert logs[0] and logs[0] == logs[1] == logs[2]


def test_other_seed_other_faults(simulator):
    a, b = open_backend("faults:harsh,seed=1@sim"), open_backend("faults:harsh,seed=2@sim")
    run_episodes(a, workload(a, 200), 1)
    run_episodes(b, workload(b, 200), 1)
    assert a.fault_log.to_jsonl() != b.fault_log.to_jsonl()


def test_observed_rates_match_configured_rates_over_10000_calls(simulator):
    from sim.faults import expected_rates, load_profile

    backend = open_backend("faults:harsh,seed=11@sim")
    calls = workload(backend, 10_000)
    results = run_episodes(backend, calls, 2, retry=RetryPolicy(max_attempts=1))
    assert len(results) == 10_000
    counts = backend.fault_log.counts()
    rates = expected_rates(load_profile("harsh"))
    n_per_platform = {"dart": 5_000, "krx": 5_000}
    checked = 0
    for platform, n in n_per_platform.items():
        for kind, p in rates[platform].items():
            if p <= 0:
                continue
            observed = counts.get((platform, kind), 0)
            # Binomial 99% bounds (normal approximation; n*p is large enough for every kind checked).
            half = 2.576 * math.sqrt(n * p * (1 - p))
            assert n * p - half - 1 <= observed <= n * p + half + 1, (platform, kind, observed, n * p)
            checked += 1
    assert checked >= 6


def test_retries_recover_the_fault_free_results_and_count_the_cost(simulator):
    clean = open_backend("sim")
    faulty = open_backend("faults:realistic,seed=5@sim")
    calls = workload(clean, 800)
    expected = [r.for_model() for r in run_episodes(clean, calls, 1)]
    results = run_episodes(faulty, calls, 2)
    assert [r.for_model() for r in results] == expected
    account = FaultAccount()
    for (name, _), result in zip(calls, results, strict=True):
        account.add("dart" if "dart" in name else "krx", result)
    assert account.attempts > account.calls == 800  # the faults cost retries …
    assert account.unrecovered_calls == 0  # … and every call recovered
    environmental = sum(row.count for row in account.rows() if row.outcome == "environmental")
    assert environmental == account.attempts - account.calls  # each injected fault cost exactly one retry
    assert faulty.clock.waited > 0  # backoff waited on the virtual clock, not in real time


def test_structural_errors_are_not_retried(simulator):
    backend = open_backend("faults:harsh,seed=5@sim")
    runtime = ToolRuntime(backend)
    runtime.call("issue_api_key", {"platform": "dart"})
    for code in ("99999990", "99999991", "99999992", "99999993"):
        result = runtime.call("get_dart_company_overview", {"corp_code": code})
        outcomes = [a.outcome for a in result.attempts]
        # Environmental failures may come first and are retried; the structural answer ends the call.
        assert outcomes[-1] == "structural" and set(outcomes[:-1]) <= {"environmental"}


def test_served_faults_are_real_and_retries_recover(simulator, monkeypatch):
    """Over `kopa sim serve`: real resets and cut bodies on the wire; the live client retries through them."""
    from sim.faults import load_profile
    from sim.serve import ServedFaults, SimServer

    for key_id in ("dart", "krx", "data_go_kr"):
        monkeypatch.setenv(f"KOPA_{key_id.upper()}_KEY", f"test-{key_id}-key-000")
    clean = open_backend("sim")
    calls = workload(clean, 120)
    expected = [r.for_model() for r in run_episodes(clean, calls, 1)]
    faults = ServedFaults(load_profile("harsh"), seed=4, time_scale=0.001)
    with SimServer(simulator, faults=faults) as server:
        live = open_backend(f"live:{server.url}")
        results = run_episodes(live, calls, 1, retry=RetryPolicy(max_attempts=6, base_delay=0.001, max_delay=0.01))
    assert [r.for_model() for r in results] == expected
    kinds = {a.kind for r in results for a in r.attempts if a.outcome == "environmental"}
    assert "connection" in kinds or "timeout" in kinds  # a real socket-level failure happened and was retried


def test_quota_refuses_calls_past_the_limit_in_the_services_form(simulator, tmp_path):
    profile = tmp_path / "quota.toml"
    profile.write_text('description = "quota only"\n\n[quotas]\ndart = 5\n', encoding="utf-8")
    backend = open_backend(f"faults:{profile}@sim")
    runtime = ToolRuntime(backend, retry=RetryPolicy(max_attempts=1))
    runtime.call("issue_api_key", {"platform": "dart"})
    results = [runtime.call("search_dart_disclosures", {"page_count": n}) for n in range(1, 9)]
    assert [r.error.code if r.error else "ok" for r in results][5:] == ["020", "020", "020"]
    assert all(r.error.error_class == "environmental" for r in results[5:])
