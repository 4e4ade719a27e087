"""Family F — 국가법령정보센터 DRF: Korean-keyed lists (`{LawSearch:{totalCnt,page,law:[…]}}`) and bodies
(`{법령:{기본정보,조문:{조문단위:[…]}}}`), every error with HTTP 200.

Errors have no codes on this service: a user-verification failure is `{result, msg}` (the same body for
a wrong OC and an unregistered IP), a body that finds nothing is `{"Law": "일치하는 … 없습니다."}`, and
an empty list is `totalCnt` 0. The `code` of a WireError carries the service's `result` text.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

import httpx
import orjson

from kopa.catalog.models import Tool
from kopa.wire.base import (
    Paging,
    Parsed,
    StandardWire,
    WireError,
    http_status_error,
    malformed,
    page_outcome,
)
from kopa.wire.xmltree import listify, parse_xml

AUTH_MARK = "사용자 정보 검증"
DEFAULT_DISPLAY = 20  # unconfirmed (platforms.md §8)
MAX_DISPLAY = 100


class LawWire(StandardWire):
    paging: Paging | None = Paging("page", "display", max_size=100, default_size=20)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        body = _decode(response.content)
        if body is None:
            return malformed(response.text)
        if (err := _error(body)) is not None:
            return Parsed(error=err)
        if tool.spec.shape == "nested":
            return _nested(tool, body)
        return _listing(tool, args, body)


def _decode(content: bytes) -> dict[str, Any] | None:
    """The body as `{root: tree}`, whether JSON or XML was answered; None when it does not parse."""
    try:
        if content.lstrip().startswith(b"<"):
            root, tree = parse_xml(content)
            return {root: tree}
        body = orjson.loads(content)
    except (orjson.JSONDecodeError, ElementTree.ParseError):
        return None
    return body if isinstance(body, dict) and body else None


# The simulator's (unconfirmed) daily-limit answer: {"result": "일일 호출 한도를 초과하였습니다.", "msg": …}.
RATE_LIMIT_MARK = "호출 한도"


def _error(body: dict[str, Any]) -> WireError | None:
    flat = body
    if len(body) == 1:
        only = next(iter(body.values()))
        if isinstance(only, dict) and "result" in only and "msg" in only:
            flat = only  # the XML form <Law><result/><msg/></Law>
    if "result" in flat and "msg" in flat:
        result, msg = str(flat["result"]), str(flat["msg"])
        if AUTH_MARK in result:
            return WireError(error_class="auth", kind="invalid_key", code=result, message=msg)
        if RATE_LIMIT_MARK in result:
            return WireError(error_class="environmental", kind="rate_limit", code=result, message=msg)
        return WireError(error_class="structural", kind="unknown_service", code=result, message=msg)
    if isinstance(body.get("Law"), str):
        return WireError(error_class="structural", kind="no_data", code="Law", message=body["Law"])
    return None


def _nested(tool: Tool, body: dict[str, Any]) -> Parsed:
    node: Any = body
    for step in tool.spec.records_path or []:
        node = node.get(step) if isinstance(node, dict) else None
        if node in (None, ""):
            return Parsed(error=WireError(error_class="structural", kind="no_data", code="",
                                          message=f"no {step!r} in the answer"))
    rows = listify(node)
    return Parsed(records=rows, total_count=len(rows))


def _listing(tool: Tool, args: dict[str, Any], body: dict[str, Any]) -> Parsed:
    root = next(iter(body.values()))
    if not isinstance(root, dict) or "totalCnt" not in root:
        return malformed(orjson.dumps(body).decode()[:200])
    key = tool.spec.records_key or tool.spec.fixed.get("target", "law")
    rows = listify(root.get(key))
    total = int(root.get("totalCnt") or 0)
    page = int(root.get("page") or 1)
    try:
        size = int(args.get("display") or DEFAULT_DISPLAY)
    except (TypeError, ValueError):
        size = DEFAULT_DISPLAY
    size = min(max(size, 1), MAX_DISPLAY)
    return page_outcome(rows, total, page, size, code="page" if total else "totalCnt", empty="totalCnt 0")
