"""The unified format of xlam-function-calling-60k: `id`, `query`, `answers`, `tools` per record.

Output is the published file's row, exactly (`xlam_row`): an integer `id`, the `query`, and `answers` and
`tools` as JSON text; a parameter is `{"description", "type"}` with the type as the file writes it (`str`,
`int`, `float`, `bool`, `List`, `dict`), and an optional one says `", optional"` in its type and carries a
`default` (the documented one, else ""), as the file's optional parameters do — readers take a parameter
without either for required. `parse_xlam_row` reads that shape and nothing else (a test reads published rows
and kopa's through it). kopa's own notes on a record (style, provenance, verdicts) go beside, never in it.

Input to `kopa apigen verify` is read leniently, as third-party files write it: `tools` and `answers` either
lists or JSON text, a parameter's type as `"str"`, `"str, optional"`, `"List[int]"` or JSON-schema names,
required either explicit (`"required": true`, the seed's example) or implied (no `optional` in the type and
no `default`).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field

from kopa.catalog.models import Tool
from kopa.catalog.view import view_of

_TYPE_NAMES = {
    "str": "string", "string": "string", "text": "string",
    "int": "integer", "integer": "integer",
    "float": "number", "number": "number", "double": "number",
    "bool": "boolean", "boolean": "boolean",
    "list": "array", "array": "array", "tuple": "array", "set": "array",
    "dict": "object", "object": "object", "map": "object",
}
_CATALOG_TYPE = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}
# JSON-schema name → the type the published file writes
_XLAM_TYPE = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "List",
              "object": "dict"}
XLAM_KEYS = ("id", "query", "answers", "tools")  # a published row's keys, in its order


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class XParam(_Model):
    """One parameter of a record's tool, its type normalised to a JSON-schema name (None: not stated)."""

    type: str | None = None
    description: str = ""
    required: bool = False
    default: Any = None


class XTool(_Model):
    name: str
    description: str = ""
    parameters: dict[str, XParam] = {}


class XCall(_Model):
    name: str
    arguments: dict[str, Any] = {}


class XRecord(_Model):
    """One record: what format checking reads. `answers` may be empty (a relevance sample: no call)."""

    id: str
    query: str
    tools: list[XTool]
    answers: list[XCall]
    style: str | None = None
    provenance: dict[str, Any] = Field(default_factory=dict)


def xlam_tool(tool: XTool) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, p in tool.parameters.items():
        kind = _XLAM_TYPE.get(p.type or "string", "str")
        doc: dict[str, Any] = {"description": p.description, "type": kind if p.required else f"{kind}, optional"}
        if not p.required:
            doc["default"] = "" if p.default is None else p.default
        params[name] = doc
    return {"name": tool.name, "description": tool.description, "parameters": params}


def xlam_row(record: XRecord, row_id: int) -> dict[str, Any]:
    """The record as a row of xlam-function-calling-60k."""
    answers = [{"name": c.name, "arguments": c.arguments} for c in record.answers]
    return {"id": row_id, "query": record.query, "answers": json.dumps(answers, ensure_ascii=False),
            "tools": json.dumps([xlam_tool(t) for t in record.tools], ensure_ascii=False)}


def parse_xlam_row(raw: Any) -> XRecord:
    """A row of the published shape, strictly: exactly its four keys, an integer id, text query, `answers`
    and `tools` as JSON text of lists, every parameter with a text description and a text type (a RecordError
    names what differs)."""
    if not isinstance(raw, dict) or set(raw) != set(XLAM_KEYS):
        keys = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise RecordError(f"not an xlam row: keys {keys}, expected {list(XLAM_KEYS)}")
    if not isinstance(raw["id"], int) or isinstance(raw["id"], bool):
        raise RecordError(f"id is {type(raw['id']).__name__}, not an integer")
    for key in ("query", "answers", "tools"):
        if not isinstance(raw[key], str):
            raise RecordError(f"{key} is {type(raw[key]).__name__}, not text")
    answers = json.loads(raw["answers"])
    tools = json.loads(raw["tools"])
    if not isinstance(answers, list) or not isinstance(tools, list):
        raise RecordError("answers and tools must be JSON lists")
    for tool in tools:
        for name, doc in (tool.get("parameters") or {}).items():
            if not (isinstance(doc, dict) and isinstance(doc.get("description"), str)
                    and isinstance(doc.get("type"), str)):
                raise RecordError(f"{tool.get('name')}.{name}: a parameter is {{description, type[, default]}}")
    return XRecord(id=str(raw["id"]), query=raw["query"], tools=parse_tools(tools),
                   answers=[XCall(name=a["name"], arguments=a.get("arguments") or {}) for a in answers])


def normalise_type(text: Any) -> tuple[str | None, bool]:
    """(JSON-schema type or None, whether the type text says optional): `"List[str], optional"` →
    ('array', True)."""
    if not isinstance(text, str) or not text.strip():
        return None, False
    lowered = text.strip().lower()
    optional = "optional" in lowered
    head = re.split(r"[\s,\[|(]", lowered.replace("typing.", ""), maxsplit=1)[0]
    return _TYPE_NAMES.get(head), optional


def tool_json(tool: XTool) -> dict[str, Any]:
    """A tool as the seed's example shows one (JSON-schema type names, explicit `required`): the shape a chat
    generator is prompted with."""
    params: dict[str, Any] = {}
    for name, p in tool.parameters.items():
        doc: dict[str, Any] = {"type": p.type or "string", "description": p.description, "required": p.required}
        if p.default is not None:
            doc["default"] = p.default
        params[name] = doc
    return {"name": tool.name, "description": tool.description, "parameters": params}


def catalog_tool(tool: Tool) -> XTool:
    """A catalog tool as a record's tool: its public view (title, Korean description with the format's
    wording), every parameter — paging ones too, with their defaults — and no key (it travels outside)."""
    view = view_of(tool)
    params = {p.name: XParam(type=_CATALOG_TYPE[p.type], description=_param_text(p), required=p.required,
                             default=p.default) for p in view.params}
    return XTool(name=view.name, description=f"{view.title}: {view.description}", parameters=params)


def _param_text(p) -> str:
    text = p.text
    if p.enum:
        text += f" (값: {', '.join(p.enum)})"
    return text


class RecordError(ValueError):
    """A line that is not a record at all (the format checker turns it into a verdict, never a crash)."""


def _json_field(value: Any, name: str) -> Any:
    if isinstance(value, str):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise RecordError(f"{name} is a string but not JSON ({exc})") from None
    return value


def parse_tools(value: Any) -> list[XTool]:
    value = _json_field(value, "tools")
    if not isinstance(value, list):
        raise RecordError("tools is not a list")
    tools = []
    for i, raw in enumerate(value):
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise RecordError(f"tools[{i}] has no name")
        params_raw = raw.get("parameters") or {}
        if isinstance(params_raw, dict) and params_raw.get("type") == "object" and "properties" in params_raw:
            listed = set(params_raw.get("required") or [])  # OpenAI / JSON-schema shape
            params_raw = {k: {**v, "required": k in listed} for k, v in params_raw["properties"].items()}
        if not isinstance(params_raw, dict):
            raise RecordError(f"tools[{i}].parameters is not an object")
        params = {}
        for pname, doc in params_raw.items():
            doc = doc if isinstance(doc, dict) else {}
            kind, optional = normalise_type(doc.get("type"))
            required = doc["required"] if isinstance(doc.get("required"), bool) else (
                not optional and "default" not in doc)
            params[str(pname)] = XParam(type=kind, description=str(doc.get("description", "")), required=required,
                                        default=doc.get("default"))
        tools.append(XTool(name=raw["name"], description=str(raw.get("description", "")), parameters=params))
    return tools
