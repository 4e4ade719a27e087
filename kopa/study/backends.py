"""A unit's backend: what `open_backend("faults:PROFILE,seed=N@sim[:drift=NAME,epoch=E]")` opens, wired
here so the simulator's world is shared within a worker process.

A world's tables load lazily (seconds for the few hundred a study touches) and never change once loaded,
so a process reuses one World per world spec; everything with state — the Simulator, its keys and drift
view, the fault transport with its decider and log, the virtual clock — is new for every backend, so a
unit's answers do not depend on which units ran before it in the same process.
"""

from __future__ import annotations

from functools import cache

from kopa.backends.spec import SIM_OPTIONS, Backend, SimKeys, fail, parse_options, sim_config, sim_drift


@cache
def _world(world_spec: str):
    from sim.world.build import load_world

    name, _, rest = world_spec.partition(":")
    if name != "sim":
        raise fail(world_spec, "a pruning study needs the in-process simulator (sim[:seed=N,scale=…]): "
                               "only it knows the true bindings")
    options = parse_options(world_spec, "sim", rest, SIM_OPTIONS)
    if "drift" in options or "epoch" in options:
        raise fail(world_spec, "the study sets drift itself (kind 'drift'); leave drift= and epoch= out")
    return load_world(sim_config(options, world_spec))


def check_world(world_spec: str) -> None:
    """Refuse a world spec the study cannot use, before any unit runs (a BackendError: one line)."""
    _world(world_spec)


def open_unit_backend(world_spec: str, profile_path: str, fault_seed: int, drift: str | None, epoch: int) -> Backend:
    from kopa.backends.faults import FaultLog, FaultTransport
    from kopa.backends.sim import SimTransport
    from sim.app import Simulator
    from sim.faults import load_profile
    from sim.keys import KeyPolicy

    world = _world(world_spec)
    config = world.config
    drift_options = {"drift": drift, "epoch": str(epoch)} if drift is not None else {}
    scenario, epoch = sim_drift(drift_options, world_spec)
    simulator = Simulator(world, KeyPolicy(seed=config.seed, strict=False), drift=scenario, epoch=epoch)
    inner = Backend("sim", SimTransport(simulator), f"sim (seed={config.seed}, scale={config.scale})",
                    SimKeys(simulator.keys), simulator=simulator, virtual_today=config.today)
    log = FaultLog()
    return Backend("faults", FaultTransport(inner.transport, load_profile(profile_path), fault_seed, inner.clock, log),
                   f"{inner.description} with faults {profile_path} (seed {fault_seed})", inner.key_source,
                   simulator=simulator, virtual_today=inner.virtual_today, clock=inner.clock, fault_log=log)
