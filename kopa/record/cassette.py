"""Cassettes: vcrpy's cassette document, one interaction per file, named by request fingerprint.

One file per interaction keeps recording append-only (a kill -9 loses at most the exchange in flight,
never a finished one), lets replay read only what it serves (a 225-page fetch never sits in memory at
once), and lets a rerun see what is already recorded. Each file is a standard vcrpy document
(`{"version": 1, "interactions": [...]}`), so vcrpy's own deserializer reads the uncompressed forms.
"""

from __future__ import annotations

import base64
import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeGuard

import orjson
import yaml
from vcr.serializers import yamlserializer

from kopa.errors import UserError
from kopa.fileio import write_atomic
from kopa.record.fingerprint import CanonicalRequest
from kopa.record.secrets import KEY_HEADERS, REDACTED, scrub_bytes, scrub_text

CassetteFormat = Literal["json.gz", "json", "yaml"]
EXTENSIONS: dict[str, str] = {"json.gz": ".json.gz", "json": ".json", "yaml": ".yaml"}
CASSETTE_VERSION = 1
# Response headers that vary per exchange or describe the transfer rather than the answer.
_DROPPED_HEADERS = frozenset({"date", "content-encoding", "content-length", "transfer-encoding", "connection",
                              "set-cookie", "server"})


def is_cassette_format(name: str) -> TypeGuard[CassetteFormat]:
    return name in EXTENSIONS


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP exchange, as replay serves it."""

    fingerprint: str
    method: str
    uri: str
    status: int
    reason: str
    headers: list[tuple[str, str]]
    body: bytes
    metadata: dict[str, Any]


class CassetteError(UserError, ValueError):
    """A cassette file that cannot be read (corrupt, truncated, not a cassette); the message names the
    file in one line."""


def body_out(body: bytes, fmt: str) -> Any:
    """A body as a cassette of format `fmt` stores it: text where it is UTF-8, else bytes (YAML's !!binary) or
    base64 (JSON)."""
    if fmt == "yaml":
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return body  # YAML stores bytes natively (!!binary)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return {"encoding": "base64", "data": base64.b64encode(body).decode("ascii")}


def body_in(value: Any) -> bytes:
    """A stored body (text, bytes or base64) as the bytes that were sent."""
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, dict) and value.get("encoding") == "base64":
        return base64.b64decode(value["data"])
    return str(value).encode("utf-8")


def interaction_document(canonical: CanonicalRequest, request_headers: dict[str, str], status: int, reason: str,
                         headers: list[tuple[str, str]], body: bytes, metadata: dict[str, Any], fmt: str
                         ) -> dict[str, Any]:
    """The vcrpy document for one exchange, with every key removed by name and by value."""
    secrets = canonical.secrets
    req_headers: dict[str, list[str]] = {}
    for name, value in sorted(request_headers.items()):
        if name.lower() in ("host", "content-length", "accept-encoding", "connection"):
            continue
        value = REDACTED if name.lower() in KEY_HEADERS else scrub_text(value, secrets)
        req_headers.setdefault(name, []).append(value)
    resp_headers: dict[str, list[str]] = {}
    for name, value in headers:
        if name.lower() in _DROPPED_HEADERS:
            continue
        resp_headers.setdefault(name, []).append(scrub_text(value, secrets))
    return {
        "version": CASSETTE_VERSION,
        "interactions": [{
            "request": {"method": canonical.method, "uri": canonical.url, "body": None, "headers": req_headers},
            "response": {"status": {"code": status, "message": reason}, "headers": resp_headers,
                         "body": {"string": body_out(scrub_bytes(body, secrets), fmt)}},
        }],
        "metadata": {"kopa": {"fingerprint": canonical.fingerprint, **metadata}},
    }


def encode(document: dict[str, Any], fmt: str) -> bytes:
    if fmt == "yaml":
        return yamlserializer.serialize(document).encode("utf-8")
    data = orjson.dumps(document)
    return gzip.compress(data, compresslevel=1, mtime=0) if fmt == "json.gz" else data


def decode(data: bytes, fmt: str) -> dict[str, Any]:
    if fmt == "yaml":
        return yamlserializer.deserialize(data.decode("utf-8"))
    if fmt == "json.gz":
        data = gzip.decompress(data)
    return orjson.loads(data)


class CassetteStore:
    """A directory of one-interaction cassettes."""

    def __init__(self, root: Path | str, fmt: CassetteFormat = "json.gz") -> None:
        self.root = Path(root)
        self.fmt = fmt
        self.dir = self.root / "interactions"

    def _path(self, fingerprint: str, fmt: str) -> Path:
        return self.dir / fingerprint[:2] / f"{fingerprint}{EXTENSIONS[fmt]}"

    def find(self, fingerprint: str) -> Path | None:
        for fmt in (self.fmt, *[f for f in EXTENSIONS if f != self.fmt]):
            path = self._path(fingerprint, fmt)
            if path.exists():
                return path
        return None

    def has(self, fingerprint: str) -> bool:
        return self.find(fingerprint) is not None

    def write(self, document: dict[str, Any]) -> Path:
        """Atomically: a reader (or a rerun after kill -9) sees the whole file or none of it. No fsync:
        a killed process loses nothing the kernel already holds, and fsync per exchange would make
        recording disk-bound; only a power cut can lose the last exchanges, and a rerun re-records them."""
        fingerprint = document["metadata"]["kopa"]["fingerprint"]
        return write_atomic(self._path(fingerprint, self.fmt), encode(document, self.fmt))

    def read(self, fingerprint: str) -> Exchange:
        path = self.find(fingerprint)
        if path is None:
            raise KeyError(fingerprint)
        return read_exchange(path)

    # the interface the transports use (kopa.record.transports), as UnitCassettes offers it for the default layout

    def serve(self, canonical: CanonicalRequest) -> Exchange | None:
        path = self.find(canonical.fingerprint)
        return read_exchange(path) if path is not None else None

    def reuse(self, canonical: CanonicalRequest) -> Exchange | None:
        return self.serve(canonical)

    def save(self, canonical: CanonicalRequest, request_headers: dict[str, str], status: int, reason: str,
             headers: list[tuple[str, str]], body: bytes, metadata: dict[str, Any]) -> Exchange:
        document = interaction_document(canonical, request_headers, status, reason, headers, body, metadata,
                                        self.fmt)
        return read_exchange(self.write(document))

    def lines(self) -> list[tuple[str, str]]:
        return [(e.method, e.uri) for e in map(self.read, self.fingerprints())]

    def close(self) -> None:
        """Nothing to seal: every exchange is its own file, written whole."""

    def fingerprints(self) -> Iterator[str]:
        if not self.dir.exists():
            return
        for path in sorted(self.dir.glob("*/*")):
            if path.name.startswith("."):  # a write in progress (kopa.fileio.write_atomic)
                continue
            yield path.name.split(".", 1)[0]

    def __len__(self) -> int:
        return sum(1 for _ in self.fingerprints())


def _format_of(path: Path) -> str:
    for fmt, ext in EXTENSIONS.items():
        if path.name.endswith(ext) and (fmt != "json" or not path.name.endswith(".json.gz")):
            return fmt
    raise CassetteError(f"{path}: not a cassette file (expected {', '.join(EXTENSIONS.values())})")


def read_exchange(path: Path) -> Exchange:
    fmt = _format_of(path)
    try:
        document = decode(path.read_bytes(), fmt)
        interaction = document["interactions"][0]
        request, response = interaction["request"], interaction["response"]
        headers = [(name, value) for name, values in response["headers"].items() for value in values]
        meta = document.get("metadata", {}).get("kopa", {})
        return Exchange(
            fingerprint=meta.get("fingerprint", path.name.split(".", 1)[0]),
            method=request["method"], uri=request["uri"], status=int(response["status"]["code"]),
            reason=response["status"].get("message") or "", headers=headers,
            body=body_in(response["body"]["string"]), metadata=meta,
        )
    # A truncated gzip stream raises EOFError, which click would turn into a bare "Aborted!".
    except (OSError, EOFError, zlib.error, ValueError, KeyError, IndexError, TypeError, yaml.YAMLError) as exc:
        raise corrupt(path, exc) from exc


def corrupt(path: Path, exc: BaseException) -> CassetteError:
    """The one line a cassette that cannot be read is reported in, whatever the layout."""
    detail = " ".join(str(exc).split())[:200] or "empty"
    return CassetteError(f"{path}: corrupt or truncated cassette ({type(exc).__name__}: {detail}); delete it and "
                         "rerun the recording to record it again")
