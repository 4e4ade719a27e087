"""The simulator in-process: an httpx transport that never opens a socket.

It subclasses MockTransport (whose handle_request vcrpy patches) so recording works unchanged.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import httpx

from sim.app import Simulator
from sim.http import SimRequest, SimResponse


def to_sim_request(request: httpx.Request) -> SimRequest:
    url = request.url
    return SimRequest.from_parts(
        request.method,
        request.headers.get("host", url.host),
        url.raw_path.decode("ascii").split("?", 1)[0],
        url.query.decode("ascii"),
        dict(request.headers),
        request.content,
    )


def to_httpx_response(response: SimResponse) -> httpx.Response:
    headers = {"content-type": response.content_type, **response.headers}
    return httpx.Response(response.status, headers=headers, content=response.body)


class SimTransport(httpx.MockTransport):
    def __init__(self, simulator: Simulator) -> None:
        self.simulator = simulator
        self._memo: OrderedDict[tuple, SimResponse] = OrderedDict()
        self._memo_bytes = 0
        self._memo_limit = 0
        self._memo_lock = threading.Lock()
        super().__init__(self._handle)

    def memoize(self, limit_bytes: int) -> None:
        """Answer a repeated request from memory, the least recently used answers dropped beyond
        `limit_bytes` of bodies. The simulator answers a request from the request alone (the world, keys
        and drift are fixed when it is built), so a repeated answer is the same bytes; faults and recording
        wrap this transport and still see every call. Off by default: synthesis, which asks the same pages
        over and over while it searches, turns it on."""
        with self._memo_lock:
            self._memo_limit = limit_bytes
            self._evict()

    def _evict(self) -> None:
        while self._memo_bytes > self._memo_limit and self._memo:
            _, dropped = self._memo.popitem(last=False)
            self._memo_bytes -= len(dropped.body)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        request.read()
        if not self._memo_limit:
            return to_httpx_response(self.simulator.handle(to_sim_request(request)))
        key = (request.method, str(request.url), request.content, tuple(sorted(request.headers.items())))
        with self._memo_lock:
            response = self._memo.get(key)
            if response is not None:
                self._memo.move_to_end(key)
        if response is None:
            response = self.simulator.handle(to_sim_request(request))
            with self._memo_lock:
                if key not in self._memo and len(response.body) <= self._memo_limit:
                    self._memo[key] = response
                    self._memo_bytes += len(response.body)
                    self._evict()
        return to_httpx_response(response)
