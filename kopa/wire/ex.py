"""Family E — 한국도로공사: `{code, message, count, pageNo, numOfRows, pageSize, list}`.

`count` may arrive as a string or a number and `pageSize` is the number of pages. The row array is
`list` unless the tool names it (`records_key`: trafficIc, realUnitTrtmVO). The error code strings
are unconfirmed; unknown ones are read as a server-side failure.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import (
    ErrorTable,
    Paging,
    Parsed,
    StandardWire,
    coded_error,
    http_status_error,
    malformed,
    page_outcome,
)
from kopa.wire.xmltree import listify, parse_xml

CODES: ErrorTable = {
    "INVALID_KEY": ("auth", "invalid_key"),
    "NO_DATA": ("structural", "no_data"),
    "INVALID_PARAMETER_VALUE": ("structural", "bad_param"),
    "MISSING_PARAMETER": ("structural", "missing_param"),
    "EXCEEDED_LIMIT": ("environmental", "rate_limit"),
    "SYSTEM_ERROR": ("environmental", "server_error"),
}
OK = "SUCCESS"


class ExWire(StandardWire):
    paging: Paging | None = Paging("pageNo", "numOfRows", max_size=1000, default_size=10)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        content = response.content
        try:
            body = parse_xml(content)[1] if content.lstrip().startswith(b"<") else orjson.loads(content)
        except (orjson.JSONDecodeError, ElementTree.ParseError):
            return malformed(response.text)
        if not isinstance(body, dict) or "code" not in body:
            return malformed(response.text)
        code = str(body["code"])
        if code != OK:
            return Parsed(error=coded_error(CODES, code, str(body.get("message", ""))))
        rows = listify(body.get(tool.spec.records_key or "list"))
        total = _int(body.get("count"), len(rows))
        page = _int(body.get("pageNo"), 1)
        size = _int(body.get("numOfRows"), max(len(rows), 1))
        return page_outcome(rows, total, page, size, code=code, total_pages=_int(body.get("pageSize"), 0),
                            empty="count 0: 조회된 데이터가 없습니다.")


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).replace(",", ""))
    except (TypeError, ValueError):
        return default
