"""World building: determinism by construction and referential integrity across platforms."""

from __future__ import annotations

import numpy as np

from sim.world.context import WorldConfig
from sim.world_file import load_world, recompute_hash, write_world


def test_same_seed_same_hash_other_seed_other_hash(tmp_path):
    a = write_world(WorldConfig(seed=3), tmp_path / "a.duckdb")
    b = write_world(WorldConfig(seed=3), tmp_path / "b.duckdb")
    c = write_world(WorldConfig(seed=4), tmp_path / "c.duckdb")
    assert a == b
    assert a != c


def test_cached_world_hash_recomputes(world):
    assert recompute_hash(world) == world.content_hash


def test_cache_is_reused_and_rebuild_is_identical(tmp_path):
    config = WorldConfig(seed=5)
    first = load_world(config, directory=tmp_path)
    mtime = first.path.stat().st_mtime_ns
    again = load_world(config, directory=tmp_path)
    assert again.path.stat().st_mtime_ns == mtime
    rebuilt = load_world(config, directory=tmp_path, rebuild=True)
    assert rebuilt.content_hash == first.content_hash


def _column(world, table, column):
    t = world.table(table)
    return set(t.cols[column].vocab[t.cols[column].codes].tolist())


def test_dart_stock_codes_are_krx_and_fsc_codes(world):
    dart_listed = {c for c in _column(world, "dart_corp", "stock_code") if c.strip()}
    krx = _column(world, "krx_issue_base", "stock_code")
    prices = _column(world, "stock_daily_price", "srtnCd")
    assert dart_listed == krx == prices
    assert len(dart_listed) > 50


def test_krx_isin_is_fsc_isin(world):
    assert _column(world, "krx_issue_base", "isin") == _column(world, "stock_daily_price", "isinCd")


def test_anchor_company_has_its_convertible_bond(world):
    corp = world.table("dart_corp")
    idx = corp.select([])
    rows = corp.rows(idx, ["corp_code", "corp_name"])
    code = next(r["corp_code"] for r in rows if r["corp_name"] == "라이트론")
    cb = world.table("dart_cvbd")
    hits = cb.rows(cb.cols["corp_code"].rows_equal(code), ["bddd"])
    assert any(r["bddd"].startswith("202601") for r in hits)


def test_lookup_cardinalities_span_zero_one_few_many(world):
    """DART disclosures per company: some companies have none, others one or a few, some many."""
    corp_codes = _column(world, "dart_corp", "corp_code")
    t = world.table("dart_disclosure")
    counts = np.bincount(t.cols["corp_code"].codes)
    with_any = {t.cols["corp_code"].vocab[i] for i in np.flatnonzero(counts)}
    assert corp_codes - with_any, "some companies must have no disclosures"
    assert counts.max() >= 10


def test_the_world_file_name_follows_the_generator_sources():
    """The cache key digests the generator's code (every platform package, the world builders, this writer): it
    had found no file at all, so a cached world outlived the code that wrote it."""
    import hashlib
    from pathlib import Path

    from sim.world_file import generator_digest, generator_sources

    root = Path(__file__).resolve().parents[1] / "sim"
    named = {p.relative_to(root).as_posix() for p in generator_sources()}
    assert {"world_file.py", "longtail.py", "history.py", "world/context.py"} <= named
    assert {p.parent.name for p in root.glob("platforms/*/__init__.py")} <= {n.split("/")[1] for n in named
                                                                              if n.startswith("platforms/") and
                                                                              n.count("/") == 2}
    assert generator_digest() != hashlib.sha256(b"").hexdigest()[:12]
