"""`kopa bench baselines`: the oracle and the failure-mode policies side by side, each failing the way its
habit predicts, with one table, a comparison report and its plot (issue 10, item 6)."""

from __future__ import annotations

import orjson
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.baselines import BASELINES

# district-001 needs a key and a code lookup; district-007 a paged answer (first page ≠ all of it).
TASKS = "district-001,district-007"


def test_baselines_run_each_policy_and_compare_them(tmp_path):
    out = tmp_path / "baselines"
    result = CliRunner().invoke(main, ["bench", "baselines", "--only", TASKS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()
            if line.strip() and line.split()[0] in BASELINES}
    assert list(rows) == list(BASELINES)  # the ceiling first, then the habits
    assert rows["oracle"][:3] == ["1.0000", "1.0000", "-"]
    assert rows["skip_key"][2:] == ["missing_key", "1"]
    assert rows["first_page_only"][2:] == ["early_answer", "1"]
    assert rows["skip_lookup"][:2] == ["0.0000", "0.0000"] and rows["skip_lookup"][2] == "skipped_lookup"
    assert f"report: {out / 'report.md'}" in result.stdout
    for name in BASELINES:
        config = orjson.loads((out / name / "config.json").read_bytes())["config"]
        assert (config["policy"], config["rollouts"], config["only"]) == (name, 1, TASKS.split(","))
        assert (out / name / "report.md").exists() and (out / name / "plots" / "pass_by_domain.png").exists()
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| skip_key | never issues API keys" in report and "[oracle/report.md](oracle/report.md)" in report
    assert (out / "plots" / "baselines.png").stat().st_size > 10_000

    again = CliRunner().invoke(main, ["bench", "baselines", "--only", TASKS, "--out", str(out)])
    assert again.exit_code == 0 and again.stdout == result.stdout  # resumed: nothing replayed, same table
