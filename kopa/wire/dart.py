"""Family C — OpenDART: flat `{status, message, …}`; `list` for rows; `corpCode.xml` is a zip."""

from __future__ import annotations

import io
import zipfile
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
    StandardWire,
    coded_error,
    http_status_error,
    malformed,
)

# status → (class, kind). 013 is the service saying "nothing for that value": a structural outcome.
STATUS: ErrorTable = {
    "010": ("auth", "invalid_key"),
    "011": ("auth", "invalid_key"),
    "012": ("auth", "unregistered_ip"),
    "901": ("auth", "invalid_key"),
    "013": ("structural", "no_data"),
    "014": ("structural", "no_data"),
    "021": ("structural", "bad_param"),
    "100": ("structural", "bad_param"),
    "101": ("structural", "unknown_service"),
    "020": ("environmental", "rate_limit"),
    "800": ("environmental", "maintenance"),
    "900": ("environmental", "server_error"),
}


class DartWire(StandardWire):
    paging: Paging | None = Paging("page_no", "page_count", max_size=100, default_size=10)

    def parse(self, tool: Tool, args: dict[str, Any], response: httpx.Response) -> Parsed:
        if (err := http_status_error(response)) is not None:
            return Parsed(error=err)
        if tool.spec.shape == "zip_xml":
            return _parse_zip(response)
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            return malformed(response.text)
        if not isinstance(body, dict):
            return malformed(response.text)
        return from_envelope(tool, body)


def from_envelope(tool: Tool, body: dict[str, Any]) -> Parsed:
    status = str(body.get("status", ""))
    if status != "000":
        return Parsed(error=coded_error(STATUS, status, str(body.get("message", ""))))
    if tool.spec.shape == "object":
        record = {k: v for k, v in body.items() if k not in ("status", "message")}
        return Parsed(records=[record], total_count=1)
    rows = body.get("list") or []
    if isinstance(rows, dict):
        rows = [rows]
    if "total_count" in body:
        page = PageInfo(page=int(body["page_no"]), page_size=int(body["page_count"]),
                        total_pages=int(body["total_page"]))
        return Parsed(records=rows, total_count=int(body["total_count"]), page=page)
    return Parsed(records=rows, total_count=len(rows))


def _parse_zip(response: httpx.Response) -> Parsed:
    content = response.content
    if content.lstrip().startswith(b"<"):
        # An error comes back as the XML <result> instead of a zip.
        root = ElementTree.fromstring(content)
        body = {child.tag: (child.text or "") for child in root}
        status = body.get("status", "")
        return Parsed(error=coded_error(STATUS, status, body.get("message", "")))
    global _LAST_ARCHIVE
    last = _LAST_ARCHIVE  # one read: another thread may replace it (a tuple, never changed in place)
    if last[0] != content:
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as zf:
                xml = zf.read(zf.namelist()[0])
            root = ElementTree.fromstring(xml)
        except (zipfile.BadZipFile, ElementTree.ParseError, IndexError) as exc:
            return malformed(f"corpCode archive: {exc}")
        last = _LAST_ARCHIVE = (content, [{child.tag: (child.text or "").strip() for child in item}
                                          for item in root.iter("list")])
    rows = [dict(row) for row in last[1]]  # the caller's own records, whatever it does with them
    return Parsed(records=rows, total_count=len(rows))


# The last corpCode archive parsed and its rows: every chain that looks a company up downloads the same
# archive (tens of thousands of companies in the full world), and parsing its XML was a tenth of the filter.
_LAST_ARCHIVE: tuple[bytes, list[dict[str, str]]] = (b"", [])
