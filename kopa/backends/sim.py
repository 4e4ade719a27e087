"""The simulator in-process: an httpx transport that never opens a socket.

It subclasses MockTransport (whose handle_request vcrpy patches) so recording works unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpx

from sim.app import Simulator
from sim.http import SimRequest, SimResponse

_SIM_REQUEST = "kopa.sim_request"  # the request's simulator form, kept on it: faults and the simulator both read it


def to_sim_request(request: httpx.Request) -> SimRequest:
    kept = request.extensions.get(_SIM_REQUEST)
    if isinstance(kept, SimRequest):
        return kept
    made = _convert(request)
    request.extensions[_SIM_REQUEST] = made
    return made


def _convert(request: httpx.Request) -> SimRequest:
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
        super().__init__(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        request.read()
        return to_httpx_response(self.simulator.handle(to_sim_request(request)))


def preload_tables(simulator: object, requests: Iterable[httpx.Request]) -> int:
    """The tables answering `requests` loaded into `simulator` (a backend's `simulator`) now, before workers
    fork and share them; 0 when it is not an in-process simulator (nothing local to share)."""
    if not isinstance(simulator, Simulator):
        return 0
    return simulator.preload(to_sim_request(request) for request in requests)
