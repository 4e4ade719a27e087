"""One package per catalog platform, found by looking, not by a list.

`sim/platforms/<id>/__init__.py` declares the platform (`PLATFORM`, a `sim.declaration.PlatformDeclaration`:
id, domain, hosts and their envelope families, key systems, API groups); each API group named there is a
module of the package with the world tables it stores (`tables(ctx)`) and the endpoints it serves
(`ENDPOINTS`). Adding a platform is adding a package: the registry, the world build, the simulator and the
fault layer all read `declarations()` and `group_modules()`.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from sim.declaration import PlatformDeclaration


@cache
def declarations() -> tuple[PlatformDeclaration, ...]:
    """Every platform package's declaration, in package-name order (world-free: no group is imported)."""
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{info.name}")
        declaration = getattr(package, "PLATFORM", None)
        if not isinstance(declaration, PlatformDeclaration):
            raise TypeError(f"{package.__name__} declares no PLATFORM (a sim.declaration.PlatformDeclaration)")
        if declaration.id != info.name:
            raise ValueError(f"{package.__name__} declares platform {declaration.id!r}: the package is named by its id")
        found.append(declaration)
    return tuple(found)


@cache
def group_modules() -> tuple[tuple[str, ModuleType], ...]:
    """(platform id, API-group module) for every group every platform declares."""
    return tuple((d.id, importlib.import_module(f"{__name__}.{d.id}.{group}"))
                 for d in declarations() for group in d.groups)
