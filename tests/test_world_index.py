"""A world's meta tables read through the JSON copy beside it: equal to the world file's, and never
trusted once the world file changed or the copy is damaged."""

from __future__ import annotations

import os
import shutil

import orjson
import pytest

from sim.world_file import WorldIndex, _index_from_db, _stamp, index_path, read_index, read_world


@pytest.fixture
def world_file(world, tmp_path):
    """A private copy of the session's world, so its index copy can be damaged freely."""
    path = tmp_path / world.path.name
    shutil.copy(world.path, path)
    return path


def test_the_copy_equals_the_world_files_own_tables(world_file, world):
    assert not index_path(world_file).exists()
    first = read_index(world_file)
    assert index_path(world_file).exists()
    again = read_index(world_file)  # from the copy
    assert first == again
    assert again.content_hash == world.content_hash and again.config == world.config
    assert again.row_counts == world.row_counts
    opened = read_world(world_file)
    assert opened.table("dart_corp").n_rows == world.table("dart_corp").n_rows


def test_the_copy_is_used_only_while_the_world_file_is_unchanged(world_file, world):
    read_index(world_file)
    side = index_path(world_file)
    doctored = orjson.loads(side.read_bytes())
    doctored["meta"]["content_hash"] = "f" * 64
    side.write_bytes(orjson.dumps(doctored))
    assert read_index(world_file).content_hash == "f" * 64  # the copy is what is read …
    st = world_file.stat()
    os.utime(world_file, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert read_index(world_file).content_hash == world.content_hash  # … until the world file changes
    assert orjson.loads(side.read_bytes())["meta"]["content_hash"] == world.content_hash  # rewritten


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[]", b'{"format": 1}', "wrong_types"])
def test_a_damaged_copy_is_read_again_from_the_world_file(world_file, world, damage):
    read_index(world_file)
    side = index_path(world_file)
    if damage == "wrong_types":
        doc = orjson.loads(side.read_bytes())
        doc["columns"] = {"not": "a list of triples"}
        damage = orjson.dumps(doc)
    side.write_bytes(damage)
    truth = WorldIndex.parse(_index_from_db(world_file, _stamp(world_file)))
    assert read_index(world_file) == truth
    assert orjson.loads(side.read_bytes())["row_counts"] == truth.row_counts  # rewritten whole
    assert read_index(world_file) == truth
