"""Transport-neutral request and response: the in-process transport and `kopa sim serve` both
translate to and from these, so the simulator answers identically over either."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl


@dataclass(frozen=True)
class SimRequest:
    method: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...] = ()
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""

    @classmethod
    def from_parts(cls, method: str, host: str, raw_path: str, raw_query: str, headers: dict[str, str],
                   body: bytes = b"") -> SimRequest:
        return cls(
            method=method.upper(),
            host=host.split(":")[0].lower(),
            path=raw_path,
            query=tuple(parse_qsl(raw_query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in headers.items()},
            body=body,
        )

    def arg(self, name: str, *, fold_case: bool = False) -> str | None:
        """The last value of a query parameter (services take the last one when repeated)."""
        value = None
        lname = name.lower()
        for key, v in self.query:
            if key == name or (fold_case and key.lower() == lname):
                value = v
        return value


@dataclass
class SimResponse:
    status: int
    body: bytes
    content_type: str = "application/json;charset=UTF-8"
    headers: dict[str, str] = field(default_factory=dict)
