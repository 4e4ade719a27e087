"""The catalog compiled once into the user's cache, so a command does not parse 3.6 MB of YAML at start.

Parsing and validating the YAML takes about two seconds, and a shell chain of `kopa call`s pays it at
every step. The compiled file holds each tool as the JSON of its validated spec (only the fields the
YAML set, so a reloaded model equals the YAML one, `model_fields_set` included) behind a small index,
so a command validates only the tools it touches. Measured on the whole catalog (2,484 tools), a full
load costs about 210 ms as orjson + `model_validate`, 220 ms as `model_validate_json`, 250 ms as pickle
and 330 ms as orjson + a recursive `model_construct`; validating a tool on first use costs about
0.1 ms, so `kopa call` pays for two tools, not 2,484. Every tool is still validated by the same models
as the YAML path: nothing is constructed unchecked.

The cache is keyed by the YAML files' bytes, the catalog package's source (a changed validator or
default must not be served from a file compiled by the old code while the version string stays the
same in development), the kopa and pydantic versions and this file format. A file is trusted only
whole: its SHA-256 covers everything after it, so a truncated, corrupt or foreign file is rebuilt,
never read. Files are written to a temporary name and renamed, so concurrent processes (pytest -n 2,
a shell chain run in parallel) only ever see complete files; two builders write identical bytes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import orjson
import pydantic

import kopa
from kopa.catalog.models import PlatformSpec, ToolSpec
from kopa.fileio import write_atomic

FORMAT = 1
MAGIC = f"kopa-catalog {FORMAT}\n".encode()
KEEP = 8  # compiled files kept per cache folder: enough for a few checkouts or wheels sharing one home


def cache_dir() -> Path:
    """The user cache folder, as for simulator worlds: KOPA_CACHE_DIR, else ~/.cache/kopa."""
    root = os.environ.get("KOPA_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "kopa"


def catalog_key(files: Iterable[Path]) -> str:
    """A digest of everything a compiled catalog depends on (see the module docstring)."""
    h = hashlib.sha256(f"{MAGIC!r} kopa {kopa.__version__} pydantic {pydantic.VERSION}".encode())
    sources = sorted(Path(__file__).parent.glob("*.py"))
    for path in [*sources, *files]:
        data = path.read_bytes()
        h.update(f"\0{path.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def cache_path(key: str, directory: Path | None = None) -> Path:
    return (directory or cache_dir() / "catalog") / f"catalog-{key[:32]}.bin"


@dataclass(frozen=True)
class CompiledPlatform:
    """One platform without its tools (`tools` is empty), with what callers ask of it without
    touching its tools: the tool names in catalog order and the key systems they need."""

    meta: PlatformSpec
    tool_names: list[str]
    key_ids: list[str]


class CompiledCatalog:
    """A verified compiled file: platforms up front, each tool's spec validated on request."""

    def __init__(self, platforms: list[CompiledPlatform], body: bytes, spans: dict[str, tuple[int, int]]) -> None:
        self.platforms = platforms
        self._body = body
        self._spans = spans

    def spec(self, name: str) -> ToolSpec:
        start, end = self._spans[name]
        return ToolSpec.model_validate_json(self._body[start:end])


def key_ids(platform: PlatformSpec) -> list[str]:
    """Key systems a platform's tools need (HRD Korea uses HRD-Net's and data.go.kr's)."""
    return sorted({auth.key_id for t in platform.tools if (auth := t.auth or platform.auth) is not None})


def compile_catalog(platforms: list[PlatformSpec], key: str) -> bytes:
    """The file's bytes: magic, the SHA-256 of the rest, an index line (JSON), then the tools' JSON."""
    body = bytearray()
    index = []
    for p in platforms:
        spans = []
        for spec in p.tools:
            blob = spec.model_dump_json(exclude_unset=True).encode()
            spans.append([spec.name, len(body), len(body) + len(blob)])
            body += blob
        index.append({"meta": p.model_dump(mode="json", exclude_unset=True, exclude={"tools"}),
                      "key_ids": key_ids(p), "tools": spans})
    payload = orjson.dumps({"key": key, "platforms": index}) + b"\n" + bytes(body)
    return MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload


def read_compiled(path: Path, key: str) -> CompiledCatalog | None:
    """The compiled catalog at `path`, or None when it is missing, corrupt or compiled for another key."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    digest, _, payload = data[len(MAGIC):].partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    head, _, body = payload.partition(b"\n")
    try:
        index = orjson.loads(head)
        if index["key"] != key:
            return None
        platforms = []
        spans: dict[str, tuple[int, int]] = {}
        for entry in index["platforms"]:
            names = []
            for name, start, end in entry["tools"]:
                spans[name] = (start, end)
                names.append(name)
            meta = PlatformSpec.model_validate({**entry["meta"], "tools": []})
            platforms.append(CompiledPlatform(meta=meta, tool_names=names, key_ids=list(entry["key_ids"])))
    except (ValueError, KeyError, TypeError):  # a verified file from a format bug: rebuild, do not trust
        return None
    return CompiledCatalog(platforms, body, spans)


def write_compiled(path: Path, data: bytes) -> None:
    """Write atomically (temporary file + rename), then drop all but the newest KEEP compiled files.

    A cache that cannot be written (read-only home, full disk) costs speed, never the command."""
    try:
        write_atomic(path, data)
        _prune(path.parent)
    except OSError:
        pass


def _prune(directory: Path) -> None:
    entries = []
    for p in directory.glob("catalog-*.bin"):
        try:
            entries.append((p.stat().st_mtime, p))
        except OSError:  # removed by a concurrent pruner
            continue
    for _, old in sorted(entries, reverse=True)[KEEP:]:
        old.unlink(missing_ok=True)
