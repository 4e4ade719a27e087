"""Atomic file writes (a reader, a concurrent process or a rerun after kill -9 sees the whole file or none),
and the configuration check a resumable run folder starts with."""

from __future__ import annotations

import fcntl
import functools
import inspect
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

import orjson

# The process's umask, read once at import (os.umask can only be read by setting it): mkstemp creates files
# 0600, and a dataset or a config written that way would be unreadable to everyone but its writer.
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def write_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    The temporary name is unique (mkstemp), so two processes writing the same path never share one; no
    fsync: a killed process loses nothing the kernel already holds, and only a power cut can lose the
    last write, which a rerun redoes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


T = TypeVar("T")
P = ParamSpec("P")


def sql_literal(text: str) -> str:
    """`text` as a SQL string literal, its quotes doubled: DuckDB's COPY … TO and read_json take no bound
    parameter for a path, and a path holding a ' must neither end the literal nor become SQL."""
    return "'" + text.replace("'", "''") + "'"


_SHAPE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError)
"""What reading a wrong-shaped record raises: orjson's JSONDecodeError (not JSON, not UTF-8, an integer past 64
bits) and pydantic's ValidationError are ValueErrors; a list where an object was written, or an object
without the key, is a TypeError, AttributeError or KeyError where the record is taken apart."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}" if exc.args else "a key is missing"
    text = (str(exc).strip().splitlines() or [""])[0]
    return text if isinstance(exc, ValueError) and text else f"{type(exc).__name__}: {text}".rstrip(": ")


def _int64(text: str) -> int:
    number = int(text)
    if not -(2**63) <= number < 2**64:
        raise ValueError(f"the integer {text[:12]}… is past 64 bits")
    return number


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not JSON")


def read_json(path: Path, *, what: str, error: type[Exception]) -> dict:
    """The JSON object in `path` (a file a command wrote whole: a config); anything else — no JSON, not
    UTF-8, an integer past 64 bits, a list — is `error`, one line naming the file and `what`.

    Read with the standard library, not orjson: orjson reads an integer past 64 bits as a float, silently
    (a seed of 2**64 would become 1.8446744073709552e+19)."""
    try:
        body = json.loads(path.read_bytes(), parse_int=_int64, parse_constant=_no_constant)
    except ValueError as exc:  # json's JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise error(f"{path}: not {what} ({_reason(exc)})") from exc
    if not isinstance(body, dict):
        raise error(f"{path}: not {what} (a JSON {type(body).__name__}, not an object)")
    return body


def read_lines(path: Path, parse: Callable[[bytes], T], *, what: str, error: type[Exception]) -> list[T]:
    """The records of a JSON-lines file a command wrote whole, each line read by `parse`; a line that does
    not parse, or is not of the shape `parse` takes apart, is `error` naming the file, the line and `what`."""
    records = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        try:
            records.append(parse(line))
        except _SHAPE_ERRORS as exc:
            raise error(f"{path}:{number}: not {what} ({_reason(exc)})") from exc
    return records


def read_appended(path: Path, parse: Callable[[bytes], T], *, error: type[Exception] = ValueError,
                  finished: bool = False) -> list[T]:
    """The records of a JSON-lines file a run appends to, in file order; none if it does not exist yet.

    A last line without its newline is one an interrupted run cut short: skipped while the run resumes (its
    unit runs again), refused when the run is read as `finished` — scores over what is left would be another
    run's. Any other line that does not parse is refused (`error`, one line naming it): skipped, it would
    turn a damaged file into a smaller result with nothing said."""
    if not path.exists():
        return []
    lines = path.read_bytes().split(b"\n")
    cut = lines.pop()  # b"" when the file ends with its newline
    if cut and finished:
        raise error(f"{path}:{len(lines) + 1}: the last line is cut short (an interrupted run); run the command "
                    "that writes it again to finish it")
    records = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(parse(line))
        except _SHAPE_ERRORS as exc:
            raise error(f"{path}:{number}: not a line this run wrote ({_reason(exc)}); the file is damaged: restore "
                        "it, or start over with --force") from exc
    return records


def drop_partial_line(path: Path) -> None:
    """An interrupted run may leave its last line cut short; cut it off so appends start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def _differences(old: dict, new: dict) -> str:
    """'seed: 0 → 1; backend: "sim" → "live"', of the keys two manifests disagree on — a manifest's own keys
    and those of its "config" — with values cut to 40 characters."""
    def flat(manifest: dict) -> dict:
        inner = manifest.get("config")
        return {**{k: v for k, v in manifest.items() if k not in ("config", "digest")},
                **(inner if isinstance(inner, dict) else {})}

    old, new = flat(old), flat(new)

    def short(value: object) -> str:
        text = orjson.dumps(value).decode()
        return text if len(text) <= 40 else text[:39] + "…"

    changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return "; ".join(f"{k}: {short(old.get(k))} → {short(new.get(k))}" for k in changed) or "its identity"


class RunFolder:
    """A run's output folder, the one way every command that writes a run claims and holds it.

    `claim` makes it the folder of one configuration (config.json): a folder of another configuration is
    refused in one line showing what differs, or with force emptied of what the old run left; `writing`
    holds its lock, so a second writer is refused instead of interleaving appends; `appended` reads a log
    the run appends to, refusing a damaged line; `file` names a file in it and refuses names that leave it.
    """

    def __init__(self, path: Path, *, what: str, error: type[Exception]) -> None:
        self.path, self.what, self.error = path, what, error

    def claim(self, manifest: dict, *, force: bool, stale: Iterable[str] = (), body: bytes | None = None) -> None:
        """Write `manifest` to config.json (as `body` where the run fixes its bytes; else indented, key-sorted
        JSON). The folder is another run's when its config.json holds another "digest" — or, for a manifest
        without one, other bytes; `stale`: globs below the folder that `force` removes then."""
        body = body if body is not None else orjson.dumps(manifest, option=orjson.OPT_INDENT_2
                                                          | orjson.OPT_SORT_KEYS) + b"\n"
        path = self.path / "config.json"
        if path.exists():
            before = path.read_bytes()
            try:
                old = orjson.loads(before)
            except orjson.JSONDecodeError:
                old = None
            same = isinstance(old, dict) and (old.get("digest") == manifest["digest"] if "digest" in manifest
                                              else before == body)
            if not same:
                if not force:
                    what = (f"another configuration ({_differences(old, manifest)})" if isinstance(old, dict)
                            else "a config.json that is not JSON")
                    raise self.error(f"{self.path} holds {self.what} with {what}; use --force to discard it, or "
                                     "another --out")
                for pattern in stale:
                    for file in sorted(self.path.glob(pattern)):
                        file.unlink()
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomic(path, body)

    @contextmanager
    def writing(self, writer: str) -> Iterator[None]:
        """Hold the folder's write lock while `writer` (a command, as a person would name it) writes it: a
        second writer is refused in one line instead of interleaving its appends with the first one's — two
        `kopa rl rollouts` on one --out once gave 21 groups for 17 tasks. An OS lock (flock) on `.lock`: it
        goes with the process, so a killed run leaves no stale lock behind. A folder made only to hold the
        lock is removed again if the writer wrote nothing (a command refused on a bad option leaves no
        folder behind)."""
        created = not self.path.exists()
        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o666 & ~_UMASK)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise self.error(f"{self.path} is being written by {writer} in process {holder}; wait for it to "
                             "finish, or use another --out") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            yield
        finally:
            if created and [p.name for p in self.path.iterdir()] == [".lock"]:
                (self.path / ".lock").unlink()
                self.path.rmdir()
            os.close(fd)  # closing the descriptor releases the lock

    def appended(self, name: str, parse: Callable[[bytes], T], *, finished: bool = False) -> list[T]:
        """The records of the log `name` the run appends to (read_appended, with this folder's error)."""
        return read_appended(self.file(name), parse, error=self.error, finished=finished)

    def file(self, name: str) -> Path:
        """The path of `name` inside the folder; a name that would leave it (`..`, an absolute path, a task
        id like `../../x`) is refused in one line."""
        path = self.path / name
        if Path(name).is_absolute() or ".." in Path(name).parts:
            raise self.error(f"{name!r}: not a name inside {self.path} (it would write outside the run folder)")
        return path


def writes_run(param: str, *, what: str, error: type[Exception], writer: str
               ) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Run the decorated function holding the write lock of the run folder its argument `param` names, from
    before it claims the folder (a claim may clear an old run's files) to its last write: a second `writer`
    on the same folder is refused in one line."""
    def decorate(function: Callable[P, T]) -> Callable[P, T]:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def holding(*args: P.args, **kwargs: P.kwargs) -> T:
            folder = Path(signature.bind(*args, **kwargs).arguments[param])
            with RunFolder(folder, what=what, error=error).writing(writer):
                return function(*args, **kwargs)

        return holding

    return decorate
