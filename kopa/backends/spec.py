"""One backend string everywhere: `sim`, `sim:seed=7,scale=full`, `live`, `live:http://127.0.0.1:8800`."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from sim.world.context import WorldConfig

# httpx request extension carrying the attempt number (0 = first try) from the runtime's retry loop to
# transports that care (the fault wrapper); extensions never go on the wire.
ATTEMPT_EXTENSION = "kopa_attempt"


class BackendError(ValueError):
    """A backend string or set-up that cannot work; the message says what to change."""


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


def _parse_options(text: str) -> dict[str, str]:
    out = {}
    for part in filter(None, text.split(",")):
        if "=" not in part:
            raise BackendError(f"backend option {part!r} is not key=value")
        k, v = part.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def sim_config(options: dict[str, str]) -> WorldConfig:
    unknown = set(options) - {"seed", "scale", "today", "drift", "epoch"}
    if unknown:
        raise BackendError(f"unknown sim option(s) {sorted(unknown)}; use seed=, scale=, today=, drift=, epoch=")
    data: dict = {}
    if "seed" in options:
        data["seed"] = int(options["seed"])
    if "scale" in options:
        data["scale"] = options["scale"]
    if "today" in options:
        data["today"] = options["today"]
    return WorldConfig.model_validate(data)


def sim_drift(options: dict[str, str]):
    """The drift scenario and epoch a `sim:…,drift=NAME,epoch=N` backend serves (None, 0 without drift)."""
    from sim.drift import load_scenario

    if "epoch" in options and "drift" not in options:
        raise BackendError("epoch= needs a drift scenario: add drift=default (or a scenario file)")
    if "drift" not in options:
        return None, 0
    try:
        epoch = int(options.get("epoch", "0"))
        scenario = load_scenario(options["drift"])
        scenario.changes_until(epoch)  # range check
    except ValueError as exc:  # DriftError is a ValueError, as is a non-integer epoch
        raise BackendError(f"drift: {exc}") from exc
    return scenario, epoch


def _served_today(base_url: str) -> str | None:
    """A served simulator publishes its virtual clock; any other server simply does not answer it."""
    try:
        response = httpx.get(base_url.rstrip("/") + "/_kopa/world", timeout=5.0)
        return str(response.json()["config"]["today"]) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


def _open_faults(rest: str, *, strict_keys: bool) -> Backend:
    """`faults:PROFILE[,seed=N]@INNER` (INNER defaults to sim)."""
    from kopa.backends.faults import FaultLog, FaultTransport
    from sim.faults import load_profile

    head, _, inner_spec = rest.partition("@")
    profile_name, *options = head.split(",")
    opts = _parse_options(",".join(options))
    unknown = set(opts) - {"seed"}
    if not profile_name or unknown:
        raise BackendError("faults: use faults:PROFILE[,seed=N]@INNER, e.g. faults:realistic@sim")
    try:
        profile = load_profile(profile_name)
    except (FileNotFoundError, ValueError) as exc:
        raise BackendError(f"faults: {exc}") from exc
    inner = open_backend(inner_spec or "sim", strict_keys=strict_keys)
    seed = int(opts.get("seed", 0))
    log = FaultLog()
    return Backend("faults", FaultTransport(inner.transport, profile, seed, inner.clock, log),
                   f"{inner.description} with faults {profile_name} (seed {seed})", inner.key_source,
                   simulator=inner.simulator, virtual_today=inner.virtual_today, observer=inner.observer,
                   provenance=f"{inner.provenance} faults={profile_name} seed={seed}", clock=inner.clock,
                   fault_log=log)


def open_backend(spec: str = "sim", *, strict_keys: bool = False) -> Backend:
    name, _, rest = spec.partition(":")
    if name == "sim":
        from kopa.backends.sim import SimTransport
        from sim.app import Simulator
        from sim.keys import KeyPolicy
        from sim.world.build import load_world

        options = _parse_options(rest)
        config = sim_config(options)
        scenario, epoch = sim_drift(options)
        world = load_world(config)
        simulator = Simulator(world, KeyPolicy(seed=config.seed, strict=strict_keys), drift=scenario, epoch=epoch)
        drift = f" drift={scenario.name} epoch={epoch}" if scenario is not None else ""
        return Backend("sim", SimTransport(simulator), f"sim (seed={config.seed}, scale={config.scale}{drift})",
                       SimKeys(simulator.keys), simulator=simulator, virtual_today=config.today,
                       provenance=f"sim seed={config.seed} scale={config.scale} today={config.today} "
                                  f"world={world.content_hash[:16]}{drift}")
    if name == "live":
        from kopa.backends.live import LiveTransport

        redirect = rest or os.environ.get("KOPA_LIVE_REDIRECT") or None
        where = f"live via {redirect}" if redirect else "live"
        today = os.environ.get("KOPA_TODAY") or (_served_today(redirect) if redirect else None)
        return Backend("live", LiveTransport(redirect), where, EnvKeys(),
                       virtual_today=dt.date.fromisoformat(today) if today else None,
                       provenance=f"live via {redirect}" if redirect else "live")
    if name == "faults":
        return _open_faults(rest, strict_keys=strict_keys)
    if name in ("record", "replay", "snapshot"):
        from kopa.backends.recorded import open_recorded

        return open_recorded(name, rest, strict_keys=strict_keys)
    raise BackendError(f"unknown backend {spec!r}: use sim[:seed=N,scale=small|full], live[:BASE_URL], "
                       "record:DIR[@INNER], replay:DIR, snapshot:FILE or faults:PROFILE@INNER")
