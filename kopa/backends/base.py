"""What a backend is, shared by every layer of one: the `Backend` record, where its keys come from, and
the one-line errors and option parsing each layer's opener uses. The openers (`kopa.backends.spec` for sim,
live and faults; `kopa.backends.recorded`; the parser `kopa.backends.parsed`) import this module and never
each other, so the package has no import cycle."""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass
from typing import Any, Literal, Protocol, get_args

import httpx

from kopa.backends.clock import RealClock, VirtualClock
from kopa.backends.memo import AnswerMemo
from kopa.errors import UserError
from sim.world.context import Scale

# httpx request extension carrying the attempt number (0 = first try) from the runtime's retry loop to
# transports that care (the fault wrapper); extensions never go on the wire.
ATTEMPT_EXTENSION = "kopa_attempt"


class BackendError(UserError, ValueError):
    """A backend string or set-up that cannot work; one line naming the backend string, the option and
    value at fault and the valid choices, so the CLI can print it as it is."""


KINDS = ("sim", "live", "record", "replay", "snapshot", "faults")
SIM_OPTIONS = ("seed", "scale", "today", "drift", "epoch")
SCALES: tuple[str, ...] = get_args(Scale)
USAGE = ("sim[:seed=N,scale=small|full,today=YYYY-MM-DD,drift=NAME,epoch=N], live[:BASE_URL], "
         "record:DIR[,format=FORMAT]@INNER, replay:DIR, snapshot:FILE or faults:PROFILE[,seed=N][@INNER]")


def fail(spec: str, problem: str) -> BackendError:
    """The error for `spec`; `problem` may hold several lines (a spec file's field errors), which are
    joined so the message stays the one line the CLI prints."""
    return BackendError(f"backend {spec!r}: {one_line(problem)}")


def one_line(text: object) -> str:
    return "; ".join(part.strip() for part in str(text).splitlines() if part.strip())


def suggest(word: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def parse_options(spec: str, kind: str, text: str, valid: tuple[str, ...]) -> dict[str, str]:
    """`key=value,…` with every key one of `valid`: a misspelled option is an error, never ignored."""
    out: dict[str, str] = {}
    choices = ", ".join(valid) if valid else f"none ({kind} takes no options)"
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise fail(spec, f"{kind} option {part!r} is not key=value; valid {kind} options: {choices}")
        if key not in valid:
            raise fail(spec, f"unknown {kind} option {key!r}{suggest(key, valid)}; valid {kind} options: {choices}")
        if key in out:
            raise fail(spec, f"{kind} option {key!r} is given twice")
        out[key] = value.strip()
    return out


def parse_int(spec: str, key: str, value: str, *, minimum: int | None = None) -> int:
    try:
        number = int(value)
    except ValueError:
        raise fail(spec, f"{key}={value!r} is not an integer (e.g. {key}=7)") from None
    if minimum is not None and number < minimum:
        raise fail(spec, f"{key}={value!r} must be at least {minimum}")
    return number


def parse_date(spec: str, key: str, value: str, *, given: str | None = None) -> dt.date:
    """`value` as a date; else the error names where it was given (`given`, default `key=value`)."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        where = given or f"{key}={value!r}"
        raise fail(spec, f"{where} is not a date (YYYY-MM-DD, e.g. {key}=2026-01-30)") from None


class Sender(Protocol):
    """The part of httpx.Client the tool runtime uses."""

    def send(self, request: httpx.Request) -> httpx.Response: ...

    def close(self) -> None: ...


class InProcessClient:
    """Sends a request straight to an in-process transport, and reads the response, as httpx.Client.send would
    (the transport's own errors — an injected timeout — propagate alike)."""

    def __init__(self, transport: httpx.BaseTransport) -> None:
        self.transport = transport

    def send(self, request: httpx.Request) -> httpx.Response:
        response = self.transport.handle_request(request)
        response.request = request
        response.read()
        return response

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> InProcessClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Backend:
    kind: Literal["sim", "live", "record", "replay", "snapshot", "faults"]
    transport: httpx.BaseTransport
    description: str
    key_source: KeySource
    simulator: object | None = None  # the in-process Simulator, for studies that ask its truth API
    virtual_today: dt.date | None = None  # the simulator's clock; live runs use the real date
    observer: Any = None  # sees every tool call (the recorder); None for plain backends
    provenance: str = ""  # what answers: written beside every recorded call
    clock: Any = None  # what backoff waits on: virtual for in-process backends, real for live ones
    fault_log: Any = None  # the injected faults, when the backend is wrapped in faults:
    answers: AnswerMemo | None = None  # kept answers to calls, when memoized (the in-process simulator only)
    # requests go to the real services' hosts (live with no redirect, or a recording or faults over one):
    # a simulator-only tool is refused there before any request — its path exists nowhere, and the request
    # would carry a real key to it
    real_hosts: bool = False
    # every layer answers in this process (the simulator, a recording replayed, faults or a recorder over
    # them): no socket, so no cookie, redirect or timeout handling applies (`client`)
    in_process: bool = False

    def __post_init__(self) -> None:
        if self.clock is None:
            self.clock = RealClock() if self.kind == "live" else VirtualClock()

    def today(self) -> dt.date:
        return self.virtual_today or dt.date.today()

    def client(self) -> httpx.Client:
        return httpx.Client(transport=self.transport, timeout=httpx.Timeout(30.0), follow_redirects=False)

    def sender(self) -> Sender:
        """What sends the tool runtime's requests: the transport itself when it answers in this process
        (httpx.Client's cookie, redirect and timeout handling cost a simulated call a tenth of its time, for
        nothing), else `client()`."""
        return InProcessClient(self.transport) if self.in_process else self.client()

    def issue_key(self, key_id: str) -> str:
        return self.key_source.issue(key_id)

    def memoized(self, limit_bytes: int) -> Backend:
        """This backend keeping its answers to calls (up to about `limit_bytes` of records as JSON) and giving
        a repeated call the kept answer, where it is the in-process simulator, whose answer depends on the
        call alone; any other backend as is (faults and recordings must see every call)."""
        if self.kind == "sim":
            self.answers = AnswerMemo(limit_bytes)
        return self


class KeySource:
    def issue(self, key_id: str) -> str:
        raise NotImplementedError



def unknown_kind(name: str, spec: str) -> BackendError:
    return BackendError(f"unknown backend {name!r} in {spec!r}{suggest(name, KINDS)}; valid: {USAGE}")
