"""Family G — HRD-Net / 고용24: `{"returnJSON": "<json string>"}` (decode twice) or the same object
unwrapped; XML `<HRDNet>` with `srchList/scn_list` (EUC-KR on the legacy host).

Records are `srchList` for lists, or the section object a tool's `records_path` names (상세:
`inst_base_info`). HRD-Net documents no error envelope; the `errorCode` codes below are the ones the
simulator was given to answer with (see sim/families/hrd.py), kept apart here on purpose.
"""

from __future__ import annotations

import re
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

_DECLARED = re.compile(rb'\s*<\?xml[^>]*encoding="([A-Za-z0-9_-]+)"[^>]*\?>')

# errorCode → (class, kind). Unconfirmed codes (no HRD-Net error envelope is documented).
ERRORS: ErrorTable = {
    "E00": ("auth", "missing_key"),
    "E01": ("auth", "invalid_key"),
    "E10": ("structural", "missing_param"),
    "E11": ("structural", "bad_param"),
    "E90": ("environmental", "rate_limit"),
    "E98": ("environmental", "maintenance"),
    "E99": ("environmental", "server_error"),
}


class HrdWire(StandardWire):
    paging: Paging | None = Paging("pageNum", "pageSize", max_size=100, default_size=10)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        try:
            payload = _payload(response.content)
        except (orjson.JSONDecodeError, ElementTree.ParseError, UnicodeDecodeError, LookupError) as exc:
            return malformed(f"{exc}: {response.content[:120]!r}")
        if not isinstance(payload, dict):
            return malformed(response.text)
        if "errorCode" in payload:
            code = str(payload["errorCode"])
            return Parsed(error=coded_error(ERRORS, code, str(payload.get("errorMsg", ""))))
        if tool.spec.records_path:
            return _section(payload, tool.spec.records_path)
        return _list(payload)


def _payload(content: bytes) -> Any:
    """The answer as plain objects, whichever of the three shapes it came in."""
    if content.lstrip().startswith(b"<"):
        return parse_xml(_utf8_xml(content))[1]
    body = orjson.loads(content)
    if isinstance(body, dict) and "returnJSON" in body:
        inner = body["returnJSON"]
        return orjson.loads(inner) if isinstance(inner, str) else inner
    return body


def _utf8_xml(content: bytes) -> bytes:
    """The legacy host declares EUC-KR, which expat cannot read: decode it here and re-declare UTF-8."""
    declared = _DECLARED.match(content)
    if declared is None or declared.group(1).lower().replace(b"_", b"-") in (b"utf-8", b"utf8"):
        return content
    text = content[declared.end():].decode(declared.group(1).decode("ascii"))
    return b'<?xml version="1.0" encoding="UTF-8"?>' + text.encode("utf-8")


def _section(payload: dict, path: list[str]) -> Parsed:
    node: Any = payload
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    rows = listify(node)
    if not rows:
        return Parsed(error=WireError(error_class="structural", kind="no_data", code="empty",
                                      message=f"{'/'.join(path)} is empty"))
    return Parsed(records=rows, total_count=len(rows))


def _list(payload: dict) -> Parsed:
    items = payload.get("srchList")
    if isinstance(items, dict):  # XML: srchList holds repeated scn_list
        items = items.get("scn_list")
    rows = listify(items)
    total = int(payload.get("scn_cnt") or 0)
    if "pageNum" not in payload:
        if not rows:
            return Parsed(total_count=total, error=WireError(error_class="structural", kind="no_data",
                                                             code="scn_cnt=0", message="srchList is empty"))
        return Parsed(records=rows, total_count=total or len(rows))
    page = int(payload.get("pageNum") or 1)
    size = int(payload.get("pageSize") or max(len(rows), 1))
    return page_outcome(rows, total, page, size, code="scn_cnt" if total else "scn_cnt=0",
                        empty="srchList is empty")
