"""The unified format of xlam-function-calling-60k: `id`, `query`, `tools`, `answers` per record.

Input is read leniently, as third-party files write it: `tools` and `answers` either lists or JSON text
(the published dataset stores both as strings), a parameter's type as `"str"`, `"str, optional"`,
`"List[int]"` or JSON-schema names, required either explicit (`"required": true`, the seed's example)
or implied (no `optional` in the type and no `default`). Output always has one shape: the seed's example
(lists, JSON-schema type names, explicit `required`), plus kopa's `style` and `provenance`.
"""

from __future__ import annotations

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

    def line(self, extra: dict[str, Any] | None = None) -> bytes:
        body: dict[str, Any] = {"id": self.id, "query": self.query, "tools": [tool_json(t) for t in self.tools],
                                "answers": [{"name": c.name, "arguments": c.arguments} for c in self.answers]}
        if self.style is not None:
            body["style"] = self.style
        body["provenance"] = self.provenance
        body.update(extra or {})
        return orjson.dumps(body) + b"\n"


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
