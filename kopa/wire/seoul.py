"""Family A′ — 서울 열린데이터광장: path-positional requests, `{SVC:{list_total_count, RESULT, row}}`.

The generic builder cannot write this family's URLs: every optional filter is a positional path
segment, so a skipped filter before a given one must still hold its place (a blank segment, `%20`)
while trailing skipped filters are left off.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote
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
    coded_error,
    http_status_error,
    malformed,
    wire_value,
)
from kopa.wire.xmltree import listify, parse_xml

_PLACEHOLDER = re.compile(r"^\{(\w+)\}$")
BLANK = "%20"  # a skipped positional filter: one space, percent-encoded

# RESULT.CODE → (class, kind). INFO-200 covers both "nothing matches" and "window past the end".
CODES: ErrorTable = {
    "INFO-100": ("auth", "invalid_key"),
    "INFO-200": ("structural", "no_data"),
    "ERROR-300": ("structural", "missing_param"),
    "ERROR-301": ("structural", "bad_param"),
    "ERROR-310": ("structural", "unknown_service"),
    "ERROR-331": ("structural", "bad_param"),
    "ERROR-332": ("structural", "bad_param"),
    "ERROR-333": ("structural", "bad_param"),
    "ERROR-334": ("structural", "bad_param"),
    "ERROR-335": ("structural", "bad_param"),
    "ERROR-336": ("structural", "bad_param"),
    "ERROR-337": ("environmental", "rate_limit"),
    "ERROR-500": ("environmental", "server_error"),
    "ERROR-600": ("environmental", "server_error"),
    "ERROR-601": ("environmental", "server_error"),
}
OK = "INFO-000"


class SeoulWire:
    # no default (the window is required): 100 rows is the window hurried clients ask for
    paging: Paging | None = Paging(window=("START_INDEX", "END_INDEX"), max_size=1000, default_size=100)

    def build(self, tool: Tool, args: dict[str, Any], key: str | None) -> httpx.Request:
        spec = tool.spec
        key_name = tool.auth.name if tool.auth else None
        values: dict[str, str] = {}
        for param in spec.params:
            if param.location != "path":
                continue  # client-side filters never travel
            value = args.get(param.name, param.default)
            if value is not None and wire_value(value).strip() != "":
                values[param.name] = wire_value(value)
        segments = spec.path.strip("/").split("/")
        rendered: list[str | None] = []
        for segment in segments:
            match = _PLACEHOLDER.match(segment)
            if match is None:
                rendered.append(segment)
            elif match.group(1) == key_name:
                rendered.append(quote(key, safe="") if key else BLANK)
            else:
                value = values.get(match.group(1))
                rendered.append(quote(value, safe="") if value is not None else None)
        while rendered and rendered[-1] is None:
            rendered.pop()  # trailing skipped filters are left off
        path = "/" + "/".join(BLANK if s is None else s for s in rendered)
        headers = {"User-Agent": "kopa/0.1 (+https://github.com/kopa)", "Accept": "*/*"}
        return httpx.Request(spec.method, tool.base_url.rstrip("/") + path, headers=headers)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        content = response.content
        try:
            if content.lstrip().startswith(b"<"):
                root, tree = parse_xml(content)
                body = {root: tree}
            else:
                body = orjson.loads(content)
        except (orjson.JSONDecodeError, ElementTree.ParseError):
            return malformed(response.text)
        if not isinstance(body, dict) or not body:
            return malformed(response.text)
        if "RESULT" in body and len(body) == 1:
            result = body["RESULT"]
            return Parsed(error=_error(str(result.get("CODE", "")), str(result.get("MESSAGE", ""))))
        root = tool.spec.records_key or _service(tool)
        tree = body.get(root)
        if not isinstance(tree, dict):
            tree = next((v for v in body.values() if isinstance(v, dict) and "RESULT" in v), None)
        if not isinstance(tree, dict):
            return malformed(response.text)
        result = tree.get("RESULT") or {}
        code = str(result.get("CODE", ""))
        if code != OK:
            return Parsed(error=_error(code, str(result.get("MESSAGE", ""))))
        rows = listify(tree.get("row"))
        start = _int(args.get("START_INDEX"), _default(tool, "START_INDEX", 1))
        end = _int(args.get("END_INDEX"), _default(tool, "END_INDEX", start + len(rows) - 1))
        return Parsed(records=rows, total_count=_int(tree.get("list_total_count"), len(rows)),
                      page=PageInfo(start=start, end=end, page_size=end - start + 1))


def _service(tool: Tool) -> str:
    """The SERVICE segment: the one after the TYPE (`/{KEY}/json/{SERVICE}/…`)."""
    parts = tool.spec.path.strip("/").split("/")
    return parts[2] if len(parts) > 2 else ""


def _default(tool: Tool, name: str, fallback: int) -> int:
    try:
        return _int(tool.spec.param(name).default, fallback)
    except KeyError:
        return fallback


def _error(code: str, message: str) -> WireError:
    return coded_error(CODES, code, message)


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
