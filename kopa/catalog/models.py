"""Typed tool specifications: what a user or a model may see of each endpoint.

The catalog is documentation only (DESIGN.md decision 2): names, Korean descriptions worded as the
official docs word them, wire parameter names, types, formats and output fields. Which entity a
parameter really carries is known to the simulator alone.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from kopa.catalog.formats import FORMATS
from kopa.catalog.schema import openai_schema

Domain = Literal["traffic", "finance", "education", "law", "politics", "district"]
Family = Literal["portal", "seoul", "datagokr", "dart", "krx", "ex", "law", "hrd", "schoolinfo", "session"]
ParamType = Literal["string", "integer", "number", "boolean"]

TOOL_NAME = re.compile(r"^(find|get|list|search|issue|evaluate|add|remove)_[a-z0-9_]+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AuthSpec(_Strict):
    """Where the key travels on the wire, and which key system issues it."""

    location: Literal["query", "header", "path"]
    name: str
    key_id: str = Field(description="key system, e.g. 'dart' or 'data_go_kr'; env var KOPA_<KEY_ID>_KEY")

    @property
    def env_var(self) -> str:
        return f"KOPA_{self.key_id.upper()}_KEY"


class ParamSpec(_Strict):
    name: str = Field(description="wire parameter name, exactly as the service spells it")
    type: ParamType = "string"
    required: bool = False
    description: str
    format: str | None = None
    enum: list[str] | None = None
    default: str | int | None = None
    minimum: int | None = None
    maximum: int | None = None
    location: Literal["query", "path", "client"] = "query"
    paging: bool = Field(False, description="a pagination parameter (page number, page size, row window)")
    match: Literal["exact", "contains"] = Field("contains", description="client-side filter semantics")
    field: str | None = Field(None, description="output field the parameter filters on: required of a client-side "
                                                "filter, which kopa applies to it; documentation on a server-side "
                                                "search (`query` searches 법령명한글)")
    enum_from: Literal["platforms"] | None = Field(
        None, description="the loader fills `enum` with every catalog platform's id (and names them in the "
                          "description), so that adding a platform is adding its own file")

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str | None) -> str | None:
        if value is not None and value not in FORMATS:
            raise ValueError(f"unknown format {value!r}; known: {sorted(FORMATS)}")
        return value

    @model_validator(mode="after")
    def _client_filters_name_a_field(self) -> ParamSpec:
        if self.location == "client" and not self.field:
            raise ValueError(f"client-side parameter {self.name!r} must name the output field it filters")
        return self


class FieldSpec(_Strict):
    name: str
    description: str
    say: str | None = Field(None, description="how a person names this field in a question, where the label its "
                                              "description starts with is a column heading (소관위회부일 → 소관 "
                                              "위원회 회부일); for a Y/N flag, what Y means (프리미엄 메뉴)")
    type: ParamType = "string"
    format: str | None = None


class ToolSpec(_Strict):
    name: str
    title: str = Field(description="the service's Korean name, e.g. 기업개황")
    ask: str | None = Field(None, description="how a person names what this endpoint answers, where the title "
                                              "does not say it plainly (e.g. 회사 for the 고유번호 lookup)")
    description: str
    method: Literal["GET", "POST"] = "GET"
    path: str = Field(description="path template; {NAME} is filled from a path parameter or the key")
    params: list[ParamSpec] = []
    fixed: dict[str, str] = Field({}, description="wire parameters sent with fixed values (format selectors)")
    output: list[FieldSpec] = []
    shape: Literal["records", "object", "zip_xml", "nested"] = "records"
    records_key: str | None = Field(None, description="array key where the family's default does not hold")
    records_path: list[str] | None = Field(None, description="path to the records in a nested answer")
    family: Family | None = None
    base_url: str | None = None
    auth: AuthSpec | None = None
    real: bool = Field(True, description="False marks a simulator-only tool with no live endpoint")
    doc_url: str | None = None

    @field_validator("name")
    @classmethod
    def _verb_first_snake_case(cls, value: str) -> str:
        if not TOOL_NAME.match(value):
            raise ValueError(f"tool name {value!r} must be snake_case and start with a verb")
        return value

    @model_validator(mode="after")
    def _params_unique(self) -> ToolSpec:
        names = [p.name for p in self.params]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"{self.name}: duplicate parameters {sorted(dup)}")
        return self

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


class PlatformSpec(_Strict):
    id: str
    name: str
    short_name: str | None = Field(None, description="how a list of platforms names it (issue_api_key's enum)")
    domain: Domain | None = None
    family: Family
    base_url: str
    auth: AuthSpec | None
    doc_url: str | None = None
    tools: list[ToolSpec]


class Tool(_Strict):
    """A tool with its platform's defaults resolved: what the runtime and the wire layer use."""

    spec: ToolSpec
    platform: str
    domain: Domain | None = None
    family: Family
    base_url: str
    auth: AuthSpec | None

    @property
    def name(self) -> str:
        return self.spec.name

    def openai_schema(self) -> dict[str, Any]:
        return openai_schema(self)
