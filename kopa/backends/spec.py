"""One backend string everywhere: `sim`, `sim:seed=7,scale=full`, `live`, `live:http://127.0.0.1:8800`."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from sim.world.context import WorldConfig


class BackendError(ValueError):
    """A backend string or set-up that cannot work; the message says what to change."""


@dataclass
class Backend:
    kind: Literal["sim", "live", "record", "replay", "snapshot"]
    transport: httpx.BaseTransport
    description: str
    key_source: KeySource
    simulator: object | None = None  # the in-process Simulator, for studies that ask its truth API
    virtual_today: dt.date | None = None  # the simulator's clock; live runs use the real date
    observer: Any = None  # sees every tool call (the recorder); None for plain backends
    provenance: str = ""  # what answers: written beside every recorded call

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
    unknown = set(options) - {"seed", "scale", "today"}
    if unknown:
        raise BackendError(f"unknown sim option(s) {sorted(unknown)}; use seed=, scale=, today=")
    data: dict = {}
    if "seed" in options:
        data["seed"] = int(options["seed"])
    if "scale" in options:
        data["scale"] = options["scale"]
    if "today" in options:
        data["today"] = options["today"]
    return WorldConfig.model_validate(data)


def _served_today(base_url: str) -> str | None:
    """A served simulator publishes its virtual clock; any other server simply does not answer it."""
    try:
        response = httpx.get(base_url.rstrip("/") + "/_kopa/world", timeout=5.0)
        return str(response.json()["config"]["today"]) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return None


def open_backend(spec: str = "sim", *, strict_keys: bool = False) -> Backend:
    name, _, rest = spec.partition(":")
    if name == "sim":
        from kopa.backends.sim import SimTransport
        from sim.app import Simulator
        from sim.keys import KeyPolicy
        from sim.world.build import load_world

        config = sim_config(_parse_options(rest))
        world = load_world(config)
        simulator = Simulator(world, KeyPolicy(seed=config.seed, strict=strict_keys))
        return Backend("sim", SimTransport(simulator), f"sim (seed={config.seed}, scale={config.scale})",
                       SimKeys(simulator.keys), simulator=simulator, virtual_today=config.today,
                       provenance=f"sim seed={config.seed} scale={config.scale} today={config.today} "
                                  f"world={world.content_hash[:16]}")
    if name == "live":
        from kopa.backends.live import LiveTransport

        redirect = rest or os.environ.get("KOPA_LIVE_REDIRECT") or None
        where = f"live via {redirect}" if redirect else "live"
        today = os.environ.get("KOPA_TODAY") or (_served_today(redirect) if redirect else None)
        return Backend("live", LiveTransport(redirect), where, EnvKeys(),
                       virtual_today=dt.date.fromisoformat(today) if today else None,
                       provenance=f"live via {redirect}" if redirect else "live")
    if name in ("record", "replay", "snapshot"):
        from kopa.backends.recorded import open_recorded

        return open_recorded(name, rest, strict_keys=strict_keys)
    raise BackendError(f"unknown backend {spec!r}: use sim[:seed=N,scale=small|full], live[:BASE_URL], "
                       "record:DIR[@INNER], replay:DIR or snapshot:FILE")
