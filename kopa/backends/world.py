"""The simulated world a task set was built on: recorded beside it (`world.json`), checked before it is played.

A task set's targets are what its golden trajectories returned on one world. Played on another (another
seed, scale, date or drift epoch, or the same config after the generator changed) the same right calls
return other records, and every score drops with no error saying why (issue 22: the oracle scored pass@1
0.08 on the small world a set built on the full one). So a folder that records its world (EDGE Phase B's
`kopa edge filter` writes one) is played only on a backend that serves that world; a folder without one
(KOPA-Bench, older runs) is not checked, and neither is a backend without a simulator (live, replay,
snapshot), which has no world to compare.

The stamp is read from the opened backend, whose wrappers (faults:, record:) carry their inner
simulator, so `faults:realistic@record:DIR@sim:scale=full` is the world of `sim:scale=full`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, cast

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError

from kopa.backends.base import Backend, one_line
from kopa.backends.spec import open_backend
from kopa.errors import UserError
from kopa.fileio import write_atomic
from sim.world.context import Scale, WorldConfig

if TYPE_CHECKING:
    from sim.app import Simulator

WORLD_FILE = "world.json"
_DEFAULT = WorldConfig.model_validate({})  # what a plain `sim` serves


class WorldError(UserError):
    """A task set played on a backend that serves another world, or a world.json that cannot be read."""


class WorldStamp(BaseModel):
    """What makes a world this one: its config (seed, scale, the virtual today), the drift it is served
    with (epoch 0 serves the undrifted world, so it is no drift), and the hash of its tables, which also
    changes when the generator does."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int
    scale: Scale
    today: dt.date
    drift: str | None = None
    epoch: int | None = None
    content_hash: str

    def spec(self) -> str:
        """The backend string that serves this world, leaving out what is the default."""
        options = [f"seed={self.seed}" if self.seed != _DEFAULT.seed else "",
                   f"scale={self.scale}" if self.scale != _DEFAULT.scale else "",
                   f"today={self.today}" if self.today != _DEFAULT.today else "",
                   f"drift={self.drift},epoch={self.epoch}" if self.drift is not None else ""]
        text = ",".join(o for o in options if o)
        return f"sim:{text}" if text else "sim"

    def label(self, *, with_today: bool = False) -> str:
        today = f" today={self.today}" if with_today or self.today != _DEFAULT.today else ""
        drift = f" drift={self.drift} epoch={self.epoch}" if self.drift is not None else ""
        return f"sim seed={self.seed} scale={self.scale}{today}{drift} (content {self.content_hash[:8]}…)"


def world_stamp(backend: Backend) -> WorldStamp | None:
    """The world `backend` serves; None when it has no simulator (live, replay, snapshot)."""
    if backend.simulator is None:
        return None
    simulator = cast("Simulator", backend.simulator)
    config = simulator.world.config
    drift = simulator.drift  # None without a scenario and at epoch 0
    return WorldStamp(seed=config.seed, scale=config.scale, today=config.today,
                      drift=drift.scenario.name if drift is not None else None,
                      epoch=drift.epoch if drift is not None else None,
                      content_hash=simulator.world.content_hash)


def read_stamp(folder: Path) -> WorldStamp | None:
    """The world `folder` records (its world.json); None when it records none."""
    path = folder / WORLD_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WorldError(f"{path}: cannot read the task set's world ({exc.strerror or exc})") from exc
    try:
        return WorldStamp.model_validate(orjson.loads(data))
    except (orjson.JSONDecodeError, ValidationError) as exc:
        raise WorldError(f"{path}: not a world stamp ({one_line(str(exc))}); rewrite it with "
                         f"`kopa bench targets --tasks {folder}` or remove it to play the set unchecked") from exc


def write_stamp(folder: Path, stamp: WorldStamp | None) -> None:
    """Record `stamp` as the world of `folder`, or, for None (a set built on a backend without a
    simulator), remove a world.json left by an earlier build, which would name a world it was not built on."""
    path = folder / WORLD_FILE
    if stamp is None:
        path.unlink(missing_ok=True)
        return
    data = stamp.model_dump(mode="json", exclude_none=True)  # drift and epoch only where a drift is served
    write_atomic(path, orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")


def check_world(folder: Path, backend: Backend, spec: str) -> None:
    """Refuse, in one line naming both worlds, a backend (opened from `spec`) that serves another world
    than the one `folder` records. Nothing is checked when either side has no world."""
    recorded = read_stamp(folder)
    if recorded is not None:
        _refuse_other(folder, recorded, backend, spec)


def open_checked(folder: Path, spec: str) -> Backend | None:
    """The backend `spec` names, opened and checked against the world `folder` records, for the caller to
    play on (so the world is opened once); None, and nothing opened, when `folder` records no world."""
    recorded = read_stamp(folder)
    if recorded is None:
        return None
    backend = open_backend(spec)
    _refuse_other(folder, recorded, backend, spec)
    return backend


def _refuse_other(folder: Path, recorded: WorldStamp, backend: Backend, spec: str) -> None:
    actual = world_stamp(backend)
    if actual is None or actual == recorded:
        return
    if recorded.model_dump(exclude={"content_hash"}) == actual.model_dump(exclude={"content_hash"}):
        fix = (f"the simulator's world generator has changed since; rewrite the targets on this world with "
               f"`kopa bench targets --tasks {folder}`")
    else:
        fix = f"pass --backend {recorded.spec()}"
    with_today = recorded.today != actual.today
    raise WorldError(f"{folder} was built on the world {recorded.label(with_today=with_today)}; --backend {spec} "
                     f"is the world {actual.label(with_today=with_today)}: {fix}")
