"""SCORING.md's worked examples are graded as the document says, against the shipped targets.

Each "Worked example — TASK" table lists answers (in backticks) with the verdict a reader is promised; the
test scores every one with the RESPONSE scorer against the task's current target, so a target that moves
(education-005 went from 25/3 to 25/6) fails here instead of leaving the contract stale.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kopa.eval.scoring.episode import answer_verdict
from kopa.eval.task import task_set

SCORING = Path(__file__).resolve().parent.parent / "benchmark" / "SCORING.md"
EXAMPLE = re.compile(r"\*\*Worked example — ([a-z]+-\d{3})\*\*")
ROW = re.compile(r"^\|\s*(?P<answers>`[^|]*`)\s*\|\s*(?P<verdict>pass|fail|undecidable)\b")
VERDICT = {"pass": True, "fail": False, "undecidable": None}


def worked_examples() -> list[tuple[str, str, bool | None]]:
    """(task, answer, passes: None when the offline judge cannot decide) for every worked-example answer."""
    out: list[tuple[str, str, bool | None]] = []
    task = None
    for line in SCORING.read_text(encoding="utf-8").splitlines():
        heading = EXAMPLE.search(line)
        if heading:
            task = heading.group(1)
            continue
        row = ROW.match(line)
        if task is not None and row:
            for answer in re.findall(r"`([^`]+)`", row.group("answers")):
                out.append((task, answer, VERDICT[row.group("verdict")]))
        elif task is not None and line.startswith("#"):
            task = None
    return out


EXAMPLES = worked_examples()


def test_the_document_has_worked_examples():
    assert {t for t, _, _ in EXAMPLES} >= {"education-005", "finance-001", "law-008"}
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("task_id", "answer", "passes"), EXAMPLES)
def test_worked_example_verdict(task_id: str, answer: str, passes: bool | None):
    found = task_set(None)
    task = {t.id: t for t in found.tasks()}[task_id]
    verdict = answer_verdict(task, found.targets()[task_id], answer)
    assert verdict.passed is passes, (answer, verdict.method, verdict.details)
