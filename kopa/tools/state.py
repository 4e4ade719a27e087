"""Per-episode state: issued keys, the virtual date, and any stateful tools' data, with a canonical
SHA-256 hash (the ENVIRONMENT target of KOPA-Bench)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from pydantic import BaseModel, Field, PrivateAttr


class EpisodeState(BaseModel):
    current_date: str = Field(description="YYYY-MM-DD, the episode's 'today'")
    issued: list[str] = Field(default_factory=list, description="key systems whose key has been issued")
    data: dict[str, Any] = Field(default_factory=dict, description="state of stateful tools")
    _keys: dict[str, str] = PrivateAttr(default_factory=dict)  # never serialised, never hashed

    def key_for(self, key_id: str) -> str | None:
        return self._keys.get(key_id)

    def store_key(self, key_id: str, key: str) -> None:
        self._keys[key_id] = key
        if key_id not in self.issued:
            self.issued = sorted([*self.issued, key_id])

    def canonical(self) -> bytes:
        return orjson.dumps(self.model_dump(), option=orjson.OPT_SORT_KEYS)

    def hash(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()
