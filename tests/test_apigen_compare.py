"""`kopa compare synth`: APIGen and a small EDGE Phase B run on one inventory and budget, every number of the
side-by-side table checked against what the run folders hold or what direct tool calls return."""

from __future__ import annotations

import hashlib

import orjson
import pytest
from click.testing import CliRunner

from kopa.apigen.generator import TemplateGenerator
from kopa.apigen.run import generate_run, read_verified
from kopa.apigen.semantic import RuleChecker
from kopa.apigen.verify import issue_keys
from kopa.backends.spec import open_backend
from kopa.catalog import load_catalog
from kopa.cli import main
from kopa.edge.config import EdgeConfig
from kopa.edge.run import build_graph
from kopa.synth.dataset import filter_run, synth_run
from kopa.tools.runtime import ToolRuntime

CATALOG = load_catalog()
PLATFORMS = frozenset({"krx", "kdic", "assembly", "dart"})
TOOLS = [t for t in CATALOG if t.platform in PLATFORMS and t.spec.real and t.family != "session"]
DRIFT = "sim:drift=default,epoch=1"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    build_graph(root / "g", EdgeConfig(T=2, M=40, seed=7), "sim", tools=TOOLS)
    synth_run(root / "g", root / "edge", 8, seed=0)
    filter_run(root / "edge")
    history = orjson.loads((root / "g" / "history.json").read_bytes())["iterations"]
    candidates = [orjson.loads(line)["candidate"] for line in (root / "edge" / "candidates.jsonl").read_bytes()
                  .splitlines()]
    budget = int(sum(r["calls"] for r in history)) + sum(len(c["target"]["calls"]) for c in candidates)
    generate_run(root / "apigen", 400, lambda cache, today: TemplateGenerator(cache, today), RuleChecker(CATALOG),
                 CATALOG, generator_name="template", platforms=PLATFORMS, real_only=True, budget=budget)
    return root, budget


def _records(runtime: ToolRuntime, tool, args) -> str:
    result = runtime.call(tool, args)
    return hashlib.sha256(orjson.dumps(result.records, option=orjson.OPT_SORT_KEYS)).hexdigest() if result.ok else ""


def test_compare_prints_the_side_by_side_table_with_robustness_rows(runs, tmp_path):
    root, budget = runs
    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", "synth", str(root / "apigen"), str(root / "edge"), "--out", str(out),
                                       "--limit", "30"])
    assert result.exit_code == 0, result.output
    text = result.output
    comparison = orjson.loads((out / "comparison.json").read_bytes())
    a, e = comparison["apigen"], comparison["edge"]
    # the budget: APIGen stopped at EDGE's calls (the last sample may run a few calls past it)
    assert budget <= a["calls"] <= budget + 5
    # one-to-many chaining, from the EDGE dataset's own handoffs (a junction's, or a template's source): more
    # than one record behind it, as the paper counts; APIGen hands nothing on
    rows = [orjson.loads(line) for line in (root / "edge" / "dataset.jsonl").read_bytes().splitlines()]
    share = sum(any(j["records"] > 1 for j in r["junctions"]) or ((r["block"] or {}).get("records") or 0) > 1
                for r in rows) / len(rows)
    assert e["statistics"]["one_to_many"] == pytest.approx(share) and a["statistics"]["one_to_many"] == 0
    assert (f"| one-to-many chaining share | — (by construction: no call hands anything on) | {100 * share:.1f}% |"
            in text)
    # calls per task, from the files
    verified = read_verified(root / "apigen")
    assert a["statistics"]["calls_mean"] == pytest.approx(sum(len(r.answers) for r in verified) / len(verified))
    # robustness: the backend a run was built on reproduces it; the drift and fault rows are there
    assert a["robustness"]["as built"] == 1.0 and e["robustness"]["as built"] == 1.0
    for row in ("| drift (`sim:drift=default,epoch=1`) |", "| faults (`faults:harsh@sim`) |"):
        assert row in text
    assert 0 < a["robustness"]["faults_retried"] <= 1  # the harsh profile did strike, and retries absorbed it
    assert "By construction APIGen has no chains" in text
    assert "Under drift, on samples calling a documented endpoint: " in text
    # every share beside its 95% Wilson interval over the samples it counts; a winner only where they separate
    for side in (a, e):
        for key, (lo, hi) in side["intervals"].items():
            assert lo <= side["robustness"][key] <= hi and side["robustness"][f"{key} · n"] >= 1
    (a_lo, a_hi), (e_lo, e_hi) = a["intervals"]["drift · documented"], e["intervals"]["drift · documented"]
    if a_lo <= e_hi and e_lo <= a_hi:
        assert "Under drift, on samples calling a documented endpoint: **no difference the runs can show**" in text
    # the documented-endpoint rows read the same per-sample flags on the samples that call one (here all do:
    # the APIGen run is real_only and G* holds real tools only), so they equal the overall rows
    assert a["robustness"]["documented_share"] == 1.0
    assert a["robustness"]["drift · documented"] == a["robustness"]["drift"]
    assert "| faults (`faults:harsh@sim`) |" in (out / "report.md").read_text(encoding="utf-8")
    assert (out / "plots" / "robustness.png").exists()


def test_the_drift_row_counts_the_samples_whose_records_direct_calls_still_return(runs, tmp_path):
    root, _ = runs
    from kopa.compare.synth import reproduces_apigen

    verified = read_verified(root / "apigen")[:30]
    flags = reproduces_apigen(verified, DRIFT, CATALOG)
    runtime = ToolRuntime(open_backend(DRIFT), catalog=CATALOG)
    issue_keys(runtime, CATALOG)
    expected = []
    for r in verified:
        same = all(_records(runtime, c.name, c.arguments) == res["digest"]
                   for c, res in zip(r.answers, r.provenance["results"], strict=True))
        expected.append(same)
    assert flags == expected
    assert True in flags and False in flags  # epoch 1 changes some of these endpoints and leaves others alone


def test_a_named_model_is_played_on_both_datasets_and_scored_by_kopa(runs, tmp_path):
    """A scripted loopback model answers the first APIGen sample with its reference calls, the second with a
    wrong value, and gives up on every EDGE task: kopa's scorers must say 1 of 2 and 0 of 2."""
    from tests.fakes.chat_server import ChatServer, Reply, text

    root, _ = runs
    verified = read_verified(root / "apigen")[:2]
    wrong = {verified[1].query}
    by_query = {r.query: r for r in verified}

    def model(request: dict) -> Reply:
        messages = request["messages"]
        if messages[-1]["role"] == "tool":
            return text("조회했습니다.")
        record = by_query.get(next(m["content"] for m in messages if m["role"] == "user"))
        if record is None:  # an EDGE task
            return text("모르겠습니다.")
        return Reply(tool_calls=[(c.name, {k: ("없는값" if record.query in wrong and k in c.arguments and
                                                 not k.endswith("INDEX") else v) for k, v in c.arguments.items()})
                                 for c in record.answers])

    out = tmp_path / "cmp"
    with ChatServer([model] * 12) as server:
        result = CliRunner().invoke(main, ["compare", "synth", str(root / "apigen"), str(root / "edge"), "--out",
                                           str(out), "--limit", "2", "--role", f"agent=fake@{server.base_url}"])
        assert not server.errors, server.errors
    assert result.exit_code == 0, result.output
    solve = orjson.loads((out / "comparison.json").read_bytes())["solve"]
    model_rates = solve["policies"]["openai"]
    assert (model_rates["apigen"]["matched"], model_rates["apigen"]["played"]) == (0.5, 2)
    assert (model_rates["edge"]["matched"], model_rates["edge"]["passed"], model_rates["edge"]["played"]) == (0.0, 0.0, 2)
    assert "| `fake` | the named model | 50.0% [" in result.output


def test_both_datasets_are_scored_as_kopa_bench_episodes_by_the_offline_baselines(runs, tmp_path):
    """Every baseline plays both sides through `kopa bench run`'s runner: each side's run folder holds the
    scores the report's shares are computed from, the oracle matches every reference call on both sides, and
    the figures measured from the oracle's calls agree with its transcripts read independently."""
    from kopa.compare.synth import BASELINES

    root, _ = runs
    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", "synth", str(root / "apigen"), str(root / "edge"), "--out",
                                       str(out), "--limit", "6"])
    assert result.exit_code == 0, result.output
    solve = orjson.loads((out / "comparison.json").read_bytes())["solve"]
    assert sorted(solve["policies"]) == sorted(BASELINES)
    for policy, sides in solve["policies"].items():
        for side, rates in sides.items():
            scores = [orjson.loads(line) for line in
                      (out / "solve" / side / policy / "scores.jsonl").read_bytes().splitlines()]
            assert rates["played"] == len(scores) == 6
            assert rates["matched"] == sum(s["score"]["correctness"] == 1.0 for s in scores) / 6
            assert rates["passed"] == sum(s["score"]["passed"] for s in scores) / 6
    assert solve["policies"]["oracle"]["apigen"]["matched"] == solve["policies"]["oracle"]["edge"]["matched"] == 1.0
    for side in ("apigen", "edge"):
        later, records = 0, []
        for path in sorted((out / "solve" / side / "oracle" / "transcripts").iterdir()):
            results = [r for r in orjson.loads(path.read_bytes())["results"] if r["ok"]]
            records += [len(r["records"]) for r in results]
            windows = [r["page"] or {} for r in results]
            later += any((w.get("page") or 1) > 1 or (w.get("start") or 1) > 1 for w in windows)
        assert solve["executed"][side]["later_page"] == later / 6
        assert solve["executed"][side]["records_per_call_mean"] == pytest.approx(sum(records) / len(records))
    assert solve["executed"]["apigen"]["later_page"] == 0.0  # one turn, no call reads on
    assert "## Solve rates, both datasets as KOPA-Bench episodes" in result.output


def test_a_sample_counts_as_documented_when_any_call_is_a_real_endpoint():
    from kopa.compare.synth import _documented

    real = next(t.name for t in CATALOG if t.spec.real and t.family != "session")
    tail = next(t.name for t in CATALOG if not t.spec.real)
    assert _documented(CATALOG, [tail, real]) and _documented(CATALOG, [real])
    assert not _documented(CATALOG, [tail]) and not _documented(CATALOG, ["no_such_tool"])


def test_the_wilson_interval_is_the_textbook_one():
    from kopa.compare.synth import wilson

    lo, hi = wilson([True] * 90 + [False] * 10)  # 90 of 100: 0.8256–0.9448 (Wilson 1927; Newcombe 1998, table I)
    assert (round(lo, 4), round(hi, 4)) == (0.8256, 0.9448)
    assert wilson([True] * 10) == [pytest.approx(0.7225, abs=1e-4), 1.0]  # 10 of 10: not [1, 1]
    assert wilson([]) == [0.0, 1.0]
