"""Tool signatures σ_v = (desc_v, I_v, O_v) as the text the dense retriever embeds.

An edge u → v claims u's outputs bind v's inputs, so the retriever compares u's OUTPUT side with v's
INPUT side; both sides carry the tool's name and Korean title for topical context. Each item carries its
documented format as the schema shows it — the Korean wording and the pattern — so two fields documented
alike share many features (never kopa's format identifier: see kopa.catalog.view).
"""

from __future__ import annotations

from kopa.catalog.view import FieldView, ParamView, ToolView
from kopa.edge.plan import is_generic


def _format_text(item: ParamView | FieldView) -> str:
    return " ".join(s for s in (item.format_description, item.pattern) if s)


def _item_text(item: ParamView | FieldView) -> str:
    return " ".join(s for s in (item.name, item.description, _format_text(item)) if s)


def _head(tool: ToolView) -> str:
    return f"{tool.name.replace('_', ' ')} {tool.title}"


def input_params(tool: ToolView) -> list[ParamView]:
    """The parameters an upstream tool could bind (generic ones carry no entity)."""
    return [p for p in tool.params if not is_generic(p)]


def input_text(tool: ToolView) -> str:
    """The input side I_v: name, title and every non-generic parameter."""
    return "\n".join([_head(tool), *(_item_text(p) for p in input_params(tool))])


def output_text(tool: ToolView) -> str:
    """The output side O_u: name, title and every output field."""
    return "\n".join([_head(tool), *(_item_text(f) for f in tool.output)])


def signature_text(tool: ToolView) -> str:
    """The whole signature: name (split on _), Korean title and description, params, output fields."""
    lines = [_head(tool), tool.description.strip()]
    lines += [f"입력 {_item_text(p)}" for p in tool.params]
    lines += [f"출력 {_item_text(f)}" for f in tool.output]
    return "\n".join(lines)
