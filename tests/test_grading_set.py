"""The grading set (tests/data/grading_set.jsonl, issue 50): 1,300 answers over the 130 answerable KOPA-Bench
tasks, written by three readers who had not seen the scorer — given the queries, the golden answers, the tools
and benchmark/SCORING.md only — each with the verdict a careful grader gives it. Writers A and B (910): per
task one natural answer as a strong model writes it, two correct paraphrases and four near-misses (wrong
magnitude or entity, swapped items, negation, hedge, alternatives, a partial list, the opposite conclusion,
a tool call printed). Writer C (390), written after the scorer was fixed on A and B and scored once before
any change (7 wrong verdicts of 390, since fixed): per task two correct answers in different agents'
styles and one plausible wrong answer.

A verdict may be undecidable (a model judge's question) but never the wrong way round, and undecidable
correct answers stay rare (≤ 2%). `kopa bench score-answer --jsonl tests/data/grading_set.jsonl` prints the
same counts."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from kopa.eval.scoring.response import score_response
from kopa.eval.task import load_targets, load_tasks

ROWS = [orjson.loads(line) for line in
        (Path(__file__).parent / "data" / "grading_set.jsonl").read_bytes().splitlines() if line.strip()]
VERDICT = {True: "pass", False: "fail", None: "undecided"}


@pytest.fixture(scope="module")
def verdicts():
    tasks = {t.id: t for t in load_tasks()}
    targets = load_targets()
    return [VERDICT[score_response(tasks[r["task"]].answer, targets[r["task"]].key, r["answer"],
                                   query=tasks[r["task"]].query).passed] for r in ROWS]


def test_the_set_covers_every_answerable_task_and_every_answer_type():
    tasks = {t.id: t for t in load_tasks()}
    answerable = {t.id for t in tasks.values() if t.answer is not None}
    assert {r["task"] for r in ROWS} == answerable and len(ROWS) >= 800
    assert all({w for x in ROWS if x["task"] == t for w in [x["writer"]]} >= {"C"} for t in answerable)
    assert {tasks[r["task"]].answer.type for r in ROWS} == {"number", "string", "judge"}
    assert {r["expect"] for r in ROWS} == {"pass", "fail"}


def test_no_verdict_is_the_wrong_way_round(verdicts):
    wrong = [(r["task"], r["kind"], r["answer"][:80], got) for r, got in zip(ROWS, verdicts, strict=True)
             if {r["expect"], got} == {"pass", "fail"}]
    assert wrong == []


def test_undecidable_correct_answers_stay_rare(verdicts):
    correct = [got for r, got in zip(ROWS, verdicts, strict=True) if r["expect"] == "pass"]
    assert correct.count("undecided") <= 0.02 * len(correct)
