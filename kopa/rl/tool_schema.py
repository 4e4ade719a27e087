"""The schema every trainer shows a model for a tool: verl's tool config, TRL's environment methods
(kopa.rl.trl) and the SFT export (kopa.rl.export), so a model is trained on one rendering.

verl validates each schema with its ``OpenAIFunctionToolSchema``, whose property model keeps only
``type``, ``description`` and ``enum``. So what kopa's schema says beyond those — the format pattern,
default, minimum and maximum — is written into the description, where the model still reads it, instead of
being dropped without a word; a parameter verl cannot express (an object or an array, whose inner schema
would be lost) is refused with a message naming the tool and the parameter.
"""

from __future__ import annotations

from typing import Any

from kopa.catalog.loader import load_catalog
from kopa.errors import UserError

SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean"})


class VerlSchemaError(UserError, ValueError):
    """A tool parameter verl's schema model cannot express."""


def _extra(prop: dict[str, Any]) -> str:
    notes = []
    if "pattern" in prop:
        notes.append(f"형식: 정규식 {prop['pattern']}")
    if "default" in prop:
        notes.append(f"기본값: {prop['default']}")
    if "minimum" in prop:
        notes.append(f"최솟값: {prop['minimum']}")
    if "maximum" in prop:
        notes.append(f"최댓값: {prop['maximum']}")
    return f" [{'; '.join(notes)}]" if notes else ""


def training_tool_schema(name: str) -> dict[str, Any]:
    """The tool's OpenAI schema as every trainer shows it to a model — verl's tool config, TRL's environment
    methods (kopa.rl.trl) and the SFT export alike, so a model is trained on one rendering: the shape verl's
    model keeps whole (type / description / enum per property; `required` left out when empty, as verl and
    transformers' get_json_schema both leave it)."""
    schema = load_catalog()[name].openai_schema()
    function = schema["function"]
    properties: dict[str, Any] = {}
    for param, prop in function["parameters"].get("properties", {}).items():
        kind = prop.get("type")
        if kind not in SCALAR_TYPES:
            raise VerlSchemaError(f"{name}.{param}: type {kind!r} cannot be expressed in verl's tool schema "
                                  "(it keeps only type / description / enum per property); flatten it into "
                                  "scalar parameters first")
        flat: dict[str, Any] = {"type": kind}
        if "enum" in prop:  # before the description, in the order get_json_schema writes them
            flat["enum"] = list(prop["enum"])
        flat["description"] = (prop.get("description") or "") + _extra(prop)
        properties[param] = flat
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if function["parameters"].get("required"):
        parameters["required"] = list(function["parameters"]["required"])
    return {"type": "function", "function": {"name": function["name"], "description": function["description"],
                                             "parameters": parameters}}
