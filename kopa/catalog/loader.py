"""Load the per-platform catalog files into typed tools."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from kopa.catalog.cache import (
    CompiledCatalog,
    cache_path,
    catalog_key,
    compile_catalog,
    key_ids,
    read_compiled,
    write_compiled,
)
from kopa.catalog.models import ParamSpec, PlatformSpec, Tool, ToolSpec
from kopa.errors import UserError


class CatalogError(UserError, ValueError):
    """A catalog file that does not validate; the message names the file and the field."""


def _data_dir() -> Path:
    """The packaged YAML files. A plain path, not importlib.resources: the files are globbed and read
    from disk anyway, and resources' first use costs a `kopa` start several milliseconds."""
    return Path(__file__).resolve().parent / "data"


def _read_yaml(path: Path) -> object:
    """The file's data, by libyaml's safe loader when the wheel has it (about ten times faster than the
    pure-Python one)."""
    import yaml  # deferred: a start from the compiled cache never needs it

    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def load_platform_file(path: Path) -> PlatformSpec:
    import yaml  # deferred, as in _read_yaml

    try:
        return PlatformSpec.model_validate(_read_yaml(path))
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
    import yaml  # deferred, as in _read_yaml

    try:
        ext = PlatformExtension.model_validate(_read_yaml(path))
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
    return _fill_platform_enums(list(platforms.values()))


def _fill_platform_enums(platforms: list[PlatformSpec]) -> list[PlatformSpec]:
    """A parameter with `enum_from: platforms` (issue_api_key's `platform`) gets every platform that has
    tools of its own, by id, each named in the description as its file's `short_name` says."""
    named = sorted((p for p in platforms if p.family != "session"), key=lambda p: p.id)
    for p in named:
        if p.short_name is None:
            raise CatalogError(f"{p.id}.yaml: short_name is missing (issue_api_key's platform list names it)")
    listing = ", ".join(f"{p.id} {p.short_name}" for p in named)

    def fill(param: ParamSpec) -> ParamSpec:
        if param.enum_from != "platforms":
            return param
        spelled = param.model_dump(exclude_unset=True, exclude={"enum_from"})
        return ParamSpec.model_validate({**spelled, "enum": [p.id for p in named],
                                         "description": f"{param.description} ({listing})"})

    def filled(tool: ToolSpec) -> ToolSpec:
        if not any(q.enum_from for q in tool.params):
            return tool  # untouched, so its dump (and the compiled cache) stays as it was
        return tool.model_copy(update={"params": [fill(q) for q in tool.params]})

    return [p.model_copy(update={"tools": [filled(t) for t in p.tools]}) for p in platforms]

V = TypeVar("V")


class _Lazy(Mapping[str, V]):
    """Keys known up front; each value built on first access and kept (a cached catalog validates a
    tool only when it is used). Concurrent first accesses may both build; one equal value is kept."""

    def __init__(self, keys: Iterable[str], build: Callable[[str], V]) -> None:
        self._keys = dict.fromkeys(keys)
        self._build = build
        self._built: dict[str, V] = {}

    def __getitem__(self, key: str) -> V:
        value = self._built.get(key)
        if value is None:
            if key not in self._keys:
                raise KeyError(key)
            value = self._built.setdefault(key, self._build(key))
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def _resolve(platform: PlatformSpec, spec: ToolSpec) -> Tool:
    """The tool with its platform's defaults applied."""
    return Tool(
        spec=spec,
        platform=platform.id,
        domain=platform.domain,
        family=spec.family or platform.family,
        base_url=spec.base_url or platform.base_url,
        auth=spec.auth or platform.auth,
    )


class Catalog:
    """Every tool of every platform, by name.

    Built from validated platforms (the YAML path), or from a compiled cache (`from_compiled`) whose
    tools are validated one by one on first use: a `kopa call` touches two tools of 2,484. Both give
    equal catalogs; `platforms` and `tools` are read-only mappings in catalog order either way.
    """

    platforms: Mapping[str, PlatformSpec]
    tools: Mapping[str, Tool]
    # set only by `from_compiled`: what a lazy catalog resolves its tools and platforms from
    _compiled: CompiledCatalog
    _metas: dict[str, PlatformSpec]
    _platform_of: dict[str, str]

    def __init__(self, platforms: list[PlatformSpec]) -> None:
        tools: dict[str, Tool] = {}
        for platform in platforms:
            for spec in platform.tools:
                if spec.name in tools:
                    raise CatalogError(f"tool {spec.name!r} is defined twice")
                tools[spec.name] = _resolve(platform, spec)
        self.platforms = {p.id: p for p in platforms}
        self.tools = tools
        self._tool_names = {p.id: [t.name for t in p.tools] for p in platforms}
        self._key_ids = {p.id: key_ids(p) for p in platforms}

    @classmethod
    def from_compiled(cls, compiled: CompiledCatalog) -> Catalog:
        self = cls.__new__(cls)
        self._compiled = compiled
        self._metas = {p.meta.id: p.meta for p in compiled.platforms}
        self._tool_names = {p.meta.id: p.tool_names for p in compiled.platforms}
        self._key_ids = {p.meta.id: p.key_ids for p in compiled.platforms}
        self._platform_of = {name: p.meta.id for p in compiled.platforms for name in p.tool_names}
        self.tools = _Lazy(self._platform_of, self._compiled_tool)
        self.platforms = _Lazy(self._metas, self._compiled_platform)
        return self

    def _compiled_tool(self, name: str) -> Tool:
        return _resolve(self._metas[self._platform_of[name]], self._compiled.spec(name))

    def _compiled_platform(self, platform: str) -> PlatformSpec:
        tools = [self.tools[name].spec for name in self._tool_names[platform]]
        return self._metas[platform].model_copy(update={"tools": tools})

    def __eq__(self, other: object) -> bool:
        """The same platforms, tools and order (every tool derives from its platform), however loaded."""
        if not isinstance(other, Catalog):
            return NotImplemented
        return list(self.platforms.items()) == list(other.platforms.items())

    __hash__ = None  # type: ignore[assignment]  # equal by content, so not hashable by identity

    def __getitem__(self, name: str) -> Tool:
        try:
            return self.tools[name]
        except KeyError:
            raise KeyError(f"unknown tool {name!r}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def by_platform(self, platform: str) -> list[Tool]:
        return [self.tools[name] for name in self._tool_names.get(platform, [])]

    def key_ids(self, platform: str) -> list[str]:
        """Key systems a platform's tools need (HRD Korea uses HRD-Net's and data.go.kr's)."""
        return self._key_ids.get(platform, [])


def catalog_files() -> list[Path]:
    return sorted(_data_dir().glob("*.yaml"))


def load_catalog_yaml(files: list[Path] | None = None) -> Catalog:
    """The catalog parsed and validated from its YAML files (what the compiled cache is built from)."""
    return Catalog(merge_files(files if files is not None else catalog_files()))


def load_catalog_from(files: list[Path], directory: Path | None = None) -> Catalog:
    """The catalog of `files` from its compiled cache in `directory` (default: the user cache), compiled
    from the YAML first when the cache is missing, stale or corrupt (see kopa.catalog.cache)."""
    key = catalog_key(files)
    path = cache_path(key, directory)
    compiled = read_compiled(path, key)
    if compiled is not None:
        return Catalog.from_compiled(compiled)
    platforms = merge_files(files)
    catalog = Catalog(platforms)
    write_compiled(path, compile_catalog(platforms, key))
    return catalog


@cache
def load_catalog() -> Catalog:
    """The packaged catalog, once per process."""
    return load_catalog_from(catalog_files())
