"""kopa's pytest plugin (entry point `pytest11: kopa`): CI without API keys for the user's own code.

Code that calls DART, data.go.kr or any other host of the catalog — with httpx, with requests, or through a
client built on them (PublicDataReader, OpenDartReader) — is answered without keys and without the network:

    def test_my_pipeline(kopa_sim):            # every request to a catalog host answered by the simulator
        ...

    @pytest.mark.kopa_world(seed=7, scale="small", drift="default", epoch=1, faults="realistic")
    def test_under_drift(kopa_sim):            # the world, its drift epoch and its fault profile, chosen
        ...

    @pytest.mark.kopa_recording("tests/recordings/dart")
    def test_offline(kopa_recording):          # from a recording, strictly: an unrecorded request fails
        ...                                    # the test, naming it and the nearest recorded one

Any key is accepted (the simulator's default; a recording holds none). Requests to other hosts go where they
were sent. `--kopa-record-from=sim` (or `@pytest.mark.kopa_recording(PATH, record_from="sim")`) records what
a recording lacks from that backend instead of failing — how a recording for these tests is made.

The patches sit where the clients meet the network — httpx's transports and requests' adapter — so the
libraries themselves are never touched; each fixture undoes them when its test ends.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

MARK_WORLD = "kopa_world"
MARK_RECORDING = "kopa_recording"
_WORLD_OPTIONS = ("seed", "scale", "today", "drift", "epoch")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kopa", "kopa: Korean public APIs answered by the simulator or a recording")
    group.addoption("--kopa-record-from", metavar="SPEC", default=None,
                    help="record what a kopa_recording lacks from this backend (sim, sim:seed=7, live, "
                         "live:http://127.0.0.1:8800) instead of failing on it")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK_WORLD}(seed=0, scale='small', today=None, drift=None, epoch=0, "
                                       "faults=None, fault_seed=0): the simulated world kopa_sim answers from")
    config.addinivalue_line("markers", f"{MARK_RECORDING}(path, record_from=None): the recording "
                                       "kopa_recording replays (strictly, unless record_from names a backend)")


@dataclass
class Routed:
    """What a fixture gives the test: the backend answering the catalog's hosts, and the requests it answered
    ("METHOD URL" with keys as sent: the test's own, never written anywhere)."""

    backend: Any  # kopa.backends.base.Backend
    hosts: frozenset[str]
    requests: list[str] = field(default_factory=list)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url}")
        response = self.backend.transport.handle_request(request)
        response.read()
        # the body is decoded already: a client must not decode it again, nor trust a stale length
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
        return httpx.Response(response.status_code, headers=headers, content=response.content,
                              extensions={"reason_phrase": response.reason_phrase.encode("latin-1", "replace")},
                              request=request)

    def serves(self, url: str) -> bool:
        return (urlsplit(url).hostname or "").lower() in self.hosts


def served_hosts() -> frozenset[str]:
    """Every host the catalog's tools call (and the simulator answers)."""
    # deferred, as every kopa import here: pytest loads this plugin in any suite where kopa is installed
    from sim.registry import HOST_FAMILY, LONGTAIL_HOSTS

    return frozenset(HOST_FAMILY) | frozenset(LONGTAIL_HOSTS)


def world_spec(marker: pytest.Mark | None) -> str:
    """The backend string a kopa_world marker names (no marker: the default world, sim)."""
    if marker is None:
        return "sim"
    if marker.args:
        raise pytest.UsageError(f"@pytest.mark.{MARK_WORLD} takes keywords only, e.g. seed=7, scale='small'")
    options = dict(marker.kwargs)
    unknown = sorted(set(options) - {*_WORLD_OPTIONS, "faults", "fault_seed"})
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.{MARK_WORLD}: unknown option {', '.join(unknown)}; valid: "
                                f"{', '.join((*_WORLD_OPTIONS, 'faults', 'fault_seed'))}")
    faults, fault_seed = options.pop("faults", None), options.pop("fault_seed", 0)
    spec = "sim" + (":" + ",".join(f"{k}={options[k]}" for k in _WORLD_OPTIONS if k in options) if options else "")
    return f"faults:{faults},seed={fault_seed}@{spec}" if faults else spec


def _backend(spec: str) -> Any:
    """One backend per spec for the session (a world is loaded once); a bad marker is a usage error."""
    # deferred: a suite that never asks for kopa's fixtures never loads a world
    from kopa.backends import shared_backend
    from kopa.errors import UserError

    try:
        return shared_backend(spec)
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _route(routed: Routed, monkeypatch: pytest.MonkeyPatch) -> Routed:
    """httpx (sync and async) and requests send catalog hosts' requests to `routed`, the rest as before."""
    sync_send = httpx.HTTPTransport.handle_request
    async_send = httpx.AsyncHTTPTransport.handle_async_request

    def handle_request(self: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        if not routed.serves(str(request.url)):
            return sync_send(self, request)
        request.read()
        return routed.handle(request)

    async def handle_async_request(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        if not routed.serves(str(request.url)):
            return await async_send(self, request)
        await request.aread()
        return routed.handle(request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", handle_request)
    monkeypatch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", handle_async_request)
    try:  # requests is the user's, not kopa's: patched only where it is installed
        import requests.adapters
    except ImportError:
        return routed
    adapter_send = requests.adapters.HTTPAdapter.send

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        if not routed.serves(request.url):
            return adapter_send(self, request, *args, **kwargs)
        body = request.body.encode("utf-8") if isinstance(request.body, str) else (request.body or b"")
        answered = routed.handle(httpx.Request(request.method, request.url, headers=dict(request.headers),
                                               content=body))
        return _requests_response(answered, request, self)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)
    return routed


def _requests_response(answered: httpx.Response, request: Any, adapter: Any) -> Any:
    """`answered` as requests' adapter returns a response: the body read, `raw` a stream of it."""
    # requests is installed: _route patched it
    import requests
    from requests.structures import CaseInsensitiveDict
    from requests.utils import get_encoding_from_headers

    response = requests.Response()
    response.status_code = answered.status_code
    response.reason = answered.reason_phrase
    response.headers = CaseInsensitiveDict(answered.headers.multi_items())
    response.encoding = get_encoding_from_headers(response.headers)
    response.raw = io.BytesIO(answered.content)
    response._content = answered.content
    response._content_consumed = True
    response.url = request.url
    response.request = request
    response.connection = adapter
    return response


@pytest.fixture
def kopa_sim(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Routed]:
    """Every httpx / requests call to a catalog host answered by the in-process simulator (the world
    `@pytest.mark.kopa_world` picks), with any key; `.requests` lists what it answered."""
    backend = _backend(world_spec(request.node.get_closest_marker(MARK_WORLD)))
    yield _route(Routed(backend, served_hosts()), monkeypatch)


@pytest.fixture
def kopa_recording(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Routed]:
    """Every httpx / requests call to a catalog host answered from the recording
    `@pytest.mark.kopa_recording(PATH)` names — strictly: a request it does not hold fails the test (kopa's
    ReplayMiss, naming the request and the nearest recorded one). With `record_from` (or
    --kopa-record-from) what is missing is recorded from that backend instead."""
    # deferred: a suite that never asks for kopa's fixtures never loads kopa
    from kopa.backends import open_backend
    from kopa.errors import UserError

    marker = request.node.get_closest_marker(MARK_RECORDING)
    if marker is None or not marker.args:
        raise pytest.UsageError(f"kopa_recording needs @pytest.mark.{MARK_RECORDING}(PATH): the recording to "
                                "replay (make one with --kopa-record-from=sim)")
    path = request.config.rootpath / str(marker.args[0])
    source = request.config.getoption("--kopa-record-from") or marker.kwargs.get("record_from")
    spec = f"record:{path}@{source}" if source else f"replay:{path}"
    try:
        backend = open_backend(spec)
    except UserError as exc:
        raise pytest.UsageError(str(exc)) from exc
    try:
        yield _route(Routed(backend, served_hosts()), monkeypatch)
    finally:
        backend.transport.close()
        snapshot = getattr(backend.transport, "snapshot", None)  # recording: committed when the test ends
        if snapshot is not None:
            snapshot.close()
