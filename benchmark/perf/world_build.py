"""World build time at scale=full (target <= 60 s), rows per table, and the content hash."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _common import isolated_cache, peak_rss_mb, report

from sim.world.build import read_world, world_path, write_world
from sim.world.context import WorldConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", default="full", choices=["small", "full"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    isolated_cache()
    config = WorldConfig(seed=args.seed, scale=args.scale)
    path = world_path(config)
    started = time.perf_counter()
    digest = write_world(config, Path(path))
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    world = read_world(Path(path))
    for name in world.tables:  # tables load lazily; load them all to time a full load
        world.table(name)
    load_s = time.perf_counter() - started
    counts = world.row_counts
    biggest = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
    report(f"world build, seed={args.seed} scale={args.scale} (target <= 60 s)", [
        ("build + write", f"{build_s:.2f} s"),
        ("load of every table", f"{load_s:.2f} s"),
        ("tables / rows", f"{len(counts)} / {sum(counts.values()):,}"),
        ("largest tables", ", ".join(f"{name} {n:,}" for name, n in biggest)),
        ("file size", f"{Path(path).stat().st_size / 2**20:.1f} MB"),
        ("peak RSS", f"{peak_rss_mb():.0f} MB"),
        ("content hash", digest),
    ])


if __name__ == "__main__":
    main()
