"""Family D — KRX Open API: `{"OutBlock_1": [...]}`; errors are HTTP statuses with `{respMsg, respCode}`."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import Parsed, StandardWire, WireError, http_status_error, malformed


class KrxWire(StandardWire):
    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        status = response.status_code
        if status in (401, 403):
            return Parsed(error=WireError(error_class="auth", kind="invalid_key", code=str(status),
                                          message=_msg(response)))
        if status in (400, 404):
            kind = "bad_param" if status == 400 else "unknown_service"
            return Parsed(error=WireError(error_class="structural", kind=kind, code=str(status),
                                          message=_msg(response)))
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        try:
            body = orjson.loads(response.content)
            rows = body["OutBlock_1"]
        except (orjson.JSONDecodeError, KeyError, TypeError):
            return malformed(response.text)
        if not rows:
            return Parsed(error=WireError(error_class="structural", kind="no_data", code="empty",
                                          message="OutBlock_1 is empty (휴장일 또는 데이터 없음)"))
        return Parsed(records=rows, total_count=len(rows))


def _msg(response: httpx.Response) -> str:
    try:
        return str(orjson.loads(response.content).get("respMsg", response.text))
    except (orjson.JSONDecodeError, AttributeError):
        return response.text[:200]
