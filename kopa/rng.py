"""Named random streams: every draw in kopa comes from one, so a result depends on (seed, purpose, key)
alone — never on the order in which other work drew (the same scheme as the simulator's; kopa never
imports sim for it)."""

from __future__ import annotations

import hashlib

import numpy as np


def stream(seed: int, purpose: str, key: str = "") -> np.random.Generator:
    """The generator for `purpose` (and `key`) under `seed`."""
    digest = hashlib.sha256(f"{seed}\x1f{purpose}\x1f{key}".encode()).digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest[:16], "little")))
