"""Family A — head/row "OpenAPI 포털" (NEIS, 열린국회정보, 경기데이터드림).

`{SVC:[{head:[{list_total_count},{RESULT:{CODE,MESSAGE}}]},{row:[…]}]}` on success, a top-level
`{RESULT:{CODE,MESSAGE}}` for every error, both as JSON or XML (`Type`, default xml). Requests ask for
JSON, but errors may still come back as XML, so the body decides which parser runs.
"""

from __future__ import annotations

import math
from typing import Any
from xml.etree import ElementTree

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import (
    ErrorTable,
    PageInfo,
    Paging,
    Parsed,
    WireError,
    build_request,
    coded_error,
    http_status_error,
    malformed,
)
from kopa.wire.xmltree import listify, parse_xml

# RESULT.CODE → (class, kind). INFO-200 is "nothing for these filter values": a structural outcome.
CODES: ErrorTable = {
    "INFO-200": ("structural", "no_data"),
    "INFO-300": ("auth", "invalid_key"),
    "ERROR-290": ("auth", "invalid_key"),
    "ERROR-300": ("structural", "missing_param"),
    "ERROR-310": ("structural", "unknown_service"),
    "ERROR-333": ("structural", "bad_param"),
    "ERROR-336": ("structural", "bad_param"),
    "ERROR-337": ("environmental", "rate_limit"),
    "ERROR-500": ("environmental", "server_error"),
    "ERROR-600": ("environmental", "server_error"),
    "ERROR-601": ("environmental", "server_error"),
}
OK_CODE = "INFO-000"


def error_for(code: str, message: str) -> WireError:
    return coded_error(CODES, code, message)


class PortalWire:
    # default 100: neispy's default (the official one is unconfirmed)
    paging: Paging | None = Paging("pIndex", "pSize", max_size=1000, default_size=100)

    def build(self, tool: Tool, args: dict[str, Any], key: str | None) -> httpx.Request:
        # The portal's default is XML; ask for JSON unless the catalog fixed a type.
        typed = "Type" in tool.spec.fixed or "Type" in args
        return build_request(tool, args, key, extra_query=() if typed else (("Type", "json"),))

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if response.status_code == 400:
            # 열린국회정보's WAF: plain `Bad Request.` before the API (e.g. no User-Agent).
            return Parsed(error=WireError(error_class="structural", kind="bad_param", code="400",
                                          message=response.text[:200]))
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        content = response.content
        try:
            if content.lstrip().startswith(b"<"):
                root, tree = parse_xml(content)
                head, rows = _from_xml(root, tree)
            else:
                head, rows = _from_json(orjson.loads(content))
        except (orjson.JSONDecodeError, ElementTree.ParseError, ValueError, TypeError, AttributeError):
            return malformed(response.text)
        code = str(head.get("CODE", ""))
        if code != OK_CODE:
            return Parsed(error=error_for(code, str(head.get("MESSAGE", ""))))
        total = int(head.get("list_total_count") or 0)
        info = _page_info(args, total)
        if not rows:
            return Parsed(total_count=total, page=info,
                          error=WireError(error_class="structural", kind="no_data", code=code,
                                          message="row is empty"))
        return Parsed(records=rows, total_count=total, page=info)


def _from_json(body: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(head fields merged with RESULT, rows). A top-level RESULT is an error with no rows."""
    if not isinstance(body, dict) or not body:
        raise ValueError("not an object")
    if "RESULT" in body:
        return dict(body["RESULT"]), []
    blocks = next(iter(body.values()))
    head: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    for block in blocks:
        for item in block.get("head", []):
            head.update(item.get("RESULT", item))
        rows.extend(listify(block.get("row")))
    return head, rows


def _from_xml(root: str, tree: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if root == "RESULT":
        return dict(tree), []
    if not isinstance(tree, dict):
        raise ValueError("empty XML root")
    head_node = tree.get("head") or {}
    head = {k: v for k, v in head_node.items() if k != "RESULT"}
    head.update(head_node.get("RESULT") or {})
    return head, listify(tree.get("row"))


def _page_info(args: dict[str, Any], total: int) -> PageInfo:
    page, size = _int(args.get("pIndex"), 1), _int(args.get("pSize"), 100)
    return PageInfo(page=page, page_size=size, total_pages=max(1, math.ceil(total / size)))


def _int(value: Any, default: int) -> int:
    try:
        return max(1, int(value)) if value not in (None, "") else default
    except (TypeError, ValueError):
        return default
