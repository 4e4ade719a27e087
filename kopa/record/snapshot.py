"""DuckDB snapshots: one row per tool call, its records, and the raw HTTP it took — queryable with SQL.

    SELECT tool, count(*), avg(record_count) FROM calls GROUP BY tool;
    SELECT record->>'corp_name' FROM records JOIN calls USING (call_id) WHERE tool = 'find_dart_corp_code';

Writes are journalled, then committed in batches: a call or an exchange is appended to
`<snapshot>.pending.jsonl` (already scrubbed, as the table will hold it) before `add_call`/`add_http`
returns, and the journal is committed to DuckDB in one transaction every `BATCH` entries, before any read and
on close — close(), or the snapshot's finalizer when a command drops it unclosed or the interpreter exits, so
a finished command leaves a file plain DuckDB reads whole. A DuckDB commit per call cost about 4 ms twice per
call, most of a recording's time; an append costs microseconds. A recording killed at any point keeps every
call it acknowledged: the next open of the snapshot, writable or read-only, commits what the journal holds (a
torn last line, never acknowledged, is dropped).
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import orjson

from kopa.errors import UserError
from kopa.record.cassette import Exchange
from kopa.record.secrets import scrub_bytes, scrub_text

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS calls (
    call_id VARCHAR PRIMARY KEY,      -- sha256 of (tool, canonical arguments)
    seq BIGINT,                       -- order of first capture
    platform VARCHAR, tool VARCHAR, family VARCHAR,
    request_fingerprints JSON,        -- the HTTP exchanges the call took (see table http)
    arguments JSON,
    ok BOOLEAN,
    status VARCHAR,                   -- 'ok' or the service's own error code
    error_class VARCHAR, error_kind VARCHAR, error_message VARCHAR,
    record_count INTEGER, total_count BIGINT, page JSON,
    latency_ms DOUBLE,
    captured_at VARCHAR,              -- the backend's clock: virtual for the simulator, real for live
    backend VARCHAR                   -- provenance: which backend (and which world) answered
);
CREATE TABLE IF NOT EXISTS records (call_id VARCHAR, idx INTEGER, record JSON);
CREATE TABLE IF NOT EXISTS http (
    fingerprint VARCHAR PRIMARY KEY, method VARCHAR, uri VARCHAR, status INTEGER, reason VARCHAR,
    headers JSON, body BLOB, captured_at VARCHAR
);
"""


def call_id(tool: str, arguments: dict[str, Any]) -> str:
    canonical = orjson.dumps({"tool": tool, "arguments": {k: str(v) for k, v in arguments.items()}},
                             option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(canonical).hexdigest()


@dataclass(frozen=True)
class CallRow:
    call_id: str
    platform: str
    tool: str
    family: str
    request_fingerprints: list[str]
    arguments: dict[str, Any]
    ok: bool
    status: str
    error_class: str | None
    error_kind: str | None
    error_message: str | None
    record_count: int
    total_count: int | None
    page: dict[str, Any] | None
    latency_ms: float
    captured_at: str
    backend: str
    records: list[dict[str, Any]]


TABLES = ("meta", "calls", "records", "http")
BATCH = 256  # journalled entries committed to DuckDB at once


def journal_path(path: Path) -> Path:
    """Where a snapshot's uncommitted writes wait (beside it; a DuckDB file has its own `.wal`)."""
    return path.with_name(path.name + ".pending.jsonl")


class SnapshotError(UserError, ValueError):
    """A snapshot file that cannot be opened or read: empty, corrupt, truncated, locked, or not one of
    ours. The message names the file and what is wrong, in one line."""


def _first_line(exc: BaseException) -> str:
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)


def _open_error(path: Path, exc: duckdb.Error) -> SnapshotError:
    if path.exists() and path.stat().st_size == 0:
        return SnapshotError(f"{path}: empty file, not a DuckDB snapshot; re-record it or name another snapshot")
    if "not a valid DuckDB database file" in str(exc):
        return SnapshotError(f"{path}: not a DuckDB database (corrupt, or another kind of file); re-record it "
                             "or name another snapshot")
    if "lock" in str(exc).lower():
        return SnapshotError(f"{path}: the snapshot is in use by another process ({_first_line(exc)}); "
                             "wait for it to finish")
    return SnapshotError(f"{path}: corrupt or truncated snapshot: {_first_line(exc)}")


class Snapshot:
    """A snapshot file, open for reading and (unless read_only) writing."""

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        self.path = Path(path)
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.exists():
            raise SnapshotError(f"no snapshot at {self.path}")
        elif _has_entries(journal_path(self.path)):
            Snapshot(self.path).close()  # a recording that was killed: commit what it acknowledged first
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            raise _open_error(self.path, exc) from exc
        self._lock = threading.Lock()
        self._pending: list[dict[str, Any]] = []
        self._journal: int | None = None
        with self._reading():
            if not read_only:
                self._con.execute(SCHEMA)
                self._con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", [SCHEMA_VERSION])
            present = {r[0] for r in self._con.execute("SELECT table_name FROM information_schema.tables")
                       .fetchall()}
        missing = [t for t in TABLES if t not in present]
        if missing:
            self._con.close()
            raise SnapshotError(f"{self.path}: a DuckDB file but not a kopa snapshot (no table "
                                f"{', '.join(missing)}); record one with record:DIR@sim")
        if read_only:
            return
        with self._reading():
            self._stored = {r[0] for r in self._con.execute("SELECT call_id FROM calls").fetchall()}
            last = self._con.execute("SELECT coalesce(max(seq), 0) FROM calls").fetchone()
        self._seq = last[0] if last else 0
        self._recover()
        self._journal = os.open(journal_path(self.path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        # dropped unclosed, or at the interpreter's exit: still commit what was journalled (then close)
        self._finalizer = weakref.finalize(self, _close_writer, self._con, self._pending, self._journal, self.path)
        _WRITERS.add(self)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A DuckDB error while reading means a damaged file (truncated, overwritten): say which file."""
        try:
            yield
        except duckdb.Error as exc:
            raise SnapshotError(f"{self.path}: corrupt or truncated snapshot: {_first_line(exc)}") from exc

    def close(self) -> None:
        _WRITERS.discard(self)
        with self._lock:
            if self._journal is not None:
                self._commit()  # raises here, to the caller, where the finalizer could only keep the journal
                self._finalizer()
                self._journal = None
        self._con.close()

    def __enter__(self) -> Snapshot:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ writing

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, value])

    def has_call(self, cid: str) -> bool:
        with self._lock:
            return cid in self._stored

    def add_call(self, row: CallRow, secrets: tuple[str, ...] = ()) -> bool:
        """Store a call and its records once; False when the call was already stored (a resumed run)."""
        with self._lock:
            if row.call_id in self._stored:
                return False
            self._seq += 1
            self._write({"kind": "call", "values": [
                row.call_id, self._seq, row.platform, row.tool, row.family,
                _json(row.request_fingerprints), scrub_text(_json(row.arguments), secrets), row.ok,
                row.status, row.error_class, row.error_kind,
                scrub_text(row.error_message, secrets) if row.error_message else None,
                row.record_count, row.total_count, _json(row.page) if row.page else None,
                row.latency_ms, row.captured_at, row.backend],
                "records": [scrub_text(_json(r), secrets) for r in row.records]})
            self._stored.add(row.call_id)
            return True

    def add_http(self, exchange: Exchange, captured_at: str, secrets: tuple[str, ...] = ()) -> None:
        body = scrub_bytes(exchange.body, secrets)
        try:  # text stays text in the journal, so `kopa record scan` reads it as it reads the table
            text, encoded = body.decode("utf-8"), None
        except UnicodeDecodeError:
            text, encoded = None, base64.b64encode(body).decode("ascii")
        with self._lock:
            self._write({"kind": "http", "values": [
                exchange.fingerprint, exchange.method, exchange.uri, exchange.status, exchange.reason,
                scrub_text(_json(exchange.headers), secrets), None, captured_at], "body": text,
                "body_b64": encoded})

    def flush(self) -> None:
        """Commit what the journal holds (reads do this first, so they see every acknowledged write)."""
        with self._lock:
            self._commit()

    def _write(self, entry: dict[str, Any]) -> None:
        """Append to the journal, then count it pending; the lock is held."""
        if self._journal is None:
            raise SnapshotError(f"{self.path}: opened read-only (or closed), so nothing can be added")
        line = orjson.dumps(entry) + b"\n"
        written = os.write(self._journal, line)
        if written != len(line):  # a full disk: fail the call rather than acknowledge half of it
            raise OSError(f"{journal_path(self.path)}: short write ({written} of {len(line)} bytes)")
        self._pending.append(entry)
        if len(self._pending) >= BATCH:
            self._commit()

    def _recover(self) -> None:
        """Commit the entries a killed recording left in the journal (each complete line), then start it
        empty. Calls already in the table are skipped, so a journal committed but not yet emptied is harmless."""
        path = journal_path(self.path)
        if not path.exists():
            return
        for line in path.read_bytes().split(b"\n"):
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:  # the torn last line of a kill mid-append: never acknowledged
                continue
            if entry.get("kind") == "call":
                cid = entry["values"][0]
                if cid in self._stored:
                    continue
                self._seq += 1
                entry["values"][1] = self._seq
                self._stored.add(cid)
            self._pending.append(entry)
        self._commit()

    def _commit(self) -> None:
        """The pending entries in one transaction, then an empty journal; the lock is held."""
        _commit_entries(self._con, self._pending, self._journal)

    # ------------------------------------------------------------ reading

    def http(self, fingerprint: str) -> Exchange | None:
        with self._lock, self._reading():
            self._commit()
            row = self._con.execute(
                "SELECT fingerprint, method, uri, status, reason, headers, body FROM http WHERE fingerprint = ?",
                [fingerprint]).fetchone()
        if row is None:
            return None
        headers = [tuple(h) for h in orjson.loads(row[5])]
        return Exchange(fingerprint=row[0], method=row[1], uri=row[2], status=row[3], reason=row[4] or "",
                        headers=headers, body=bytes(row[6]), metadata={})

    def request_lines(self) -> list[tuple[str, str]]:
        with self._lock, self._reading():
            self._commit()
            return [(m, u) for m, u in self._con.execute("SELECT method, uri FROM http ORDER BY uri").fetchall()]

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with self._lock, self._reading():
            self._commit()
            return self._con.execute(sql, params or []).fetchall()

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM meta"))


_WRITERS: weakref.WeakSet[Snapshot] = weakref.WeakSet()


def commit_open() -> None:
    """Commit and close every snapshot still open for writing in this process: what a command does when it
    ends, so that plain DuckDB reads the file whole whether or not the command closed its backend."""
    for snapshot in list(_WRITERS):
        snapshot.close()


def _commit_entries(con: duckdb.DuckDBPyConnection, pending: list[dict[str, Any]], journal: int | None) -> None:
    """`pending` in one transaction, then emptied (in place: a finalizer holds the same list) with the journal."""
    if not pending:
        return
    calls = [e for e in pending if e["kind"] == "call"]
    exchanges = [e for e in pending if e["kind"] == "http"]
    cursor = con.cursor()
    cursor.execute("BEGIN TRANSACTION")
    try:
        if calls:
            _insert(cursor, "calls", [e["values"] for e in calls])
            ids = [e["values"][0] for e in calls for _ in e["records"]]
            if ids:
                data = {"call_id": np.array(ids, dtype=object),
                        "idx": np.concatenate([np.arange(len(e["records"]), dtype=np.int32) for e in calls]),
                        "record": np.array([r for e in calls for r in e["records"]], dtype=object)}
                cursor.register("_records", data)
                cursor.execute("INSERT INTO records SELECT call_id, idx, record::JSON FROM _records")
                cursor.unregister("_records")
        if exchanges:
            _insert(cursor, "http", [[*e["values"][:6], _body(e), e["values"][7]] for e in exchanges], "OR IGNORE ")
        cursor.execute("COMMIT")
    except BaseException:
        cursor.execute("ROLLBACK")
        raise
    pending.clear()
    if journal is not None:
        os.ftruncate(journal, 0)


def _close_writer(con: duckdb.DuckDBPyConnection, pending: list[dict[str, Any]], journal: int, path: Path) -> None:
    """What closing a writable snapshot does: commit what is pending, close and remove the journal. Run by
    close(), or by the snapshot's finalizer when it is dropped unclosed or the interpreter exits — so a
    command that ends without closing its backend (an exception, sys.exit) still leaves a complete file
    that plain DuckDB reads."""
    try:
        _commit_entries(con, pending, journal)
    except (duckdb.Error, OSError):
        os.close(journal)  # nothing is left to tell of a failure here: the journal stays for the next open
        return
    os.close(journal)
    journal_path(path).unlink(missing_ok=True)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8")


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[list[Any]], verb: str = "") -> None:
    """Rows into `table` as one columnar scan (numpy columns; INSERT casts them to the table's types):
    per-row statements cost about a millisecond each, the scan a few for a whole batch."""
    columns = {f"c{i}": np.array(column, dtype=object) for i, column in enumerate(zip(*rows, strict=True))}
    con.register("_rows", columns)
    try:
        con.execute(f"INSERT {verb}INTO {table} SELECT * FROM _rows")
    finally:
        con.unregister("_rows")


def _body(entry: dict[str, Any]) -> bytes:
    text = entry.get("body")
    return text.encode("utf-8") if text is not None else base64.b64decode(entry["body_b64"])


def _has_entries(journal: Path) -> bool:
    return journal.exists() and journal.stat().st_size > 0


