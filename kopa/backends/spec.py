"""One backend string everywhere: `sim`, `sim:seed=7,scale=full`, `live`, `live:http://127.0.0.1:8800`."""

from __future__ import annotations

import datetime as dt
import difflib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

import httpx

from kopa.backends.memo import AnswerMemo
from kopa.errors import UserError
from sim.errors import SimInputError
from sim.world.context import Scale, WorldConfig

if TYPE_CHECKING:
    from kopa.backends.parsed import BackendSpec
    from sim.world.build import World

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


def parse_date(spec: str, key: str, value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise fail(spec, f"{key}={value!r} is not a date (YYYY-MM-DD, e.g. {key}=2026-01-30)") from None


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

    def __post_init__(self) -> None:
        if self.clock is None:
            from kopa.backends.clock import RealClock, VirtualClock

            self.clock = RealClock() if self.kind == "live" else VirtualClock()

    def today(self) -> dt.date:
        return self.virtual_today or dt.date.today()

    def client(self) -> httpx.Client:
        return httpx.Client(transport=self.transport, timeout=httpx.Timeout(30.0), follow_redirects=False)

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


class SimKeys(KeySource):
    def __init__(self, policy) -> None:
        self.policy = policy

    def issue(self, key_id: str) -> str:
        return self.policy.issue(key_id)


class EnvKeys(KeySource):
    """Live keys come from KOPA_<KEY_ID>_KEY; a missing one names the variable to set."""

    def issue(self, key_id: str) -> str:
        var = f"KOPA_{key_id.upper()}_KEY"
        value = os.environ.get(var, "").strip()
        if not value:
            raise BackendError(f"no API key for {key_id!r}: set the environment variable {var}")
        return value


def sim_config(options: dict[str, str], spec: str = "sim") -> WorldConfig:
    """The world a `sim:…` backend names; every value is checked here so a bad one names its option."""
    data: dict[str, Any] = {}
    if "seed" in options:
        data["seed"] = parse_int(spec, "seed", options["seed"])
    if "scale" in options:
        if options["scale"] not in SCALES:
            raise fail(spec, f"scale={options['scale']!r} is not a scale{suggest(options['scale'], SCALES)}; "
                             f"valid: {', '.join(SCALES)}")
        data["scale"] = options["scale"]
    if "today" in options:
        data["today"] = parse_date(spec, "today", options["today"])
    return WorldConfig.model_validate(data)


def sim_drift(options: dict[str, str], spec: str = "sim"):
    """The drift scenario and epoch a `sim:…,drift=NAME,epoch=N` backend serves (None, 0 without drift)."""
    if "drift" not in options and "epoch" not in options:
        return None, 0  # before importing sim.drift: its scenario models cost every start ~50 ms
    from sim.drift import load_scenario, scenario_path, shipped_scenarios

    shipped = tuple(shipped_scenarios())
    if "drift" not in options:
        raise fail(spec, f"epoch= needs a drift scenario: add drift=NAME ({', '.join(shipped)} or a TOML file)")
    name = options["drift"]
    epoch = parse_int(spec, "epoch", options.get("epoch", "0"), minimum=0)
    if not scenario_path(name).exists():
        raise fail(spec, f"drift={name!r} is not a drift scenario{suggest(name, shipped)}; valid: "
                         f"{', '.join(shipped)} or a TOML file")
    try:
        scenario = load_scenario(name)
        scenario.changes_until(epoch)  # range check
    except SimInputError as exc:
        raise fail(spec, f"drift: {exc}") from exc
    return scenario, epoch


def _served_today(base_url: str) -> str | None:
    """A served simulator publishes its virtual clock; any other server simply does not answer it."""
    try:
        response = httpx.get(base_url.rstrip("/") + "/_kopa/world", timeout=5.0)
        return str(response.json()["config"]["today"]) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


def _base_url(spec: str, url: str, where: str) -> str:
    """A redirect base URL must be http(s)://host[:port]; anything else would fail later, less clearly.
    `where` names what gave it, ending where the value is written (`live:` or `…KOPA_LIVE_REDIRECT=`)."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise fail(spec, f"{where}{url!r} is not an http(s) base URL (e.g. live:http://127.0.0.1:8800)")
    return url


def _env_date(spec: str, var: str, value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise fail(spec, f"the environment variable {var}={value!r} is not a date (YYYY-MM-DD)") from None


def _open_sim(spec: str, rest: str, *, strict_keys: bool, world: World | None = None) -> Backend:
    from kopa.backends.sim import SimTransport
    from sim.app import Simulator
    from sim.keys import KeyPolicy
    from sim.world.build import load_world

    options = parse_options(spec, "sim", rest, SIM_OPTIONS)
    config = sim_config(options, spec)
    scenario, epoch = sim_drift(options, spec)
    if world is not None and world.config != config:
        raise fail(spec, f"the preloaded world is {world.config}, not the one the backend names ({config})")
    world = world if world is not None else load_world(config)
    simulator = Simulator(world, KeyPolicy(seed=config.seed, strict=strict_keys), drift=scenario, epoch=epoch)
    drift = f" drift={scenario.name} epoch={epoch}" if scenario is not None else ""
    return Backend("sim", SimTransport(simulator), f"sim (seed={config.seed}, scale={config.scale}{drift})",
                   SimKeys(simulator.keys), simulator=simulator, virtual_today=config.today,
                   provenance=f"sim seed={config.seed} scale={config.scale} today={config.today} "
                              f"world={world.content_hash[:16]}{drift}")


def _open_live(spec: str, rest: str) -> Backend:
    from kopa.backends.live import LiveTransport

    if rest:
        redirect: str | None = _base_url(spec, rest, "live:")
    elif env := os.environ.get("KOPA_LIVE_REDIRECT"):
        redirect = _base_url(spec, env, "the environment variable KOPA_LIVE_REDIRECT=")
    else:
        redirect = None
    where = f"live via {redirect}" if redirect else "live"
    if env_today := os.environ.get("KOPA_TODAY"):
        today: dt.date | None = _env_date(spec, "KOPA_TODAY", env_today)
    else:
        served = _served_today(redirect) if redirect else None
        today = dt.date.fromisoformat(served) if served else None
    return Backend("live", LiveTransport(redirect), where, EnvKeys(), virtual_today=today,
                   provenance=f"live via {redirect}" if redirect else "live", real_hosts=redirect is None)


def _open_faults(spec: str, rest: str, *, strict_keys: bool, world: World | None = None) -> Backend:
    """`faults:PROFILE[,seed=N][@INNER]`: INNER defaults to the in-process simulator, which never
    reaches a real host, so leaving it out cannot send anything anywhere unexpected."""
    from kopa.backends.faults import FaultLog, FaultTransport
    from sim.faults import load_profile, profile_path, shipped_profiles

    head, _, inner_spec = rest.partition("@")
    name, _, option_text = head.partition(",")
    name = name.strip()
    opts = parse_options(spec, "faults", option_text, ("seed",))
    if not name:
        raise fail(spec, "faults needs a profile: faults:PROFILE[,seed=N]@INNER, e.g. faults:realistic@sim")
    if not profile_path(name).exists():
        shipped = tuple(shipped_profiles())
        raise fail(spec, f"no fault profile {name!r}{suggest(name, shipped)}; valid: {', '.join(shipped)} "
                         "or a TOML file")
    try:
        profile = load_profile(name)
    except SimInputError as exc:
        raise fail(spec, f"faults: {exc}") from exc
    seed = parse_int(spec, "seed", opts.get("seed", "0"))
    inner = open_backend(inner_spec or "sim", strict_keys=strict_keys, world=world)
    log = FaultLog()
    return Backend("faults", FaultTransport(inner.transport, profile, seed, inner.clock, log),
                   f"{inner.description} with faults {name} (seed {seed})", inner.key_source,
                   simulator=inner.simulator, virtual_today=inner.virtual_today, observer=inner.observer,
                   provenance=f"{inner.provenance} faults={name} seed={seed}", clock=inner.clock,
                   fault_log=log, real_hosts=inner.real_hosts)


def unknown_kind(name: str, spec: str) -> BackendError:
    return BackendError(f"unknown backend {name!r} in {spec!r}{suggest(name, KINDS)}; valid: {USAGE}")


def open_backend(spec: str | BackendSpec = "sim", *, strict_keys: bool = False, world: World | None = None
                 ) -> Backend:
    """The backend a backend string (or its parsed `BackendSpec`) names. Every option is checked: an unknown
    or misspelled one, a value of the wrong type, or a missing part is a BackendError naming it and the valid
    choices. `world`: the simulator's world, already loaded, for the spec's in-process simulator (under its
    faults layer, if any) — a process that opens many backends on one world loads its tables once; it must
    be the world the spec names."""
    from kopa.backends.parsed import BackendSpec

    spec = str(spec) if isinstance(spec, BackendSpec) else spec
    BackendSpec.parse(spec)  # the layers' kinds, options and structure, before anything is opened
    name, _, rest = spec.partition(":")
    if name == "sim":
        return _open_sim(spec, rest, strict_keys=strict_keys, world=world)
    if name == "live":
        return _open_live(spec, rest)
    if name == "faults":
        return _open_faults(spec, rest, strict_keys=strict_keys, world=world)
    if name in ("record", "replay", "snapshot"):
        from kopa.backends.recorded import open_recorded

        return open_recorded(name, rest, spec, strict_keys=strict_keys)
    raise unknown_kind(name, spec)
