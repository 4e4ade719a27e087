"""EDGE Phase B on the in-process simulator: wall time and peak memory to synthesize N candidates on a
finished G* run and to filter them (goal at the paper's configuration on the full world: <= 15 min and
<= 6 GB on 2 cores), and how one step's cost grows with the size of the result it reads. Prints numbers;
asserts nothing.

    python benchmark/perf/synth.py --graph runs/edge -n 2500 --workers 2   (n: candidates)
    python benchmark/perf/synth.py --graph runs/edge-full --backend sim:scale=full -n 2500 --workers 2
    python benchmark/perf/synth.py --graph runs/edge-full --backend sim:scale=full --scaling

--scaling reads the largest result the world holds (서울 전월세 계약: 224,958 records at full scale, 225 pages
of 1,000) as a synthesis step does, then types a junction on its first 10k, 50k and all records (every DRV
process node, and one drawn as synthesis draws it): the step's time against the records behind it. KOPA_CACHE_DIR, when set,
names the world cache to reuse (a built full world loads in seconds; building it takes about a minute).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import TreePeak, isolated_cache, peak_rss_mb, report

from kopa.backends.spec import open_backend
from kopa.catalog.loader import load_catalog
from kopa.eval.task import GoldenStep
from kopa.synth.dataset import filter_run, load_graph_run, synth_run
from kopa.synth.junction import distinct, drv_choice, drv_options, junction_kind
from kopa.synth.trajectory import ChainBuild, SynthContext

LARGEST = "get_seoul_rent_contracts"


def children_peak_mb() -> float:
    """The largest peak RSS among the finished worker processes (Linux reports the largest, not the sum)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def scaling(graph: Path, backend: str) -> None:
    g, cache, _ = load_graph_run(graph)
    catalog = load_catalog()
    build = ChainBuild(SynthContext(g, catalog, open_backend(backend), cache, seed=0), 0)
    started = time.perf_counter()
    view = build._try(GoldenStep(id="s1", call=LARGEST, args={"START_INDEX": 1, "END_INDEX": 1000}))
    read = time.perf_counter() - started
    if view is None:
        raise SystemExit(f"{LARGEST}: the step was not read in full on {backend}")
    records = view["records"]
    rows = [("world", backend), ("largest result", f"{len(records):,} records in {build.pages['s1']} pages, "
                                                   f"read in {read:.2f} s")]
    tool = catalog[LARGEST]
    for n in (10_000, 50_000, len(records)):
        part = records[:n]
        started = time.perf_counter()
        kind = junction_kind(len(distinct([r["CGG_CD"] for r in part])))
        options = drv_options(tool, part, "CGG_CD", np.random.default_rng(0))
        every = time.perf_counter() - started
        started = time.perf_counter()
        drawn = drv_choice(tool, part, "CGG_CD", np.random.default_rng(0))
        rows.append((f"junction on {len(part):,} records",
                     f"{every:.2f} s typing all {len(options)} process nodes; {time.perf_counter() - started:.2f} s "
                     f"drawing one as synthesis does ({drawn.process if drawn else 'none'}) · {kind}"))
    rows.append(("peak RSS", f"{peak_rss_mb():.0f} MB"))
    report("EDGE Phase B: one step against the size of its result", rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", required=True, help="a finished `kopa edge graph build` run folder")
    parser.add_argument("--backend", default="sim", help="the world synthesis executes on (e.g. sim:scale=full)")
    parser.add_argument("-n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--scaling", action="store_true", help="time one step against the size of its result")
    args = parser.parse_args()
    isolated_cache()
    if args.scaling:
        scaling(Path(args.graph), args.backend)
        return
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="kopa-synth-perf-"))
    started = time.perf_counter()
    with TreePeak() as memory:
        candidates, failures = synth_run(Path(args.graph), out, args.n, seed=args.seed, workers=args.workers,
                                         backend_spec=args.backend)
        synthesized = time.perf_counter()
        kept, drops, _ = filter_run(out, workers=args.workers)
        filtered = time.perf_counter()
    report("EDGE Phase B (sim)", [
        ("backend", args.backend),
        ("candidates", f"{len(candidates)} ({len(failures)} failed attempts)"),
        ("synthesis", f"{synthesized - started:.1f} s ({len(candidates) / max(synthesized - started, 1e-9):.1f}/s)"),
        ("filter", f"{filtered - synthesized:.1f} s; kept {len(kept)}, dropped {len(drops)}"),
        ("total", f"{filtered - started:.1f} s"),
        ("peak RSS", f"main {peak_rss_mb():.0f} MB; largest worker {children_peak_mb():.0f} MB"),
        ("peak memory", str(memory)),
        ("run folder", str(out)),
    ])


if __name__ == "__main__":
    main()
