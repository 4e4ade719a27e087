"""Atomic file writes: a reader, a concurrent process or a rerun after kill -9 sees the whole file or none."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> Path:
    """Write `data` to a temporary file beside `path`, then rename it over `path`.

    The temporary name is unique (mkstemp), so two processes writing the same path never share one; no
    fsync: a killed process loses nothing the kernel already holds, and only a power cut can lose the
    last write, which a rerun redoes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
