"""Family H — 학교알리미 `openApi.do`: `{resultCode, resultMsg, list}`; no paging.

Error resultCode values are undocumented (unconfirmed): any code other than "success" is an error;
the E0nn codes the simulator uses are classified below, anything else as a server-side failure.
"""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import (
    ErrorTable,
    Parsed,
    StandardWire,
    WireError,
    coded_error,
    http_status_error,
    malformed,
)

CODES: ErrorTable = {
    "E001": ("auth", "invalid_key"),
    "E002": ("structural", "missing_param"),
    "E003": ("structural", "bad_param"),
    "E004": ("structural", "bad_param"),
    "E005": ("environmental", "rate_limit"),
    "E999": ("environmental", "server_error"),
}


class SchoolInfoWire(StandardWire):
    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
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
            return Parsed(error=coded_error(CODES, code, str(body.get("resultMsg", ""))))
        rows = body.get("list") or []
        if isinstance(rows, dict):
            rows = [rows]
        if not rows:
            return Parsed(total_count=0, error=WireError(error_class="structural", kind="no_data", code=code,
                                                         message="list is empty"))
        return Parsed(records=rows, total_count=len(rows))
