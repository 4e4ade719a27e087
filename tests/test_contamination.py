"""A training set's audit against KOPA-Bench (kopa.eval.contamination) and the held-out-platform split,
through `kopa rl export`: planted repeats are found, the tool overlap and the held-out subset agree with an
independent reading of the executed targets."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from kopa.catalog.loader import load_catalog
from kopa.cli import main
from kopa.eval.contamination import audit, held_out_subset
from kopa.eval.task import task_set

ROOT = Path(__file__).resolve().parents[1]
CATALOG = load_catalog()
BENCH = task_set(None)
HELD = ("seoul", "dart", "krx")


def _rows(path: Path) -> int:
    return duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchall()[0][0]


def _executed_platforms(task_id: str) -> set[str]:
    """The platforms of the data tools a task's executed target called (not its golden trajectory)."""
    return {CATALOG[c.tool].platform for c in BENCH.targets()[task_id].calls if CATALOG[c.tool].family != "session"}


def test_a_verbatim_and_a_near_repeat_are_found_and_an_unrelated_query_is_not():
    bench = BENCH.tasks()
    law, politics, traffic = bench[60], bench[100], bench[130]
    train = [law.model_copy(update={"query": f"질문: {law.query} 꼭 알려 주세요"}),  # contains it: verbatim
             politics.model_copy(update={"query": politics.query[:-3] + "인가요?"}),  # its last words changed
             traffic.model_copy(update={"query": "오늘 서울의 날씨는 어떤가요?"})]
    found = audit(train, bench, CATALOG)
    assert found["verbatim"] == 1 and found["verbatim_ids"] == [law.id]
    assert politics.id in found["near_verbatim_ids"] and traffic.id not in found["near_verbatim_ids"]
    bench_tools = {n for t in bench for n in t.available_tools if CATALOG[n].family != "session"}
    executed = {c.tool for t in train for c in BENCH.targets()[t.id].calls if CATALOG[c.tool].family != "session"}
    assert found["bench_covered"] == pytest.approx(len(bench_tools & executed) / len(bench_tools))


def test_the_held_out_subset_is_the_tasks_that_need_only_those_platforms():
    subset = {t.id for t in held_out_subset(BENCH.tasks(), HELD, CATALOG)}
    expected = {t.id for t in BENCH.tasks() if _executed_platforms(t.id) and _executed_platforms(t.id) <= set(HELD)}
    assert subset == expected and len(subset) == 30  # the paper's subset has 31


def test_export_audits_a_training_set_and_writes_the_held_out_split(tmp_path):
    train = tmp_path / "train-set"  # KOPA-Bench's finance tasks as a training set: every query leaks
    for part, name in (("tasks", "finance.yaml"), ("targets", "finance.json")):
        (train / part).mkdir(parents=True)
        (train / part / name).write_bytes((ROOT / "benchmark" / part / name).read_bytes())
    finance = task_set(str(train)).tasks()
    out = tmp_path / "rl" / "train.parquet"
    result = CliRunner().invoke(main, ["rl", "export", "--format", "verl", "--tasks", str(train),
                                       "--held-out-platforms", ",".join(HELD), "-o", str(out)])
    assert result.exit_code == 0, result.output
    kept = [t for t in finance if not {CATALOG[c.tool].platform for c in BENCH.targets()[t.id].calls} & set(HELD)]
    assert _rows(out) == len(kept) < len(finance)
    assert _rows(tmp_path / "rl" / "train.heldout.parquet") == 30
    found = json.loads((tmp_path / "rl" / "train.contamination.json").read_text())
    assert found["verbatim"] == len(kept)  # each kept finance task is itself a benchmark query
    assert f"| benchmark queries repeated verbatim | {len(kept)}/145 | 0/145 |" in \
        (tmp_path / "rl" / "train.contamination.md").read_text()


@pytest.mark.parametrize(("args", "error"), [
    (["--held-out-platforms", "dart"], "--held-out-platforms splits a training set: name it with --tasks DIR"),
    (["--tasks", "benchmark", "--held-out-platforms", "dartt"], "unknown platform(s) ['dartt']"),
])
def test_a_split_without_a_training_set_or_with_an_unknown_platform_is_one_line(tmp_path, args, error):
    result = CliRunner().invoke(main, ["rl", "export", "--format", "verl", *args, "-o", str(tmp_path / "x.parquet")])
    assert result.exit_code == 2 and error in result.output
