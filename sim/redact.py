"""Keys out of everything `kopa sim serve` logs.

The README promises that keys never appear in logs. The simulator may not import kopa (the layers
flow down), so this is the simulator's own scrubber, kept in step with `kopa.record.secrets` by a test
rather than by an import. Two nets, as there: by position (every key parameter, header and path
segment a platform uses is replaced where it stands) and by value (every key value seen on the
request is removed wherever else it appears in the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

REDACTED = "REDACTED"

# Query parameters that carry keys on the platforms (and their common spellings), compared without
# case: scrubbing a log line too eagerly costs nothing, leaking a key costs the key.
KEY_PARAMS = frozenset({"crtfc_key", "servicekey", "key", "oc", "authkey", "apikey", "auth_key", "api_key"})
KEY_HEADERS = frozenset({"auth_key", "authorization", "x-api-key"})
# Family → index of the key among the path segments after the host (서울 열린데이터광장:
# /{KEY}/{TYPE}/{SERVICE}/…, as sim/families/seoul.py reads it).
PATH_KEY_FAMILIES: Mapping[str, int] = {"seoul": 0}

# A value next to a key name in text that is not a request target (an exception message, a raw line).
_NAMED_VALUE = re.compile(
    r"(?i)(?<![A-Za-z0-9_])(crtfc_key|servicekey|key|oc|authkey|apikey|auth_key|api_key)"
    r"""(=|%3D|["']?\s*:\s*["']?)([^&\s"',;)}\]]+)""")
_SHORTEST_VALUE = 4  # below this a value-wide replace would corrupt ordinary text; positions still catch it


class Redactor:
    """Scrubs request targets and log lines for one simulator's hosts."""

    def __init__(self, host_family: Mapping[str, str]) -> None:
        self.known_hosts = frozenset(host_family)
        self.path_key = {host: PATH_KEY_FAMILIES[family] for host, family in host_family.items()
                         if family in PATH_KEY_FAMILIES}

    def _split(self, target: str, host: str) -> tuple[str, list[str], int | None, str]:
        """(everything before the key's segments, the segments, index of the key among them, query)."""
        if target.startswith("//"):  # a path, not a network location (the handler reduces it so too)
            target = "/" + target.lstrip("/")
        parts = urlsplit(target)
        hosts = [host]
        head = ""
        if parts.netloc:  # absolute-form: the simulator routes by Host, but a key there is a key all the same
            head = f"{parts.scheme}://{parts.netloc}"
            hosts.append(parts.hostname or "")
        path = parts.path
        # The simulator strips leading slashes, routes by a first segment naming a host, then (Seoul)
        # strips leading slashes again and counts segments from there.
        body = path.lstrip("/")
        head += path[: len(path) - len(body)]
        first, sep, rest = body.partition("/")
        if unquote(first).lower() in self.known_hosts:
            hosts = [unquote(first)]
            inner = rest.lstrip("/")
            head += first + sep + rest[: len(rest) - len(inner)]
            body = inner
        index = next((self.path_key[h] for h in (h.split(":")[0].lower() for h in hosts) if h in self.path_key),
                     None)
        return head, body.split("/"), index, parts.query

    def target(self, target: str, host: str) -> str:
        """The request target with every key replaced where it stands."""
        head, segments, index, query = self._split(target, host)
        if index is not None and index < len(segments) and segments[index]:
            segments = [*segments[:index], REDACTED, *segments[index + 1:]]
        scrubbed = head + "/".join(segments)
        if query:
            pieces = []
            for piece in query.split("&"):
                name, eq, _ = piece.partition("=")
                pieces.append(f"{name}={REDACTED}" if eq and unquote_plus(name).lower() in KEY_PARAMS else piece)
            scrubbed += "?" + "&".join(pieces)
        return scrubbed

    def secrets(self, target: str, host: str, headers: Mapping[str, str]) -> set[str]:
        """Every key value the request carries, as the simulator will read it."""
        _, segments, index, query = self._split(target, host)
        values = set()
        if index is not None and index < len(segments):
            values.add(unquote(segments[index]).strip())
        for piece in query.split("&"):
            name, eq, value = piece.partition("=")
            if eq and unquote_plus(name).lower() in KEY_PARAMS:
                values.update({value, unquote_plus(value)})
        values.update(v for k, v in headers.items() if k.lower() in KEY_HEADERS)
        return {v for v in values if v}


def scrub_line(line: str, secrets: Iterable[str] = ()) -> str:
    """A log line with every known key value (raw or URL-encoded) and every `name=value` key removed."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < _SHORTEST_VALUE or secret == REDACTED:
            continue
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            line = line.replace(form, REDACTED)
    return _NAMED_VALUE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, line)
