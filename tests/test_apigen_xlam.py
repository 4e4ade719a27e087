"""kopa's APIGen output is a row of xlam-function-calling-60k as the published file writes it: rows of the
published shape (tests/data/apigen/xlam_published_rows.jsonl, written after the dataset card's example and
the file's own rows) and kopa's rows go through one strict reader, and through `json.loads` as a reader of
the published file does (`json.loads(row["tools"])`). `datasets` reads both: tests/clients/test_xlam_datasets.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kopa.apigen.record import (
    XLAM_KEYS,
    RecordError,
    XParam,
    XRecord,
    XTool,
    catalog_tool,
    parse_xlam_row,
    xlam_row,
)
from kopa.catalog.loader import load_catalog

PUBLISHED = Path(__file__).parent / "data" / "apigen" / "xlam_published_rows.jsonl"
CATALOG = load_catalog()
# a tool with a required parameter, an optional one with a documented default and one without
MIXED = next(t for t in CATALOG if any(p.required for p in t.spec.params)
             and any(not p.required and p.default is not None for p in t.spec.params)
             and any(not p.required and p.default is None for p in t.spec.params))


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _kopa_row() -> dict:
    tool = catalog_tool(MIXED)
    record = XRecord(id="apigen-0-000007", query="엄윤호 의원이 대표 발의한 법안을 알려 주세요.", tools=[tool],
                     answers=[{"name": tool.name, "arguments": {"AGE": "22", "PROPOSER": "엄윤호"}}])
    return json.loads(json.dumps(xlam_row(record, 8), ensure_ascii=False))


def test_published_rows_and_kopas_read_through_the_same_strict_reader():
    for row in [*_rows(PUBLISHED), _kopa_row()]:
        assert list(row) == list(XLAM_KEYS) and isinstance(row["id"], int)
        record = parse_xlam_row(row)
        assert record.answers and record.tools
        assert json.loads(row["tools"])[0]["name"] == record.tools[0].name  # what a reader of the file does


def test_kopas_parameters_read_as_xlam_readers_read_them():
    """A reader takes a parameter for optional when its type says `optional` (and has a default): kopa's
    optional parameters say so, its required ones carry no default."""
    tool = json.loads(_kopa_row()["tools"])[0]
    spec = {p.name: p for p in CATALOG[tool["name"]].spec.params}
    for name, doc in tool["parameters"].items():
        optional = "optional" in doc["type"]
        assert optional == (not spec[name].required), name
        assert ("default" in doc) == optional, name
        assert doc["type"].split(",")[0] in ("str", "int", "float", "bool", "List", "dict")
    record = parse_xlam_row(_kopa_row())
    assert {n: p.required for n, p in record.tools[0].parameters.items()} == {
        n: p.required for n, p in spec.items() if n in record.tools[0].parameters}


@pytest.mark.parametrize(("change", "error"), [
    (lambda r: {**r, "id": str(r["id"])}, "id is str, not an integer"),
    (lambda r: {**r, "tools": json.loads(r["tools"])}, "tools is list, not text"),
    (lambda r: {**r, "style": "simple"}, "not an xlam row: keys"),
    (lambda r: {k: v for k, v in r.items() if k != "answers"}, "not an xlam row: keys"),
])
def test_the_strict_reader_names_what_differs_from_the_published_shape(change, error):
    with pytest.raises(RecordError, match=error):
        parse_xlam_row(change(_rows(PUBLISHED)[0]))


def test_an_optional_parameter_without_a_documented_default_gets_the_files_empty_one():
    tool = XTool(name="t", parameters={"a": XParam(type="integer", required=True),
                                       "b": XParam(type="string", required=False)})
    record = XRecord(id="x", query="q", tools=[tool], answers=[{"name": "t", "arguments": {"a": 1}}])
    params = json.loads(xlam_row(record, 1)["tools"])[0]["parameters"]
    assert params == {"a": {"description": "", "type": "int"}, "b": {"description": "", "type": "str, optional",
                                                                    "default": ""}}
