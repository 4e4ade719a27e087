"""One request identity: a profile and a seed inject the same faults in-process and over `kopa sim serve`.

Both transports take their decisions from `sim.faults.FaultDecider`: the same fingerprint of the same
HTTP request, and the same attempt number — told by the runtime in-process, counted per identity by
the server — so the sorted fault logs of the two must be equal for the same sequence of calls, though
the two sides use different keys and the served requests carry the real host in the path and loopback
in the Host header.
"""

from __future__ import annotations

import pytest

from kopa.backends import open_backend
from kopa.tools.runtime import RetryPolicy, ToolRuntime
from sim.faults import FaultDecider, load_profile, request_fingerprint
from sim.http import SimRequest
from sim.serve import ServedFaults, SimServer

# Four envelope families: DART's JSON, the data.go.kr gateway (금융위 주식시세), Seoul's path-key JSON
# and law.go.kr's DRF search; platforms dart, krx, seoul, law.
PLATFORMS = ("dart", "krx", "seoul", "law")
RETRY = RetryPolicy(max_attempts=6, base_delay=0.001, max_delay=0.01)
LAW_QUERIES = ("민법", "상법", "형법", "근로기준법", "도로교통법", "건축법", "소득세법", "시행령")


def calls(world, n: int) -> list[tuple[str, dict]]:
    """n calls, a quarter per family; every tenth call repeats an earlier one, so some identities arrive
    again after their retries are over (a new call: attempt 0 again, on both sides alike)."""
    corps = world.table("dart_corp").cols["corp_code"].vocab.tolist()
    stocks = [s for s in world.table("dart_corp").cols["stock_code"].vocab.tolist() if s.strip()]
    out: list[tuple[str, dict]] = []
    for i in range(n):
        if i % 10 == 9:
            out.append(out[i // 2])
            continue
        j = i // 4
        match i % 4:
            case 0:
                out.append(("search_dart_disclosures", {"corp_code": corps[j % len(corps)], "page_count": 1 + j % 7}))
            case 1:
                out.append(("get_stock_price_trend", {"likeSrtnCd": stocks[j % len(stocks)], "numOfRows": 1 + j % 9}))
            case 2:
                out.append(("list_seoul_bike_stations", {"START_INDEX": 1 + j, "END_INDEX": 5 + j}))
            case _:
                out.append(("search_current_laws", {"query": LAW_QUERIES[j % len(LAW_QUERIES)], "display": 1 + j // 8}))
    return out


def run(backend, sequence: list[tuple[str, dict]]) -> list:
    runtime = ToolRuntime(backend, retry=RETRY)
    for platform in PLATFORMS:
        runtime.call("issue_api_key", {"platform": platform})
    return [runtime.call(name, args) for name, args in sequence]


def in_process_log(profile: str, seed: int, sequence) -> tuple[list[tuple[str, int, str, str]], list]:
    backend = open_backend(f"faults:{profile},seed={seed}@sim")
    results = run(backend, sequence)
    return [(e.fingerprint, e.attempt, e.platform, e.kind) for e in backend.fault_log.events()], results


def served_log(simulator, profile: str, seed: int, sequence, monkeypatch) -> tuple[list[tuple[str, int, str, str]], list]:
    for key_id in ("dart", "krx", "data_go_kr", "seoul", "law"):
        monkeypatch.setenv(f"KOPA_{key_id.upper()}_KEY", f"served-{key_id}-key-000")
    faults = ServedFaults(load_profile(profile), seed=seed, time_scale=0.0001)
    with SimServer(simulator, faults=faults) as server:
        results = run(open_backend(f"live:{server.url}"), sequence)
    return faults.log(), results


# (profile, seed, at least this many faults, at least this many of them on a retry or a repeat)
CASES = [("realistic", 7, 5, 0), ("harsh", 3, 100, 20)]


@pytest.mark.parametrize(("profile", "seed", "min_faults", "min_later"), CASES)
def test_same_profile_and_seed_same_faults_in_process_and_served(simulator, monkeypatch, profile, seed, min_faults,
                                                                 min_later):
    sequence = calls(simulator.world, 400)
    local, local_results = in_process_log(profile, seed, sequence)
    served, served_results = served_log(simulator, profile, seed, sequence, monkeypatch)
    assert len(local) >= min_faults  # enough faults for the comparison to mean something
    assert {platform for _, _, platform, _ in local} == set(PLATFORMS)
    assert sum(1 for _, attempt, _, _ in local if attempt > 0) >= min_later
    assert sum(len(r.attempts) for r in local_results) > len(sequence)  # some calls were retried
    assert served == local
    # The same faults cost the same retries, and each side recovers the same answers.
    assert [len(r.attempts) for r in served_results] == [len(r.attempts) for r in local_results]
    assert [r.for_model() for r in served_results] == [r.for_model() for r in local_results]


def test_another_seed_other_faults(simulator, monkeypatch):
    sequence = calls(simulator.world, 400)
    local = in_process_log("harsh", 1, sequence)[0]
    assert local != in_process_log("harsh", 2, sequence)[0]
    assert local != served_log(simulator, "harsh", 2, sequence, monkeypatch)[0]


def test_identity_is_the_same_on_either_wire_and_for_any_key():
    query = (("crtfc_key", "a" * 40), ("page_count", "3"), ("corp_code", "00126380"))
    local = SimRequest("GET", "opendart.fss.or.kr", "/api/list.json", query)
    served = SimRequest("GET", "127.0.0.1", "/opendart.fss.or.kr/api/list.json",
                        (("corp_code", "00126380"), ("page_count", "3"), ("crtfc_key", "b" * 40)))
    assert request_fingerprint(local) == request_fingerprint(served)
    seoul = [SimRequest("GET", "openapi.seoul.go.kr", f"/{key}/json/bikeList/1/5") for key in ("k1" * 10, "k2" * 10)]
    assert request_fingerprint(seoul[0]) == request_fingerprint(seoul[1])
    other = SimRequest("GET", "opendart.fss.or.kr", "/api/list.json", (("page_count", "4"), ("corp_code", "00126380")))
    assert request_fingerprint(other) != request_fingerprint(local)
    bodies = [SimRequest("POST", "opendart.fss.or.kr", "/api/list.json", query, body=b) for b in (b"x=1", b"x=2")]
    assert request_fingerprint(bodies[0]) != request_fingerprint(bodies[1])


def test_served_attempts_count_faults_in_a_row_per_identity(tmp_path):
    """What a retrying client does: attempt n follows n faults of the same call; a clean answer ends the
    call, so the next arrival of that request is a new call's attempt 0."""
    always = tmp_path / "always.toml"
    always.write_text('[default]\nserver_error = 1.0\n', encoding="utf-8")
    a = SimRequest("GET", "opendart.fss.or.kr", "/api/list.json", (("corp_code", "1"),))
    b = SimRequest("GET", "opendart.fss.or.kr", "/api/list.json", (("corp_code", "2"),))
    faulty = FaultDecider(load_profile(str(always)), seed=0)
    assert [faulty.arrive(r).attempt for r in (a, b, a, a, b)] == [0, 0, 1, 2, 1]
    clean = FaultDecider(load_profile("none"), seed=0)
    assert [clean.arrive(r).attempt for r in (a, b, a, a, b)] == [0, 0, 0, 0, 0]
    # Told (in-process: the runtime's attempt), the number is used as it is.
    assert faulty.arrive(a, attempt=0).attempt == 0 and faulty.arrive(a, attempt=4).attempt == 4
