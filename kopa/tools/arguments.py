"""Check a call's arguments against its tool's schema before anything is sent.

The schema a model is shown (``Tool.openai_schema``) promises required parameters, types, enums and
format patterns. A call that breaks that promise is wrong whatever the service would make of it, and some
services make nothing useful of it: DART's 기업개황 without ``corp_code`` is still sent and answered, and
a live call spends quota to learn what the schema already said. So the runtime answers such a call itself,
with a structural error naming the parameter, and the backend never sees it (DESIGN.md decision 7).

What is deliberately left to the service:

- ranges (``minimum``/``maximum``): services differ in whether they clamp, refuse or ignore an
  out-of-range page size, and that answer is part of what is being simulated and recorded;
- parameters the runtime or the wire layer fills itself: the key travels outside ``params``, and a paging
  parameter or one with a documented default (Seoul's required row window) is filled when omitted.
"""

from __future__ import annotations

import math
import re
from typing import Any

from kopa.catalog.formats import pattern_of
from kopa.catalog.models import ParamSpec, Tool
from kopa.tools.results import ToolError
from kopa.wire.base import wire_value

_INTEGER = re.compile(r"[+-]?\d+")
_BOOLEAN_TEXT = frozenset({"Y", "N", "true", "false"})


def _error(kind: str, message: str) -> ToolError:
    return ToolError(error_class="structural", kind=kind, code=kind, message=message)


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _filled_by_runtime(param: ParamSpec) -> bool:
    return param.paging or param.default is not None


def _type_problem(param: ParamSpec, value: Any) -> str | None:
    """Why ``value`` cannot stand for a ``param.type``; ``None`` when it can.

    Digits in a string count as an integer: the CLI passes every value as text, and so do many models.
    """
    if isinstance(value, dict | list | tuple | set):
        return f"expected a single {param.type}, got a {type(value).__name__}"
    if param.type == "integer":
        if isinstance(value, bool) or not (
            isinstance(value, int) or (isinstance(value, str) and _INTEGER.fullmatch(value.strip()))
        ):
            return "expected an integer"
    elif param.type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return "expected a number"
        try:
            number = float(value)
        except ValueError:
            return "expected a number"
        if not math.isfinite(number):
            return "expected a finite number"
    elif param.type == "boolean" and not (
        isinstance(value, bool) or (isinstance(value, str) and value in _BOOLEAN_TEXT)
    ):
        return "expected a boolean (true/false or Y/N)"
    return None


def _problem(param: ParamSpec, value: Any) -> str | None:
    problem = _type_problem(param, value)
    if problem is not None:
        return problem
    text = wire_value(value)
    if param.enum and text not in param.enum:
        return f"must be one of {', '.join(param.enum)}"
    pattern = pattern_of(param.format) if param.type == "string" else None
    # JSON Schema patterns are ECMA-262 regexes, where \d is [0-9]; Python's \d also takes "３" and "٣".
    if pattern is not None and re.fullmatch(pattern, text, flags=re.ASCII) is None:
        return f"does not match the {param.format} format {pattern}"
    return None


def check_arguments(tool: Tool, args: dict[str, Any]) -> ToolError | None:
    """The first way ``args`` breaks ``tool``'s schema, as a typed structural error; ``None`` if none.

    Parameters are checked in the schema's order, so the same call always names the same parameter.
    """
    for param in tool.spec.params:
        value = args.get(param.name)
        if _absent(value):
            if param.required and not _filled_by_runtime(param):
                return _error("missing_param", f"{param.name} is required ({param.description})")
            continue
        problem = _problem(param, value)
        if problem is not None:
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            return _error("bad_param", f"{param.name}={shown}: {problem} ({param.description})")
    return None
