"""`kopa rl rollouts` over every KOPA-Bench task, side by side: one worker, two spawned processes (the
alternative: each loads the task set and the world itself), and two processes forked after the load (what
`--workers 2` does for an offline policy). Each variant runs in a fresh process, timed from its start as a
user waits for it, with the memory of all its processes summed; and the same bytes from every variant."""

from __future__ import annotations

import argparse
import textwrap

from _common import isolated_cache, report, side_by_side

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from kopa.executor import LocalExecutor
    from kopa.rl.rollouts import RolloutConfig, generate
    n, workers, mode, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    started = time.perf_counter()
    executor = None if workers == 1 else LocalExecutor(workers, fork=mode == "forked")
    try:
        groups = generate(RolloutConfig(policy="mixed", n=n), out, executor=executor)
    finally:
        if executor is not None:
            executor.close()
    print(len(groups), sum(r["reward"] for g in groups for r in g["rollouts"]), f"{time.perf_counter() - started:.2f}")
""")

VARIANTS = (("1 worker", 1, "in-process"), ("2 spawned processes", 2, "spawned"),
            ("2 forked processes", 2, "forked"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", "--rollouts", type=int, default=4, help="rollouts per task (the GRPO group size)")
    args = parser.parse_args()
    isolated_cache()

    def describe(line: list[str], wall: float, peak: object) -> str:
        groups, reward, inside = int(line[0]), float(line[1]), float(line[2])
        return (f"{wall:5.1f} s wall ({inside:.1f} s in generate), {groups} groups of {args.rollouts} "
                f"(reward sum {reward:g}), peak {peak}")

    rows = side_by_side(CHILD, VARIANTS, args.rollouts, ("groups.jsonl", "rollouts.parquet"), describe)
    report(f"rl rollouts: every KOPA-Bench task x {args.rollouts}, mixed policy, in-process simulator", rows)


if __name__ == "__main__":
    main()
