"""All KOPA-Bench tasks x 4 rollouts with the oracle on the in-process simulator, side by side: one worker,
two threads (the alternative), and two processes forked after the load (what `kopa bench run --workers 2`
does for an offline policy). Each variant runs in a fresh process, timed from its start, as a user waits for
it, with the memory of all its processes summed (target <= 30 s on 2 cores)."""

from __future__ import annotations

import argparse
import textwrap

from _common import isolated_cache, report, side_by_side

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from kopa.eval.runner import RunConfig, run_bench
    from kopa.executor import LocalExecutor
    rollouts, workers, mode, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    started = time.perf_counter()
    forked = LocalExecutor(workers, fork=True) if mode == "forked" else None
    episodes = run_bench(RunConfig(policy="oracle", rollouts=rollouts), out, workers=workers, executor=forked)
    print(len(episodes), sum(e.score.passed for e in episodes), f"{time.perf_counter() - started:.2f}")
""")

VARIANTS = (("1 worker", 1, "threads"), ("2 threads", 2, "threads"), ("2 forked processes", 2, "forked"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rollouts", type=int, default=4)
    args = parser.parse_args()
    isolated_cache()

    def describe(line: list[str], wall: float, peak: object) -> str:
        episodes, passed, inside = int(line[0]), int(line[1]), float(line[2])
        return f"{wall:5.1f} s wall ({inside:.1f} s in run_bench), {episodes} episodes ({passed} passed), peak {peak}"

    rows = side_by_side(CHILD, VARIANTS, args.rollouts, ("episodes.jsonl", "scores.jsonl"), describe)
    report(f"oracle: every KOPA-Bench task x {args.rollouts} rollouts, in-process simulator (target <= 30 s)", rows)


if __name__ == "__main__":
    main()
