"""Clocks: backoff and timeouts wait on the backend's clock. In-process backends use a virtual one, so a
run at the `harsh` fault profile costs no real seconds; live backends wait for real."""

from __future__ import annotations

import threading
import time


class RealClock:
    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    @property
    def waited(self) -> float:
        return 0.0


class VirtualClock:
    """Accumulates the seconds it was asked to wait, and returns at once."""

    def __init__(self) -> None:
        self._waited = 0.0
        self._lock = threading.Lock()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            with self._lock:
                self._waited += seconds

    @property
    def waited(self) -> float:
        return self._waited
