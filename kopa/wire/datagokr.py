"""Family B — 공공데이터포털 gateway: `response.header/body`, gateway errors as XML `OpenAPI_ServiceResponse`."""

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
    WireError,
    coded_error,
    http_status_error,
    malformed,
    page_outcome,
)
from kopa.wire.xmltree import listify, parse_xml

# resultCode / returnReasonCode → (class, kind)
CODES: ErrorTable = {
    "01": ("environmental", "server_error"),
    "02": ("environmental", "server_error"),
    "03": ("structural", "no_data"),
    "04": ("environmental", "server_error"),
    "05": ("environmental", "timeout"),
    "10": ("structural", "bad_param"),
    "11": ("structural", "missing_param"),
    "12": ("structural", "unknown_service"),
    "20": ("auth", "access_denied"),
    "21": ("auth", "invalid_key"),
    "22": ("environmental", "rate_limit"),
    "30": ("auth", "invalid_key"),
    "31": ("auth", "invalid_key"),
    "32": ("auth", "unregistered_ip"),
    "33": ("auth", "invalid_key"),
    "99": ("environmental", "server_error"),
    "930": ("structural", "bad_param"),  # Q-Net: numOfRows over its maximum
}
OK_CODES = {"00", "0", "000"}


def error_for(code: str, message: str) -> WireError:
    return coded_error(CODES, code, message)


class DataGoKrWire(StandardWire):
    paging: Paging | None = Paging("pageNo", "numOfRows", max_size=1000, default_size=10)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        content = response.content
        try:
            if content.lstrip().startswith(b"<"):
                root, tree = parse_xml(content)
            else:
                body = orjson.loads(content)
                root, tree = next(iter(body.items())) if isinstance(body, dict) and body else ("", None)
        except (orjson.JSONDecodeError, ElementTree.ParseError):
            return malformed(response.text)
        if root == "OpenAPI_ServiceResponse" or (isinstance(tree, dict) and "cmmMsgHeader" in tree):
            header = tree.get("cmmMsgHeader", tree) if isinstance(tree, dict) else {}
            return Parsed(error=error_for(str(header.get("returnReasonCode", "99")),
                                          str(header.get("returnAuthMsg", header.get("errMsg", "")))))
        if root != "response" or not isinstance(tree, dict):
            return malformed(response.text)
        header = tree.get("header", {})
        code = str(header.get("resultCode", ""))
        if code not in OK_CODES:
            return Parsed(error=error_for(code, str(header.get("resultMsg", ""))))
        body = tree.get("body", {}) or {}
        items = body.get("items")
        rows = listify(items.get("item") if isinstance(items, dict) else items)
        total = int(body.get("totalCount") or 0)
        page = int(body.get("pageNo") or 1)
        size = int(body.get("numOfRows") or max(len(rows), 1))
        return page_outcome(rows, total, page, size, code="00", empty="items is empty")
