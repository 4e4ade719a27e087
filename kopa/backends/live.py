"""The real hosts, or — with a redirect base URL — the same requests sent to `kopa sim serve`.

Redirected requests keep the real host as the first path segment (and in the Host header's place,
`X-Forwarded-Host`), so the served simulator routes them exactly as the real services would be.
"""

from __future__ import annotations

import httpx


class LiveTransport(httpx.HTTPTransport):
    def __init__(self, redirect: str | None = None) -> None:
        super().__init__(retries=0)
        self.redirect = httpx.URL(redirect) if redirect else None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.redirect is not None:
            original = request.url
            target = self.redirect.copy_with(
                raw_path=b"/" + original.host.encode("ascii") + original.raw_path,
            )
            request.url = target
            request.headers["host"] = target.netloc.decode("ascii")
        return super().handle_request(request)
