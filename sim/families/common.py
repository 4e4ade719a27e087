"""Small helpers the family renderers share: JSON/XML bodies and page arithmetic."""

from __future__ import annotations

import math
import re
from xml.sax.saxutils import escape

import orjson

from sim.http import SimResponse

JSON = "application/json;charset=UTF-8"
XML = "application/xml;charset=UTF-8"


def json_response(obj, status: int = 200, headers: dict[str, str] | None = None) -> SimResponse:
    return SimResponse(status, orjson.dumps(obj), JSON, headers or {})


def to_xml(tag: str, value) -> str:
    """Element `tag` holding value: dicts become children, lists repeat the tag."""
    if isinstance(value, list):
        return "".join(to_xml(tag, v) for v in value)
    if isinstance(value, dict):
        inner = "".join(to_xml(k, v) for k, v in value.items())
        return f"<{tag}>{inner}</{tag}>"
    text = "" if value is None else escape(str(value))
    return f"<{tag}>{text}</{tag}>"


def xml_response(root: str, body: dict, status: int = 200) -> SimResponse:
    text = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' + to_xml(root, body)
    return SimResponse(status, text.encode("utf-8"), XML)


def flat_response(fmt: str, xml_root: str, body: dict, status: int = 200) -> SimResponse:
    """Services whose JSON is a flat object and whose XML wraps the same fields in one root element."""
    if fmt == "xml":
        return xml_response(xml_root, body, status)
    return json_response(body, status)


MAX_WIRE_INT = 2**31 - 1
"""The largest integer the services accept in a numeric parameter.

Their backends parse numeric parameters into 32-bit (Java ``int``) fields, so ``numOfRows=99999999999999999999``
is as much "not a number" to them as ``numOfRows=ten`` and gets the same invalid-parameter answer. Bounding
here also keeps such values out of the simulator's own arithmetic, JSON encoder and numpy indexing."""
_WIRE_INT = re.compile(r"[+-]?[0-9]+")


def wire_int(text: str) -> int | None:
    """The integer a wire value spells as the services read it (ASCII digits, within ±MAX_WIRE_INT); else None.

    Python's ``int`` is more forgiving than the services: it takes ``1_000``, full-width digits and any size.
    """
    text = text.strip()
    if _WIRE_INT.fullmatch(text) is None:
        return None
    value = int(text)
    return value if -MAX_WIRE_INT - 1 <= value <= MAX_WIRE_INT else None


def parse_int(value: str | None, default: int) -> int | None:
    """The integer a paging parameter carries, ``default`` when absent; None when it is not an integer."""
    if value is None or value == "":
        return default
    return wire_int(value)


def total_pages(total: int, size: int) -> int:
    return max(1, math.ceil(total / size)) if size > 0 else 1


def stringify(rows: list[dict], numeric: tuple[str, ...] | list[str] = ()) -> list[dict]:
    """Services that answer every value as a string (DART, KRX, data.go.kr), but for the `numeric` fields
    an endpoint answers as JSON numbers (an integer or a decimal value is kept as it is)."""
    keep = set(numeric)
    return [{k: (v if k in keep and isinstance(v, int | float) and not isinstance(v, bool)
                 else ("" if v is None else str(v))) for k, v in r.items()} for r in rows]
