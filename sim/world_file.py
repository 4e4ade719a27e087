"""Build a world into a DuckDB file (cached by seed, scale, today and generator version) and load it
for serving."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

import numpy as np
import orjson
from pydantic import BaseModel, ConfigDict

from sim import GENERATOR_VERSION
from sim.registry import served_modules
from sim.world.context import WorldConfig, WorldContext
from sim.world.table import Column, Table, TableData

if TYPE_CHECKING:
    import duckdb


def iter_tables(config: WorldConfig, progress: Callable[[int, int, str], None] | None = None
                ) -> Iterator[TableData]:
    """The served modules' tables one module at a time, in generation order: a caller that writes each and
    lets it go holds one module's tables at once, not the world's."""
    ctx = WorldContext(config)
    modules = served_modules()
    for i, (name, module) in enumerate(modules, 1):
        yield from module.tables(ctx)
        if progress is not None:
            progress(i, len(modules), name or "long tail")


def _column_digest(values: list) -> bytes:
    return hashlib.sha256(orjson.dumps(values)).digest()


def _table_part(name: str, columns: Mapping[str, Sequence | np.ndarray], entities: Mapping[str, str]) -> bytes:
    """What a table adds to the content hash: its name, columns and entities, then each column's digest (each
    column turned into a list only while it is hashed)."""
    head = orjson.dumps({"table": name, "columns": list(columns), "entities": dict(sorted(entities.items()))})
    return head + b"".join(_column_digest(v.tolist() if isinstance(v, np.ndarray) else list(v))
                           for v in columns.values())


def _combine(parts: Mapping[str, bytes]) -> str:
    h = hashlib.sha256(f"kopa-world-v{GENERATOR_VERSION}".encode())
    for name in sorted(parts):
        h.update(parts[name])
    return h.hexdigest()


def content_hash(tables: dict[str, tuple[dict[str, list], dict[str, str]]]) -> str:
    """SHA-256 over every table's name, columns, entities and values, in a canonical order."""
    return _combine({name: _table_part(name, columns, entities) for name, (columns, entities) in tables.items()})


def cache_dir() -> Path:
    root = os.environ.get("KOPA_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "kopa"


# The code a world's tables come from: a change to any of it (a new platform package, a generator edited)
# makes another world file, so a cached world never outlives the code that wrote it.
_GENERATOR_SOURCES = ("world/*.py", "world_file.py", "platforms/*.py", "platforms/*/*.py", "longtail.py",
                      "longtail_service.py", "history.py")


def generator_sources() -> list[Path]:
    """The generator's source files, found from the `sim` package's own folder (the patterns are relative to
    it: from the folder above, they matched nothing, and every world was named by the digest of no bytes)."""
    root = Path(__file__).resolve().parent
    return sorted({p for pattern in _GENERATOR_SOURCES for p in root.glob(pattern)})


@cache
def generator_digest() -> str:
    """SHA-256 (first 12 hex digits) of the generator sources' paths (relative to `sim`) and bytes."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in generator_sources():
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def world_path(config: WorldConfig, directory: Path | None = None) -> Path:
    base = directory or cache_dir() / "worlds"
    return base / f"world-{config.key()}-g{GENERATOR_VERSION}-{generator_digest()}.duckdb"


def write_world(config: WorldConfig, path: Path) -> str:
    """Generate and write the world; returns its content hash. Written to a temporary file first
    and renamed, so concurrent builders (test workers) never see a half-written world."""
    import duckdb  # deferred (~0.1 s): a process that serves nothing reads no table

    t0 = time.perf_counter()
    report = terminal_progress(config, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.unlink(tmp)
    con = duckdb.connect(tmp)
    try:
        con.execute("BEGIN TRANSACTION")  # per module, not per statement: per-statement commits dominate a build
        con.execute("CREATE TABLE _kopa_meta (key VARCHAR, value VARCHAR)")
        con.execute("CREATE TABLE _kopa_columns (tbl VARCHAR, col VARCHAR, ord INTEGER, entity VARCHAR)")
        con.execute("CREATE TABLE _kopa_tables (tbl VARCHAR, n_rows BIGINT)")
        # Table by table: each is hashed and written as it comes, then let go, so a build holds one module's
        # tables at a time (the whole full world at once, and its values as lists besides, peaked at 4 GB).
        parts: dict[str, bytes] = {}
        column_rows, table_rows = [], []

        def module_done(done: int, of: int, module: str) -> None:
            # a commit per module: DuckDB holds a transaction's new tables in memory until it commits, so one
            # transaction for the world grew the build by every table written (the file is renamed into place
            # only at the end, so a build cut short still leaves no world behind)
            con.execute("COMMIT")
            con.execute("BEGIN TRANSACTION")
            if report is not None:
                report(done, of, module)

        for t in iter_tables(config, module_done):
            if t.name in parts:
                raise ValueError(f"duplicate table names: [{t.name!r}]")
            parts[t.name] = _table_part(t.name, t.columns, t.entities)
            cols = {k: np.asarray(v, dtype=object) if _is_text(v) else np.asarray(v) for k, v in t.columns.items()}
            con.register("_incoming", cols)
            con.execute(f'CREATE TABLE "{t.name}" AS SELECT * FROM _incoming')
            con.unregister("_incoming")
            del cols
            column_rows += [(t.name, c, i, t.entities.get(c, "")) for i, c in enumerate(t.columns)]
            table_rows.append((t.name, t.n_rows))
        meta = {
            "generator_version": GENERATOR_VERSION,
            "generator_digest": generator_digest(),
            "config": config.model_dump_json(),
            "content_hash": (digest := _combine(parts)),
            "build_seconds": f"{time.perf_counter() - t0:.3f}",
        }
        _insert_rows(con, "_kopa_meta", ["key", "value"], sorted(meta.items()))
        _insert_rows(con, "_kopa_columns", ["tbl", "col", "ord", "entity"], column_rows)
        _insert_rows(con, "_kopa_tables", ["tbl", "n_rows"], table_rows)
        con.execute("COMMIT")
    finally:
        con.close()
    os.replace(tmp, path)
    if report is not None:
        report.done(time.perf_counter() - t0)
    return digest


class _TerminalProgress:
    """One line on a terminal, rewritten as the world's modules are generated, then where it was written."""

    def __init__(self, stream: TextIO, key: str, path: Path) -> None:
        self.stream, self.key, self.path = stream, key, path
        self._write(f"building world {key} (once; cached in {path.parent})…")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def __call__(self, done: int, of: int, module: str) -> None:
        self._write(f"\r\x1b[Kbuilding world {self.key}: {done}/{of} ({module})")

    def done(self, seconds: float) -> None:
        self._write(f"\r\x1b[Kworld {self.key} built in {seconds:.0f} s → {self.path}\n")


def terminal_progress(config: WorldConfig, path: Path, stream: TextIO | None = None) -> _TerminalProgress | None:
    """Progress of a world build ("building world s0-full-20260130: 14/36 (krx)") on stderr when it is a
    terminal; None — nothing printed — for a log, a pipe or a test."""
    stream = stream if stream is not None else sys.stderr
    return _TerminalProgress(stream, config.key(), path) if stream.isatty() else None


def _insert_rows(con: duckdb.DuckDBPyConnection, table: str, names: list[str], rows: list[tuple]) -> None:
    """One bulk insert (executemany costs about a millisecond a row in DuckDB)."""
    data = {n: np.asarray([r[i] for r in rows], dtype=object) for i, n in enumerate(names)}
    con.register("_rows", data)
    con.execute(f'INSERT INTO "{table}" SELECT * FROM _rows')
    con.unregister("_rows")


def _is_text(values) -> bool:
    if isinstance(values, np.ndarray):
        return values.dtype.kind in "OUS"
    return bool(len(values)) and isinstance(values[0], str)


class LazyTables(Mapping[str, Table]):
    """Tables loaded from the world file on first use.

    A served world holds only what its callers touch: paging one 225k-row endpoint loads that table,
    not the four million rows of the whole world. Loading is locked: `kopa sim serve` answers from
    several threads.
    """

    def __init__(self, path: Path, columns: dict[str, list[tuple[str, str]]], row_counts: dict[str, int]) -> None:
        self._path = path
        self._columns = columns
        self.row_counts = row_counts
        self._loaded: dict[str, Table] = {}
        self._lock = threading.Lock()
        # One read-only connection per process for every load: opening one costs ~25 ms (a hundred tables
        # read one by one spent 2.5 s opening connections). It is closed before any fork (a DuckDB database
        # does not survive one: its threads stay in the parent, and a child's connect would find the parent's
        # instance in DuckDB's cache), and a child opens its own.
        self._connection: tuple[int, duckdb.DuckDBPyConnection] | None = None
        os.register_at_fork(before=partial(_close_before_fork, weakref.ref(self)))

    def __getitem__(self, name: str) -> Table:
        table = self._loaded.get(name)
        if table is not None:
            return table
        if name not in self._columns:
            raise KeyError(name)
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = self._load(name)
            return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def _load(self, name: str) -> Table:
        import duckdb  # deferred (~0.1 s): a process that serves nothing reads no table

        columns = self._columns[name]
        if self._connection is None or self._connection[0] != os.getpid():
            self._connection = (os.getpid(), duckdb.connect(str(self._path), read_only=True))
        con = self._connection[1]
        if self.row_counts[name] <= 50_000:
            fetched = con.execute(f'SELECT * FROM "{name}"').fetchnumpy()
            data = {c: Column(_plain(fetched[c])) for c, _ in columns}
        else:
            # Column by column, so only one column's Python objects are alive at a time.
            data = {c: Column(_plain(con.execute(f'SELECT "{c}" FROM "{name}"').fetchnumpy()[c]))
                    for c, _ in columns}
        if len(self._loaded) + 1 == len(self._columns):  # the last table: nothing more to read
            self._close()
        return Table(name, data, {c: e for c, e in columns if e})

    def close(self) -> None:
        """Close this process's connection (a later load opens another); waits for a load in progress."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        held, self._connection = self._connection, None
        if held is not None and held[0] == os.getpid():
            held[1].close()


@dataclass
class World:
    config: WorldConfig
    path: Path
    content_hash: str
    tables: Mapping[str, Table]
    build_seconds: float

    def table(self, name: str) -> Table:
        return self.tables[name]

    @property
    def row_counts(self) -> dict[str, int]:
        counts = getattr(self.tables, "row_counts", None)
        return dict(counts) if counts is not None else {n: t.n_rows for n, t in self.tables.items()}


class _IndexFile(BaseModel):
    """The JSON copy of a world file's meta tables, as written beside it."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1]
    stamp: list[int]
    meta: dict[str, str]
    columns: list[tuple[str, str, str]]
    row_counts: dict[str, int]


@dataclass(frozen=True)
class WorldIndex:
    """A world file's own meta tables: what opening a world needs before any table is touched."""

    config: WorldConfig
    content_hash: str
    build_seconds: float
    columns: dict[str, list[tuple[str, str]]]
    row_counts: dict[str, int]

    @classmethod
    def parse(cls, index: _IndexFile) -> WorldIndex:
        columns: dict[str, list[tuple[str, str]]] = {}
        for tbl, col, entity in index.columns:
            columns.setdefault(tbl, []).append((col, entity))
        meta = index.meta
        return cls(WorldConfig.model_validate_json(meta["config"]), meta["content_hash"],
                   float(meta["build_seconds"]), columns, index.row_counts)


def index_path(path: Path) -> Path:
    return path.with_name(path.name + ".index.json")


def _stamp(path: Path) -> list[int]:
    """What changes whenever the file is rewritten or replaced (a rebuild renames a new file over it)."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _index_from_db(path: Path, stamp: list[int]) -> _IndexFile:
    import duckdb  # deferred (~0.1 s): a process that serves nothing reads no table

    con = duckdb.connect(str(path), read_only=True)
    try:
        meta = dict(con.execute("SELECT key, value FROM _kopa_meta").fetchall())
        cols = con.execute("SELECT tbl, col, entity FROM _kopa_columns ORDER BY tbl, ord").fetchall()
        row_counts = dict(con.execute("SELECT tbl, n_rows FROM _kopa_tables").fetchall())
    finally:
        con.close()
    return _IndexFile(format=1, stamp=stamp, meta=meta, columns=cols, row_counts=row_counts)


def read_index(path: Path) -> WorldIndex:
    """The world file's meta tables, read through a JSON copy beside it: opening the DuckDB file costs a
    `kopa call` tens of milliseconds (the import and a connection), and a call that touches no table
    should not pay them. The copy is trusted only while it validates and names the world file's current
    size, mtime and inode; else the tables are read from the world file again and the copy rewritten
    (temporary file + rename, so concurrent readers never see half of one)."""
    stamp = _stamp(path)
    side = index_path(path)
    try:
        index = _IndexFile.model_validate_json(side.read_bytes())
        if index.stamp == stamp:
            return WorldIndex.parse(index)
    except (OSError, ValueError, KeyError):  # pydantic's ValidationError is a ValueError
        pass
    index = _index_from_db(path, stamp)
    parsed = WorldIndex.parse(index)
    try:
        fd, tmp = tempfile.mkstemp(prefix=side.name, suffix=".tmp", dir=side.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(index.model_dump_json().encode())
            os.replace(tmp, side)
        finally:
            Path(tmp).unlink(missing_ok=True)
    except OSError:  # a read-only cache costs speed, never the world
        pass
    return parsed


# One set of loaded tables per world file while any World holds it: worlds never change once written, and
# every backend opened on the same file (a fresh environment per re-solved task, per episode) would otherwise
# load and factorize the same tables again (0.4 s a task in Phase B's filter). A rewritten file has a new
# stat key; weak values let tables no backend uses any more go.
_TABLES: weakref.WeakValueDictionary[tuple[str, int, int, str], LazyTables] = weakref.WeakValueDictionary()
_TABLES_LOCK = threading.Lock()


def read_world(path: Path) -> World:
    index = read_index(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, index.content_hash)
    with _TABLES_LOCK:
        tables = _TABLES.get(key)
        if tables is None:
            tables = _TABLES[key] = LazyTables(path, index.columns, index.row_counts)
    return World(
        config=index.config,
        path=path,
        content_hash=index.content_hash,
        tables=tables,
        build_seconds=index.build_seconds,
    )


def _close_before_fork(ref: weakref.ref[LazyTables]) -> None:
    tables = ref()
    if tables is not None:
        tables.close()


def _plain(arr) -> np.ndarray:
    # fetchnumpy gives masked arrays for nullable columns; worlds have no NULLs.
    return np.asarray(arr.filled() if hasattr(arr, "filled") else arr)


def load_world(config: WorldConfig, *, directory: Path | None = None, rebuild: bool = False) -> World:
    path = world_path(config, directory)
    if rebuild or not path.exists():
        write_world(config, path)
        _remove_stale_worlds(path, config)
    return read_world(path)


def _remove_stale_worlds(current: Path, config: WorldConfig) -> None:
    """Worlds of the same configuration written by other generator code: nothing will read them again."""
    for old in current.parent.glob(f"world-{config.key()}-g*.duckdb*"):  # the file and its side index
        if not old.name.startswith(current.name):
            old.unlink(missing_ok=True)  # an open reader keeps its file until it closes it


def recompute_hash(world: World) -> str:
    """The content hash recomputed from the loaded tables (to verify a cached file)."""
    data = {}
    for name, table in world.tables.items():
        columns = {c: table.cols[c].vocab[table.cols[c].codes].tolist() for c in table.column_names}
        data[name] = (columns, table.entities)
    return content_hash(data)
