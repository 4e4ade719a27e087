"""EDGE Phase B on the in-process simulator: wall time and peak memory to synthesize N candidates on a
finished G* run and to filter them (target for the paper-size dataset: <= 10 min and <= 4 GB on 2 cores).
Prints numbers; asserts nothing.

    python benchmark/perf/synth.py --graph runs/edge -n 2500 --workers 2   (n: candidates)
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from kopa.synth.dataset import filter_run, synth_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graph", required=True, help="a finished `kopa edge graph build` run folder")
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    isolated_cache()
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="kopa-synth-perf-"))
    started = time.perf_counter()
    candidates, failures = synth_run(Path(args.graph), out, args.n, seed=args.seed, workers=args.workers)
    synthesized = time.perf_counter()
    kept, drops, _ = filter_run(out)
    filtered = time.perf_counter()
    report("EDGE Phase B (sim)", [
        ("candidates", f"{len(candidates)} ({len(failures)} failed attempts)"),
        ("synthesis", f"{synthesized - started:.1f} s ({len(candidates) / max(synthesized - started, 1e-9):.1f}/s)"),
        ("filter", f"{filtered - synthesized:.1f} s; kept {len(kept)}, dropped {len(drops)}"),
        ("peak RSS", f"{peak_rss_mb():.0f} MB"),
        ("run folder", str(out)),
    ])


if __name__ == "__main__":
    main()
