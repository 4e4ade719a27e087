"""DART's corpCode archive is parsed once per content (every company lookup downloads it): a second
parse of the same bytes gives the same rows as the caller's own, and other bytes are parsed anew."""

from __future__ import annotations

import io
import zipfile

import httpx

from kopa.catalog import load_catalog
from kopa.wire.dart import DartWire

TOOL = load_catalog()["find_dart_corp_code"]


def _archive(*names: str) -> httpx.Response:
    rows = "".join(f"<list><corp_code>{i:08d}</corp_code><corp_name>{n}</corp_name></list>"
                   for i, n in enumerate(names))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("CORPCODE.xml", f"<?xml version='1.0' encoding='UTF-8'?><result>{rows}</result>")
    return httpx.Response(200, content=buffer.getvalue(), request=httpx.Request("GET", "https://x/corpCode.xml"))


def test_the_same_archive_gives_equal_rows_the_caller_owns_and_another_archive_its_own():
    wire = DartWire()
    first = wire.parse(TOOL, {}, _archive("삼성전자", "카카오"))
    first.records[0]["corp_name"] = "바뀐 이름"  # a caller that changes its records
    again = wire.parse(TOOL, {}, _archive("삼성전자", "카카오"))
    assert [r["corp_name"] for r in again.records] == ["삼성전자", "카카오"]
    assert again.total_count == 2
    other = wire.parse(TOOL, {}, _archive("네이버"))
    assert [(r["corp_code"], r["corp_name"]) for r in other.records] == [("00000000", "네이버")]
