"""DuckDB snapshots: one row per tool call, its records, and the raw HTTP it took — queryable with SQL.

    SELECT tool, count(*), avg(record_count) FROM calls GROUP BY tool;
    SELECT record->>'corp_name' FROM records JOIN calls USING (call_id) WHERE tool = 'find_dart_corp_code';

Every write commits on its own, so a recording killed at any point keeps every finished call.
"""

from __future__ import annotations

import hashlib
import threading
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
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.Error as exc:
            raise _open_error(self.path, exc) from exc
        self._lock = threading.Lock()
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

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A DuckDB error while reading means a damaged file (truncated, overwritten): say which file."""
        try:
            yield
        except duckdb.Error as exc:
            raise SnapshotError(f"{self.path}: corrupt or truncated snapshot: {_first_line(exc)}") from exc

    def close(self) -> None:
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
        with self._lock, self._reading():
            return self._con.execute("SELECT 1 FROM calls WHERE call_id = ?", [cid]).fetchone() is not None

    def add_call(self, row: CallRow, secrets: tuple[str, ...] = ()) -> bool:
        """Store a call and its records once; False when the call was already stored (a resumed run)."""
        with self._lock:
            con = self._con.cursor()
            con.execute("BEGIN TRANSACTION")
            try:
                if con.execute("SELECT 1 FROM calls WHERE call_id = ?", [row.call_id]).fetchone():
                    con.execute("ROLLBACK")
                    return False
                last = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM calls").fetchone()
                assert last is not None  # an aggregate answers one row
                seq = last[0]
                con.execute(
                    "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [row.call_id, seq, row.platform, row.tool, row.family,
                     _json(row.request_fingerprints), scrub_text(_json(row.arguments), secrets), row.ok,
                     row.status, row.error_class, row.error_kind,
                     scrub_text(row.error_message, secrets) if row.error_message else None,
                     row.record_count, row.total_count, _json(row.page) if row.page else None,
                     row.latency_ms, row.captured_at, row.backend])
                if row.records:
                    n = len(row.records)
                    data = {
                        "call_id": np.full(n, row.call_id, dtype=object),
                        "idx": np.arange(n, dtype=np.int32),
                        "record": np.array([scrub_text(_json(r), secrets) for r in row.records], dtype=object),
                    }
                    con.register("_records", data)
                    con.execute("INSERT INTO records SELECT call_id, idx, record::JSON FROM _records")
                    con.unregister("_records")
                con.execute("COMMIT")
                return True
            except BaseException:
                con.execute("ROLLBACK")
                raise

    def add_http(self, exchange: Exchange, captured_at: str, secrets: tuple[str, ...] = ()) -> None:
        with self._lock:
            self._con.execute(
                "INSERT OR IGNORE INTO http VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [exchange.fingerprint, exchange.method, exchange.uri, exchange.status, exchange.reason,
                 scrub_text(_json(exchange.headers), secrets), scrub_bytes(exchange.body, secrets), captured_at])

    # ------------------------------------------------------------ reading

    def http(self, fingerprint: str) -> Exchange | None:
        with self._lock, self._reading():
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
            return [(m, u) for m, u in self._con.execute("SELECT method, uri FROM http ORDER BY uri").fetchall()]

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        with self._lock, self._reading():
            return self._con.execute(sql, params or []).fetchall()

    def meta(self) -> dict[str, str]:
        return dict(self.query("SELECT key, value FROM meta"))


def _json(value: Any) -> str:
    return orjson.dumps(value).decode("utf-8")
