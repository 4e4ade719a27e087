"""How long a study grid will take, said before it starts: a part of its first run is timed (one Phase A
iteration and the probe; a few episodes), scaled to the run and to the runs left on the workers. The
command prints the estimate first and, at the end, the time it took beside it."""

from __future__ import annotations

import math


def grid_seconds(per_run: float, runs: int, workers: int) -> float:
    """Runs go `workers` at a time: the grid takes as many rounds as that needs."""
    if runs <= 0:
        return 0.0
    return per_run * math.ceil(runs / max(1, min(workers, runs)))


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def estimate_line(total: float, runs: int, workers: int, timed: str) -> str:
    return (f"estimate: about {duration(total)} for {runs} run{'s' if runs != 1 else ''} on {workers} "
            f"worker{'s' if workers != 1 else ''} (timed from {timed})")


def outcome_line(estimated: float, took: float) -> str:
    error = (took - estimated) / estimated * 100 if estimated else 0.0
    return f"took {duration(took)}; estimated {duration(estimated)} ({error:+.0f}%)"
