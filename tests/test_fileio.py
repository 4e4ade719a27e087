"""Atomic writes leave files others may read (mkstemp alone would make them 0600); run folders refuse
another configuration in one line, or with force forget what the old run left."""

from __future__ import annotations

import os
import stat

import orjson
import pytest

from kopa.fileio import claim_run_folder, read_appended, write_atomic


def test_an_atomic_write_has_the_mode_the_umask_gives(tmp_path):
    path = write_atomic(tmp_path / "a.json", b"{}")
    mask = os.umask(0o022)  # read the process's umask (only settable), and put it back
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask  # what open() would give, not mkstemp's 0600
    assert path.read_bytes() == b"{}" and not list(tmp_path.glob(".a.json.*"))


def test_a_run_folder_refuses_another_configuration_and_force_clears_its_parts(tmp_path):
    def claim(payload, force=False):
        claim_run_folder(tmp_path, payload, body=orjson.dumps(payload), force=force, what="a test run",
                         error=ValueError)

    claim({"seed": 0, "n": 3})
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "00000.jsonl").write_text("x")
    claim({"seed": 0, "n": 3})  # the same configuration resumes: the part stays
    assert (tmp_path / "parts" / "00000.jsonl").exists()
    with pytest.raises(ValueError, match=r"holds a test run with another configuration \(seed differ\)"):
        claim({"seed": 1, "n": 3})
    claim({"seed": 1, "n": 3}, force=True)
    assert not (tmp_path / "parts" / "00000.jsonl").exists()
    assert orjson.loads((tmp_path / "config.json").read_bytes()) == {"seed": 1, "n": 3}


class _Damaged(Exception):
    pass


def test_an_appended_log_skips_only_a_cut_last_line_and_only_while_resuming(tmp_path):
    log = tmp_path / "episodes.jsonl"
    assert read_appended(log, orjson.loads) == []
    log.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a"')
    assert read_appended(log, orjson.loads, error=_Damaged) == [{"a": 1}, {"a": 2}]
    with pytest.raises(_Damaged, match=r"episodes.jsonl:3: the last line is cut short"):
        read_appended(log, orjson.loads, error=_Damaged, finished=True)
    log.write_bytes(b'{"a": 1}\n{"a"\n{"a": 3}\n')
    for finished in (False, True):
        with pytest.raises(_Damaged, match=r"episodes.jsonl:2: not a line this run wrote"):
            read_appended(log, orjson.loads, error=_Damaged, finished=finished)


def test_a_second_writer_of_a_run_folder_is_refused_until_the_first_is_done(tmp_path):
    from kopa.fileio import exclusive_writer

    with exclusive_writer(tmp_path / "run", "a test run", _Damaged):
        second = exclusive_writer(tmp_path / "run", "a test run", _Damaged)
        with pytest.raises(_Damaged, match=rf"being written by a test run in process {os.getpid()}"):
            second.__enter__()
        with exclusive_writer(tmp_path / "other", "a test run", _Damaged):  # another folder: its own lock
            pass
    with exclusive_writer(tmp_path / "run", "a test run", _Damaged):  # released: the next writer goes on
        pass
