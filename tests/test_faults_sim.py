"""Fault injection, simulator side: profiles, the pure decision, and each family's real fault answers."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest
from click.testing import CliRunner

from kopa.backends.sim import to_httpx_response, to_sim_request
from kopa.catalog.loader import load_catalog
from kopa.cli import main
from kopa.wire import family_of
from sim.faults import (
    KINDS,
    PLATFORM_IDS,
    FaultProfileError,
    decide,
    expected_rates,
    load_profile,
    platform_of,
    render_fault,
)
from sim.http import SimRequest, SimResponse

# One catalog tool per envelope family; each is built by kopa's own wire builder, so the fault answer is
# rendered for exactly the request kopa sends (format selector included).
FAMILY_TOOLS = {
    "dart": "get_dart_company_overview",
    "dart_xml": "find_dart_corp_code",  # corpCode.xml: the XML form of the DART answer
    "datagokr": "get_stock_price_trend",  # resultType=json asked; the gateway answers XML anyway
    "portal": "find_assembly_member",
    "seoul": "get_seoul_rent_contracts",
    "krx": "get_krx_kospi_daily_trading",
    "ex": "list_ex_routes",
    "law": "search_current_laws",
    "hrd": "search_hrd_training_courses",
    "schoolinfo": "get_schoolinfo_basic_info",
}

# A request of each platform, for the rate statistics (no endpoint overrides apply to these).
PLATFORM_REQUESTS = {
    "dart": ("opendart.fss.or.kr", "/api/list.json"),
    "krx": ("data-dbg.krx.co.kr", "/svc/apis/sto/stk_bydd_trd"),
    "kdic": ("apis.data.go.kr", "/B190017/service/GetInsurgTrgetFnltInfoService/getInsurgTrgetFnltList"),
    "ex": ("data.ex.co.kr", "/openapi/locationinfo/locationinfoRoute"),
    "seoul": ("openapi.seoul.go.kr", "/k/json/tbLnOpendataRentV/1/5"),
    "edu": ("open.neis.go.kr", "/hub/schoolInfo"),
    "hrd": ("apis.data.go.kr", "/B490007/qualExamSchd/getQualExamSchdList"),
    "law": ("www.law.go.kr", "/DRF/lawSearch.do"),
    "assembly": ("open.assembly.go.kr", "/portal/openapi/ALLNAMEMBER"),
    "gg": ("openapi.gg.go.kr", "/SigunCdInfo"),
    "tago": ("apis.data.go.kr", "/1613000/BusSttnInfoInqireService/getSttnNoList"),
}
N_CALLS = 10_000
Z99 = 2.5758  # two-sided 99% normal quantile


def _tool_request(case: str):
    tool = load_catalog()[FAMILY_TOOLS[case]]
    return tool, to_sim_request(family_of(tool.family).build(tool, {}, "k"))


def _show(response: SimResponse) -> str:
    headers = "".join(f"{k}: {v}\n" for k, v in sorted(response.headers.items()))
    return f"HTTP {response.status} {response.content_type}\n{headers}{response.body.decode('utf-8')}"


def _classify(tool, response: SimResponse):
    return family_of(tool.family).parse(tool, {}, to_httpx_response(response)).error


# ---------------------------------------------------------------- answers


@pytest.mark.parametrize("case", sorted(FAMILY_TOOLS))
def test_rate_limit_answer_is_the_real_form(case, snapshot):
    _, request = _tool_request(case)
    assert _show(render_fault("rate_limit", request)) == snapshot


@pytest.mark.parametrize("case", sorted(FAMILY_TOOLS))
def test_rate_limit_answer_is_classified_environmental(case):
    tool, request = _tool_request(case)
    error = _classify(tool, render_fault("rate_limit", request))
    assert error is not None
    assert (error.error_class, error.kind) == ("environmental", "rate_limit")


def test_specific_real_forms():
    _, dart = _tool_request("dart")
    assert b'"status":"020"' in render_fault("rate_limit", dart).body
    assert b'"status":"800"' in render_fault("maintenance", dart).body
    _, dart_xml = _tool_request("dart_xml")
    assert b"<status>020</status>" in render_fault("rate_limit", dart_xml).body
    _, gw = _tool_request("datagokr")
    assert ("resultType", "json") in gw.query
    answer = render_fault("rate_limit", gw)
    assert answer.status == 200 and answer.content_type.startswith("application/xml")
    assert b"<returnReasonCode>22</returnReasonCode>" in answer.body
    _, krx = _tool_request("krx")
    answer = render_fault("rate_limit", krx)
    assert answer.status == 429 and answer.headers == {"Retry-After": "1"}
    _, portal = _tool_request("portal")
    assert render_fault("rate_limit", portal).body.startswith(b'{"RESULT":{"CODE":"ERROR-337"')


@pytest.mark.parametrize("kind", ["maintenance", "server_error"])
@pytest.mark.parametrize("case", sorted(FAMILY_TOOLS))
def test_maintenance_and_server_errors_are_environmental(case, kind):
    tool, request = _tool_request(case)
    response = render_fault(kind, request)
    error = _classify(tool, response)
    assert error is not None and error.error_class == "environmental", (response.status, response.body[:200])
    if kind == "server_error":
        assert response.status in (500, 502, 503) and response.content_type == "text/html"
        assert response == render_fault(kind, request)  # a function of the request alone


def test_served_paths_are_routed_and_transport_kinds_refused():
    request = SimRequest("GET", "127.0.0.1", "/opendart.fss.or.kr/api/list.xml", (("crtfc_key", "k"),))
    assert b"<status>020</status>" in render_fault("rate_limit", request).body
    with pytest.raises(ValueError, match="transport"):
        render_fault("timeout", request)


# ---------------------------------------------------------------- decisions


def test_platform_of_splits_the_gateway_by_path():
    for platform, (host, path) in PLATFORM_REQUESTS.items():
        assert platform_of(host, path) == platform
    fsc = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
    assert platform_of("apis.data.go.kr", fsc) == "krx"
    assert platform_of("apis.data.go.kr", "/1160100/service/GetFnCoBinsInfoService/getFnCoBinsInfo") == "kdic"
    assert platform_of("openapi.q-net.or.kr", "/api/service/rest/x") == "hrd"
    assert platform_of("www.schoolinfo.go.kr", "/openApi.do") == "edu"
    assert platform_of("127.0.0.1:8800", "/open.neis.go.kr/hub/schoolInfo") == "edu"
    assert platform_of("apis.data.go.kr", "/9999999/nothing") == "other"


def test_decide_is_pure_and_attempts_draw_independently():
    profile = load_profile("harsh")
    host, path = PLATFORM_REQUESTS["kdic"]
    calls = [(f"fp{i}", a) for i in range(2_000) for a in range(3)]
    forward = [decide(profile, 7, fp, a, host, path) for fp, a in calls]
    fresh = load_profile("harsh")  # a second load: no state carried in the profile object either
    backward = [decide(fresh, 7, fp, a, host, path) for fp, a in reversed(calls)]
    assert forward == backward[::-1]
    assert decide(profile, 8, "fp1", 0, host, path) == decide(profile, 8, "fp1", 0, host, path)
    # Independence across attempts (outside maintenance): P(fault at 0 and at 3) ≈ P(fault)².
    n = N_CALLS
    both = sum(decide(profile, 0, f"fp{i}", 3, host, path).kind is not None
               and decide(profile, 0, f"fp{i}", 4, host, path).kind is not None for i in range(n))
    p = sum(r for k, r in profile.rates_for(host, path).items() if k not in ("maintenance", "latency"))
    assert abs(both - n * p * p) <= Z99 * math.sqrt(n * p * p * (1 - p * p)) + 1


def test_decisions_are_stable_across_versions_and_processes(snapshot):
    """A digest of many decisions: any change to the draws (hash input, order of kinds) shows here."""
    profile = load_profile("harsh")
    lines = []
    for platform, (host, path) in sorted(PLATFORM_REQUESTS.items()):
        for i in range(300):
            d = decide(profile, 0, f"{platform}:{i}", i % 4, host, path)
            lines.append(f"{d.kind}|{d.retry_after}|{d.delay}")
    assert hashlib.sha256("\n".join(lines).encode()).hexdigest() == snapshot


@pytest.mark.parametrize("name", ["realistic", "harsh"])
@pytest.mark.parametrize("platform", PLATFORM_IDS)
def test_rates_match_expected_within_binomial_bounds(name, platform):
    profile = load_profile(name)
    host, path = PLATFORM_REQUESTS[platform]
    counts = Counter(decide(profile, 0, f"req-{i}", 0, host, path).kind for i in range(N_CALLS))
    for kind, p in expected_rates(profile)[platform].items():
        observed = counts.get(kind, 0)
        if p == 0:
            assert observed == 0, kind
        else:
            bound = Z99 * math.sqrt(N_CALLS * p * (1 - p)) + 1
            assert abs(observed - N_CALLS * p) <= bound, (kind, observed, N_CALLS * p, bound)


def test_none_never_faults():
    profile = load_profile("none")
    for host, path in PLATFORM_REQUESTS.values():
        for i in range(2_000):
            assert decide(profile, 0, f"x{i}", i % 5, host, path) == decide(profile, 0, "y", 0, host, path)
    assert decide(profile, 0, "y", 0, "data.ex.co.kr", "/").kind is None
    assert all(v == 0 for rates in expected_rates(profile).values() for v in rates.values())


def test_maintenance_window_persists_then_lifts():
    profile = load_profile("harsh")
    host, path = PLATFORM_REQUESTS["dart"]
    k = profile.maintenance_attempts
    maintained = [f"m{i}" for i in range(3_000) if decide(profile, 0, f"m{i}", 0, host, path).kind == "maintenance"]
    assert len(maintained) > 20
    for fp in maintained:
        assert [decide(profile, 0, fp, a, host, path).kind for a in range(k)] == ["maintenance"] * k
        assert decide(profile, 0, fp, k, host, path).kind != "maintenance"


def test_retry_after_and_delays():
    profile = load_profile("harsh")
    host, path = PLATFORM_REQUESTS["krx"]
    decisions = [decide(profile, 0, f"r{i}", 0, host, path) for i in range(500)]
    assert {d.retry_after for d in decisions if d.kind == "rate_limit"} == {1.0}
    assert {d.retry_after for d in decisions if d.kind != "rate_limit"} == {None}
    assert {d.delay for d in decisions if d.kind == "timeout"} == {profile.timeout_seconds}
    dart = [decide(profile, 0, f"r{i}", 0, *PLATFORM_REQUESTS["dart"]) for i in range(500)]
    assert {d.retry_after for d in dart if d.kind == "rate_limit"} == {None}


# ---------------------------------------------------------------- profiles


def _write(tmp_path, text: str):
    path = tmp_path / "custom.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_overrides_and_quotas(tmp_path):
    path = _write(tmp_path, """
maintenance_attempts = 4
[default]
timeout = 0.01
[platforms.hrd]
rate_limit = 0.02
[[overrides]]
host = "apis.data.go.kr"
path_prefix = "/B490007/"
rate_limit = 0.5
[quotas]
data_go_kr = 1000
dart = 20000
""")
    profile = load_profile(str(path))
    assert profile.name == "custom" and profile.quotas == {"data_go_kr": 1000, "dart": 20000}
    assert profile.rates_for(*PLATFORM_REQUESTS["hrd"])["rate_limit"] == 0.5
    assert profile.rates_for("openapi.q-net.or.kr", "/api/x")["rate_limit"] == 0.02
    assert profile.rates_for(*PLATFORM_REQUESTS["kdic"])["rate_limit"] == 0.0
    assert profile.rates_for(*PLATFORM_REQUESTS["kdic"])["timeout"] == 0.01
    hits = sum(decide(profile, 0, f"o{i}", 0, *PLATFORM_REQUESTS["hrd"]).kind == "rate_limit" for i in range(2_000))
    assert 900 < hits < 1_100


@pytest.mark.parametrize(("text", "where"), [
    ("[platforms.dart]\nrate_limit = 1.5\n", "platforms.dart.rate_limit"),
    ("[platforms.dartt]\nrate_limit = 0.1\n", "unknown platform id(s) ['dartt']"),
    ("[default]\ntimeout = 0.6\nserver_error = 0.6\n", "sum to 1.2000 > 1"),
    ("[quotas]\ndatagokr = 1000\n", "unknown key system(s) ['datagokr']"),
    ("[default]\nrate_limt = 0.1\n", "default.rate_limt"),
    ("[default\n", "not valid TOML"),
])
def test_invalid_profiles_name_file_and_field(tmp_path, text, where):
    path = _write(tmp_path, text)
    with pytest.raises(FaultProfileError) as info:
        load_profile(str(path))
    assert str(path) in str(info.value) and where in str(info.value)


def test_shipped_profiles():
    realistic, harsh = expected_rates(load_profile("realistic")), expected_rates(load_profile("harsh"))
    assert set(realistic) == set(PLATFORM_IDS) and all(set(r) == set(KINDS) for r in realistic.values())
    for platform in PLATFORM_IDS:
        assert 0.01 <= load_profile("realistic").rates_for(*PLATFORM_REQUESTS[platform])["rate_limit"] <= 0.03
        assert harsh[platform]["timeout"] == pytest.approx(10 * realistic[platform]["timeout"], rel=0.05)
    assert realistic["dart"]["maintenance"] == 0.002
    assert load_profile("realistic").quotas == {} and load_profile("harsh").quotas == {}
    with pytest.raises(FaultProfileError, match="shipped: harsh, none, realistic"):
        load_profile("nonesuch")


def test_cli_faults_show():
    result = CliRunner().invoke(main, ["sim", "faults", "show", "realistic"])
    assert result.exit_code == 0, result.output
    assert "maintenance window: attempts 0..1" in result.output and "quotas: off" in result.output
    dart_row = next(line for line in result.output.splitlines() if line.startswith("dart "))
    assert dart_row.split()[1:3] == ["1.00", "0.20"]
    bad = CliRunner().invoke(main, ["sim", "faults", "show", "nonesuch"])
    assert bad.exit_code == 2 and "no fault profile 'nonesuch'" in bad.output
