"""One backend string everywhere: `sim`, `sim:seed=7,scale=full`, `live`, `live:http://127.0.0.1:8800`.

`open_backend` opens what a string names. The layers that wrap another backend (`faults:`, `record:`) are
given this opener for their inner backend rather than importing it, so no backends module imports this one.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from typing import TYPE_CHECKING, Any

import httpx

from kopa.backends.base import (
    SCALES,
    SIM_OPTIONS,
    Backend,
    BackendError,
    KeySource,
    fail,
    parse_date,
    parse_int,
    parse_options,
    suggest,
    unknown_kind,
)
from kopa.backends.live import LiveTransport
from kopa.backends.parsed import BackendSpec, Layer, parse_backend
from kopa.backends.sim import SimTransport
from sim.app import Simulator
from sim.drift import load_scenario, scenario_path, shipped_scenarios
from sim.errors import SimInputError
from sim.faults import load_profile, profile_path, shipped_profiles
from sim.keys import KeyPolicy
from sim.world.context import WorldConfig
from sim.world_file import load_world, world_path

if TYPE_CHECKING:
    from sim.world_file import World


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


def world_to_build(spec: str | BackendSpec) -> WorldConfig | None:
    """The simulator world that opening `spec` builds first, being not yet in the cache; None when it is
    built or the backend has no in-process simulator — so a command can say why its start takes a while.
    A malformed string is a BackendError, as open_backend would raise it."""
    parsed = parse_backend(spec)
    layer = parsed.layer("sim")
    if layer is None and parsed.layers[-1].kind == "faults":  # faults:PROFILE wraps the simulator by default
        layer = Layer(kind="sim")
    if layer is None:
        return None
    config = sim_config(dict(layer.options), str(parsed))
    return None if world_path(config).exists() else config


def sim_drift(options: dict[str, str], spec: str = "sim"):
    """The drift scenario and epoch a `sim:…,drift=NAME,epoch=N` backend serves (None, 0 without drift)."""
    if "drift" not in options and "epoch" not in options:
        return None, 0  # before importing sim.drift: its scenario models cost every start ~50 ms

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


class ServedKeys(KeySource):
    """Keys for a served simulator: a KOPA_<KEY_ID>_KEY that is set, else the key the simulator issues (it
    publishes them), so `live:http://127.0.0.1:8800` runs with no variable set."""

    def __init__(self, issued: dict[str, str]) -> None:
        self.issued = issued

    def issue(self, key_id: str) -> str:
        value = os.environ.get(f"KOPA_{key_id.upper()}_KEY", "").strip()
        return value or self.issued.get(key_id) or EnvKeys().issue(key_id)


def _served_world(base_url: str) -> dict[str, Any] | None:
    """What a served simulator publishes (its virtual clock, the keys it issues); None from any other server,
    which simply does not answer it."""
    try:
        response = httpx.get(base_url.rstrip("/") + "/_kopa/world", timeout=5.0)
        world = response.json() if response.status_code == 200 else None
        return world if isinstance(world, dict) and isinstance(world.get("config"), dict) else None
    except (httpx.HTTPError, ValueError):
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


def _open_sim(spec: str, rest: str, *, strict_keys: bool, world: World | None = None) -> Backend:
    options = parse_options(spec, "sim", rest, SIM_OPTIONS)
    config = sim_config(options, spec)
    scenario, epoch = sim_drift(options, spec)
    if world is not None and world.config != config:
        raise fail(spec, f"the preloaded world is {world.config}, not the one the backend names ({config})")
    world = world if world is not None else load_world(config)
    simulator = Simulator(world, KeyPolicy(seed=config.seed, strict=strict_keys), drift=scenario, epoch=epoch)
    drift = f" drift={scenario.name} epoch={epoch}" if scenario is not None else ""
    return Backend("sim", SimTransport(simulator), f"sim (seed={config.seed}, scale={config.scale}{drift})",
                   SimKeys(simulator.keys), simulator=simulator, virtual_today=config.today, in_process=True,
                   provenance=f"sim seed={config.seed} scale={config.scale} today={config.today} "
                              f"world={world.content_hash[:16]}{drift}")


def _open_live(spec: str, rest: str) -> Backend:
    if rest:
        redirect: str | None = _base_url(spec, rest, "live:")
    elif env := os.environ.get("KOPA_LIVE_REDIRECT"):
        redirect = _base_url(spec, env, "the environment variable KOPA_LIVE_REDIRECT=")
    else:
        redirect = None
    where = f"live via {redirect}" if redirect else "live"
    served = _served_world(redirect) if redirect else None
    if env_today := os.environ.get("KOPA_TODAY"):
        today: dt.date | None = parse_date(spec, "KOPA_TODAY", env_today,
                                          given=f"the environment variable KOPA_TODAY={env_today!r}")
    else:
        day = served["config"].get("today") if served else None
        today = dt.date.fromisoformat(day) if isinstance(day, str) else None
    published = served.get("keys") if served else None
    issued = published.get("issued") if isinstance(published, dict) else None
    keys: KeySource = ServedKeys(issued) if isinstance(issued, dict) else EnvKeys()
    return Backend("live", LiveTransport(redirect), where, keys, virtual_today=today,
                   provenance=f"live via {redirect}" if redirect else "live", real_hosts=redirect is None)


def _open_faults(spec: str, rest: str, *, strict_keys: bool, world: World | None = None) -> Backend:
    """`faults:PROFILE[,seed=N][@INNER]`: INNER defaults to the in-process simulator, which never
    reaches a real host, so leaving it out cannot send anything anywhere unexpected."""
    # deferred: the fault layer imports the recording transports and DuckDB (~0.45 s), which a run
    # without faults never needs
    from kopa.backends.faults import FaultLog, FaultTransport

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
                   fault_log=log, real_hosts=inner.real_hosts, in_process=inner.in_process)


def open_backend(spec: str | BackendSpec = "sim", *, strict_keys: bool = False, world: World | None = None
                 ) -> Backend:
    """The backend a backend string (or its parsed `BackendSpec`) names. Every option is checked: an unknown
    or misspelled one, a value of the wrong type, or a missing part is a BackendError naming it and the valid
    choices. `world`: the simulator's world, already loaded, for the spec's in-process simulator (under its
    faults layer, if any) — a process that opens many backends on one world loads its tables once; it must
    be the world the spec names."""
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
        # deferred: recordings import DuckDB and the cassette stores (~0.2 s), which sim and live never need
        from kopa.backends.recorded import open_recorded

        return open_recorded(name, rest, spec, strict_keys=strict_keys, open_inner=open_backend)
    raise unknown_kind(name, spec)


_SHARED: dict[str, Backend] = {}
_SHARED_LOCK = threading.Lock()


def shared_backend(spec: str) -> Backend:
    """One backend per spec and process, opened on first use and shared by every caller after — as `kopa bench
    run` opens one for all its episodes: Inspect's solver, verl's tools and the pytest plugin use it."""
    with _SHARED_LOCK:
        if spec not in _SHARED:
            _SHARED[spec] = open_backend(spec)
        return _SHARED[spec]

