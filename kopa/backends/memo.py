"""Answers a backend gave, kept by what was asked: least recently used dropped beyond a size limit.

The in-process simulator answers a call from the call alone (its world, keys and drift are fixed when it is
built), so an answer it gave once is the answer it would give again. Synthesis and its filter execute the
same chain prefixes and start pages over and over; keeping the parsed answer saves the request, the
simulator and the parsing (four of five of synthesis' calls repeat one made before).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

import orjson

# What a page of records takes in memory as Python objects, per byte of its JSON: 3.3 (a page of 1,000 bills)
# to 4.9 (ten small records) measured with tracemalloc; an answer kept as objects counts this much.
OBJECT_BYTES_PER_JSON_BYTE = 4


def keepable(records: list[dict[str, Any]]) -> tuple[tuple[dict[str, Any], ...] | bytes, int]:
    """Records as an answer is kept, and the bytes it counts: flat records (every value a scalar, as nearly
    every service answers) as copies of the objects, which `own_copy` copies again for each caller (five times
    cheaper than decoding JSON, which was a tenth of synthesis); records holding lists or dicts as JSON."""
    data = orjson.dumps(records)
    if all(not isinstance(v, dict | list) for r in records for v in r.values()):
        return tuple(dict(r) for r in records), len(data) * OBJECT_BYTES_PER_JSON_BYTE
    return data, len(data)


def own_copy(kept: tuple[dict[str, Any], ...] | bytes) -> list[dict[str, Any]]:
    """A caller's own records from a kept answer: it may change them (each record is a new dict, and a flat
    record's values are immutable scalars)."""
    if isinstance(kept, bytes):
        return orjson.loads(kept)
    return [dict(r) for r in kept]


class AnswerMemo:
    """Thread-safe LRU of answers, each with the size it counts against `limit_bytes`."""

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        self.used_bytes = 0
        self._answers: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._answers)

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            kept = self._answers.get(key)
            if kept is None:
                return None
            self._answers.move_to_end(key)
            return kept[0]

    def put(self, key: Hashable, answer: Any, size: int) -> None:
        """Keep `answer` unless it alone is over the limit (it would only push every other answer out)."""
        if size > self.limit_bytes:
            return
        with self._lock:
            if key in self._answers:
                return
            self._answers[key] = (answer, size)
            self.used_bytes += size
            while self.used_bytes > self.limit_bytes:
                _, (_, dropped) = self._answers.popitem(last=False)
                self.used_bytes -= dropped
