"""Load the per-platform catalog files into typed tools."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from kopa.catalog.models import PlatformSpec, Tool, ToolSpec
from kopa.errors import UserError

# libyaml's safe loader when the wheel has it (about ten times faster than the pure-Python one).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CatalogError(UserError, ValueError):
    """A catalog file that does not validate; the message names the file and the field."""


def _data_dir() -> Path:
    return Path(str(resources.files("kopa.catalog") / "data"))


def load_platform_file(path: Path) -> PlatformSpec:
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
        return PlatformSpec.model_validate(raw)
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path.name}: {exc}") from exc


class PlatformExtension(BaseModel):
    """A file `<platform>_<part>.yaml` adding tools to the platform declared in `<platform>.yaml`
    (e.g. the generated long tail); the platform's defaults apply to its tools as to the base file's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    extends: Literal[True]
    tools: list[ToolSpec]


def load_extension_file(path: Path) -> PlatformExtension:
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
        ext = PlatformExtension.model_validate(raw)
    except (yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path.name}: {exc}") from exc
    if not path.stem.startswith(f"{ext.id}_"):
        raise CatalogError(f"{path.name}: extends platform {ext.id!r} but is not named {ext.id}_*.yaml")
    return ext


def merge_files(files: list[Path]) -> list[PlatformSpec]:
    """Base files (`<platform>.yaml`) first, then each `<platform>_*.yaml` appends its tools, in file order."""
    bases = {f: load_platform_file(f) for f in files if "_" not in f.stem}
    platforms = {p.id: p for p in bases.values()}
    for f in files:
        if "_" not in f.stem:
            continue
        ext = load_extension_file(f)
        if ext.id not in platforms:
            raise CatalogError(f"{f.name}: extends unknown platform {ext.id!r}")
        base = platforms[ext.id]
        platforms[ext.id] = base.model_copy(update={"tools": [*base.tools, *ext.tools]})
    return list(platforms.values())


class Catalog:
    """Every tool of every platform, by name."""

    def __init__(self, platforms: list[PlatformSpec]) -> None:
        self.platforms = {p.id: p for p in platforms}
        self.tools: dict[str, Tool] = {}
        for platform in platforms:
            for spec in platform.tools:
                if spec.name in self.tools:
                    raise CatalogError(f"tool {spec.name!r} is defined twice")
                self.tools[spec.name] = Tool(
                    spec=spec,
                    platform=platform.id,
                    domain=platform.domain,
                    family=spec.family or platform.family,
                    base_url=spec.base_url or platform.base_url,
                    auth=spec.auth or platform.auth,
                )

    def __getitem__(self, name: str) -> Tool:
        try:
            return self.tools[name]
        except KeyError:
            raise KeyError(f"unknown tool {name!r}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def __iter__(self):
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def by_platform(self, platform: str) -> list[Tool]:
        return [t for t in self.tools.values() if t.platform == platform]

    def key_ids(self, platform: str) -> list[str]:
        """Key systems a platform's tools need (HRD Korea uses HRD-Net's and data.go.kr's)."""
        return sorted({t.auth.key_id for t in self.by_platform(platform) if t.auth})


@cache
def load_catalog() -> Catalog:
    files = sorted(_data_dir().glob("*.yaml"))
    return Catalog(merge_files(files))
