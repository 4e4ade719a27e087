"""Atomic writes leave files others may read (mkstemp alone would make them 0600); a RunFolder refuses
another configuration in one line showing what differs, or with force forgets what the old run left; one
writer at a time; names that would leave it are refused."""

from __future__ import annotations

import os
import stat

import orjson
import pytest

from kopa.fileio import RunFolder, read_appended, write_atomic, writes_run


def test_an_atomic_write_has_the_mode_the_umask_gives(tmp_path):
    path = write_atomic(tmp_path / "a.json", b"{}")
    mask = os.umask(0o022)  # read the process's umask (only settable), and put it back
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask  # what open() would give, not mkstemp's 0600
    assert path.read_bytes() == b"{}" and not list(tmp_path.glob(".a.json.*"))


def test_a_run_folder_refuses_another_configuration_and_force_clears_its_parts(tmp_path):
    def claim(payload, force=False):
        RunFolder(tmp_path, what="a test run", error=ValueError).claim(
            payload, body=orjson.dumps(payload), force=force, stale=("parts/*.jsonl",))

    claim({"seed": 0, "n": 3})
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "00000.jsonl").write_text("x")
    claim({"seed": 0, "n": 3})  # the same configuration resumes: the part stays
    assert (tmp_path / "parts" / "00000.jsonl").exists()
    with pytest.raises(ValueError, match=r"holds a test run with another configuration \(seed: 0 → 1\); use --force"):
        claim({"seed": 1, "n": 3})
    claim({"seed": 1, "n": 3}, force=True)
    assert not (tmp_path / "parts" / "00000.jsonl").exists()
    assert orjson.loads((tmp_path / "config.json").read_bytes()) == {"seed": 1, "n": 3}


def test_a_digest_folder_is_its_digest_and_names_every_key_that_differs(tmp_path):
    folder = RunFolder(tmp_path / "run", what="a run", error=ValueError)
    first = {"config": {"policy": "oracle", "rollouts": 1}, "backend": "sim", "digest": "a"}
    folder.claim(first, force=False, stale=("episodes.jsonl",))
    (tmp_path / "run" / "episodes.jsonl").write_text("{}\n")
    # the digest is the identity: the same digest resumes even if the bytes of config.json were reformatted
    folder.claim(first, force=False, body=orjson.dumps(first), stale=("episodes.jsonl",))
    assert (tmp_path / "run" / "episodes.jsonl").exists()
    other = {"config": {"policy": "skip_key", "rollouts": 1}, "backend": "live", "digest": "b"}
    with pytest.raises(ValueError, match=r'\(backend: "sim" → "live"; policy: "oracle" → "skip_key"\)'):
        folder.claim(other, force=False, stale=("episodes.jsonl",))
    (tmp_path / "run" / "config.json").write_text("{cut")  # a damaged config.json is named, not a traceback
    with pytest.raises(ValueError, match=r"a config\.json that is not JSON; use --force"):
        folder.claim(first, force=False)
    folder.claim(other, force=True, stale=("episodes.jsonl",))
    assert not (tmp_path / "run" / "episodes.jsonl").exists()


@pytest.mark.parametrize("name", ["../../PWNED-task", "/etc/passwd", "a/../../b"])
def test_a_name_that_would_leave_the_folder_is_refused(tmp_path, name):
    folder = RunFolder(tmp_path / "run", what="a run", error=ValueError)
    with pytest.raises(ValueError, match="not a name inside"):
        folder.file(name)
    assert folder.file("episodes/finance-001.json") == tmp_path / "run" / "episodes" / "finance-001.json"


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
    def folder(name: str) -> RunFolder:
        return RunFolder(tmp_path / name, what="a test run", error=_Damaged)

    with folder("run").writing("a test run"):
        second = folder("run").writing("a second test run")
        with pytest.raises(_Damaged, match=rf"being written by a second test run in process {os.getpid()}"):
            second.__enter__()
        with folder("other").writing("a test run"):  # another folder: its own lock
            pass
    with folder("run").writing("a test run"):  # released: the next writer goes on
        pass


def test_a_function_that_writes_a_run_holds_its_folder(tmp_path):
    calls = []

    @writes_run("out", what="a test run", error=_Damaged, writer="another test command")
    def run(n: int, out, *, force: bool = False) -> int:
        calls.append(n)
        return n * 2

    assert run(2, tmp_path / "a") == 4  # the folder is found by the argument's name, however it is passed
    with RunFolder(tmp_path / "a", what="a test run", error=_Damaged).writing("a first command"):
        with pytest.raises(_Damaged, match="being written by another test command"):
            run(3, out=tmp_path / "a")
        assert run(5, tmp_path / "b", force=True) == 10
    assert calls == [2, 5]


def test_a_path_with_a_quote_is_a_literal_not_sql(tmp_path):
    """DuckDB's COPY … TO takes its path inside the SQL text: a ' in an --out path once ended the literal."""
    import duckdb

    from kopa.fileio import sql_literal
    from kopa.synth.dataset import write_parquet

    assert sql_literal("it's") == "'it''s'"
    folder = tmp_path / "it's; DROP TABLE x; --"
    folder.mkdir()
    write_parquet(folder / "dataset.parquet", [], {})
    con = duckdb.connect()
    try:
        count = con.execute(f"SELECT count(*) FROM read_parquet({sql_literal(str(folder / 'dataset.parquet'))})")
        assert count.fetchone() == (0,)
    finally:
        con.close()


def test_a_folder_made_only_for_the_lock_goes_when_nothing_was_written(tmp_path):
    @writes_run("out", what="a test run", error=_Damaged, writer="a test command")
    def refused(out) -> None:
        raise _Damaged("a bad option, found before anything is written")

    with pytest.raises(_Damaged, match="a bad option"):
        refused(tmp_path / "new")
    assert not (tmp_path / "new").exists()
    (tmp_path / "old").mkdir()  # a folder that was there stays, lock file and all
    with pytest.raises(_Damaged):
        refused(tmp_path / "old")
    assert (tmp_path / "old").is_dir()
