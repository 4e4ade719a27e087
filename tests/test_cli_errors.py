"""The CLI side of issue 10's bad inputs: each prints one line naming what and where, exits non-zero and
shows no traceback; `kopa --debug` adds the traceback; an error that is not the user's (a bug) keeps its
traceback.

The layers raise the errors (tests/test_bad_inputs.py checks their messages); here each is met the way a
user meets it, by running the command.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from kopa.cli import main


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="kopa")


def one_line(result: Result, exit_code: int = 2) -> str:
    """The one line an error printed: on stderr, starting `Error: `, the exit code given, no traceback."""
    assert result.exit_code == exit_code, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not an uncaught exception
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def recording(tmp_path_factory, _isolated_cache) -> Path:
    """A recording of one DART lookup from the simulator."""
    directory = tmp_path_factory.mktemp("rec") / "rec"
    result = run("call", "find_dart_corp_code", "corp_name=라이트론", "--record", str(directory), "--pick",
                 "corp_code")
    assert result.exit_code == 0, result.output
    return directory


def _copy(recording: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "rec"
    shutil.copytree(recording, copy)
    return copy


# ---------------------------------------------------------------- backend strings


@pytest.mark.parametrize(("spec", "fragments"), [
    ("sim:seed=x", ["'sim:seed=x'", "seed='x' is not an integer"]),
    ("sim:scale=huge", ["scale='huge'", "small, full"]),
    ("sim:today=2026-13-45", ["today='2026-13-45'", "YYYY-MM-DD"]),
    ("record:{tmp}/r,fromat=json@sim", ["unknown record option 'fromat'", "format"]),
    ("record:{tmp}/r", ["needs the backend to record from after @"]),
    ("nosuch", ["nosuch"]),
])
def test_a_bad_backend_string_is_one_line_naming_the_option(spec, fragments, tmp_path):
    spec = spec.replace("{tmp}", str(tmp_path))
    line = one_line(run("call", "get_current_date", "--backend", spec))
    assert all(f in line for f in fragments), line
    assert not (tmp_path / "r").exists()  # nothing recorded from the real hosts, or anywhere


@pytest.mark.parametrize(("faults", "fragment"), [
    ("realistic,sed=2", "Invalid value for '--faults': 'realistic,sed=2': after the profile only seed=N"),
    ("realistic,seed=x", "seed must be an integer"),
    ("nosuch", "no fault profile 'nosuch'"),
])
def test_a_bad_faults_option_is_one_line(faults, fragment):
    assert fragment in one_line(run("call", "get_current_date", "--faults", faults))


# ---------------------------------------------------------------- bench options


@pytest.mark.parametrize(("args", "fragment"), [
    (["--policy-seeds", "x"], "Invalid value for '--policy-seeds': 'x': expected comma-separated integers"),
    (["--policy-seeds", ","], "give at least one integer"),
    (["--workers", "0"], "Invalid value for '--workers': 0 is not in the range x>=1"),
    (["--policy", "nosuch"], "'nosuch' is not one of 'oracle', 'first_page_only', 'skip_key', 'skip_lookup'"),
    (["--policy", "openai"], "--policy openai needs --role agent=MODEL[@URL]"),
    (["--role", "agent=m"], "--role agent=…: a model plays only with --policy openai, not oracle"),
    (["--role", "agnet=m"], "'agnet' is no role of this command (did you mean agent?); its roles: agent, judge"),
    (["--role", "agent"], "'agent': write ROLE=MODEL[@URL]"),
    (["--role", "agent=m@localhost:8000"], "after @ comes the endpoint's http(s) base URL"),
    (["--role", "judge=a,b"], "judge takes one model, not 2"),
    (["--model", "m"], "No such option '--model'"),
    (["--only", "nosuch-1"], "unknown task ids or domains: ['nosuch-1']"),
])
def test_bad_bench_run_options_are_one_line(args, fragment, tmp_path):
    line = one_line(run("bench", "run", *args, "--out", str(tmp_path / "r")))
    assert fragment in line and "(see 'kopa bench run --help')" in line, line
    assert not (tmp_path / "r").exists()


def test_click_usage_errors_of_every_level_are_one_line():
    assert "No such option '--nosuch'" in one_line(run("--nosuch"))
    assert "No such command 'nosuch'" in one_line(run("nosuch"))
    assert "No such option '--nosuch'" in one_line(run("sim", "build", "--nosuch"))
    assert "'--today': '2026-13-45' does not match" in one_line(run("sim", "stats", "--today", "2026-13-45"))
    assert "Missing argument 'TOOL'" in one_line(run("call"))


# ---------------------------------------------------------------- recordings


def test_a_corrupt_or_empty_snapshot_is_one_line_naming_the_file(recording, tmp_path):
    rec = _copy(recording, tmp_path)
    snapshot = rec / "snapshot.duckdb"
    for content in (b"", b"not a database at all" * 100):
        snapshot.write_bytes(content)
        line = one_line(run("call", "find_dart_corp_code", "corp_name=라이트론", "--backend", f"snapshot:{rec}"))
        assert str(snapshot) in line, line


def test_a_truncated_cassette_is_one_line_naming_the_file_not_aborted(recording, tmp_path):
    rec = _copy(recording, tmp_path)
    (cassette,) = (rec / "cassettes").glob("*.yaml")
    cassette.write_bytes(cassette.read_bytes()[:20])
    result = run("call", "find_dart_corp_code", "corp_name=라이트론", "--backend", f"replay:{rec}")
    line = one_line(result)
    assert cassette.name in line and "Aborted" not in result.output, line


def test_a_replay_miss_in_call_is_one_line_naming_the_request(recording):
    line = one_line(run("call", "get_dart_company_overview", "corp_code=00104083", "--backend",
                        f"replay:{recording}"))
    assert "request not in the cassettes" in line and "company.json" in line and "nearest recorded" in line


def test_record_diff_of_a_missing_recording_is_one_line(recording):
    assert "no snapshot or recording at /nonexistent" in one_line(run("record", "diff", "/nonexistent",
                                                                      str(recording)))


# ---------------------------------------------------------------- --pick


def test_pick_of_a_field_the_records_lack_names_the_fields_there_are():
    line = one_line(run("call", "find_dart_corp_code", "corp_name=라이트론", "--pick", "no_field"))
    assert "'--pick': 'no_field'" in line and "corp_code, corp_name" in line, line


# ---------------------------------------------------------------- task files


@pytest.fixture()
def bad_task_set(tmp_path) -> Path:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "targets").mkdir()
    (tmp_path / "tasks" / "finance.yaml").write_text("tasks:\n  - id: finance-001\n    query: [unclosed\n",
                                                     encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", [["lint"], ["stats"], ["targets"], ["run", "-n", "1"]])
def test_an_invalid_task_file_is_one_line_with_file_and_line(command, bad_task_set):
    line = one_line(run("bench", *command, "--tasks", str(bad_task_set)))
    assert f"{bad_task_set / 'tasks' / 'finance.yaml'}:4" in line and "not valid YAML" in line, line


def test_a_task_naming_an_unknown_tool_is_refused_by_lint_file(tmp_path):
    from tests.test_bench_lint import GOOD

    task = {**GOOD, "golden": [*GOOD["golden"][:-1], {**GOOD["golden"][-1], "call": "get_nothing"}]}
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"tasks": [task]}, allow_unicode=True), encoding="utf-8")
    line = one_line(run("bench", "lint", "--file", str(path)))
    assert str(path) in line and "get_nothing" in line, line


# ---------------------------------------------------------------- sim serve


def test_sim_serve_on_a_port_in_use_is_one_line(world):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "kopa.cli", "sim", "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and f"port {port}" in lines[0], done.stderr


# ---------------------------------------------------------------- --debug, and bugs


def test_debug_adds_the_traceback_and_keeps_the_line_and_the_exit_code():
    result = run("--debug", "call", "get_current_date", "--backend", "sim:seed=x")
    assert result.exit_code == 2
    assert "Traceback (most recent call last)" in result.stderr and "BackendError" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: backend 'sim:seed=x'")


def test_debug_after_the_command_means_the_same():
    result = run("call", "get_current_date", "--backend", "sim:seed=x", "--debug")
    assert result.exit_code == 2 and "Traceback (most recent call last)" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: backend 'sim:seed=x'")
    assert "Traceback" not in run("call", "get_current_date", "--backend", "sim:seed=x").stderr


def test_debug_from_the_environment(monkeypatch):
    monkeypatch.setenv("KOPA_DEBUG", "1")
    assert "Traceback" in run("call", "get_current_date", "--backend", "sim:seed=x").stderr


def test_a_bug_keeps_its_traceback(monkeypatch):
    from kopa.tools.runtime import ToolRuntime

    def broken(self, tool, args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(ToolRuntime, "call", broken)
    result = run("call", "get_current_date")
    assert isinstance(result.exception, ZeroDivisionError)  # not turned into a line: click re-raises it


def test_an_unexpected_eof_is_a_bug_not_a_bare_aborted(monkeypatch):
    from kopa.tools.runtime import ToolRuntime

    def truncated(self, tool, args):
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")

    monkeypatch.setattr(ToolRuntime, "call", truncated)
    result = run("call", "get_current_date")
    assert isinstance(result.exception, RuntimeError) and "unexpected end of input" in str(result.exception)
    assert isinstance(result.exception.__cause__, EOFError) and "Aborted" not in result.output


@pytest.mark.parametrize("command", [["bench", "run", "--policy", "openai", "--role", "agent=m"],
                                     ["rl", "rollouts", "--policy", "openai", "--role", "agent=m"]])
@pytest.mark.parametrize("mode", ["replay", "record"])
def test_an_llm_mode_without_a_cache_is_refused_not_ignored(command, mode, tmp_path):
    line = one_line(run(*command, "--llm-mode", mode, "--out", str(tmp_path / "run")))
    assert f"--llm-mode {mode} needs --llm-cache DIR" in line
    assert not (tmp_path / "run").exists()  # nothing was played: replay would have asked the model


def test_a_replay_miss_in_bench_run_stops_the_run_with_exit_2_naming_the_request(tmp_path):
    """An episode whose request the recording lacks is the user's to fix (record it, or replay another
    recording), not the model's failure: `bench run` stops with one line naming the request and the nearest
    recorded one, exit 2, and files no episode as unplayed."""
    rec = tmp_path / "rec"
    recorded = run("bench", "run", "--policy", "oracle", "--only", "finance-001", "--record", str(rec),
                   "--out", str(tmp_path / "a"))
    assert recorded.exit_code == 0, recorded.output
    result = run("bench", "run", "--policy", "oracle", "--only", "finance-002", "--backend", f"replay:{rec}",
                 "--out", str(tmp_path / "b"))
    line = one_line(result)
    assert result.exit_code == 2 and "request not in the cassettes" in line and "nearest recorded" in line, line
    assert not (tmp_path / "b" / "unplayed.jsonl").exists()
