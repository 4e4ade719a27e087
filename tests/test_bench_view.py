"""`kopa bench view`: the run as a static site — every scored episode in the table with the attributes its
filters read, every episode's page with its calls, verdict and golden trajectory, text escaped, the same
bytes for the same run. The browser side (filters, the click into an episode, screenshots) is
tests/test_bench_view_browser.py, in headless Chromium."""

from __future__ import annotations

import re

import orjson
import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.runner import read_scores
from kopa.eval.view import site_digest, write_view


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "run"
    result = CliRunner().invoke(main, ["bench", "run", "--policy", "first_page_only", "-n", "1", "--policy-seeds", "0,1",
                                       "--only", "finance-001,law,traffic-002", "--out", str(out)], prog_name="kopa")
    assert result.exit_code == 0, result.output
    return out


def test_the_table_lists_every_scored_episode_with_what_its_filters_read(run):
    result = CliRunner().invoke(main, ["bench", "view", str(run)], prog_name="kopa")
    assert result.exit_code == 0, result.output
    index = (run / "view" / "index.html").read_text(encoding="utf-8")
    scored = read_scores(run)
    rows = re.findall(r'<tr data-domain="([^"]*)" data-verdict="(pass|fail)" data-cause="([^"]*)" data-seed="(\d+)">'
                      r'<td><a href="([^"]+)">', index)
    assert [(d, v, int(s)) for d, v, _, s, _ in rows] == \
        [(e.domain, "pass" if e.score.passed else "fail", e.seed) for e in scored]
    assert {v for _, v, _, _, _ in rows} == {"pass", "fail"}  # first_page_only fails some of these
    for (_, _, cause, _, link), e in zip(rows, scored, strict=True):
        assert cause == (e.failure_cause or "—") and (run / "view" / link).exists()
    assert f"{len(scored)} episodes · {sum(e.score.passed for e in scored)} passed" in index


def test_an_episode_page_shows_its_calls_verdict_and_golden_trajectory(run):
    write_view(run)
    episode = orjson.loads((run / "episodes.jsonl").read_bytes().splitlines()[0])
    page = (run / "view" / "episodes" / f"{episode['task_id']}.s0.r0.html").read_text(encoding="utf-8")
    assert page.count('<div class="box call') == len(episode["calls"])
    for call in episode["calls"]:
        assert f"{call['tool']}</b>" in page
    assert "Golden trajectory" in page and "RESPONSE" in page and "Action" in page
    assert "라이트론" in page  # Korean stays Korean (UTF-8, the query and the arguments)


def test_text_from_a_tool_or_a_model_is_escaped_and_the_site_is_the_same_bytes(run, tmp_path):
    first = site_digest(write_view(run, tmp_path / "a"))
    assert site_digest(write_view(run, tmp_path / "b")) == first
    # a model's answer with markup in it: shown as text, never run
    scores = (run / "scores.jsonl").read_bytes().splitlines()
    doctored = orjson.loads(scores[0])
    doctored["answer"] = '<script>alert("x")</script>'
    copy = tmp_path / "doctored"
    copy.mkdir()
    for name in ("config.json", "episodes.jsonl"):
        (copy / name).write_bytes((run / name).read_bytes())
    (copy / "scores.jsonl").write_bytes(b"\n".join([orjson.dumps(doctored), *scores[1:]]) + b"\n")
    index = write_view(copy).read_text(encoding="utf-8")
    assert "<script>alert" not in index and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in index


def test_a_folder_with_no_scores_is_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["bench", "view", str(tmp_path)], prog_name="kopa")
    assert result.exit_code == 2 and "not a run folder" in result.output


def test_rollouts_have_the_same_site_a_row_per_rollout(tmp_path):
    out = tmp_path / "rl"
    made = CliRunner().invoke(main, ["rl", "rollouts", "--only", "finance-001,law-003", "-n", "2", "--out", str(out)],
                              prog_name="kopa")
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(main, ["rl", "view", str(out)], prog_name="kopa")
    assert result.exit_code == 0, result.output
    groups = [orjson.loads(line) for line in (out / "groups.jsonl").read_bytes().splitlines()]
    index = (out / "view" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'data-verdict="(pass|fail)"[^>]*><td><a href="([^"]+)">', index)
    assert [v for v, _ in rows] == ["pass" if r["reward"] == 1.0 else "fail" for g in groups for r in g["rollouts"]]
    for (_, link), rollout in zip(rows, (r for g in groups for r in g["rollouts"]), strict=True):
        page = (out / "view" / link).read_text(encoding="utf-8")
        assert page.count('<div class="box call') == len(rollout["tool_calls"]) and "Golden trajectory" in page

