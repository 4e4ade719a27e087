"""The golden-trajectory reference language: `{step.records[0].corp_code}`, `{prices.records[*].clpr|num|max}`.

Parsed and walked by hand — never evaluated as code. A reference names an earlier step's result and walks
it with `.field`, `[i]`, `[*]` (every element) and `[?FIELD OP VALUE]` (keep the records whose field
satisfies the condition: `=` `!=` equal or not, `~` `!~` contains or not, `>` `>=` `<` `<=` numerically;
a VALUE written `$step.path` is itself a reference), then pipes the value through named filters
(`|num|sum`, `|maxby:FIELD` for the record with the largest FIELD, `|number` for a number inside text …).
"""

from __future__ import annotations

import datetime as dt
import operator
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from functools import reduce
from typing import Any

REF = re.compile(r"\{([^{}]+)\}")
_NAME = re.compile(r"\.?([A-Za-z_가-힣][A-Za-z0-9_가-힣]*)")
# A selector condition: FIELD OP VALUE, the longest operator first so that ">=" is not read as ">".
_CONDITION = re.compile(r"^\s*([^!=<>~]+?)\s*(!=|>=|<=|!~|=|~|>|<)\s*(.*?)\s*$")
# A number inside text, as the services write them: "799.8 Kcal", "제15조", "1,522원", "−3.5".
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER_IN_TEXT = re.compile(r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


class TemplateError(ValueError):
    """A reference that does not resolve; the message names the reference and where it failed."""


def _num(value: Any) -> int | float:
    if isinstance(value, bool):
        raise TemplateError(f"not a number: {value!r}")
    if isinstance(value, int | float):
        return value
    text = str(value).replace(",", "").strip()
    if text.isascii() and text.isdigit():  # most numbers a selector reads ("12500"): what Decimal gives, faster
        return int(text)
    try:
        d = Decimal(text)
    except InvalidOperation as exc:
        raise TemplateError(f"not a number: {value!r}") from exc
    return int(d) if d == d.to_integral_value() else float(d)


def _sequential_sum(values: list) -> Any:
    """Left to right, each addition rounded: the total `sum()` gave before Python 3.12, whose compensated
    float sum differs in the last bit now and then — a target computed on 3.11 must hold on 3.13. (The
    simulator's own copy is sim.world.floats; kopa does not import the simulator.)"""
    return reduce(operator.add, values, 0)


def _maybe_num(value: Any) -> int | float | None:
    try:
        return _num(value)
    except TemplateError:
        return None


def _listify(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _date_shift(value: Any, days: str) -> str:
    d = dt.datetime.strptime(str(value).replace("-", ""), "%Y%m%d").date() + dt.timedelta(days=int(days))
    return d.strftime("%Y%m%d")


def _each(value: Any, one: Callable[[Any], Any]) -> Any:
    return [one(x) for x in value] if isinstance(value, list) else one(value)


def _iso_day(value: Any) -> str:
    digits = str(value).replace("-", "")[:8]
    if not (len(digits) == 8 and digits.isdigit()):
        raise TemplateError(f"not a day: {value!r}")
    return f"{digits[:4]}-{digits[4:6]}-{digits[6:]}"


def _numbers_in(value: Any) -> list[int | float]:
    return [_num(m.replace("−", "-")) for m in _NUMBER_IN_TEXT.findall(str(value))]


def _number_in(value: Any, index: str = "0") -> int | float:
    """The index-th number written in a text ("799.8 Kcal" → 799.8); an error when there is none."""
    found = _numbers_in(value)
    try:
        return found[int(index)]
    except IndexError:
        raise TemplateError(f"no number #{index} in {value!r}") from None


def order_key(field: str) -> Callable[[Any], tuple]:
    """Records ordered by one field: numerically when every value is a number, else as text."""
    def key(record: Any) -> tuple:
        raw = record.get(field) if isinstance(record, dict) else None
        number = _maybe_num(raw)
        return (0, number, "") if number is not None else (1, 0, str(raw))
    return key


def _by(v: Any, field: str, pick: Callable[..., Any]) -> Any:
    items = [r for r in _listify(v) if isinstance(r, dict)]
    if not items:
        raise TemplateError(f"no records to order by {field!r}")
    if any(field not in r for r in items):
        raise TemplateError(f"a record has no field {field!r}")
    return pick(items, key=order_key(field))


def _mode(v: Any) -> Any:
    """The most frequent value; a tie is an error, since a tie has no single answer."""
    counts: dict[str, int] = {}
    first: dict[str, Any] = {}
    for x in _listify(v):
        counts[str(x)] = counts.get(str(x), 0) + 1
        first.setdefault(str(x), x)
    if not counts:
        raise TemplateError("no values to take the most frequent of")
    ranked = sorted(counts.values(), reverse=True)
    if len(ranked) > 1 and ranked[0] == ranked[1]:
        tied = sorted(k for k, n in counts.items() if n == ranked[0])
        raise TemplateError(f"no single most frequent value: {', '.join(tied[:4])} each appear {ranked[0]} times")
    return first[max(counts, key=counts.__getitem__)]


def _field(record: Any, name: str) -> Any:
    if not isinstance(record, dict) or name not in record:
        raise TemplateError(f"no field {name!r} in {str(record)[:80]}")
    return record[name]


_ITEM_NUMBER = re.compile(r"^\s*(?:\d+|[가-하])\s*[.)]\s*")
FILTERS: dict[str, Callable[..., Any]] = {
    "num": lambda v: [_num(x) for x in v] if isinstance(v, list) else _num(v),
    "int": lambda v: [int(_num(x)) for x in v] if isinstance(v, list) else int(_num(v)),
    "str": lambda v: [str(x) for x in v] if isinstance(v, list) else str(v),
    "max": lambda v: max(_listify(v)),
    "min": lambda v: min(_listify(v)),
    "sum": lambda v: _sequential_sum(_listify(v)),
    "len": lambda v: len(_listify(v)),
    "first": lambda v: _listify(v)[0],
    "last": lambda v: _listify(v)[-1],
    "unique": lambda v: list(dict.fromkeys(_listify(v))),
    "mode": _mode,  # the most frequent value (compared as text); a tie is an error
    "sort": lambda v: sorted(_listify(v)),
    "rsort": lambda v: sorted(_listify(v), reverse=True),
    "take": lambda v, n: _listify(v)[: int(n)],
    "join": lambda v, sep=",": sep.join(str(x) for x in _listify(v)),
    "round": lambda v, n="0": round(float(_num(v)), int(n)),
    "strip": lambda v: str(v).strip(),
    # a provision's item without its own number (호내용 "2. 산업안전보건 관련 등록의 취소" → the words)
    "unnumbered": lambda v: _each(v, lambda x: _ITEM_NUMBER.sub("", str(x))),
    # days and codes, of one value or of each value of a list
    "yyyymmdd": lambda v: _each(v, lambda x: str(x).replace("-", "")[:8]),
    "iso": lambda v: _each(v, _iso_day),  # 20240709 or 2024-07-09 → 2024-07-09: a day as answers write it
    "zfill": lambda v, n: _each(v, lambda x: str(x).zfill(int(n))),  # 15 → 0015 (law.go.kr's JO codes)
    "days": _date_shift,  # {today|days:-1} → the previous calendar day, YYYYMMDD
    "year": lambda v: _each(v, lambda x: str(x).replace("-", "")[:4]),
    "month": lambda v: _each(v, lambda x: str(x).replace("-", "")[:6]),
    # arg-max / arg-min / sort by a field of records (numeric where the field is numeric)
    "maxby": lambda v, f: _by(v, f, max),
    "minby": lambda v, f: _by(v, f, min),
    "sortby": lambda v, f: _by(v, f, sorted),
    "rsortby": lambda v, f: list(reversed(_by(v, f, sorted))),
    "get": lambda v, f: [_field(x, f) for x in v] if isinstance(v, list) else _field(v, f),  # after maxby
    # numbers written inside text: {meal.records[0].CAL_INFO|number} → 799.8
    "number": lambda v, i="0": [_number_in(x, i) for x in v] if isinstance(v, list) else _number_in(v, i),
    "numbers": lambda v: _numbers_in(v),
}


_ORDER: dict[str, Callable[[Any, Any], bool]] = {">": operator.gt, ">=": operator.ge, "<": operator.lt,
                                                  "<=": operator.le}


def _test(op: str, want: str) -> Callable[[Any], bool]:
    """The condition `field op want` on one value, `want` read once (a selector tests every record)."""
    if op in ("~", "!~"):
        return lambda actual: (want in str(actual)) == (op == "~")
    if op in ("=", "!="):  # as text: "00126380" is a code, not the number 126380
        return lambda actual: (str(actual) == want) == (op == "=")
    order, b = _ORDER[op], _maybe_num(want)
    day = _ISO_DAY.match(want) is not None

    def test(actual: Any) -> bool:
        a = _maybe_num(actual) if b is not None else None
        if a is None:
            # an ordering asks for numbers: a record whose field is not one does not qualify — unless both
            # are ISO days (2026-01-28), whose text orders as the days do
            return day and _ISO_DAY.match(str(actual)) is not None and order(str(actual), want)
        return order(a, b)
    return test


def _select(items: list, selector: str, ref: str, scope: dict[str, Any]) -> Any:
    if selector == "*":
        return items
    if selector.startswith("?"):
        cond = _CONDITION.match(selector[1:])
        if not cond:
            raise TemplateError(f"{{{ref}}}: cannot read the condition {selector[1:]!r}")
        field, op, want = cond.groups()
        if want.startswith("$"):  # a reference inside a selector: [?corp_code=$corp.records[0].corp_code]
            wanted = resolve(want[1:], scope)
            if isinstance(wanted, list) and op in ("=", "!="):  # one of several: [?name=$picked.records[*].name]
                among = {_format(w) for w in wanted}
                return [r for r in items if isinstance(r, dict) and field in r
                        and (_format(r[field]) in among) == (op == "=")]
            want = _format(wanted)
        test = _test(op, want)
        return [r for r in items if isinstance(r, dict) and field in r and test(r[field])]
    try:
        return items[int(selector)]
    except ValueError:
        raise TemplateError(f"{{{ref}}}: bad index [{selector}]") from None
    except IndexError as exc:
        raise TemplateError(f"{{{ref}}}: index {selector} out of range ({len(items)} items)") from exc


def _bracket(rest: str, ref: str) -> tuple[str, str]:
    """The content of the bracket that opens `rest`, with nested brackets balanced, and what follows."""
    depth = 0
    for i, c in enumerate(rest):
        depth += (c == "[") - (c == "]")
        if depth == 0:
            return rest[1:i], rest[i + 1:]
    raise TemplateError(f"{{{ref}}}: unclosed [ in {rest!r}")


def _split_pipes(ref: str) -> list[str]:
    """Split a reference on the pipes that separate filters (not those inside brackets)."""
    parts, depth, current = [], 0, ""
    for c in ref:
        depth += (c == "[") - (c == "]")
        if c == "|" and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    parts.append(current.strip())
    return parts


def resolve(ref: str, scope: dict[str, Any]) -> Any:
    """The value of one reference (without braces) in `scope` (step id → result dict, plus `item`, `today`)."""
    path, *filters = _split_pipes(ref)
    head = re.match(r"[A-Za-z_][A-Za-z0-9_]*", path)
    if not head or head.group(0) not in scope:
        raise TemplateError(f"{{{ref}}}: unknown name {path.split('.')[0]!r}; known: {sorted(scope)}")
    value: Any = scope[head.group(0)]
    rest = path[head.end():]
    spread = False
    while rest:
        if rest.startswith("["):
            selector, rest = _bracket(rest, ref)
            if not isinstance(value, list):
                raise TemplateError(f"{{{ref}}}: [{selector}] needs a list, got {type(value).__name__}")
            value = _select(value, selector.strip(), ref, scope)
            spread = spread or selector.strip() == "*" or selector.strip().startswith("?")
            continue
        m = _NAME.match(rest)
        if not m:
            raise TemplateError(f"{{{ref}}}: cannot parse {rest!r}")
        rest = rest[m.end():]
        key = m.group(1)
        if spread and isinstance(value, list):
            value = [v.get(key) if isinstance(v, dict) else None for v in value]
        elif isinstance(value, dict):
            if key not in value:
                raise TemplateError(f"{{{ref}}}: no field {key!r} (has {sorted(value)[:12]})")
            value = value[key]
        else:
            raise TemplateError(f"{{{ref}}}: cannot take {key!r} of {type(value).__name__}")
    for spec in filters:
        name, _, arg = spec.partition(":")
        if name not in FILTERS:
            raise TemplateError(f"{{{ref}}}: unknown filter {name!r}; known: {sorted(FILTERS)}")
        try:
            value = FILTERS[name](value, *([arg] if arg else []))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, TemplateError):
                raise TemplateError(f"{{{ref}}}: filter {name!r}: {exc}") from exc
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
