"""The compiled catalog cache: equal to the YAML load, rebuilt when the YAML changes, never trusted when
corrupt, and safe when several processes build it at once."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kopa.catalog.cache import cache_path, catalog_key, compile_catalog, read_compiled
from kopa.catalog.loader import Catalog, catalog_files, load_catalog_from, load_catalog_yaml, merge_files

# Three small platform files, so the rebuild tests parse little YAML (the full catalog, extension files
# included, is compared once).
SMALL = ("ex.yaml", "gg.yaml", "session.yaml")


def _fingerprint(catalog: Catalog) -> str:
    """Everything a caller can read of a catalog, in catalog order, as one digest."""
    doc = {
        "platforms": {pid: [p.model_dump(mode="json", exclude_unset=True), sorted(p.model_fields_set)]
                      for pid, p in catalog.platforms.items()},
        "tools": [[t.model_dump(mode="json"), sorted(t.spec.model_fields_set), t.openai_schema()] for t in catalog],
        "key_ids": {pid: catalog.key_ids(pid) for pid in catalog.platforms},
    }
    return hashlib.sha256(json.dumps(doc, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> tuple[Catalog, Catalog]:
    """The packaged catalog from YAML, and the same compiled then read back from a fresh cache."""
    directory = tmp_path_factory.mktemp("catalog-cache")
    from_yaml = load_catalog_from(catalog_files(), directory)  # compiles
    assert len(list(directory.glob("catalog-*.bin"))) == 1
    return from_yaml, load_catalog_from(catalog_files(), directory)


@pytest.fixture
def small(tmp_path) -> list[Path]:
    """A copy of the SMALL files, free to edit."""
    data = tmp_path / "data"
    data.mkdir()
    for name in SMALL:
        shutil.copy(catalog_files()[0].parent / name, data / name)
    return sorted(data.glob("*.yaml"))


@pytest.fixture(scope="module")
def small_expected() -> str:
    return _fingerprint(load_catalog_yaml([catalog_files()[0].parent / name for name in sorted(SMALL)]))


def test_cached_catalog_equals_the_yaml_load(full):
    from_yaml, cached = full
    assert cached.tools.__class__.__name__ == "_Lazy"  # really read from the compiled file
    assert cached == from_yaml
    assert len(cached) == len(from_yaml) > 2000
    assert list(cached.tools) == list(from_yaml.tools)
    assert _fingerprint(cached) == _fingerprint(from_yaml)
    for pid in from_yaml.platforms:
        assert cached.by_platform(pid) == from_yaml.by_platform(pid)


def test_cached_tools_are_validated_on_first_use(full):
    _, cached = full
    tool = cached["find_dart_corp_code"]
    assert tool is cached["find_dart_corp_code"]
    assert tool.spec.param("corp_name").description
    with pytest.raises(KeyError, match="unknown tool 'no_such_tool'"):
        cached["no_such_tool"]
    assert "no_such_tool" not in cached


def test_changed_yaml_rebuilds(small, tmp_path):
    cache = tmp_path / "cache"
    before = load_catalog_from(small, cache)
    tool = next(t for t in before if t.platform == "ex")
    path = next(f for f in small if f.name == "ex.yaml")
    text = path.read_text(encoding="utf-8")
    assert text.count(tool.spec.description) >= 1
    path.write_text(text.replace(tool.spec.description, "바뀐 설명", 1), encoding="utf-8")
    after = load_catalog_from(small, cache)
    assert after[tool.name].spec.description == "바뀐 설명"
    assert load_catalog_from(small, cache)[tool.name].spec.description == "바뀐 설명"  # from the new file
    assert len(list(cache.glob("catalog-*.bin"))) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage", "other_key"])
def test_a_corrupt_or_foreign_cache_file_is_rebuilt(small, small_expected, tmp_path, damage):
    cache = tmp_path / "cache"
    expected = small_expected
    load_catalog_from(small, cache)
    key = catalog_key(small)
    path = cache_path(key, cache)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flip":  # one byte inside a tool's JSON: still parses, must not be trusted
        i = data.rindex(b'"description":"') + len(b'"description":"')
        path.write_bytes(data[:i] + bytes([data[i] ^ 1]) + data[i + 1:])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not a catalog \n" * 100)
    else:  # a well-formed file compiled for other YAML, under this key's name
        path.write_bytes(compile_catalog(merge_files(small[:1]), "0" * 64))
    assert read_compiled(path, key) is None
    assert _fingerprint(load_catalog_from(small, cache)) == expected
    assert read_compiled(path, key) is not None  # rewritten whole
    assert _fingerprint(load_catalog_from(small, cache)) == expected


def test_an_unwritable_cache_costs_speed_not_the_catalog(small, small_expected, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert _fingerprint(load_catalog_from(small, blocker / "cache")) == small_expected


BUILDER = """
import sys
from pathlib import Path
from kopa.catalog.loader import load_catalog_from
files = sorted(Path(sys.argv[1]).glob("*.yaml"))
print("ready", flush=True)
sys.stdin.readline()  # start together
catalog = load_catalog_from(files, Path(sys.argv[2]))
print(len(catalog), sorted(t.name for t in catalog)[0], flush=True)
"""


def test_processes_building_at_once_agree_and_leave_one_whole_file(small, small_expected, tmp_path):
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-c", BUILDER, str(small[0].parent), str(cache)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    expected = load_catalog_yaml(small)
    assert set(outputs) == {f"{len(expected)} {sorted(t.name for t in expected)[0]}\n"}
    assert [p.name for p in cache.iterdir()] == [cache_path(catalog_key(small), cache).name]  # no temp files left
    assert _fingerprint(load_catalog_from(small, cache)) == small_expected
