"""Named random streams: every random choice draws from a stream named by (seed, purpose, key).

Streams never depend on call order, so adding a table or a platform leaves every other table as it was.
"""

from __future__ import annotations

import hashlib

import numpy as np


def stream(seed: int, purpose: str, key: str = "") -> np.random.Generator:
    digest = hashlib.sha256(f"{seed}\x1f{purpose}\x1f{key}".encode()).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))


def stable_int(*parts: object, bits: int = 64) -> int:
    """A deterministic integer from arbitrary parts (for codes that must not collide by accident)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[: bits // 8], "little")
