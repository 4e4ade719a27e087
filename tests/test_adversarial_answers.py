"""Adversarial answers against real KOPA-Bench targets (tests/data/adversarial_answers.jsonl): equal forms
pass; coarser roundings, hedges, containment tricks and lookalikes do not. The expected verdicts follow
benchmark/SCORING.md; the targets are the ones the golden runs computed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from kopa.eval.scoring.response import score_response
from kopa.eval.task import load_targets, load_tasks

ROWS = [orjson.loads(line) for line in
        (Path(__file__).parent / "data" / "adversarial_answers.jsonl").read_bytes().splitlines() if line.strip()]
VERDICT = {True: "pass", False: "fail", None: "undecided"}


@pytest.fixture(scope="module")
def keys():
    tasks = {t.id: t for t in load_tasks()}
    targets = load_targets()
    return {i: (tasks[i], targets[i].key) for i in {r["task"] for r in ROWS}}


def test_the_table_is_adversarial_enough():
    assert len(ROWS) >= 30
    assert {r["expect"] for r in ROWS} == {"pass", "fail", "undecided"}
    assert len({r["task"] for r in ROWS}) >= 10


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['task']}:{r['answer'][:24]}".replace("\n", "⏎"))
def test_adversarial_answer(row, keys):
    task, key = keys[row["task"]]
    verdict = score_response(task.answer, key, row["answer"], query=task.query)
    assert VERDICT[verdict.passed] == row["expect"], (row["why"], verdict)
