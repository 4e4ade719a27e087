"""A unit's backend: `open_backend("faults:PROFILE,seed=N@sim[:drift=NAME,epoch=E]")` on the world this
worker process has loaded already.

A world's tables load lazily (seconds for the few hundred a study touches) and never change once loaded,
so a process reuses one World per world spec; everything with state — the Simulator, its keys and drift
view, the fault transport with its decider and log, the virtual clock — is new for every backend, so a
unit's answers do not depend on which units ran before it in the same process.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from kopa.backends.base import Backend, fail
from kopa.backends.parsed import BackendSpec, Layer, parse_backend
from kopa.backends.spec import open_backend, sim_config
from sim.world_file import load_world

if TYPE_CHECKING:
    from sim.world_file import World


@cache
def _world(world_spec: str) -> World:
    parsed = parse_backend(world_spec)  # an unknown kind or option is a BackendError naming it
    if len(parsed.layers) != 1 or parsed.kind != "sim":
        raise fail(world_spec, "a pruning study needs the in-process simulator (sim[:seed=N,scale=…]): "
                               "only it knows the true bindings")
    options = dict(parsed.layers[0].options)
    if "drift" in options or "epoch" in options:
        raise fail(world_spec, "the study sets drift itself (kind 'drift'); leave drift= and epoch= out")
    return load_world(sim_config(options, world_spec))


def check_world(world_spec: str) -> None:
    """Refuse a world spec the study cannot use, before any unit runs (a BackendError: one line)."""
    _world(world_spec)


def open_unit_backend(world_spec: str, profile_path: str, fault_seed: int, drift: str | None, epoch: int) -> Backend:
    """`faults:PROFILE,seed=N@WORLD[,drift=NAME,epoch=E]`, opened by `open_backend` on this process's world."""
    sim = parse_backend(world_spec).layers[-1]
    served = sim.model_copy(update={"options": (*sim.options, ("drift", drift), ("epoch", str(epoch)))}) \
        if drift is not None else sim
    spec = BackendSpec(layers=(Layer(kind="faults", target=profile_path, options=(("seed", str(fault_seed)),)),
                               served))
    return open_backend(spec, world=_world(world_spec))
