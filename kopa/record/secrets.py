"""Where keys travel, and how to take them out of anything before it is written.

Two nets, both always on: by name (every key parameter, header and path position any platform uses)
and by value (every key value seen on a request is also removed wherever else it appears — an error
page that echoes it, a compressed body).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from functools import cache, lru_cache
from urllib.parse import quote, quote_plus

from kopa.catalog import load_catalog

REDACTED = "REDACTED"

# Query parameters that carry keys on the ten platforms (and their common spellings).
KEY_PARAMS = frozenset({"crtfc_key", "serviceKey", "ServiceKey", "servicekey", "KEY", "Key", "key", "OC", "authKey",
                        "apiKey", "AUTH_KEY", "auth_key", "api_key"})
KEY_HEADERS = frozenset({"auth_key", "authorization", "x-api-key"})


@cache
def path_key_positions() -> dict[str, int]:
    """host → index of the path segment holding the key (서울 열린데이터광장: /{KEY}/{TYPE}/…)."""
    positions: dict[str, int] = {}
    for tool in load_catalog():
        if tool.auth is not None and tool.auth.location == "path":
            segments = tool.spec.path.split("/")
            host = tool.base_url.split("://", 1)[-1].split("/", 1)[0].split(":")[0].lower()
            positions[host] = segments.index("{" + tool.auth.name + "}")
    return positions


# base64 of a key that starts 0, 1 or 2 bytes into the encoded text (inside "Basic user:KEY", or on its own)
# shares no prefix across the three alignments: each gives a core only the key's bytes decide
_MIN_BASE64_CORE = 8


def _base64_cores(secret: str) -> list[str]:
    """The runs of base64 text that encode `secret` whatever precedes or follows it: for each of the three
    byte alignments, the encoding of the groups made of the key's bytes alone (standard and URL-safe)."""
    raw = secret.encode("utf-8")
    cores: list[str] = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        start = 4 if shift else 0  # the first group mixes the bytes before the key with the key's own
        end = 4 * ((shift + len(raw)) // 3)  # a last group the key does not fill mixes what follows it
        core = encoded[start:end]
        if len(core) >= _MIN_BASE64_CORE:
            cores += [core, core.replace("+", "-").replace("/", "_")]
    return cores


@lru_cache(maxsize=256)  # scrubbing runs on every recorded exchange, with the same few keys
def encoded_forms(secret: str) -> tuple[str, ...]:
    """A secret as text can carry it: raw, URL-encoded (both ways), and base64 at any alignment (a Basic
    authorization header, a body a server echoes encoded), longest first."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret), *_base64_cores(secret)}
    return tuple(sorted(forms, key=len, reverse=True))


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """Every secret value replaced, in each of its encoded forms."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < 4:
            continue  # too short to be a key; replacing it would corrupt ordinary text
        for form in encoded_forms(secret):
            text = text.replace(form, REDACTED)
    return text


def scrub_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < 4:
            continue
        for form in encoded_forms(secret):
            data = data.replace(form.encode("utf-8"), REDACTED.encode())
    return data


# A key-looking value next to a key parameter name, in any text (URLs, JSON, YAML, logs).
LEAK_PATTERN = re.compile(
    r"(?:[?&;]|\b)(crtfc_key|serviceKey|ServiceKey|KEY|key|OC|authKey|apiKey|AUTH_KEY)"
    r"""(?:=|["']?\s*:\s*\[?\s*["']?)([A-Za-z0-9%+/=_\-]{6,})""",
)
