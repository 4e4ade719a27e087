"""`kopa apigen verify` on a hand-written 100-record file in the xlam format, and `kopa apigen generate` through
the CLI: three stages, one verdict per input record in order, the planted defects rejected as labelled."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main

DATA = Path(__file__).parent / "data" / "apigen"
FIXTURE = DATA / "xlam_kopa_100.jsonl"


def _lines(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_verify_runs_all_three_stages_on_the_hand_written_file(tmp_path):
    out = tmp_path / "v"
    result = CliRunner().invoke(main, ["apigen", "verify", str(FIXTURE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    inputs = _lines(FIXTURE)
    verdicts = _lines(out / "verdicts.jsonl")
    assert [v["id"] for v in verdicts] == [str(r["id"]) for r in inputs]  # one line per record, in order
    expected = json.loads((DATA / "xlam_kopa_100.expected.json").read_text(encoding="utf-8"))
    got = {v["id"]: [v["stage"], v["reason"]] for v in verdicts if not v["passed"]}
    assert got == expected
    assert {stage for stage, _ in got.values()} == {"format", "execution", "semantic"}
    table = orjson.loads((out / "stats.json").read_bytes())["table"]
    assert table["verified"] == 100 - len(expected)
    assert "| **file:xlam_kopa_100.jsonl** |" in result.output
    verified = _lines(out / "verified.jsonl")
    assert len(verified) == table["verified"] and all(isinstance(r["tools"], str) for r in verified)
    assert [str(r["id"]) for r in verified] == [v["id"] for v in verdicts if v["passed"]]  # the input's own ids


def test_verify_resumes_and_refuses_another_input(tmp_path):
    out = tmp_path / "v"
    half = tmp_path / "half.jsonl"
    half.write_bytes(b"".join(line + b"\n" for line in FIXTURE.read_bytes().splitlines()[:30]))
    runner = CliRunner()
    first = runner.invoke(main, ["apigen", "verify", str(half), "--out", str(out)])
    assert first.exit_code == 0, first.output
    before = (out / "verdicts.jsonl").read_bytes()
    (out / "parts" / "00001.jsonl").unlink()  # as if interrupted after the first chunk
    again = runner.invoke(main, ["apigen", "verify", str(half), "--out", str(out)])
    assert again.exit_code == 0 and (out / "verdicts.jsonl").read_bytes() == before
    other = runner.invoke(main, ["apigen", "verify", str(FIXTURE), "--out", str(out)])
    assert other.exit_code != 0 and "source_sha256" in other.output and "\n" not in other.output.strip()


def test_a_broken_line_is_a_format_verdict_not_a_crash(tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_text('{"id": 1, "query": "q", "tools": "[", "answers": "[]"}\nnot json\n[1, 2]\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["apigen", "verify", str(source), "--out", str(tmp_path / "v")])
    assert result.exit_code == 0, result.output
    verdicts = _lines(tmp_path / "v" / "verdicts.jsonl")
    assert [(v["stage"], v["reason"]) for v in verdicts] == [("format", "bad_tools"), ("format", "unparseable_json"),
                                                            ("format", "unparseable_json")]


def test_generate_command_prints_the_table_and_writes_the_run(tmp_path):
    out = tmp_path / "g"
    result = CliRunner().invoke(main, ["apigen", "generate", "--count", "10", "--platforms", "krx,kdic", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "| **template** |" in result.output and "Mixtral-8x22B-Inst (paper)" in result.output
    for name in ("verified.jsonl", "verdicts.jsonl", "relevance.jsonl", "report.md", "stats.json",
                 "plots/stages.png"):
        assert (out / name).exists(), name
    assert len(_lines(out / "verdicts.jsonl")) == 10
    # the verified file is itself an xlam-format input: verifying it again passes every record
    again = CliRunner().invoke(main, ["apigen", "verify", str(out / "verified.jsonl"), "--out", str(tmp_path / "v")])
    assert again.exit_code == 0, again.output
    assert all(v["passed"] for v in _lines(tmp_path / "v" / "verdicts.jsonl"))
    assert len(_lines(tmp_path / "v" / "verdicts.jsonl")) == len(_lines(out / "verified.jsonl"))


def test_the_commands_have_help_and_one_line_errors():
    runner = CliRunner()
    for args, option in ((["apigen", "generate", "--help"], "--budget"), (["apigen", "verify", "--help"], "--faults"),
                         (["compare", "synth", "--help"], "--drift")):
        result = runner.invoke(main, args)
        assert result.exit_code == 0 and option in result.output
    result = runner.invoke(main, ["apigen", "generate", "--checker", "openai"])
    assert result.exit_code != 0 and "--checker openai and --role checker=MODEL[@URL] go together" in result.output


@pytest.mark.parametrize(("style", "calls", "passes"), [
    ("simple", 1, True), ("simple", 2, False),
    ("multiple", 1, True), ("multiple", 2, False),  # one call, among the library's tools
    ("parallel", 2, True), ("parallel", 1, False),  # a one-call answer to a parallel prompt
    ("parallel_multiple", 2, True), ("parallel_multiple", 1, False),
])
def test_a_samples_style_is_checked_against_its_calls(style, calls, passes):
    from kopa.apigen.record import XParam, XTool
    from kopa.apigen.verify import format_check

    lookup = XTool(name="find_dart_corp_code", parameters={"corp_name": XParam(type="string", required=True)})
    overview = XTool(name="get_dart_company_overview", parameters={"corp_code": XParam(type="string", required=True)})
    library = [lookup] if style in ("simple", "parallel") else [lookup, overview]
    answers = [{"name": "find_dart_corp_code", "arguments": {"corp_name": name}} for name in ("라이트론", "삼한전자")]
    if style == "parallel_multiple":
        answers[1] = {"name": "get_dart_company_overview", "arguments": {"corp_code": "00104083"}}
    raw = {"query": "q", "answers": answers[:calls]}
    record, verdict = format_check(raw, library, record_id="x", style=style)
    assert (record is not None) == passes
    if not passes:
        assert verdict is not None and (verdict.stage, verdict.reason) == ("format", "style_mismatch")
