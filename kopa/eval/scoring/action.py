"""ACTION = (Corr + Eff)/2 over a tool-call trajectory (seed §4.4), a quality metric gated on outcome.

Corr: share of golden calls matched by some predicted call, order not enforced, each predicted call
matching at most one golden call (a maximum bipartite matching, so the share never depends on the order
calls are tried in). A predicted call matches a golden call when, BFCL-style on the AST alone:
same function name; a well-formed call (its arguments parsed, the tool offered); every required argument
present; no argument outside the tool's schema; no unneeded argument — none the golden call does not
have, even one the schema allows, except paging arguments (``paging: true`` in the catalog: page number,
page size), which are the agent's choice; each value of the schema's type (integer/number/string/
boolean), in its enum, matching its pattern; and the values of ``value_compare_args`` (default: every
non-paging argument of the golden call) equal after normalisation. Execution success is not part of it.
Optional arguments the golden call itself carries are the golden's: a call without them matches only
when ``value_compare_args`` leaves them out.

Eff = (CR + MPC)/2 with CR = 1 − N_dup/N_total and MPC = min(1, N_opt/N_total); Eff = 0 past
``max_allowed_calls``. The paper writes MPC = N_opt/N_total; it is capped at 1 here because a trajectory
shorter than the golden one (fewer calls than N_opt, e.g. one that skipped a step) would otherwise earn
an efficiency above 1. N_total counts every call the agent made — malformed calls and calls refused by
the budget included — and N_total = 0 gives Corr = Eff = 0.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel

from kopa.catalog import load_catalog
from kopa.eval.episode import PredictedCall
from kopa.eval.task import GoldenCall
from kopa.tools.expression import ExpressionError, evaluate_expression

__all__ = ["ActionVerdict", "call_mismatch", "score_action"]


class ActionVerdict(BaseModel):
    correctness: float
    efficiency: float
    cr: float
    mpc: float
    action: float
    matched: list[int]  # indices of the golden calls that were matched
    unmatched_golden: list[str]  # "golden[i] tool(args): the closest predicted call's reason"
    duplicates: int
    details: list[str]


class _Schema:
    """What the checks need of one tool: its JSON-schema parameters and which of them page."""

    def __init__(self, parameters: dict[str, Any], paging: set[str]) -> None:
        self.properties: dict[str, dict[str, Any]] = parameters.get("properties", {})
        self.required: list[str] = list(parameters.get("required", []))
        self.paging = paging


def _schema_for(tool: str, schemas: dict[str, dict] | None) -> _Schema | None:
    if schemas and tool in schemas:
        raw = schemas[tool]
        parameters = raw.get("function", {}).get("parameters", raw) if "function" in raw else raw
        paging = {n for n, p in parameters.get("properties", {}).items() if p.get("paging")}
        return _Schema(parameters, paging)

    catalog = load_catalog()
    if tool not in catalog:
        return None
    spec = catalog[tool]
    return _Schema(spec.openai_schema()["function"]["parameters"],
                   {p.name for p in spec.spec.params if p.paging})


def _type_error(name: str, value: Any, prop: dict[str, Any]) -> str | None:
    kind = prop.get("type")
    checks = {
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
    }
    if kind in checks and not checks[kind](value):
        return f"{name}={value!r} is {type(value).__name__}, schema says {kind}"
    if "enum" in prop and value not in prop["enum"] and str(value) not in map(str, prop["enum"]):
        return f"{name}={value!r} not in enum {prop['enum']}"
    if "pattern" in prop and isinstance(value, str) and re.search(prop["pattern"], value) is None:
        return f"{name}={value!r} does not match /{prop['pattern']}/"
    return None


def _as_number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    try:
        return Decimal(str(value).strip().replace(",", ""))
    except InvalidOperation:
        return None


def values_equal(tool: str, name: str, golden: Any, predicted: Any, prop: dict[str, Any] | None) -> bool:
    """Equality after normalisation: str() and strip; numbers as numbers; expressions by their value."""
    if tool == "evaluate_expression" and name == "expression":
        try:
            return evaluate_expression(str(golden)).exact == evaluate_expression(str(predicted)).exact
        except ExpressionError:
            return False
    numeric = (prop or {}).get("type") in ("integer", "number") or any(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (golden, predicted))
    if numeric:  # only where the schema or the value is numeric: "00126380" is a code, not 126380
        a, b = _as_number(golden), _as_number(predicted)
        if a is not None and b is not None:
            return a == b
    return str(golden).strip() == str(predicted).strip()


def call_mismatch(golden: GoldenCall, predicted: PredictedCall, schema: _Schema | None,
                  compare: list[str] | None) -> str | None:
    """Why ``predicted`` does not match ``golden`` (None when it does)."""
    if predicted.tool != golden.tool:
        return f"name {predicted.tool} ≠ {golden.tool}"
    if predicted.malformed is not None:
        return f"malformed call ({predicted.malformed})"
    args = predicted.arguments
    if schema is not None:
        missing = [r for r in schema.required if r not in args]
        if missing:
            return f"missing required {missing}"
        unexpected = sorted(a for a in args if a not in schema.properties)
        if unexpected:
            return f"unexpected arguments {unexpected}"
        for name, value in args.items():
            error = _type_error(name, value, schema.properties[name])
            if error:
                return error
    paging = schema.paging if schema is not None else set()
    unneeded = sorted(a for a in args if a not in golden.arguments and a not in paging)
    if unneeded:
        return f"unneeded arguments {unneeded} (not in the golden call)"
    names = compare if compare is not None else [a for a in golden.arguments if a not in paging]
    props = schema.properties if schema is not None else {}
    for name in names:
        if name not in golden.arguments:
            continue
        if name not in args:
            return f"{name} missing (golden {golden.arguments[name]!r})"
        if not values_equal(golden.tool, name, golden.arguments[name], args[name], props.get(name)):
            return f"{name}={args[name]!r} ≠ golden {golden.arguments[name]!r}"
    return None


def _signature(call: PredictedCall) -> str:
    """What makes two calls the same call: name and arguments — as written, for unparsed arguments."""
    if call.raw_arguments is not None:
        return f"{call.tool}\x00raw{call.raw_arguments}"
    return call.tool + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


def _max_matching(edges: list[list[int]], n_predicted: int) -> list[int]:
    """Kuhn's augmenting paths: for each golden call the predicted index it gets, or -1."""
    owner = [-1] * n_predicted  # predicted index → golden index

    def augment(g: int, seen: set[int]) -> bool:
        for p in edges[g]:
            if p in seen:
                continue
            seen.add(p)
            if owner[p] == -1 or augment(owner[p], seen):
                owner[p] = g
                return True
        return False

    for g in range(len(edges)):
        augment(g, set())
    pairs = [-1] * len(edges)
    for p, g in enumerate(owner):
        if g != -1:
            pairs[g] = p
    return pairs


def _call_text(tool: str, arguments: dict[str, Any]) -> str:
    inner = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
    return f"{tool}({inner})"


def score_action(golden: list[GoldenCall], predicted: list[PredictedCall], *,
                 value_compare_args: dict[str, list[str]] | None, optimal_calls: int, max_allowed_calls: int,
                 schemas: dict[str, dict] | None = None) -> ActionVerdict:
    """Corr, CR, MPC, Eff and ACTION of one trajectory. ``schemas`` (tool → JSON schema, OpenAI
    function form or bare parameters; ``paging: true`` on a property marks a paging parameter) covers
    tools outside the catalog and overrides it."""
    n_total = len(predicted)
    cache: dict[str, _Schema | None] = {}
    for tool in {c.tool for c in golden}:  # a predicted call is checked against its golden call's schema
        cache[tool] = _schema_for(tool, schemas)
    reasons: list[list[str | None]] = []
    edges: list[list[int]] = []
    for g in golden:
        compare = (value_compare_args or {}).get(g.tool)
        row = [call_mismatch(g, p, cache[g.tool], compare) for p in predicted]
        reasons.append(row)
        edges.append([i for i, r in enumerate(row) if r is None])
    pairs = _max_matching(edges, n_total)
    matched = [i for i, p in enumerate(pairs) if p != -1]
    details = [f"golden[{g}] ↔ predicted[{p}]" for g, p in enumerate(pairs) if p != -1]
    unmatched = []
    for gi, p in enumerate(pairs):
        if p != -1:
            continue
        same_name = [r for r, c in zip(reasons[gi], predicted, strict=True) if c.tool == golden[gi].tool]
        if not same_name:
            why = "no call of this tool"
        elif None in same_name:
            why = "every matching call is taken by another golden call"
        else:
            why = f"closest call: {same_name[0]}"
        unmatched.append(f"golden[{gi}] {_call_text(golden[gi].tool, golden[gi].arguments)}: {why}")
    malformed = sum(c.malformed is not None for c in predicted)
    if malformed:
        details.append(f"{malformed} malformed call(s) counted in N_total")
    for tool, schema in sorted(cache.items()):
        if schema is None:
            details.append(f"{tool}: no schema (catalog or schemas=); type checks skipped")

    seen: set[str] = set()
    duplicates = 0
    for call in predicted:
        signature = _signature(call)
        duplicates += signature in seen
        seen.add(signature)

    if n_total == 0:
        corr = cr = mpc = eff = 0.0
        details.append("no calls: Corr = Eff = 0")
    else:
        corr = len(matched) / len(golden) if golden else 1.0
        cr = 1 - duplicates / n_total
        mpc = min(1.0, optimal_calls / n_total)
        eff = (cr + mpc) / 2
        if n_total > max_allowed_calls:
            eff = 0.0
            details.append(f"{n_total} calls > max_allowed_calls {max_allowed_calls}: Eff = 0")
    return ActionVerdict(correctness=corr, efficiency=eff, cr=cr, mpc=mpc, action=(corr + eff) / 2,
                         matched=matched, unmatched_golden=unmatched, duplicates=duplicates, details=details)
