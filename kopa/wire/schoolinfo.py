"""Family H — 학교알리미 `openApi.do`: `{resultCode, resultMsg, list}`; no paging.

Error resultCode values are undocumented (unconfirmed): any code other than "success" is an error;
the E0nn codes the simulator uses are classified below, anything else as a server-side failure.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import Parsed, WireError, build_request, http_status_error, malformed

CODES: dict[str, tuple[str, str]] = {
    "E001": ("auth", "invalid_key"),
    "E002": ("structural", "missing_param"),
    "E003": ("structural", "bad_param"),
    "E004": ("structural", "bad_param"),
    "E005": ("environmental", "rate_limit"),
    "E999": ("environmental", "server_error"),
}


class SchoolInfoWire:
    def build(self, tool: Tool, args: dict[str, Any], key: str | None) -> httpx.Request:
        return build_request(tool, args, key)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if response.status_code == 404:
            return Parsed(error=WireError(error_class="structural", kind="unknown_service", code="404",
                                          message="Not Found"))
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            return malformed(response.text)
        if not isinstance(body, dict):
            return malformed(response.text)
        code = str(body.get("resultCode", ""))
        if code != "success":
            cls, kind = CODES.get(code, ("environmental", "server_error"))
            return Parsed(error=WireError(error_class=cls, kind=kind, code=code,
                                          message=str(body.get("resultMsg", ""))))
        rows = body.get("list") or []
        if isinstance(rows, dict):
            rows = [rows]
        if not rows:
            return Parsed(total_count=0, error=WireError(error_class="structural", kind="no_data", code=code,
                                                         message="list is empty"))
        return Parsed(records=rows, total_count=len(rows))
