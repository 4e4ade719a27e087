"""The golden-trajectory reference language: `{step.records[0].corp_code}`, `{prices.records[*].clpr|num|max}`.

Parsed and walked by hand — never evaluated as code. A reference names an earlier step's result and walks
it with `.field`, `[i]`, `[*]` (every element), `[?FIELD=VALUE]` / `[?FIELD~VALUE]` (keep records whose
field equals / contains the value), then pipes the value through named filters.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

REF = re.compile(r"\{([^{}]+)\}")
_SEGMENT = re.compile(r"\.?([A-Za-z_가-힣][A-Za-z0-9_가-힣]*)|\[(\*|-?\d+|\?[^\]]+)\]")


class TemplateError(ValueError):
    """A reference that does not resolve; the message names the reference and where it failed."""


def _num(value: Any) -> int | float:
    if isinstance(value, bool):
        raise TemplateError(f"not a number: {value!r}")
    if isinstance(value, int | float):
        return value
    text = str(value).replace(",", "").strip()
    try:
        d = Decimal(text)
    except InvalidOperation as exc:
        raise TemplateError(f"not a number: {value!r}") from exc
    return int(d) if d == d.to_integral_value() else float(d)


def _listify(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _date_shift(value: Any, days: str) -> str:
    d = dt.datetime.strptime(str(value).replace("-", ""), "%Y%m%d").date() + dt.timedelta(days=int(days))
    return d.strftime("%Y%m%d")


FILTERS: dict[str, Callable[..., Any]] = {
    "num": lambda v: [_num(x) for x in v] if isinstance(v, list) else _num(v),
    "int": lambda v: [int(_num(x)) for x in v] if isinstance(v, list) else int(_num(v)),
    "str": lambda v: [str(x) for x in v] if isinstance(v, list) else str(v),
    "max": lambda v: max(_listify(v)),
    "min": lambda v: min(_listify(v)),
    "sum": lambda v: sum(_listify(v)),
    "len": lambda v: len(_listify(v)),
    "first": lambda v: _listify(v)[0],
    "last": lambda v: _listify(v)[-1],
    "unique": lambda v: list(dict.fromkeys(_listify(v))),
    "sort": lambda v: sorted(_listify(v)),
    "rsort": lambda v: sorted(_listify(v), reverse=True),
    "take": lambda v, n: _listify(v)[: int(n)],
    "join": lambda v, sep=",": sep.join(str(x) for x in _listify(v)),
    "round": lambda v, n="0": round(float(_num(v)), int(n)),
    "strip": lambda v: str(v).strip(),
    "yyyymmdd": lambda v: str(v).replace("-", "")[:8],
    "days": _date_shift,  # {today|days:-1} → the previous calendar day, YYYYMMDD
    "year": lambda v: str(v).replace("-", "")[:4],
    "month": lambda v: str(v).replace("-", "")[:6],
}


def _select(items: list, selector: str, ref: str) -> Any:
    if selector == "*":
        return items
    if selector.startswith("?"):
        cond = selector[1:]
        op = "~" if "~" in cond else "="
        field, _, want = cond.partition(op)
        field, want = field.strip(), want.strip()
        return [r for r in items if isinstance(r, dict) and
                (str(r.get(field, "")) == want if op == "=" else want in str(r.get(field, "")))]
    try:
        return items[int(selector)]
    except IndexError as exc:
        raise TemplateError(f"{{{ref}}}: index {selector} out of range ({len(items)} items)") from exc


def resolve(ref: str, scope: dict[str, Any]) -> Any:
    """The value of one reference (without braces) in `scope` (step id → result dict, plus `item`, `today`)."""
    path, *filters = [p.strip() for p in ref.split("|")]
    head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", path)
    if not head or head.group(0) not in scope:
        raise TemplateError(f"{{{ref}}}: unknown name {path.split('.')[0]!r}; known: {sorted(scope)}")
    value: Any = scope[head.group(0)]
    rest = path[head.end():]
    spread = False
    while rest:
        m = _SEGMENT.match(rest)
        if not m:
            raise TemplateError(f"{{{ref}}}: cannot parse {rest!r}")
        rest = rest[m.end():]
        if m.group(1) is not None:
            key = m.group(1)
            if spread and isinstance(value, list):
                value = [v.get(key) if isinstance(v, dict) else None for v in value]
            elif isinstance(value, dict):
                if key not in value:
                    raise TemplateError(f"{{{ref}}}: no field {key!r} (has {sorted(value)[:12]})")
                value = value[key]
            else:
                raise TemplateError(f"{{{ref}}}: cannot take {key!r} of {type(value).__name__}")
        else:
            if not isinstance(value, list):
                raise TemplateError(f"{{{ref}}}: [{m.group(2)}] needs a list, got {type(value).__name__}")
            selector = m.group(2)
            value = _select(value, selector, ref)
            spread = spread or selector == "*" or selector.startswith("?")
    for spec in filters:
        name, _, arg = spec.partition(":")
        if name not in FILTERS:
            raise TemplateError(f"{{{ref}}}: unknown filter {name!r}; known: {sorted(FILTERS)}")
        try:
            value = FILTERS[name](value, *([arg] if arg else []))
        except (TypeError, ValueError) as exc:
            raise TemplateError(f"{{{ref}}}: filter {name!r} failed on {value!r}: {exc}") from exc
    return value


def render(value: Any, scope: dict[str, Any]) -> Any:
    """Fill references in an argument value. A string that is exactly one reference keeps the
    referenced value's type; references inside longer text are formatted into it."""
    if isinstance(value, dict):
        return {k: render(v, scope) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, scope) for v in value]
    if not isinstance(value, str):
        return value
    whole = REF.fullmatch(value)
    if whole:
        return resolve(whole.group(1), scope)
    return REF.sub(lambda m: _format(resolve(m.group(1), scope)), value)


def _format(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
