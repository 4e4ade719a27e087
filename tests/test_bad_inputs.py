"""Every bad input a user can give the lower layers gets one `UserError` line naming what and where.

Backend strings (the option, its value and the valid choices), recordings (the file and what is wrong
with it), task and target files (the file, the line, the task and the field, step or tool). The CLI
prints such an error as it is, so each message here is asserted to be one line; the good forms beside
them must keep working.
"""

from __future__ import annotations

import copy
import gzip
import shutil
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
import yaml

from kopa.backends import BackendError, open_backend
from kopa.catalog.loader import CatalogError
from kopa.errors import UserError
from kopa.eval.runner import RunFolderError
from kopa.eval.task import TaskFileError, load_targets, load_task_file, load_tasks, task_set
from kopa.llm.cache import CacheFileError, CacheMiss
from kopa.record.cassette import CassetteError
from kopa.record.scan import scan_paths
from kopa.record.snapshot import SnapshotError
from kopa.record.transports import ReplayMiss
from kopa.tools.runtime import ToolRuntime
from sim.drift import DriftError
from sim.errors import SimInputError
from sim.faults import FaultProfileError


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert isinstance(exc.value, UserError), type(exc.value)
    assert message and "\n" not in message, message
    return message


@pytest.mark.parametrize("cls", [BackendError, CassetteError, SnapshotError, ReplayMiss, TaskFileError,
                                 RunFolderError, CacheFileError, CacheMiss, CatalogError])
def test_every_layer_error_is_a_user_error(cls):
    assert issubclass(cls, UserError)


def test_the_simulators_spec_errors_share_its_own_base():
    # sim never imports kopa (tests/test_layers.py): its errors share sim.errors.SimInputError, and the
    # backend layer wraps them in BackendError where a backend string names the spec.
    assert issubclass(FaultProfileError, SimInputError) and issubclass(DriftError, SimInputError)
    assert not issubclass(SimInputError, UserError)


# ---------------------------------------------------------------- backend strings

VALID_SIM = "seed, scale, today, drift, epoch"
BAD_SPECS: dict[str, list[str]] = {
    "sim:seed=x": ["seed='x' is not an integer"],
    "sim:scale=huge": ["scale='huge' is not a scale", "valid: small, full"],
    "sim:scale=ful": ["did you mean full?"],
    "sim:today=2026-13-45": ["today='2026-13-45' is not a date", "YYYY-MM-DD"],
    "sim:sed=7": ["unknown sim option 'sed' (did you mean seed?)", f"valid sim options: {VALID_SIM}"],
    "sim:7": ["sim option '7' is not key=value", VALID_SIM],
    "sim:seed=1,seed=2": ["sim option 'seed' is given twice"],
    "sim:drift=nosuch": ["drift='nosuch' is not a drift scenario", "valid: default"],
    "sim:epoch=1": ["epoch= needs a drift scenario", "drift=NAME"],
    "sim:drift=default,epoch=9": ["epochs 0..2", "got epoch 9"],
    "sim:drift=default,epoch=x": ["epoch='x' is not an integer"],
    "faults:nosuch@sim": ["no fault profile 'nosuch'", "valid: harsh, none, realistic"],
    "faults:realistc@sim": ["did you mean realistic?"],
    "faults:realistic,sed=1@sim": ["unknown faults option 'sed'", "valid faults options: seed"],
    "faults:realistic,seed=q@sim": ["seed='q' is not an integer"],
    "faults:@sim": ["faults needs a profile", "faults:realistic@sim"],
    "live:127.0.0.1:8800": ["live:'127.0.0.1:8800' is not an http(s) base URL", "live:http://127.0.0.1:8800"],
    "replay:": ["replay needs a path"],
    "replay:runs/nosuch,fromat=json": ["unknown replay option 'fromat'", "replay takes no options"],
    "snapshot:nosuch.duckdb": ["no snapshot at nosuch.duckdb"],
}


@pytest.mark.parametrize("spec", sorted(BAD_SPECS))
def test_bad_backend_strings_name_the_option_value_and_choices(spec):
    with pytest.raises(BackendError) as caught:
        open_backend(spec)
    message = one_line(caught)
    assert message.startswith(f"backend {spec!r}: "), message
    for fragment in BAD_SPECS[spec]:
        assert fragment in message, message


def test_an_unknown_backend_kind_lists_the_kinds():
    with pytest.raises(BackendError) as caught:
        open_backend("simm:seed=1")
    message = one_line(caught)
    assert message.startswith("unknown backend 'simm' in 'simm:seed=1' (did you mean sim?)"), message
    for kind in ("sim[:", "live[:", "record:DIR", "replay:DIR", "snapshot:FILE", "faults:PROFILE"):
        assert kind in message


def test_an_error_in_the_inner_backend_names_the_inner_string(tmp_path):
    with pytest.raises(BackendError) as caught:
        open_backend(f"record:{tmp_path / 'r'}@sim:seed=x")
    assert one_line(caught).startswith("backend 'sim:seed=x': seed='x'")
    assert not (tmp_path / "r").exists()  # nothing is written for a backend that cannot open


def test_record_needs_its_inner_backend_and_records_nothing_without_it(tmp_path):
    directory = tmp_path / "r"
    for spec in (f"record:{directory}", f"record:{directory}@"):
        with pytest.raises(BackendError) as caught:
            open_backend(spec)
        message = one_line(caught)
        assert f"e.g. record:{directory}@live (the real hosts) or record:{directory}@sim" in message
    assert not directory.exists()


def test_record_options_are_checked(tmp_path):
    with pytest.raises(BackendError) as caught:
        open_backend(f"record:{tmp_path / 'r'},fromat=json@sim")
    message = one_line(caught)
    assert "unknown record option 'fromat' (did you mean format?); valid record options: format" in message
    with pytest.raises(BackendError) as caught:
        open_backend(f"record:{tmp_path / 'r'},format=xml@sim")
    assert "format='xml' is not a cassette format; valid: vcr, json.gz, json, yaml" in one_line(caught)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("var", "value", "fragment"), [
    ("KOPA_TODAY", "2026-02-30", "KOPA_TODAY='2026-02-30' is not a date"),
    ("KOPA_LIVE_REDIRECT", "localhost:8800", "KOPA_LIVE_REDIRECT='localhost:8800' is not an http(s) base URL"),
])
def test_live_environment_variables_are_checked(monkeypatch, var, value, fragment):
    monkeypatch.setenv(var, value)
    with pytest.raises(BackendError) as caught:
        open_backend("live")
    assert fragment in one_line(caught)


def test_good_backend_strings_still_open(tmp_path, backend):
    sim = open_backend("sim:seed=0,scale=small,today=2026-01-30")
    assert sim.provenance == backend.provenance
    faults = open_backend("faults:realistic,seed=3@sim")
    assert faults.provenance.endswith("faults=realistic seed=3")
    assert open_backend("sim:drift=default,epoch=1").description.endswith("drift=default epoch=1)")
    live = open_backend("live:http://127.0.0.1:9")  # nothing listens: the clock comes from the date
    assert live.kind == "live"
    rec = open_backend(f"record:{tmp_path / 'r'},format=json@sim")
    runtime = ToolRuntime(rec)
    assert runtime.call("issue_api_key", {"platform": "dart"}).ok
    assert runtime.call("find_dart_corp_code", {"corp_name": "라이트론"}).ok
    rec.observer.snapshot.close()
    assert list((tmp_path / "r" / "interactions").glob("*/*.json"))


# ---------------------------------------------------------------- recordings


@pytest.fixture()
def recording(tmp_path, simulator) -> Path:
    """A fresh recording of two calls from the in-process simulator."""
    directory = tmp_path / "rec"
    rec = open_backend(f"record:{directory}@sim")
    runtime = ToolRuntime(rec)
    runtime.call("issue_api_key", {"platform": "dart"})
    assert runtime.call("get_dart_company_overview", {"corp_code": "00104083"}).ok
    rec.observer.snapshot.close()
    return directory


def _overview(spec: str):
    runtime = ToolRuntime(open_backend(spec))
    runtime.call("issue_api_key", {"platform": "dart"})
    return runtime.call("get_dart_company_overview", {"corp_code": "00104083"})


def test_recordings_replay(recording):
    assert _overview(f"replay:{recording}").ok
    assert _overview(f"snapshot:{recording}").ok


@pytest.mark.parametrize(("content", "fragment"), [
    (b"", "empty file, not a DuckDB snapshot"),
    (b"\x00garbage\xff" * 400, "not a DuckDB database"),
])
def test_an_empty_or_corrupt_snapshot_names_the_file(tmp_path, content, fragment):
    path = tmp_path / "snapshot.duckdb"
    path.write_bytes(content)
    with pytest.raises(SnapshotError) as caught:
        open_backend(f"snapshot:{path}")
    message = one_line(caught)
    assert message.startswith(f"{path}: ") and fragment in message


def test_a_duckdb_file_that_is_not_a_snapshot_is_refused(tmp_path):
    path = tmp_path / "other.duckdb"
    duckdb.connect(str(path)).execute("CREATE TABLE t (x INTEGER)").close()
    with pytest.raises(SnapshotError) as caught:
        open_backend(f"snapshot:{path}")
    assert one_line(caught) == (f"{path}: a DuckDB file but not a kopa snapshot (no table meta, calls, records, "
                                "http); record one with record:DIR@sim")


def test_a_truncated_snapshot_names_the_file(recording):
    path = recording / "snapshot.duckdb"
    path.write_bytes(path.read_bytes()[:12288])  # the header blocks only
    with pytest.raises(SnapshotError) as caught:
        _overview(f"snapshot:{path}")
    assert one_line(caught).startswith(f"{path}: ")


def test_recording_into_a_corrupt_snapshot_names_it(recording):
    (recording / "snapshot.duckdb").write_bytes(b"")
    with pytest.raises(SnapshotError) as caught:
        open_backend(f"record:{recording}@sim")
    assert one_line(caught).startswith(f"{recording / 'snapshot.duckdb'}: empty file")


def _cassettes(directory: Path) -> list[Path]:
    found = sorted((directory / "cassettes").glob("*.yaml")) or sorted((directory / "interactions").glob("*/*.json.gz"))
    assert found
    return found


DAMAGE = {"json.gz": {"truncated": lambda data: data[: len(data) // 2], "not gzip": lambda data: b"{not json",
                      "empty": lambda data: b"", "not a cassette": lambda data: gzip.compress(b'{"version": 1}')},
          "vcr": {"truncated": lambda data: data[:20], "not YAML": lambda data: b"{not: [yaml",
                  "empty": lambda data: b"", "not a cassette": lambda data: b"version: 1\n"}}


@pytest.mark.parametrize(("layout", "damage"), [(layout, d) for layout, kinds in DAMAGE.items() for d in kinds])
def test_a_corrupt_cassette_names_the_file(tmp_path, simulator, layout, damage):
    directory = tmp_path / "rec"
    rec = open_backend(f"record:{directory},format={layout}@sim")
    runtime = ToolRuntime(rec)
    runtime.call("issue_api_key", {"platform": "dart"})
    assert runtime.call("get_dart_company_overview", {"corp_code": "00104083"}).ok
    rec.transport.close()
    rec.observer.snapshot.close()
    for path in _cassettes(directory):
        path.write_bytes(DAMAGE[layout][damage](path.read_bytes()))
    with pytest.raises(CassetteError) as caught:  # never EOFError, which click prints as a bare "Aborted!"
        _overview(f"replay:{directory}")
    message = one_line(caught)
    assert any(message.startswith(f"{path}: corrupt or truncated cassette") for path in _cassettes(directory))


def test_a_corrupt_manifest_names_the_file(recording):
    (recording / "recording.json").write_bytes(b'{"backend": ')
    with pytest.raises(BackendError) as caught:
        open_backend(f"replay:{recording}")
    assert f"{recording / 'recording.json'}: not a recording manifest" in one_line(caught)
    (recording / "recording.json").write_bytes(orjson.dumps({"backend": "sim"}))
    with pytest.raises(BackendError) as caught:
        open_backend(f"replay:{recording}")
    assert "not a recording manifest (missing today, format)" in one_line(caught)


def test_a_recording_without_cassettes_is_named(recording):
    shutil.rmtree(recording / "cassettes")
    with pytest.raises(BackendError) as caught:
        open_backend(f"replay:{recording}")
    assert f"{recording} holds no cassettes" in one_line(caught)


@pytest.mark.parametrize("kind", ["replay", "snapshot"])
def test_a_replay_miss_is_one_line_with_the_request_and_the_nearest(recording, kind):
    runtime = ToolRuntime(open_backend(f"{kind}:{recording}"))
    runtime.call("issue_api_key", {"platform": "dart"})
    with pytest.raises(ReplayMiss) as caught:
        runtime.call("get_dart_company_overview", {"corp_code": "00126380"})
    message = one_line(caught)
    assert "GET https://opendart.fss.or.kr/api/company.json" in message and "corp_code=00126380" in message
    assert "nearest recorded: GET https://opendart.fss.or.kr/api/company.json" in message
    assert "corp_code=00126380 vs 00104083" in message


def test_drift_against_a_mistyped_path_says_so(recording):
    from kopa.tools.reissue import drift_report

    with pytest.raises(BackendError) as caught:
        drift_report(str(recording), "runs/no-such-recording")
    assert one_line(caught).startswith("'runs/no-such-recording' is neither a snapshot or recording (no such "
                                       "path) nor a backend string (sim:…")


def test_secrets_scan_reports_an_unreadable_snapshot_instead_of_crashing(recording):
    (recording / "snapshot.duckdb").write_bytes(b"\x00garbage" * 100)
    findings = [str(f) for f in scan_paths([recording])]
    assert any(f.startswith(f"{recording / 'snapshot.duckdb'}: file: unreadable snapshot") for f in findings)


# ---------------------------------------------------------------- task files

GOOD: dict[str, Any] = {
    "id": "synthetic-001", "domain": "finance", "platforms": ["dart", "krx"],
    "query": "라이트론의 2026년 1월 일별 종가 평균은 몇 원인가? (소수점 둘째 자리까지)",
    "available_tools": ["issue_api_key", "evaluate_expression", "find_dart_corp_code", "get_stock_price_trend"],
    "state": {"predefined": {"current_date": "2026-01-30"},
              "setup": [{"tool": "issue_api_key", "args": {"platform": "dart"}},
                        {"tool": "issue_api_key", "args": {"platform": "krx"}}]},
    "golden": [
        {"id": "corp", "call": "find_dart_corp_code", "args": {"corp_name": "라이트론"}},
        {"id": "both", "parallel": [
            {"id": "price", "call": "get_stock_price_trend",
             "args": {"likeSrtnCd": "{corp.records[0].stock_code}", "numOfRows": 100}},
            {"id": "recent", "call": "get_stock_price_trend",
             "args": {"likeSrtnCd": "{corp.records[0].stock_code}", "numOfRows": 5}}]},
        {"id": "calc", "call": "evaluate_expression",
         "args": {"expression": "{price.records[*].clpr|num|sum} / {price.records|len}"}},
    ],
    "answer": {"type": "number", "value": "{calc.records[0].exact}", "precision": 2},
}


def _write(path: Path, *tasks: dict[str, Any]) -> Path:
    """The tasks as a YAML task file (pass copies: one object twice would be written as a YAML alias)."""
    path.write_text(yaml.safe_dump({"tasks": list(tasks)}, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line containing `needle`."""
    hits = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


def _task(**changes: Any) -> dict[str, Any]:
    task = copy.deepcopy(GOOD)
    task.update(changes)
    return task


def test_a_good_task_file_and_the_shipped_set_load(tmp_path):
    assert [t.id for t in load_task_file(_write(tmp_path / "good.yaml", GOOD))] == ["synthetic-001"]
    shipped = task_set()
    assert len(shipped.tasks()) == 145
    assert set(shipped.targets()) == {t.id for t in shipped.tasks()}


def test_invalid_yaml_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("tasks:\n  - id: a\n    available_tools: [issue_api_key,\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    assert one_line(caught) == (f"{path}:4:1: not valid YAML: did not find expected node content "
                                "(while parsing a flow node)")


@pytest.mark.parametrize(("text", "got"), [("", "an empty file"), ("- a\n", "a list"),
                                           ("task: []\n", "a mapping without a 'tasks' list")])
def test_a_file_without_a_task_list_says_what_it_holds(tmp_path, text, got):
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    assert one_line(caught) == f"{path}: expected a mapping with a 'tasks' list, got {got}"


@pytest.mark.parametrize("bad", ["../../PWNED-task", "a/b", "..", ".hidden", "a\\b"])
def test_a_task_id_that_would_name_a_path_outside_a_run_folder_is_refused(tmp_path, bad):
    # a run writes transcripts/<id>.s0.r0.json: "../../PWNED-task" would land outside the run folder
    path = _write(tmp_path / "t.yaml", _task(id=bad))
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    message = one_line(caught)
    assert f"task id {bad!r}" in message and "no '/'" in message, message


def test_a_schema_error_names_the_file_line_task_and_field(tmp_path):
    path = _write(tmp_path / "t.yaml", GOOD, _task(id="synthetic-002", domain="finanse"))
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    message = one_line(caught)
    assert message.startswith(f"{path}:{_line_of(path, 'domain: finanse')}: task synthetic-002: domain: "), message
    assert "'finance'" in message


def test_a_nested_schema_error_gives_the_field_path_and_its_line(tmp_path):
    task = _task()
    task["golden"][1]["parallel"][1]["pages"] = "some"
    path = _write(tmp_path / "t.yaml", task)
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    message = one_line(caught)
    assert message.startswith(f"{path}:{_line_of(path, 'pages: some')}: task synthetic-001: "
                              "golden[1].parallel[1].pages: "), message


def test_an_unknown_field_is_named_at_its_line(tmp_path):
    path = _write(tmp_path / "t.yaml", _task(reward="RESPONSE"))
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    assert one_line(caught) == (f"{path}:{_line_of(path, 'reward: RESPONSE')}: task synthetic-001: reward: "
                                "Extra inputs are not permitted")


def test_a_model_rule_is_reported_at_the_tasks_line(tmp_path):
    path = _write(tmp_path / "t.yaml", GOOD, _task(id="synthetic-002", answer=None))
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    assert one_line(caught) == (f"{path}:{_line_of(path, 'id: synthetic-002')}: task synthetic-002: (task): "
                                "task synthetic-002: RESPONSE in reward_basis needs an answer")


def _unknown(tmp_path, task: dict[str, Any], needle: str) -> tuple[str, int]:
    path = _write(tmp_path / "t.yaml", task)
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    return one_line(caught), _line_of(tmp_path / "t.yaml", needle)


def test_a_golden_step_calling_an_unknown_tool_is_refused_at_load(tmp_path):
    task = _task()
    task["golden"][0]["call"] = "find_dart_corp_kode"
    message, line = _unknown(tmp_path, task, "call: find_dart_corp_kode")
    assert message == (f"{tmp_path / 't.yaml'}:{line}: task synthetic-001: step 'corp' calls unknown tool "
                       "'find_dart_corp_kode' (did you mean find_dart_corp_code?); `kopa tools list` lists the tools")


def test_a_parallel_step_calling_an_unknown_tool_is_named(tmp_path):
    task = _task()
    task["golden"][1]["parallel"][1]["call"] = "no_such_tool"
    message, line = _unknown(tmp_path, task, "call: no_such_tool")
    assert message.startswith(f"{tmp_path / 't.yaml'}:{line}: task synthetic-001: step 'recent' calls unknown "
                              "tool 'no_such_tool'"), message


def test_a_setup_action_and_available_tools_are_checked(tmp_path):
    task = _task()
    task["state"]["setup"][1]["tool"] = "issue_key"
    message, line = _unknown(tmp_path, task, "tool: issue_key")
    assert message.startswith(f"{tmp_path / 't.yaml'}:{line}: task synthetic-001: setup action 2 runs unknown "
                              "tool 'issue_key'"), message
    task = _task(available_tools=[*GOOD["available_tools"], "get_stock_prices"])
    message, line = _unknown(tmp_path, task, "- get_stock_prices")
    assert message.startswith(f"{tmp_path / 't.yaml'}:{line}: task synthetic-001: available_tools lists unknown "
                              "tool 'get_stock_prices'"), message


def test_several_unknown_tools_are_all_counted(tmp_path):
    task = _task(available_tools=[*GOOD["available_tools"], "tool_b", "tool_a"])
    task["golden"][0]["call"] = "tool_a"
    message, _ = _unknown(tmp_path, task, "call: tool_a")
    assert "step 'corp' calls unknown tool 'tool_a'" in message and message.endswith("(and 2 more: tool_a, tool_b)")


def test_an_unknown_platform_is_refused_at_its_line(tmp_path):
    task = _task(platforms=["dartt"])
    message, line = _unknown(tmp_path, task, "- dartt")
    assert message.startswith(f"{tmp_path / 't.yaml'}:{line}: task synthetic-001: unknown platform 'dartt' "
                              "(did you mean dart?); platforms: assembly, dart, "), message


def test_the_tool_check_is_against_the_given_inventory(tmp_path):
    path = _write(tmp_path / "t.yaml", GOOD)
    with pytest.raises(TaskFileError, match="unknown tool 'evaluate_expression'"):
        load_task_file(path, tools={"issue_api_key", "find_dart_corp_code", "get_stock_price_trend"})


def test_duplicate_ids_in_one_file_name_both_lines(tmp_path):
    path = _write(tmp_path / "t.yaml", GOOD, _task())
    with pytest.raises(TaskFileError) as caught:
        load_task_file(path)
    first, second = _line_of(path, "id: synthetic-001"), _line_of(path, "id: synthetic-001", 2)
    assert one_line(caught) == f"{path}:{second}: duplicate task id 'synthetic-001' (first at line {first})"


def test_duplicate_ids_across_files_name_both_files(tmp_path):
    (tmp_path / "tasks").mkdir()
    a = _write(tmp_path / "tasks" / "a.yaml", GOOD)
    b = _write(tmp_path / "tasks" / "b.yaml", _task(id="synthetic-002"), _task())
    with pytest.raises(TaskFileError) as caught:
        task_set(tmp_path).tasks()
    assert one_line(caught) == f"duplicate task id 'synthetic-001': in {a} and in {b}"


def test_a_task_set_with_a_bad_file_fails_to_load(tmp_path):
    (tmp_path / "tasks").mkdir()
    _write(tmp_path / "tasks" / "a.yaml", GOOD)
    (tmp_path / "tasks" / "b.yaml").write_text("tasks: [", encoding="utf-8")
    with pytest.raises(TaskFileError, match=r"/tasks/b\.yaml:2:1: not valid YAML"):
        load_tasks(tmp_path / "tasks")


def test_a_corrupt_target_file_names_the_file_and_line(tmp_path):
    (tmp_path / "finance.json").write_bytes(b'[\n  {"task_id": "x",\n  oops}\n]')
    with pytest.raises(TaskFileError) as caught:
        load_targets(tmp_path)
    assert one_line(caught).startswith(f"{tmp_path / 'finance.json'}:3:3: not valid JSON")


def test_a_target_failing_its_schema_names_the_task_and_field(tmp_path):
    target = orjson.loads((Path(task_set().targets_dir) / "finance.json").read_bytes())[0]
    target["optimal_calls"] = "many"
    (tmp_path / "finance.json").write_bytes(orjson.dumps([target]))
    with pytest.raises(TaskFileError) as caught:
        load_targets(tmp_path)
    assert one_line(caught).startswith(f"{tmp_path / 'finance.json'}: target {target['task_id']}: optimal_calls: ")


def test_a_command_that_only_writes_a_backend_down_still_refuses_an_unknown_kind(tmp_path):
    from click.testing import CliRunner

    from kopa.backends.parsed import backend_kind
    from kopa.cli import main

    assert backend_kind("replay:runs/rec") == "replay" and backend_kind("faults:realistic@sim") == "faults"
    with pytest.raises(BackendError) as exc:
        backend_kind("nope")
    assert "unknown backend 'nope'" in one_line(exc)
    out = CliRunner().invoke(main, ["rl", "verl-config", "--backend", "simm", "-o", str(tmp_path / "t.yaml")])
    assert out.exit_code == 2 and "did you mean sim?" in out.output and not (tmp_path / "t.yaml").exists()


def test_a_misspelt_held_out_platform_is_refused_before_anything_is_written(tmp_path):
    from kopa.synth.dataset import SynthError, synth_run

    with pytest.raises(SynthError) as exc:
        synth_run(tmp_path / "no-graph", tmp_path / "synth", 2, hold_out=frozenset({"dart", "dartt"}))
    assert "unknown platform 'dartt' (did you mean dart?)" in one_line(exc)
    assert not (tmp_path / "synth").exists()


def test_the_live_services_are_never_sent_a_simulator_only_tool(monkeypatch, tmp_path):
    """About 2,300 tools are the simulator's own long tail: their paths exist on no real host, and a
    request would carry a real key there. On the real hosts each is refused before anything is sent;
    on a served simulator (live:URL) and in-process it answers as before."""
    import socket

    from click.testing import CliRunner

    from kopa.catalog import load_catalog
    from kopa.cli import main

    monkeypatch.setenv("KOPA_TODAY", "2026-01-30")
    catalog = load_catalog()
    tool = next(t for t in catalog if not t.spec.real and t.family != "session"
                and not any(p.required for p in t.spec.params))
    real = next(t for t in catalog if t.spec.real and t.family != "session")

    def refuse(*args, **kwargs):
        raise AssertionError("a request was sent")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    for spec in ("live", "faults:realistic@live", f"record:{tmp_path / 'rec'}@live"):
        backend = open_backend(spec)
        assert backend.real_hosts, spec
        result = ToolRuntime(backend).call(tool.name, {})
        assert not result.ok and result.error.kind == "simulator_only" and "nothing was sent" in result.error.message
    monkeypatch.undo()
    # a served simulator answers every tool (opening live:URL asks the server for its clock and keys: loopback)
    assert not open_backend("live:http://127.0.0.1:9").real_hosts
    runtime = ToolRuntime(open_backend("sim"))  # in-process: it answers as before
    runtime.call("issue_api_key", {"platform": tool.platform})
    assert runtime.call(tool.name, {}).ok
    listed = CliRunner().invoke(main, ["tools", "list", "--platform", tool.platform])
    assert listed.exit_code == 0 and "simulator-only (real = sim)" in listed.output
    shown = CliRunner().invoke(main, ["tools", "show", tool.name])
    assert "[simulator only: no real service has this endpoint]" in shown.output
    assert "simulator only" not in CliRunner().invoke(main, ["tools", "show", real.name]).output
