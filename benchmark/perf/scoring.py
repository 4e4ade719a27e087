"""RESPONSE scoring speed: the grading set (tests/data/grading_set.jsonl, 1,300 answers over the 130 answerable
KOPA-Bench tasks) scored with the offline judge, answers per second, once cold (the Korean analyzer and the
LaTeX parser load on first use) and then warm. `--before DIR` runs the same measurement, side by side, on the
scorer of another checkout (e.g. a `git worktree add DIR <commit>` from before a change): each variant in its
own process, its own `kopa` on the path."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from _common import report

ROOT = Path(__file__).resolve().parents[2]
CHILD = textwrap.dedent("""
    import sys, time, orjson
    from kopa.eval.scoring.response import score_response
    from kopa.eval.task import load_targets, load_tasks
    rows = [orjson.loads(x) for x in open(sys.argv[1], "rb").read().splitlines() if x.strip()][: int(sys.argv[2])]
    tasks = {t.id: t for t in load_tasks()}
    targets = load_targets()
    def one_pass():
        started = time.perf_counter()
        verdicts = [score_response(tasks[r["task"]].answer, targets[r["task"]].key, r["answer"],
                                   query=tasks[r["task"]].query).passed for r in rows]
        return time.perf_counter() - started, verdicts
    cold, verdicts = one_pass()
    warm, _ = one_pass()
    wrong = sum((v is True and r["expect"] == "fail") or (v is False and r["expect"] == "pass")
                for v, r in zip(verdicts, rows))
    print(len(rows), f"{cold:.3f}", f"{warm:.3f}", wrong, sum(v is None for v in verdicts))
""")


def _measure(checkout: Path, answers: Path, limit: int) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(answers), str(limit)], capture_output=True, text=True,
                          env=env, cwd=checkout, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"scoring in {checkout} failed:\n{done.stderr[-2000:]}")
    return done.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=Path, default=ROOT / "tests" / "data" / "grading_set.jsonl")
    parser.add_argument("--limit", type=int, default=10**9, help="score only the first N answers")
    parser.add_argument("--before", type=Path, help="another checkout whose scorer runs side by side")
    args = parser.parse_args()
    rows = []
    for name, checkout in (("before", args.before), ("this checkout", ROOT)):
        if checkout is None:
            continue
        n, cold, warm, wrong, undecided = _measure(checkout.resolve(), args.answers.resolve(), args.limit)
        rows.append((f"{name} ({checkout.resolve().name})",
                     f"{int(n) / float(warm):7.1f} answers/s warm, {int(n) / float(cold):7.1f} cold "
                     f"({n} answers: {wrong} wrong verdicts, {undecided} undecidable)"))
    report("RESPONSE scoring of the grading set, offline judge", rows)


if __name__ == "__main__":
    main()
