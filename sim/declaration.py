"""What a platform package declares about itself (`sim/platforms/<id>/__init__.py` sets `PLATFORM`).

A declaration is data only: it imports no world code, so the registry (`sim.registry`) reads every
platform's hosts, families and keys without building or loading a world.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Alphabet = Literal["hex", "HEX", "digits", "lower"]


@dataclass(frozen=True)
class KeyShape:
    """Length and alphabet of the keys a key system issues."""

    length: int
    alphabet: Alphabet


@dataclass(frozen=True)
class PlatformDeclaration:
    id: str  # the catalog's platform id
    domain: str  # the catalog's domain of its tools
    # The package's API-group modules: each stores world tables (`tables(ctx)`) and serves `ENDPOINTS`.
    groups: tuple[str, ...]
    hosts: dict[str, str]  # every host its endpoints are served on → the envelope family answering there
    key_systems: tuple[str, ...]  # the key systems its tools' services check
    issues: dict[str, KeyShape] = field(default_factory=dict)  # key systems it issues itself, with their shapes
    portal_hosts: dict[str, str] = field(default_factory=dict)  # a portal-family host → the key system it checks
    longtail_hosts: tuple[str, ...] = ()  # hosts whose generated long-tail endpoints are its own
    longtail_agencies: tuple[str, ...] = ()  # data.go.kr gateway agency codes of its long-tail endpoints
