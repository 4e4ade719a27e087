"""Which cassette an exchange belongs to: the unit of work a command is doing when it makes the request — an
episode, a synthesized task, a generated sample — or, outside any, the command run itself.

vcrpy users keep one cassette per test; a recording keeps one per unit, so a colleague replays one episode
with stock vcrpy exactly as they would replay one of their tests. The unit travels in a context variable
(each thread, and each asyncio task, has its own), set by the code that knows what it is doing:

    with cassette_unit(f"{task.id}.s{seed}"):
        play(task)

When a unit ends, every open recording is told (`on_unit_end`), and seals the unit's cassette if it wrote one.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

RUN_UNIT = "run"  # exchanges made outside any unit: the command run's own cassette
_UNIT: ContextVar[str] = ContextVar("kopa_cassette_unit", default=RUN_UNIT)


class UnitListener(Protocol):
    def unit_ended(self, unit: str) -> None: ...


_LISTENERS: weakref.WeakSet[UnitListener] = weakref.WeakSet()
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def unit_name(name: str) -> str:
    """`name` as a file name on every system: other characters become `_`, and no leading dot (hidden)."""
    safe = _UNSAFE.sub("_", name).lstrip(".")[:180]
    return safe or RUN_UNIT


def current_unit() -> str:
    return _UNIT.get()


@contextmanager
def cassette_unit(name: str) -> Iterator[str]:
    """Exchanges made inside go into the cassette named `name` (made file-safe); it is sealed on the way out."""
    unit = unit_name(name)
    token = _UNIT.set(unit)
    try:
        yield unit
    finally:
        _UNIT.reset(token)
        for listener in list(_LISTENERS):
            listener.unit_ended(unit)


def on_unit_end(listener: UnitListener) -> None:
    """`listener.unit_ended(unit)` whenever a unit ends, for as long as the listener lives."""
    _LISTENERS.add(listener)
