"""Scan cassettes, snapshots and any text for keys that escaped scrubbing.

Looks in every encoding a key can travel in: query strings and JSON/YAML fields named like key
parameters, key headers, the key's path segment (서울 열린데이터광장), and bodies — gzip-compressed,
base64-wrapped, or inside a zip archive included — plus any known key value (KOPA_*_KEY in the
environment) anywhere.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import gzip
import io
import os
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import duckdb

from kopa.record.cassette import EXTENSIONS, CassetteError, decode
from kopa.record.secrets import KEY_HEADERS, LEAK_PATTERN, REDACTED, encoded_forms, path_key_positions

PLACEHOLDERS = frozenset({REDACTED, "FILTERED"})


@dataclass(frozen=True)
class Finding:
    path: str
    where: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.where}: {self.detail}"


def known_key_values() -> list[str]:
    return [v for k, v in os.environ.items() if k.startswith("KOPA_") and k.endswith("_KEY") and len(v) >= 6]


def _mask(value: str) -> str:
    return value[:2] + "…" + f"({len(value)} chars)"


def scan_text(text: str, where: str, path: str, known: Iterable[str] = ()) -> Iterator[Finding]:
    for match in LEAK_PATTERN.finditer(text):
        value = unquote(match.group(2))
        if value not in PLACEHOLDERS and not value.startswith(REDACTED):
            yield Finding(path, where, f"{match.group(1)} carries {_mask(value)}")
    for value in known:
        found = next((form for form in encoded_forms(value) if form in text), None)
        if found is not None:
            how = "" if found == value else ", encoded"
            yield Finding(path, where, f"a configured key value appears ({_mask(value)}{how})")


def _expand(data: bytes) -> Iterator[tuple[str, bytes]]:
    """The bytes, and whatever they decompress or decode to (gzip, zip members, base64)."""
    yield "", data
    if data[:2] == b"\x1f\x8b":
        with contextlib.suppress(OSError, EOFError):
            yield from ((f"gzip{w}", d) for w, d in _expand(gzip.decompress(data)))
    if data[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for name in zf.namelist():
                    yield from ((f"zip:{name}{w}", d) for w, d in _expand(zf.read(name)))
        except zipfile.BadZipFile:
            pass
    stripped = data.strip()
    if len(stripped) >= 16 and stripped[:1] not in (b"{", b"[", b"<") and len(stripped) % 4 == 0:
        try:
            decoded = base64.b64decode(stripped, validate=True)
        except (binascii.Error, ValueError):
            return
        if decoded[:2] == b"\x1f\x8b" or decoded[:4] == b"PK\x03\x04":
            yield from ((f"base64{w}", d) for w, d in _expand(decoded))


def scan_bytes(data: bytes, where: str, path: str, known: Iterable[str] = ()) -> Iterator[Finding]:
    known = list(known)
    for layer, chunk in _expand(data):
        text = chunk.decode("utf-8", errors="replace")
        yield from scan_text(text, where + (f" [{layer}]" if layer else ""), path, known)


def _scan_uri(uri: str, where: str, path: str) -> Iterator[Finding]:
    parts = urlsplit(uri)
    position = path_key_positions().get((parts.hostname or "").lower())
    segments = parts.path.split("/")
    if position is not None and position < len(segments) and segments[position] not in ("", *PLACEHOLDERS):
        yield Finding(path, f"{where} path segment {position}", f"key in the path: {_mask(segments[position])}")


def scan_cassette(path: Path, known: Iterable[str] = ()) -> Iterator[Finding]:
    known = list(known)
    raw = path.read_bytes()
    fmt = next((f for f, ext in EXTENSIONS.items() if path.name.endswith(ext)), "json")
    yield from scan_bytes(raw, "file", str(path), known)
    try:
        document = decode(raw, fmt)
    except Exception as exc:  # an unreadable file is itself a finding
        yield Finding(str(path), "file", f"unreadable ({type(exc).__name__}); cannot vouch for it")
        return
    for i, interaction in enumerate(document.get("interactions", [])):
        request, response = interaction.get("request", {}), interaction.get("response", {})
        yield from _scan_uri(request.get("uri", ""), f"interaction {i} request uri", str(path))
        for name, values in (request.get("headers") or {}).items():
            for value in values:
                if name.lower() in KEY_HEADERS and value not in PLACEHOLDERS:
                    yield Finding(str(path), f"interaction {i} request header {name}", _mask(value))
        body = (response.get("body") or {}).get("string")
        if isinstance(body, dict) and body.get("encoding") == "base64":
            body = base64.b64decode(body["data"])
        if isinstance(body, str):
            body = body.encode("utf-8")
        if isinstance(body, bytes):
            yield from scan_bytes(body, f"interaction {i} response body", str(path), known)


def scan_snapshot(path: Path, known: Iterable[str] = ()) -> Iterator[Finding]:
    known = list(known)
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        yield _unreadable_snapshot(path, exc)
        return
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        for table in tables:
            columns = con.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?", [table]
            ).fetchall()
            for column, dtype in columns:
                if dtype not in ("VARCHAR", "JSON", "BLOB"):
                    continue
                for (value,) in con.execute(f'SELECT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL').fetchall():
                    data = bytes(value) if isinstance(value, bytes | bytearray | memoryview) else str(value).encode()
                    if column == "uri":
                        yield from _scan_uri(data.decode(), f"{table}.{column}", str(path))
                    yield from scan_bytes(data, f"{table}.{column}", str(path), known)
    except duckdb.Error as exc:
        yield _unreadable_snapshot(path, exc)
    finally:
        con.close()


def _unreadable_snapshot(path: Path, exc: duckdb.Error) -> Finding:
    """Like an unreadable cassette, an unreadable (empty, corrupt, truncated) snapshot is itself a finding."""
    detail = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
    return Finding(str(path), "file", f"unreadable snapshot ({detail}); cannot vouch for it")


def scan_paths(paths: Iterable[Path]) -> list[Finding]:
    known = known_key_values()
    findings: list[Finding] = []
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if path.suffix == ".duckdb":
                findings.extend(scan_snapshot(path, known))
            elif any(path.name.endswith(ext) for ext in EXTENSIONS.values()):
                findings.extend(scan_cassette(path, known))
            else:
                findings.extend(scan_bytes(path.read_bytes(), "file", str(path), known))
    return findings


__all__ = ["CassetteError", "Finding", "scan_paths"]
