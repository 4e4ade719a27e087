"""Per-parameter source plans Π_e (seed §5.2): UPSTREAM ⟨B_e(p)⟩ / DEFAULT ⟨d_p⟩ / CLARIFY ⟨D_e(p)⟩."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from kopa.catalog.view import FieldView, ParamView, ToolView

if TYPE_CHECKING:
    from kopa.edge.proposer import Proposal

# Format selectors and key names (compared case-insensitively). Keys travel through AuthSpec and never
# appear as params today; they are listed so a catalog that documents one still classifies it generic.
GENERIC_NAMES = frozenset({
    "type", "resulttype", "datatype", "returntype", "outtype", "apitype", "dataformat", "_type",
    "key", "servicekey", "crtfc_key", "authkey", "apikey", "api_key", "oc",
})
# How the docs word a page window: 페이지 위치 / 한 페이지 결과 수 / 요청시작위치 (페이징) / 검색된 결과 개수.
PAGING_WORDS = re.compile(r"페이지|페이징|결과\s*개?수|출력\s*건수|요청(시작|종료)\s*위치")


class ParamSource(BaseModel):
    """Where one target parameter's value comes from on an edge."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["UPSTREAM", "DEFAULT", "CLARIFY"]
    field: str | None = None
    values: list[str] = []


class DocumentedParam(Protocol):
    """What is_paging and is_generic read of a parameter: its ParamView, or the catalog's ParamSpec (synthesis
    reads tools as the catalog holds them), which document a parameter alike."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def description(self) -> str: ...


def is_paging(param: DocumentedParam) -> bool:
    """A page number, page size or row window, told by its documented wording: an integer the docs
    describe in terms of pages or result counts (the catalog's own paging flag is not documentation)."""
    return param.type == "integer" and bool(PAGING_WORDS.search(param.description))


def is_generic(param: DocumentedParam) -> bool:
    """A parameter that carries no entity: paging/row windows, format selectors, keys.

    Binding such a parameter proves nothing about the dependency, so it is filled statically (DEFAULT)
    and a call that binds only these counts as a generic-only success.
    """
    return is_paging(param) or param.name.lower() in GENERIC_NAMES


# A calendar value the docs spell out: its pattern's digit count and the form named in its wording.
DATE_FORMS = (("yyyymmdd", r"^\d{8}$", "YYYYMMDD"), ("yyyymm", r"^\d{6}$", "YYYYMM"), ("yyyy", r"^\d{4}$", "YYYY"))


def date_form(param: ParamView | FieldView) -> str | None:
    """'yyyymmdd', 'yyyymm' or 'yyyy' when the parameter (or output field) is documented as a date of that
    form (an 8-digit pattern alone may be a DART 고유번호; the wording YYYYMMDD tells them apart), else None."""
    text = param.text
    for form, pattern, word in DATE_FORMS:
        if param.pattern == pattern and word in text:
            return form
    return None


def dated_value(param: ParamView, today: str) -> str | None:
    """The value a first call gives a date parameter, from the virtual 'today' (YYYYMMDD): that day, its
    month, or the year before (a year's figures are published after it ends); None for any other parameter.
    The one rule Phase A's filler, Phase B's and APIGen's share."""
    form = date_form(param)
    if form == "yyyymmdd":
        return today
    if form == "yyyymm":
        return today[:6]
    if form == "yyyy":
        return str(int(today[:4]) - 1)
    return None


def default_value(param: ParamView) -> list[str]:
    """d_p: the documented default, else the first enum value, else nothing (the executor omits it)."""
    if param.default is not None:
        return [str(param.default)]
    if param.enum:
        return [param.enum[0]]
    return []


def compile_plan(target: ToolView, proposal: Proposal) -> dict[str, ParamSource]:
    """Π_e over every parameter of the target, in the catalog's parameter order.

    Optional unbound non-generic parameters become CLARIFY with the proposer's candidates (possibly
    none); an executor skips a CLARIFY with no values for an optional parameter.
    """
    plan: dict[str, ParamSource] = {}
    for param in target.params:
        field = proposal.bindings.get(param.name)
        if field is not None:
            plan[param.name] = ParamSource(kind="UPSTREAM", field=field, values=[])
        elif is_generic(param):
            plan[param.name] = ParamSource(kind="DEFAULT", field=None, values=default_value(param))
        else:
            plan[param.name] = ParamSource(kind="CLARIFY", field=None,
                                           values=list(proposal.defaults.get(param.name, [])))
    return plan
