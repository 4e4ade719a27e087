"""Backends are httpx transports (DESIGN.md decision 1): requests carry the real hosts and paths in
every backend, and nothing above the transport branches on which one it is."""

from kopa.backends.base import Backend, BackendError
from kopa.backends.spec import open_backend, shared_backend

__all__ = ["Backend", "BackendError", "open_backend", "shared_backend"]
