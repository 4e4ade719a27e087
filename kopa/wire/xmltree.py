"""XML to plain dicts/lists, the way clients of XML-first Korean APIs read them: repeated tags become
lists, leaves become strings."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree


def element_to_obj(elem: ElementTree.Element) -> Any:
    children = list(elem)
    if not children:
        return (elem.text or "").strip()
    out: dict[str, Any] = {}
    for child in children:
        value = element_to_obj(child)
        if child.tag in out:
            if not isinstance(out[child.tag], list):
                out[child.tag] = [out[child.tag]]
            out[child.tag].append(value)
        else:
            out[child.tag] = value
    return out


def parse_xml(content: bytes) -> tuple[str, Any]:
    """(root tag, root as object); raises ElementTree.ParseError on a broken body."""
    root = ElementTree.fromstring(content)
    return root.tag, element_to_obj(root)


def listify(value: Any) -> list[dict[str, Any]]:
    """A lone row arrives as an object where a list is expected (XML→JSON services); empty as ""."""
    if value in (None, "", {}):
        return []
    if isinstance(value, list):
        return value
    return [value]
