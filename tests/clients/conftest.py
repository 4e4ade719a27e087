"""Route unmodified third-party client libraries to the served simulator.

The libraries build URLs for the real hosts; the fixtures below patch the HTTP stack underneath them
(requests' adapter, aiohttp's session) so each request goes to `{server.url}/{real host}{path}?{query}`,
which `kopa sim serve` routes by its first path segment. The libraries themselves are never touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from sim.serve import SimServer


def rerouted(url: str, base: str) -> str:
    """The served simulator's URL for a request meant for a real host (the port is dropped: the
    simulator knows services by host name alone)."""
    parts = urlsplit(url)
    if url.startswith(base):
        return url
    query = f"?{parts.query}" if parts.query else ""
    return f"{base}/{parts.hostname}{parts.path}{query}"


@pytest.fixture(scope="session")
def served_sim(simulator) -> Iterator[SimServer]:
    with SimServer(simulator) as server:
        yield server


@pytest.fixture()
def route_requests(served_sim, monkeypatch) -> SimServer:
    """Send every `requests` call to the served simulator."""
    import requests.adapters

    original = requests.adapters.HTTPAdapter.send

    def send(self, request, *args, **kwargs):
        request.url = rerouted(request.url, served_sim.url)
        return original(self, request, *args, **kwargs)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    return served_sim


@pytest.fixture()
def route_aiohttp(served_sim, monkeypatch) -> SimServer:
    """Send every `aiohttp.ClientSession` request to the served simulator (query params stay in kwargs)."""
    import aiohttp

    original = aiohttp.ClientSession._request

    async def _request(self, method, str_or_url, *args, **kwargs):
        return await original(self, method, rerouted(str(str_or_url), served_sim.url), *args, **kwargs)

    monkeypatch.setattr(aiohttp.ClientSession, "_request", _request)
    return served_sim


@pytest.fixture(scope="session")
def runtime(backend):
    """kopa's own tool runtime over the in-process simulator: the values the libraries must agree with."""
    from kopa.tools.runtime import ToolRuntime

    rt = ToolRuntime(backend)
    for platform in ("dart", "krx", "neis", "seoul"):
        rt.call("issue_api_key", {"platform": platform})
    return rt
