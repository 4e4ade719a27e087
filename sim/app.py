"""The simulator: one object answering every platform's HTTP, routed by host.

Requests are routed by their Host (the real host name travels in every backend) or, for clients
pointed at `kopa sim serve` by base URL, by a leading path segment naming the real host:
`http://127.0.0.1:8800/opendart.fss.or.kr/api/list.json`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import orjson

from sim.endpoints import Endpoint, conditions
from sim.families import load_family
from sim.history import HistoryCache, Selection
from sim.http import SimRequest, SimResponse
from sim.keys import KeyPolicy
from sim.registry import HOST_FAMILY, check_declared, served_modules
from sim.world_file import World

if TYPE_CHECKING:
    from types import ModuleType

    from sim.drift import DriftView, Scenario


class Simulator:
    def __init__(self, world: World, keys: KeyPolicy | None = None, *, drift: Scenario | None = None,
                 epoch: int = 0) -> None:
        self.world = world
        self.keys = keys or KeyPolicy(seed=world.config.seed)
        self._endpoints: dict[tuple[str, str], Endpoint] = {}
        # Every declared host is routed from the start (a copy: a test may serve a host of its own).
        self.host_family: dict[str, str] = dict(HOST_FAMILY)
        # Endpoints join on the first lookup (see _load_lazy): the platforms' own on any, the generated long
        # tail (platform None) on one that misses them — most episodes never call it. A process that serves
        # nothing (`kopa call get_current_date`, a session tool) imports none of the fifteen API modules.
        self._lazy: list[tuple[str | None, ModuleType]] | None = None  # None: not imported yet
        self._lazy_lock = threading.Lock()
        self.families = {name: load_family(name) for name in sorted(set(self.host_family.values()))}
        # Drift is applied while serving (endpoint definitions, selected rows, rendered records); the world
        # itself never changes, so epoch 0 and an undrifted simulator answer byte for byte alike.
        self.history = HistoryCache(world.config)
        self.drift: DriftView | None = None
        if drift is not None and epoch > 0:
            # here: its scenario models cost every start ~50 ms, and most runs serve no drift
            from sim.drift import DriftView

            self.drift = DriftView(drift, epoch, self)

    def _add(self, endpoints, platform: str | None) -> None:
        for ep in endpoints:
            if (ep.host, ep.key) in self._endpoints:
                raise ValueError(f"endpoint defined twice: {ep.host} {ep.key}")
            check_declared(ep, platform)
            self._endpoints[(ep.host, ep.key)] = ep

    def _load_lazy(self, long_tail: bool = True) -> None:
        """Add the pending modules' endpoints: the platforms' own, and with `long_tail` the generated ones."""
        # Episodes run on threads sharing one simulator: the module leaves the pending list only once its
        # endpoints are all in, and a thread that finds it pending waits here for the one loading it.
        with self._lazy_lock:
            if self._lazy is None:
                self._lazy = list(served_modules())  # the platforms' modules first, the long tail last
            while self._lazy and (long_tail or self._lazy[0][0] is not None):
                owner, module = self._lazy[0]
                self._add(module.ENDPOINTS, owner)
                self._lazy.pop(0)

    def _pending(self, long_tail: bool) -> bool:
        lazy = self._lazy
        return lazy is None or any(long_tail or owner is not None for owner, _ in lazy)

    @property
    def endpoints(self) -> dict[tuple[str, str], Endpoint]:
        """Every endpoint served, keyed by (host, endpoint key)."""
        self._load_lazy()
        return self._endpoints

    @property
    def today(self):
        return self.world.config.today

    def route(self, req: SimRequest) -> SimRequest:
        first, _, rest = req.path.lstrip("/").partition("/")
        if first.lower() in self.host_family:
            return replace(req, host=first.lower(), path="/" + rest)
        return req

    def handle(self, req: SimRequest) -> SimResponse:
        req = self.route(req)
        family = self.host_family.get(req.host)
        if family is None:
            return SimResponse(404, b"Not Found", "text/plain")
        return self.families[family].handle(req, self)

    def preload(self, requests: Iterable[SimRequest]) -> int:
        """Load now the stored tables that answer `requests` (a history's stored sample): a process about to
        fork workers that will serve them reads each table once, and the workers share it copy-on-write
        instead of each reading it again. How many tables answer them."""
        from sim.registry import endpoint_index  # the routing index, as `sim.truth` resolves a URL

        names = set()
        for request in requests:
            found = endpoint_index().resolve(self.route(request))
            if found is not None:
                names.add(self._endpoints.get((found.host, found.key), found).table)
        for name in sorted(names):
            if name in self.world.tables:
                self.world.table(name)
        return len(names)

    def endpoint(self, host: str, key: str) -> Endpoint | None:
        """The endpoint as served now: None for an unknown (or, under drift, retired) one."""
        ep = self._endpoints.get((host, key))
        for long_tail in (False, True):
            if ep is None and self._pending(long_tail):
                self._load_lazy(long_tail)
                ep = self._endpoints.get((host, key))
        if ep is None or self.drift is None:
            return ep
        return self.drift.endpoint(ep)

    def select(self, endpoint: Endpoint, args: dict[str, str]) -> np.ndarray | Selection:
        """Row indices answering the request, in the table's (the service's) order; for an on-demand
        history, the generated rows (sliced and rendered alike). Records drift applies to stored tables."""
        if endpoint.history is not None:
            return self.history.select(endpoint, args)
        table = self.world.table(endpoint.table)
        idx = table.select(conditions(endpoint, args, f"{self.today:%Y%m%d}"))
        if self.drift is not None:
            idx = self.drift.select(endpoint, idx, table.n_rows)
        return idx

    def rows(self, endpoint: Endpoint, idx: np.ndarray | Selection, *, text: bool = False) -> list[dict]:
        """Records in wire field names; text=True renders every value as a string (DART, KRX, data.go.kr)."""
        if isinstance(idx, np.ndarray):
            table = self.world.table(endpoint.table)
            read = lambda names: table.rows(idx, names, text=text)  # noqa: E731
            every = table.column_names
        else:
            read = lambda names: idx.records(names, text=text)  # noqa: E731
            every = self.world.table(endpoint.table).column_names
        if endpoint.columns is None:
            rows = read(list(endpoint.fields) if endpoint.fields is not None else every)
        else:
            wire = list(endpoint.columns)
            rows = [dict(zip(wire, r.values(), strict=True)) for r in read(list(endpoint.columns.values()))]
        omit = endpoint.options.get("omit_empty")
        if omit:
            # Fields the service leaves out of a record where they do not apply (DART's 누적금액 in an
            # annual report, 전전기 in a quarterly one) rather than sending them empty.
            rows = [{k: v for k, v in r.items() if not (k in omit and v == "")} for r in rows]
        return rows if self.drift is None else self.drift.rows(endpoint, rows)


def json_body(obj) -> bytes:
    return orjson.dumps(obj)
