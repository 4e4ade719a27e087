"""Where keys travel, and how to take them out of anything before it is written.

Two nets, both always on: by name (every key parameter, header and path position any platform uses)
and by value (every key value seen on a request is also removed wherever else it appears — an error
page that echoes it, a compressed body).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
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


def scrub_text(text: str, secrets: Iterable[str]) -> str:
    """Every secret value, raw and URL-encoded, replaced."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < 4:
            continue  # too short to be a key; replacing it would corrupt ordinary text
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            text = text.replace(form, REDACTED)
    return text


def scrub_bytes(data: bytes, secrets: Iterable[str]) -> bytes:
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < 4:
            continue
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            data = data.replace(form.encode("utf-8"), REDACTED.encode())
    return data


# A key-looking value next to a key parameter name, in any text (URLs, JSON, YAML, logs).
LEAK_PATTERN = re.compile(
    r"(?:[?&;]|\b)(crtfc_key|serviceKey|ServiceKey|KEY|key|OC|authKey|apiKey|AUTH_KEY)"
    r"""(?:=|["']?\s*:\s*\[?\s*["']?)([A-Za-z0-9%+/=_\-]{6,})""",
)
