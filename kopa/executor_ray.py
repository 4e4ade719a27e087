"""The Ray executor: `--executor ray [--address auto|HOST:PORT] [--workers N]` (`pip install 'kopa[ray]'`).

Without an address, a private local Ray instance with N CPUs is started for the run and stopped after it
(the CI configuration: `ray.init(num_cpus=2)`); with one, the run joins that cluster and uses all its
CPUs. Each unit is one Ray task of one CPU; `ray.get` on the list of task references returns the results
in the items' order, so callers build the same bytes as with the local executor.

On a cluster of several machines every node needs kopa installed, and the files a unit names (a Phase A
run folder's skeleton.json) must be on storage every node sees; a node without the simulator's world in
its cache builds it (the same world: it is a function of its seed).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from kopa.errors import UserError

T = TypeVar("T")
R = TypeVar("R")

INSTALL_HINT = "pip install 'kopa[ray]'"


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A HOST:PORT (or ray://HOST:PORT) nobody answers on: one line now, where ray.init would retry
    the cluster's control service (GCS) for minutes. `auto` is Ray's to resolve (it fails fast)."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UserError(f"--address {address!r}: expected auto or HOST:PORT (e.g. 10.0.0.5:6379)")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise UserError(f"--address {address!r}: no Ray cluster answers there ({exc.strerror or exc}); "
                        "start one with `ray start --head`") from None


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    """One unit, as a Ray task runs it (module-level, so Ray ships it by reference)."""
    return fn(item)


class RayExecutor:
    name = "ray"
    in_process = False
    caller_is_a_worker = False  # the driver may be a small machine; every unit goes to the cluster

    def __init__(self, address: str | None = None, workers: int = 1) -> None:
        if workers < 1:
            raise UserError(f"--workers {workers}: at least 1")
        try:
            import ray  # an optional dependency (kopa[ray]), imported only for --executor ray
        except ImportError:
            raise UserError(f"--executor ray needs Ray, which is not installed: {INSTALL_HINT}") from None
        self._ray = ray
        self._owns = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                       "logging_level": logging.WARNING}
            try:
                if address is None:
                    ray.init(num_cpus=workers, **options)
                else:
                    _check_reachable(address)
                    ray.init(address=address, **options)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
                raise UserError(f"--executor ray: could not start or join {where}: "
                                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
            self._owns = True
        # A joined cluster runs as many units at once as it has CPUs; a local instance, --workers.
        cpus = int(ray.cluster_resources().get("CPU", workers))
        self.workers = max(1, cpus if address is not None else min(cpus, workers))
        self._task = ray.remote(num_cpus=1)(_call)

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        if not items:
            return []
        return list(self._ray.get([self._task.remote(fn, item) for item in items]))

    def close(self) -> None:
        if self._owns:
            self._ray.shutdown()
            self._owns = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
