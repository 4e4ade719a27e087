"""A canonical request identity that does not depend on the key: the same call made with another key,
another parameter order or another client fingerprints the same, so a cassette recorded with one key
replays for any."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson

from kopa.record.secrets import KEY_HEADERS, KEY_PARAMS, REDACTED, path_key_positions

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class CanonicalRequest:
    method: str
    url: str  # scrubbed, query sorted, default port dropped
    body_sha256: str | None
    secrets: tuple[str, ...]  # the key values this request carried (never written anywhere)

    @property
    def fingerprint(self) -> str:
        data = orjson.dumps({"method": self.method, "url": self.url, "body": self.body_sha256})
        return hashlib.sha256(data).hexdigest()

    def line(self) -> str:
        return f"{self.method} {self.url}"

    def without_keys(self) -> CanonicalRequest:
        """The request as vcrpy's `filter_query_parameters` leaves it: key parameters removed, not redacted —
        what a unit cassette stores, and what a request sent with any key is looked up by."""
        parts = urlsplit(self.url)
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in KEY_PARAMS]
        url = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query, doseq=True), ""))
        return CanonicalRequest(self.method, url, self.body_sha256, self.secrets)


def canonical_request(method: str, url: str, headers: dict[str, str] | None = None, body: bytes = b""
                      ) -> CanonicalRequest:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    secrets: list[str] = []
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(parts.scheme) else f"{host}:{port}"
    segments = parts.path.split("/")
    position = path_key_positions().get(host)
    if position is not None and position < len(segments) and segments[position]:
        secrets.append(segments[position])
        segments[position] = REDACTED
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in KEY_PARAMS:
            if value:
                secrets.append(value)
            value = REDACTED
        query.append((name, value))
    query.sort()
    for name, value in (headers or {}).items():
        if name.lower() in KEY_HEADERS and value:
            secrets.append(value)
    clean = urlunsplit((parts.scheme, netloc, "/".join(segments), urlencode(query, doseq=True), ""))
    digest = hashlib.sha256(body).hexdigest() if body else None
    return CanonicalRequest(method.upper(), clean, digest, tuple(secrets))
