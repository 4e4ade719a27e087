"""Compute targets by executing golden trajectories on the simulator (never typed by hand)."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import click
import orjson
import yaml

from kopa.backends.base import Backend
from kopa.backends.spec import open_backend
from kopa.backends.world import WorldError, WorldStamp, read_stamp, world_stamp, write_stamp
from kopa.errors import UserError
from kopa.eval.environment import Environment
from kopa.eval.golden import GoldenError, execute_golden
from kopa.eval.task import TARGET_DIR, GoldenCall, Target, Task, TaskSet, target_path
from kopa.fileio import write_atomic

TARGET_BACKEND = "sim"  # seed 0, scale small: the world every target is computed on
PACKAGE = Path(__file__).resolve().parents[1]  # the installed (or checked-out) `kopa` package


class TargetsNotWritable(UserError, click.ClickException):
    """Targets belong to a task set a person edits: a source checkout's `benchmark/`, or a folder of one's
    own. Also a ClickException, so that `kopa bench targets` says so in one line before the CLI prints
    every UserError that way."""


def _writable(directory: Path) -> Path:
    """`directory`, unless it is inside the package (KOPA-Bench installed from a wheel) or not writable."""
    existing = next(p for p in (directory, *directory.parents) if p.exists())
    if directory.resolve().is_relative_to(PACKAGE):
        why = "KOPA-Bench as installed is read-only package data"
    elif not os.access(existing, os.W_OK):
        why = "not writable"
    else:
        return directory
    raise TargetsNotWritable(f"cannot write targets into {directory} ({why}): "
                             "pass a task set folder of your own (kopa bench targets --tasks DIR)")


def compute_target(task: Task, backend: Backend) -> Target:
    env = Environment(task, backend)
    run = execute_golden(task, env)
    failed = [f"{c.tool}({c.arguments}): {c.result.error.kind if c.result.error else '?'}"
              for c in env.calls if not c.result.ok]
    if failed:
        raise GoldenError(f"{task.id}: golden calls failed: {'; '.join(failed[:3])}")
    calls = [GoldenCall(step="", tool=c.tool, arguments=c.arguments, turn=c.turn, ok=c.result.ok)
             for c in env.calls]
    optimal = len(calls)
    return Target(task_id=task.id, answer=run.answer, key=run.key, calls=calls, optimal_calls=optimal,
                  max_allowed_calls=task.budget(optimal), state_hash=env.state.hash(),
                  state=orjson.loads(env.state.canonical()), world=backend.provenance)


def write_targets(tasks: list[Task], directory: Path = TARGET_DIR, backend: Backend | None = None
                  ) -> dict[str, Target]:
    directory = _writable(directory)
    backend = backend or open_backend(TARGET_BACKEND)
    by_domain: dict[str, list[Target]] = defaultdict(list)
    out = {}
    for task in tasks:
        target = compute_target(task, backend)
        by_domain[task.domain].append(target)
        out[task.id] = target
    directory.mkdir(parents=True, exist_ok=True)
    for domain, targets in sorted(by_domain.items()):
        data = [t.model_dump(mode="json") for t in targets]
        target_path(domain, directory).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    return out


def write_set_targets(found: TaskSet, tasks: list[Task], *, every_domain: bool) -> dict[str, Target]:
    """The targets of `tasks` of the task set `found`, written into it. A set that records its world
    (world.json) is computed on that world's config — a set built on the full world stays on it — and its
    world.json is rewritten to the world they were computed on: the same, unless the world generator has
    changed since, which only a rewrite of every domain may follow (else some targets would be of one world
    and the rest of another). A set that records none (KOPA-Bench) is computed on TARGET_BACKEND, as before,
    and is given no world.json."""
    recorded = read_stamp(found.root)
    if recorded is None:
        return write_targets(tasks, found.targets_dir, open_backend(TARGET_BACKEND))
    backend = open_backend(recorded.spec())
    stamp = world_stamp(backend)
    if stamp != recorded and not every_domain:
        raise WorldError(f"{found.root} was built on the world {recorded.label()}, which the world generator has "
                         f"changed since (now content {stamp.content_hash[:8] if stamp else '?'}…): rewrite every "
                         "domain's targets (leave out --domain)")
    targets = write_targets(tasks, found.targets_dir, backend)
    write_stamp(found.root, stamp)
    return targets


def write_tasks(out: Path, pairs: list[tuple[Task, Target]], world: WorldStamp | None, what: str) -> None:
    """Tasks and their targets as a task set in `out`, one YAML and one JSON file per domain, `what` heading
    each YAML file; world.json vouches for them only once all are in."""
    by_domain: dict[str, list[tuple[Task, Target]]] = {}
    for pair in pairs:
        by_domain.setdefault(pair[0].domain, []).append(pair)
    write_stamp(out, None)  # until the new tasks and targets are all in, no world.json vouches for them
    for folder in ("tasks", "targets"):
        (out / folder).mkdir(parents=True, exist_ok=True)
        for stale in (out / folder).iterdir():
            stale.unlink()
    for domain, group in sorted(by_domain.items()):
        tasks = [task.model_dump(mode="json", exclude_defaults=True) for task, _ in group]
        text = yaml.safe_dump({"tasks": tasks}, allow_unicode=True, sort_keys=False, width=120)
        write_atomic(out / "tasks" / f"{domain}.yaml", f"# {what} ({domain})\n{text}".encode())
        targets = [target.model_dump(mode="json") for _, target in group]
        write_atomic(out / "targets" / f"{domain}.json", orjson.dumps(targets, option=orjson.OPT_INDENT_2) + b"\n")
    write_stamp(out, world)  # `kopa bench run --tasks` and `kopa rl rollouts --tasks` refuse another world
