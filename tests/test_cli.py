"""The `kopa` command line, run in-process."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kopa.cli import main


def test_call_prints_records_and_picks_a_field(backend):
    runner = CliRunner()
    out = runner.invoke(main, ["call", "find_dart_corp_code", "corp_name=라이트론", "--pick", "corp_code"])
    assert out.exit_code == 0, out.output
    corp_code = out.output.strip()
    assert len(corp_code) == 8
    out = runner.invoke(main, ["call", "get_dart_company_overview", f"corp_code={corp_code}"])
    assert out.exit_code == 0
    body = json.loads(out.output)
    assert body["records"][0]["corp_name"] == "라이트론"
    assert "REDACTED" in body["request"]


def test_call_without_key_exits_with_the_auth_error(backend):
    out = CliRunner().invoke(main, ["call", "get_dart_company_overview", "corp_code=00104083", "--no-auto-key"])
    assert out.exit_code == 1
    assert json.loads(out.output)["error"]["error_class"] == "auth"


def test_tools_show_and_unknown_tool():
    runner = CliRunner()
    out = runner.invoke(main, ["tools", "show", "get_stock_price_trend", "--schema"])
    assert json.loads(out.output)["function"]["name"] == "get_stock_price_trend"
    bad = runner.invoke(main, ["tools", "show", "get_nothing"])
    assert bad.exit_code == 2 and "no tool named" in bad.output


def test_sim_stats_verifies_the_content_hash(backend):
    out = CliRunner().invoke(main, ["sim", "stats", "--verify", "--json"])
    assert out.exit_code == 0, out.output
    body = json.loads(out.output)
    assert body["content_hash"] == body["recomputed_hash"]
    assert any(e["endpoint"] == "company" for e in body["endpoints"])


@pytest.mark.parametrize(("args", "message"), [
    (["bench", "run", "--policy", "oracle", "--policy-seeds", "1,1"], "1 given twice"),
    (["bench", "run", "--policy", "oracle", "--policy-seeds", "1" * 26], "is outside 0…4294967295"),
    (["bench", "run", "--policy", "oracle", "--policy-seeds", "-1"], "is outside 0…4294967295"),
    (["bench", "run", "--policy", "oracle", "--only", ""], "names no task id or domain"),
    (["bench", "baselines", "--only", " , "], "names no task id or domain"),
    (["study", "robustness", "--rates", "0,20,0"], "0 given twice"),
])
def test_a_seed_or_rate_given_twice_a_seed_out_of_range_and_an_empty_only_are_refused(tmp_path, args, message):
    """Issue 53's silent accepts: `--policy-seeds 1,1` ran seed 1 twice and counted it as two, a 26-digit seed
    was a traceback, `--only ""` ran all 145 tasks. Each is one line, exit 2, before anything is written."""
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")], prog_name="kopa")
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output, result.output
    assert not (tmp_path / "out").exists()
