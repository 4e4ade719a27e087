"""API keys as the simulator sees them.

Default mode accepts any non-empty key except the documented invalid values, so any client can be
pointed at the simulator without set-up. Strict mode accepts only keys issued by `issue` (derived
from the world seed, so no shared state is needed between issuer and server) or listed in config.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Literal

from sim.registry import PORTAL_HOST_KEY_SYSTEMS, key_shape

# Values documented to be answered with each service's invalid-key error.
INVALID_KEYS = frozenset({"invalid", "INVALID", "invalid-key", "INVALID_KEY", "expired", "revoked"})

KeyStatus = Literal["ok", "missing", "invalid", "sample"]


@dataclass
class KeyPolicy:
    seed: int = 0
    strict: bool = False
    allowed: frozenset[str] = field(default_factory=frozenset)

    def issue(self, key_id: str) -> str:
        shape = key_shape(key_id)
        length, alphabet = shape.length, shape.alphabet
        digest = hashlib.sha256(f"kopa-sim-key\x1f{self.seed}\x1f{key_id}".encode()).hexdigest() * 2
        if alphabet == "HEX":
            return digest[:length].upper()
        if alphabet == "digits":
            return str(int(digest, 16))[:length]
        if alphabet == "lower":
            return "".join(chr(ord("a") + int(c, 16) % 26) for c in digest[:length])
        return digest[:length]

    @staticmethod
    def portal_key_system(host: str) -> str:
        """The key system a portal-family host checks when an endpoint names none (its platform's)."""
        return PORTAL_HOST_KEY_SYSTEMS.get(host, "portal")

    def check(self, key_id: str, key: str | None, *, sample_key: str | None = None) -> KeyStatus:
        if key is None or key.strip() == "":
            return "missing"
        if sample_key is not None and key == sample_key:
            return "sample"
        if key in INVALID_KEYS:
            return "invalid"
        if self.strict and key != self.issue(key_id) and key not in self.allowed:
            return "invalid"
        return "ok"
