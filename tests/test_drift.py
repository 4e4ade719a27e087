"""Drift: scenarios served by the simulator at numbered epochs, and `kopa record diff` naming exactly what changed.

The scenario file is the ground truth: recordings of one fixed call set at epoch 0 and epoch N must differ
by the scenario's changes up to N — no miss, no extra — and epoch 0 against itself by nothing.
"""

from __future__ import annotations

import re

import orjson
import pytest
from click.testing import CliRunner

from kopa.backends import BackendError, open_backend
from kopa.catalog.loader import load_catalog
from kopa.cli import main
from kopa.record.drift import compare_snapshots
from kopa.tools.reissue import drift_report
from kopa.tools.runtime import ToolRuntime
from kopa.wire import family_of
from sim.drift import (
    DateFormatChanged,
    DriftError,
    EndpointRetired,
    FieldAdded,
    FieldRemoved,
    FieldRenamed,
    MaxPageSizeLowered,
    ParamRenamed,
    RecordsChanged,
    load_scenario,
)
from sim.truth import endpoint_for_url

# Every changed endpoint of the default scenario, some with a call the change does not touch, and
# unchanged endpoints on several platforms.
CALLS: list[tuple[str, dict]] = [
    ("get_dart_company_overview", {"corp_code": "00104083"}),
    ("search_dart_disclosures", {"corp_code": "00104083"}),
    ("get_stock_price_trend", {"likeSrtnCd": "253160", "numOfRows": 20}),
    ("get_krx_kospi_daily_trading", {"basDd": "20260129"}),
    ("get_krx_kosdaq_daily_trading", {"basDd": "20260129"}),
    ("find_neis_school_code", {"SCHUL_NM": "서울"}),
    ("list_ex_rest_oil_stations", {"numOfRows": 99}),
    ("list_ex_rest_oil_stations", {"numOfRows": 10}),
    ("list_ex_routes", {}),
    ("list_seoul_bike_stations", {}),
    ("list_gg_public_libraries", {}),
    ("get_assembly_member_career", {"HG_NM": "강도옥"}),
    ("find_assembly_member", {}),
    ("search_hrd_training_courses", {"srchTraStDt": "20260101", "srchTraEndDt": "20260331"}),
    ("search_court_precedents", {}),
    ("get_qnet_exam_fee", {"jmCd": "1034"}),
    ("list_qnet_qualifications", {}),
    ("get_kdic_deposit_trend", {"numOfRows": 100}),
    ("list_kdic_failed_institutions", {}),
]


def _runtime(spec: str) -> tuple[object, ToolRuntime]:
    backend = open_backend(spec)
    runtime = ToolRuntime(backend)
    for tool, _ in CALLS:
        auth = runtime.catalog[tool].auth
        if auth is not None:
            runtime.state.store_key(auth.key_id, backend.issue_key(auth.key_id))
    return backend, runtime


def _record(directory, spec: str):
    backend, runtime = _runtime(f"record:{directory}@{spec}")
    for tool, args in CALLS:
        result = runtime.call(tool, args)
        if spec == "sim":
            assert result.ok, (tool, args, result.error)
    backend.observer.snapshot.close()
    return directory


@pytest.fixture(scope="module")
def recordings(tmp_path_factory, backend):
    root = tmp_path_factory.mktemp("drift")
    return {epoch: _record(root / f"epoch{epoch}", spec) for epoch, spec in
            ((0, "sim"), (1, "sim:drift=default,epoch=1"), (2, "sim:drift=default,epoch=2"))}


def _expected(simulator, epoch: int) -> set[tuple]:
    """What the report must say, derived from the scenario file and the calls each endpoint received."""
    catalog = load_catalog()
    endpoints: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for tool, args in CALLS:
        spec = catalog[tool]
        ep = endpoint_for_url(simulator, str(family_of(spec.family).build(spec, args, "k").url))
        endpoints.setdefault((ep.host, ep.key), []).append((tool, args))
    expected: set[tuple] = set()
    retired = set()
    for change in load_scenario("default").changes_until(epoch):
        calls = endpoints.get((change.host, change.endpoint))
        assert calls, f"the call set never reaches {change.host} {change.endpoint}"
        tool = calls[0][0]
        if isinstance(change, EndpointRetired):
            retired.add(tool)
            expected.add((tool, "retired", None, None))
        elif isinstance(change, FieldRenamed):
            expected.add((tool, "field_renamed", change.field, change.to))
        elif isinstance(change, FieldRemoved):
            expected.add((tool, "field_removed", change.field, None))
        elif isinstance(change, FieldAdded):
            expected.add((tool, "field_added", change.field, None))
        elif isinstance(change, DateFormatChanged):
            expected.add((tool, "format_changed", change.field, None))
        elif isinstance(change, RecordsChanged):
            expected.add((tool, "record_count", None, None))
        elif isinstance(change, MaxPageSizeLowered):
            # a call asking for more than the new maximum now fails
            expected.add((tool, "error_rate", None, None))
        elif isinstance(change, ParamRenamed):
            required = simulator.endpoints[(change.host, change.endpoint)].required
            # the old name is ignored: a required one is now missing, an optional filter no longer filters
            expected.add((tool, "error_rate" if change.param in required else "record_count", None, None))
    return {e for e in expected if e[0] not in retired or e[1] == "retired"}


def _found(report) -> set[tuple]:
    return {(f.tool, f.kind, f.field, f.to) for f in report.findings}


def test_same_query_answers_differently_at_epoch_0_and_1(backend):
    _, before = _runtime("sim")
    _, after = _runtime("sim:drift=default,epoch=1")
    old = before.call("get_dart_company_overview", {"corp_code": "00104083"}).records[0]
    new = after.call("get_dart_company_overview", {"corp_code": "00104083"}).records[0]
    assert (old["ceo_nm"], old["est_dt"]) == ("배선인", "20190330")
    assert "ceo_nm" not in new and (new["rprsntv_nm"], new["est_dt"]) == ("배선인", "2019-03-30")
    gone = after.call("get_assembly_member_career", {"HG_NM": "강도옥"})
    assert (gone.error.error_class, gone.error.kind, gone.error.code) == ("structural", "unknown_service",
                                                                          "ERROR-310")
    # The old parameter name is ignored like any unknown one: the filter no longer filters.
    assert before.call("find_neis_school_code", {"SCHUL_NM": "서울"}).total_count == 4
    assert after.call("find_neis_school_code", {"SCHUL_NM": "서울"}).total_count == 600


def test_epoch_0_is_the_undrifted_simulator(backend):
    _, plain = _runtime("sim")
    _, zero = _runtime("sim:drift=default,epoch=0")
    for tool, args in CALLS:
        assert plain.call(tool, args).model_dump() == zero.call(tool, args).model_dump()


def test_removed_records_are_the_same_rows_in_every_query(backend):
    _, before = _runtime("sim")
    _, after = _runtime("sim:drift=default,epoch=1")
    page = {"START_INDEX": 1, "END_INDEX": 300}
    old = {r["stationId"] for r in before.call("list_seoul_bike_stations", page).records}
    new = {r["stationId"] for r in after.call("list_seoul_bike_stations", page).records}
    again = {r["stationId"] for r in after.call("list_seoul_bike_stations", page).records}
    assert new < old and new == again and 0.1 < 1 - len(new) / len(old) < 0.3


@pytest.mark.parametrize("epoch", [1, 2])
def test_report_names_exactly_the_scenario_changes(recordings, simulator, epoch):
    report = compare_snapshots(recordings[0], recordings[epoch])
    assert report.matched_calls == len(CALLS)
    assert _found(report) == _expected(simulator, epoch)


def test_epoch_0_against_itself_reports_nothing(recordings):
    report = compare_snapshots(recordings[0], recordings[0])
    assert report.findings == [] and report.matched_calls == len(CALLS)
    assert "No drift" in report.markdown()


def test_snapshot_against_a_backend_reissues_its_calls(recordings, simulator):
    report = drift_report(str(recordings[0]), "sim:drift=default,epoch=1")
    assert report.b.backend.endswith("drift=default epoch=1")
    assert _found(report) == _expected(simulator, 1)


def test_markdown_report(recordings, snapshot):
    report = compare_snapshots(recordings[0], recordings[1], a_label="epoch0", b_label="epoch1")
    # The provenance names the world's content hash, which changes whenever any generator does.
    assert re.sub(r"world=[0-9a-f]{16}", "world=<hash>", report.markdown()) == snapshot


def test_cli_record_diff_writes_json_and_markdown(recordings, tmp_path):
    out = tmp_path / "diff"
    result = CliRunner().invoke(main, ["record", "diff", str(recordings[0]), str(recordings[1]), "-o", str(out)])
    assert result.exit_code == 0, result.output
    out_json, out_md = out / "drift.json", out / "drift.md"
    data = orjson.loads(out_json.read_bytes())
    assert {"field_renamed", "retired", "record_count"} <= {f["kind"] for f in data["findings"]}
    assert out_md.read_text(encoding="utf-8").startswith("# Drift report")


def test_cli_sim_drift_show():
    result = CliRunner().invoke(main, ["sim", "drift", "show", "default"])
    assert result.exit_code == 0, result.output
    assert "epoch 1" in result.output and "epoch 2" in result.output and "nexgtxtmaamffofof" in result.output


def test_scenario_errors_are_clear(tmp_path, simulator):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[epochs]]\nnumber = 1\n[[epochs.changes]]\nkind = "field_renamed"\nhost = "x"\n'
                   'endpoint = "y"\nfield = "a"\n', encoding="utf-8")
    with pytest.raises(DriftError, match=r"epochs\.0\.changes\.0\.field_renamed\.to"):
        load_scenario(str(bad))
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[[epochs]]\nnumber = 1\n[[epochs.changes]]\nkind = "retired"\nhost = "opendart.fss.or.kr"\n'
                       'endpoint = "nope"\n', encoding="utf-8")
    with pytest.raises(DriftError, match="no endpoint 'nope'"):
        from sim.app import Simulator

        Simulator(simulator.world, drift=load_scenario(str(unknown)), epoch=1)
    with pytest.raises(BackendError, match=r"epochs 0\.\.2"):
        open_backend("sim:drift=default,epoch=3")
    with pytest.raises(DriftError, match="shipped: default"):
        load_scenario("no-such-scenario")
