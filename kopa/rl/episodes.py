"""Episode state for tools called one at a time by a trainer, keyed on the rollout's request id.

verl creates a tool instance before every single call and releases it right after (ToolAgentLoop's
``_call_tool``), so an instance id lives for one call: what an episode accumulates — issued keys,
watchlists, the injected date, the call log and budget — must live under the rollout's request id, which
is the same for every call of one rollout and different for every rollout of a group. Each episode is
an ordinary :class:`kopa.eval.environment.Environment` (the task's tools, setup actions, call budget).

The store is per process and bounded (least recently used episodes leave first), because a trainer
never says when a rollout is over; what the reward needs travels with the sample instead
(:func:`snapshot`, written into verl's per-sample ``extra_fields``), so a reward computed in another
process reads it from there.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import orjson

from kopa.backends.base import Backend
from kopa.eval.environment import Environment
from kopa.eval.task import Target, Task, task_set

CAPACITY = 4096  # episodes kept per process: a few batches of rollouts in flight


@dataclass
class Episode:
    request_id: str
    env: Environment
    lock: threading.Lock = field(default_factory=threading.Lock)  # one call of an episode at a time


class TaskIndex:
    """A task set's tasks and targets by id, loaded once per (process, task set)."""

    _cache: dict[str | None, TaskIndex] = {}  # noqa: RUF012 — a per-process cache, on purpose
    _guard = threading.Lock()

    def __init__(self, path: str | None) -> None:
        found = task_set(path)
        self.tasks: dict[str, Task] = {t.id: t for t in found.tasks()}
        self.targets: dict[str, Target] = found.targets()

    @classmethod
    def of(cls, path: str | None) -> TaskIndex:
        with cls._guard:
            if path not in cls._cache:
                cls._cache[path] = cls(path)
            return cls._cache[path]

    def task(self, task_id: str) -> tuple[Task, Target]:
        if task_id not in self.tasks:
            raise KeyError(f"task {task_id!r} is not in the task set")
        if task_id not in self.targets:
            raise KeyError(f"task {task_id!r} has no target (run `kopa bench targets`)")
        return self.tasks[task_id], self.targets[task_id]


class EpisodeStore:
    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._episodes: OrderedDict[str, Episode] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_start(self, request_id: str, task: Task, target: Target, backend: Backend) -> Episode:
        """The request's episode; the first call of a request starts it (setup actions run then)."""
        with self._lock:
            episode = self._episodes.get(request_id)
            if episode is not None:
                self._episodes.move_to_end(request_id)
                if episode.env.task.id != task.id:
                    raise ValueError(f"request {request_id} belongs to task {episode.env.task.id}, not {task.id}")
                return episode
        env = Environment(task, backend, budget=target.max_allowed_calls)  # outside the lock: setup may call
        with self._lock:
            episode = self._episodes.setdefault(request_id, Episode(request_id, env))
            while len(self._episodes) > self.capacity:
                self._episodes.popitem(last=False)
            return episode

    def get(self, request_id: str) -> Episode | None:
        with self._lock:
            return self._episodes.get(request_id)

    def drop(self, request_id: str) -> None:
        with self._lock:
            self._episodes.pop(request_id, None)

    def __len__(self) -> int:
        return len(self._episodes)


STORE = EpisodeStore()


def snapshot(episode: Episode) -> dict[str, Any]:
    """What scoring needs of an episode, as plain JSON values: the end state, its hash, the calls."""
    env = episode.env
    return {"request_id": episode.request_id, "task_id": env.task.id,
            "state": orjson.loads(env.state.canonical()), "state_hash": env.state.hash(),
            "calls": [{"tool": c.tool, "arguments": c.arguments, "turn": c.turn, "ok": c.result.ok,
                       "raw_arguments": c.raw_arguments, "malformed": c.malformed,
                       "error": c.result.error.model_dump() if c.result.error else None,
                       "records": len(c.result.records), "total_count": c.result.total_count}
                      for c in env.calls]}
