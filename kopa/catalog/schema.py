"""OpenAI function-calling schemas generated from tool specs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kopa.catalog.formats import describe, pattern_of

if TYPE_CHECKING:  # types only: models imports this module for Tool.openai_schema
    from kopa.catalog.models import ParamSpec, Tool


def _param_schema(param: ParamSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.type}
    text = param.description
    fmt_text = describe(param.format)
    if fmt_text and fmt_text not in text:
        text = f"{text} ({fmt_text})"
    schema["description"] = text
    if param.format and param.type == "string":
        schema["pattern"] = pattern_of(param.format)
    if param.enum:
        schema["enum"] = list(param.enum)
    if param.default is not None:
        schema["default"] = param.default
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    return schema


def openai_schema(tool: Tool) -> dict[str, Any]:
    spec = tool.spec
    properties = {p.name: _param_schema(p) for p in spec.params}
    required = [p.name for p in spec.params if p.required]
    description = f"[{spec.title}] {spec.description}"
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }
