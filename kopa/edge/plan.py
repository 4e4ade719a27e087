"""Per-parameter source plans Π_e (seed §5.2): UPSTREAM ⟨B_e(p)⟩ / DEFAULT ⟨d_p⟩ / CLARIFY ⟨D_e(p)⟩."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from kopa.catalog.models import ParamSpec, Tool

if TYPE_CHECKING:
    from kopa.edge.proposer import Proposal

# Format selectors and key names (compared case-insensitively). Keys travel through AuthSpec and never
# appear as params today; they are listed so a catalog that documents one still classifies it generic.
GENERIC_NAMES = frozenset({
    "type", "resulttype", "datatype", "returntype", "outtype", "apitype", "dataformat", "_type",
    "key", "servicekey", "crtfc_key", "authkey", "apikey", "api_key", "oc",
})


class ParamSource(BaseModel):
    """Where one target parameter's value comes from on an edge."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["UPSTREAM", "DEFAULT", "CLARIFY"]
    field: str | None = None
    values: list[str] = []


def is_generic(param: ParamSpec) -> bool:
    """A parameter that carries no entity: paging/row windows, format selectors, keys.

    Binding such a parameter proves nothing about the dependency, so it is filled statically (DEFAULT)
    and a call that binds only these counts as a generic-only success.
    """
    return bool(param.paging) or param.name.lower() in GENERIC_NAMES


def default_value(param: ParamSpec) -> list[str]:
    """d_p: the documented default, else the first enum value, else nothing (the executor omits it)."""
    if param.default is not None:
        return [str(param.default)]
    if param.enum:
        return [param.enum[0]]
    return []


def compile_plan(target: Tool, proposal: Proposal) -> dict[str, ParamSource]:
    """Π_e over every parameter of the target, in the catalog's parameter order.

    Optional unbound non-generic parameters become CLARIFY with the proposer's candidates (possibly
    none); an executor skips a CLARIFY with no values for an optional parameter.
    """
    plan: dict[str, ParamSource] = {}
    for param in target.spec.params:
        field = proposal.bindings.get(param.name)
        if field is not None:
            plan[param.name] = ParamSource(kind="UPSTREAM", field=field, values=[])
        elif is_generic(param):
            plan[param.name] = ParamSource(kind="DEFAULT", field=None, values=default_value(param))
        else:
            plan[param.name] = ParamSource(kind="CLARIFY", field=None,
                                           values=list(proposal.defaults.get(param.name, [])))
    return plan
