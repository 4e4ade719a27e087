"""matplotlib for the figures reports write: pyplot on the file-only Agg backend, imported on first use."""

from __future__ import annotations

from types import ModuleType


def pyplot() -> ModuleType:
    """`matplotlib.pyplot`, drawing to files only (no display is needed or opened)."""
    # deferred: matplotlib costs a process about 0.3 s, and only the commands that write a report draw
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
