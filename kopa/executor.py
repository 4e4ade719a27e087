"""Where independent units of work run: Phase A path batches, study cells, benchmark episodes.

An executor maps a picklable function over a list of picklable items and returns the results in the
items' order, whatever ran where or finished first; so what a caller builds from the results is the
same byte for byte on one process, many, or a cluster. Units must not share mutable state: each
carries what it needs and returns what it changed.

    local            this process, one unit after another (workers = 1)
    local, N > 1     N worker processes on this machine (concurrent.futures, spawn)
    forked, N > 1    N processes forked from this one once it has loaded what the units share (the world,
                     the task set, the players): they start at once and read it copy-on-write (Linux)
    ray              a Ray cluster (`pip install kopa[ray]`): `--executor ray [--address auto|HOST:PORT]`
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_all
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from kopa.errors import UserError

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("local", "ray")


@runtime_checkable
class Executor(Protocol):
    name: str
    workers: int  # units that run at once: how many pieces a caller splits its work into
    in_process: bool  # units run in this process, one after another: a caller may skip the pickling
    # The caller's process counts among the workers (they share one machine): a caller that can run a
    # unit itself runs one while workers - 1 others run on the executor, and saves a process.
    caller_is_a_worker: bool

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """fn(item) for every item, results in the items' order."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


class LocalExecutor:
    """In this process when workers == 1 (no pickling, easiest to debug), else a spawn process pool."""

    name = "local"

    def __init__(self, workers: int = 1, *, fork: bool = False) -> None:
        if workers < 1:
            raise UserError(f"--workers {workers}: at least 1")
        if fork and not can_fork():
            raise UserError("forked workers need Linux (fork after load); use the spawn pool (fork=False)")
        self.workers = workers
        self.in_process = workers == 1
        self.caller_is_a_worker = True
        self.fork = fork
        self._size = workers  # processes in the pool (start() may make it fewer)
        self._pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return list(self.imap(fn, items))

    def submit(self, fn: Callable[[T], R], item: T) -> Future[R]:
        """fn(item) started now (done already when workers == 1): for a caller that decides what to hand
        out next from what came back, so that no worker waits at the end of a batch."""
        if self.workers == 1:
            done: Future[R] = Future()
            done.set_result(fn(item))
            return done
        return self._processes().submit(fn, item)

    def _processes(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn by default: a forked child inherits the parent's threads' locks mid-state (duckdb, httpx).
            # fork only where the caller has loaded what the units read and holds no such state in use.
            context = multiprocessing.get_context("fork" if self.fork else "spawn")
            self._pool = ProcessPoolExecutor(self._size, mp_context=context, initializer=_exit_with_parent,
                                             initargs=(os.getpid(),))
        return self._pool

    def start(self, processes: int | None = None) -> None:
        """Start the worker processes now (they start on the first unit otherwise): with fork, a caller forks
        them at a moment of its choosing — after its load, while none of its threads is mid-work.
        `processes`: fewer than `workers`, for a caller that runs units itself (Phase A runs one batch of
        each iteration here): a forking pool starts all its processes at once, and one would stay idle."""
        if self.workers > 1 and self._pool is None:
            self._size = max(1, min(processes or self.workers, self.workers))
            pool = self._processes()
            # a forking pool starts every worker on its first submit; a spawning one as units need them
            wait_all([pool.submit(os.getpid) for _ in range(self._size)])

    def imap(self, fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        """fn(item) for every item, yielded in the items' order as they are done: every item is handed out at
        once, so a worker never waits for a slow unit of another (a caller can report progress meanwhile)."""
        if not items:
            return iter(())
        if self.workers == 1:
            return (fn(item) for item in items)
        return self._processes().map(fn, items)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        self._size = self.workers

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def can_fork() -> bool:
    """Whether forked workers are safe here: Linux (macOS's system libraries are not fork-safe)."""
    return sys.platform == "linux"


def _exit_with_parent(parent: int) -> None:
    """A pool worker's initializer: when its parent is gone — killed, even by SIGKILL, which leaves no
    chance to shut the pool down — the worker exits within a second instead of working on for nobody
    (`kill` on `kopa edge synth --workers 2` left both workers running)."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="kopa-parent-watch", daemon=True).start()


def open_executor(name: str = "local", *, workers: int = 1, address: str | None = None,
                  fork: bool = False) -> Executor:
    """The executor `--executor NAME [--address A] [--workers N]` names; `fork`: the caller loads what the units
    share before it maps them, so local workers are forked after that load where this system allows it."""
    if name == "local":
        if address is not None:
            raise UserError("--address is for --executor ray; the local executor runs on this machine")
        return LocalExecutor(workers, fork=fork and workers > 1 and can_fork())
    if name == "ray":
        from kopa.executor_ray import RayExecutor  # optional dependency: kopa[ray]

        return RayExecutor(address=address, workers=workers)
    raise UserError(f"--executor {name!r}: valid: {', '.join(EXECUTORS)}")


def in_order(executor: Executor, fn: Callable[[T], R], items: Sequence[T], per_worker: int = 2) -> Iterator[R]:
    """fn(item) for every item, yielded in the items' order as they finish, so a caller stores (and a resume
    keeps) each as it comes. A local pool is handed every item at once (`imap`: no worker waits at a
    batch's end for another's slow unit); other executors `per_worker` items per worker at a time."""
    if isinstance(executor, LocalExecutor):
        yield from executor.imap(fn, items)
        return
    step = per_worker * max(1, executor.workers)
    for start in range(0, len(items), step):
        yield from executor.map(fn, items[start:start + step])


def run_in_batches(fn: Callable[[T], R], todo: Sequence[T], save: Callable[[list[tuple[T, R]]], None], *,
                   executor: str = "local", workers: int = 1, address: str | None = None,
                   on_batch: Callable[[int], None] | None = None) -> None:
    """fn over `todo` on the executor `--executor` names, two units per worker at a time; each batch's results
    go to `save` (the caller's one writer, one transaction) before the next starts, so a kill loses only the
    batch in flight and a progress bar advances as batches finish."""
    if not todo:
        return
    pool = open_executor(executor, workers=workers, address=address)
    try:
        size = max(1, workers) * 2
        for start in range(0, len(todo), size):
            batch = list(todo[start:start + size])
            save(list(zip(batch, pool.map(fn, batch), strict=True)))
            if on_batch is not None:
                on_batch(len(batch))
    finally:
        pool.close()


_CURRENT: dict[str, tuple[str, Any]] = {}  # per process: purpose → (key, the object built for it)


def current(purpose: str, key: str, build: Callable[[], T]) -> T:
    """The object this process built for `purpose` under `key` (a run's digest), building it on first use
    or when the key changes: a worker plays one run at a time, and keeps one player (tasks, targets,
    backend, policies) for all the units of it it receives."""
    held = _CURRENT.get(purpose)
    if held is not None and held[0] == key:
        return held[1]
    _CURRENT.pop(purpose, None)
    made = build()
    _CURRENT[purpose] = (key, made)
    return made

