"""Tool signatures σ_v = (desc_v, I_v, O_v) as the text the dense retriever embeds.

An edge u → v claims u's outputs bind v's inputs, so the retriever compares u's OUTPUT side with v's
INPUT side; both sides carry the tool's name and Korean title for topical context. Format names and
their Korean descriptions are included so two fields of the same format share many features.
"""

from __future__ import annotations

from kopa.catalog.formats import FORMATS
from kopa.catalog.models import FieldSpec, ParamSpec, Tool
from kopa.edge.plan import is_generic


def _format_text(fmt: str | None) -> str:
    if not fmt:
        return ""
    return f"format {fmt} {FORMATS[fmt][1]}" if fmt in FORMATS else f"format {fmt}"


def _item_text(item: ParamSpec | FieldSpec) -> str:
    return " ".join(s for s in (item.name, item.description, _format_text(item.format)) if s)


def _head(tool: Tool) -> str:
    return f"{tool.name.replace('_', ' ')} {tool.spec.title}"


def input_params(tool: Tool) -> list[ParamSpec]:
    """The parameters an upstream tool could bind (generic ones carry no entity)."""
    return [p for p in tool.spec.params if not is_generic(p)]


def input_text(tool: Tool) -> str:
    """The input side I_v: name, title and every non-generic parameter."""
    return "\n".join([_head(tool), *(_item_text(p) for p in input_params(tool))])


def output_text(tool: Tool) -> str:
    """The output side O_u: name, title and every output field."""
    return "\n".join([_head(tool), *(_item_text(f) for f in tool.spec.output)])


def signature_text(tool: Tool) -> str:
    """The whole signature: name (split on _), Korean title and description, params, output fields."""
    lines = [_head(tool), tool.spec.description.strip()]
    lines += [f"입력 {_item_text(p)}" for p in tool.spec.params]
    lines += [f"출력 {_item_text(f)}" for f in tool.spec.output]
    return "\n".join(lines)
