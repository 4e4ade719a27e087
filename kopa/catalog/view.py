"""The public view of a tool: exactly what a model is shown of it, and nothing else.

Graph and synthesis code (kopa.edge) read tools only through this view (DESIGN.md decision 2). A catalog
format is kopa's internal identifier, and it often names the entity (`corp_code`, `mona_cd`); the view
carries a format only as the documentation shows it — its `pattern` and its Korean description, the text a
JSON schema would carry (kopa.catalog.schema) — so `corp_code` and `yyyymmdd` both appear as eight digits,
told apart by their Korean wording alone, as a reader of the official docs tells them apart.

Where the tool sits (platform, domain) is shown too: a model meets each platform's tools as one server.
Wire details a model never sees (locations, client-side filters, paging flags, auth) are left out.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from kopa.catalog import formats
from kopa.catalog.models import FieldSpec, ParamSpec, ParamType, Tool


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ParamView(_View):
    name: str
    type: ParamType
    required: bool
    description: str
    enum: tuple[str, ...] | None = None
    default: str | int | None = None
    minimum: int | None = None
    maximum: int | None = None
    pattern: str | None = None
    format_description: str | None = None

    @property
    def text(self) -> str:
        """The description with the format's wording, as the JSON schema's description reads."""
        return _with_format_text(self.description, self.format_description)


class FieldView(_View):
    name: str
    type: ParamType
    description: str
    pattern: str | None = None
    format_description: str | None = None

    @property
    def text(self) -> str:
        return _with_format_text(self.description, self.format_description)


class ToolView(_View):
    name: str
    title: str
    description: str
    platform: str
    domain: str | None
    params: tuple[ParamView, ...]
    output: tuple[FieldView, ...]

    def param(self, name: str) -> ParamView:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def _with_format_text(description: str, format_description: str | None) -> str:
    if format_description and format_description not in description:
        return f"{description} ({format_description})"
    return description


def _documented(fmt: str | None, type_: str) -> tuple[str | None, str | None]:
    """(pattern, Korean description) of a format, as the schema documents it: a pattern only on strings."""
    if fmt is None:
        return None, None
    return (formats.pattern_of(fmt) if type_ == "string" else None), formats.describe(fmt)


def param_view(param: ParamSpec) -> ParamView:
    pattern, text = _documented(param.format, param.type)
    return ParamView(name=param.name, type=param.type, required=param.required, description=param.description,
                     enum=tuple(param.enum) if param.enum else None, default=param.default,
                     minimum=param.minimum, maximum=param.maximum, pattern=pattern, format_description=text)


def field_view(field: FieldSpec) -> FieldView:
    pattern, text = _documented(field.format, field.type)
    return FieldView(name=field.name, type=field.type, description=field.description, pattern=pattern,
                     format_description=text)


def view_of(tool: Tool) -> ToolView:
    """The tool as a model sees it (a value: equal documentation gives an equal view)."""
    spec = tool.spec
    return ToolView(name=spec.name, title=spec.title, description=spec.description, platform=tool.platform,
                    domain=tool.domain, params=tuple(param_view(p) for p in spec.params),
                    output=tuple(field_view(f) for f in spec.output))


def as_view(tool: Tool | ToolView) -> ToolView:
    """A catalog tool's view; a view as it is (graph code takes either at its edges)."""
    return tool if isinstance(tool, ToolView) else view_of(tool)


class ToolViews:
    """Views made once per tool object: callers that look at the same tools again and again (fillers,
    once per path) keep one of these. Keyed by identity, with the tool kept so its id stays its own."""

    def __init__(self) -> None:
        self._views: dict[int, tuple[Tool, ToolView]] = {}

    def __call__(self, tool: Tool) -> ToolView:
        hit = self._views.get(id(tool))
        if hit is None or hit[0] is not tool:
            hit = self._views[id(tool)] = (tool, view_of(tool))
        return hit[1]
