"""Atomic file writes (a reader, a concurrent process or a rerun after kill -9 sees the whole file or none),
and the configuration check a resumable run folder starts with."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

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
        except ValueError as exc:  # orjson's JSONDecodeError and pydantic's ValidationError are ValueErrors
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise error(f"{path}:{number}: not a line this run wrote ({reason}); the file is damaged: restore "
                        "it, or start over with --force") from exc
    return records


def drop_partial_line(path: Path) -> None:
    """An interrupted run may leave its last line cut short; cut it off so appends start on a fresh line."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def claim_run_folder(out: Path, payload: dict, *, body: bytes, force: bool, what: str, error: type[Exception],
                     stale: Iterable[str] = ("parts/*.jsonl",)) -> None:
    """Make `out` a run folder of the configuration `payload` (written as `body` to config.json). A folder
    made with another configuration is refused in one line naming the keys that differ, or with `force`
    emptied of its `stale` files (globs below `out`) so nothing of the old run is resumed."""
    path = out / "config.json"
    if path.exists() and path.read_bytes() != body:
        if not force:
            old = orjson.loads(path.read_bytes())
            changed = sorted(k for k in set(old) | set(payload) if old.get(k) != payload.get(k))
            raise error(f"{out} holds {what} with another configuration ({', '.join(changed)} differ); "
                        "use --force or another --out")
        for pattern in stale:
            for file in sorted(out.glob(pattern)):
                file.unlink()
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(path, body)


def claim_digest_folder(out: Path, digest: str, config: dict, *, force: bool, what: str, error: type[Exception],
                        stale: Iterable[str]) -> None:
    """Make `out` a run folder of the configuration whose digest is `digest` (config.json holds the digest
    and the configuration, so a refusal can name what differs). Another digest is refused in one line, or
    with `force` its `stale` files (names below `out`) are removed so nothing of the old run is resumed."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "config.json"
    if path.exists():
        old = orjson.loads(path.read_bytes())
        if old.get("digest") != digest:
            if not force:
                before = old.get("config", {})
                changed = {k: (before.get(k), v) for k, v in config.items() if before.get(k) != v}
                raise error(f"{out} holds {what} with another configuration; differences (old, new): {changed}. "
                            "Use --force to discard it, or another --out.")
            for name in stale:
                (out / name).unlink(missing_ok=True)
    write_atomic(path, orjson.dumps({"config": config, "digest": digest},
                                    option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")


@contextmanager
def exclusive_writer(out: Path, what: str, error: type[Exception]) -> Iterator[None]:
    """Hold `out`'s write lock while a run writes it: a second writer on the same folder is refused in one
    line (`error`) instead of interleaving its appends with the first one's — two `kopa rl rollouts` on one
    --out once gave 21 groups for 17 tasks. An OS lock (flock) on `out/.lock`: it goes with the process, so
    a killed run leaves no stale lock behind."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT, 0o666 & ~_UMASK)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise error(f"{out} is being written by {what} in process {holder}; wait for it to finish, or use "
                    "another --out") from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
