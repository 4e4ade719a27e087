"""Which earlier step each call of an intent takes its values from, and how — read from the golden
references as the intent writes them, before anything runs; typed once the steps have run (seed §5.3).

A reference `{filings.records[*].corp_code|mode}` hands `corp_code` of step `filings` on through a process
node (the most frequent value). How a value is handed on decides what its executed cardinality n (the
distinct values of the field in the source's records) must be:

- `one`     `records[0].f`: the source holds one value of f (n = 1, SEQ) — else the API's order would pick;
- `all`     every value, one call each (`for_each: {s.records[*].f|unique}`): SEQ for n = 1, FAN for
            2 ≤ n ≤ φ; more would be an unbounded fan-out;
- `process` a reduction or a selection the question states — max / min (`maxby`, `minby`), the most
            frequent (`mode`), a kind (`[?f=v]`), a threshold (`[?f>=v]`, `[?f<=v]`) or a day (`[?d>v]`) —
            which is a DRV junction: n > φ (over a handful a person asks plainly).

A selector on a value the question names (`[?corp_name=<company>]`: the one company of a name search) is
not a process node: it narrows the records to what the user named, and n is counted over those.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from kopa.eval.lint import PHI
from kopa.eval.template import REF, _split_pipes
from kopa.korean.sentence import PLACEHOLDER

How = Literal["one", "all", "process"]
JunctionKind = Literal["SEQ", "FAN", "DRV"]
_CONDITION = re.compile(r"^\s*([^!=<>~]+?)\s*(!=|>=|<=|!~|=|~|>|<)\s*(.*?)\s*$")
_HEAD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)")
_OPS = {"=": "eq", "~": "eq", ">=": "ge", "<=": "le", ">": "after", "<": "le", "!=": "eq", "!~": "eq"}


@dataclass(frozen=True)
class Selector:
    field: str
    op: str
    value: str  # as written in the intent (a <slot> where the question states it)
    named: bool  # the value is a name the question states (a pick slot): it narrows, it selects nothing


@dataclass(frozen=True)
class Link:
    """One argument of a step taken from an earlier step's records."""

    source: str
    param: str
    field: str
    how: How
    narrowing: tuple[Selector, ...] = ()
    process: str | None = None  # max · min · mode · eq · ge · le · after
    pivot_field: str | None = None
    pivot: str | None = None  # as written in the intent (a <slot.value> for an observed pivot)


@dataclass(frozen=True)
class _Path:
    head: str
    selectors: tuple[str, ...]
    field: str | None
    filters: tuple[str, ...]


def _parse(ref: str) -> _Path | None:
    """`s.records[?x=1][0].f|unique` → head s, selectors ('?x=1', '0'), field f, filters ('unique',)."""
    path, *filters = _split_pipes(ref)
    head = _HEAD.match(path)
    if head is None or not path[head.end():].startswith(".records"):
        return None
    rest = path[head.end() + len(".records"):]
    selectors: list[str] = []
    while rest.startswith("["):
        depth = 0
        for i, c in enumerate(rest):
            depth += (c == "[") - (c == "]")
            if depth == 0:
                selectors.append(rest[1:i].strip())
                rest = rest[i + 1:]
                break
        else:
            return None
    field = rest[1:] if rest.startswith(".") and re.fullmatch(r"\.[A-Za-z_][A-Za-z0-9_]*", rest) else None
    if rest and field is None:
        return None
    for f in filters:
        if f.startswith("get:"):
            field = f[4:]
    return _Path(head.group(1), tuple(selectors), field, tuple(filters))


def _selector(text: str, kinds: Mapping[str, str]) -> Selector | None:
    cond = _CONDITION.match(text[1:]) if text.startswith("?") else None
    if cond is None:
        return None
    field, op, value = cond.groups()
    slot = PLACEHOLDER.fullmatch(value)
    return Selector(field, op, value, named=slot is not None and kinds.get(slot["name"]) == "pick")


def links_of(step: dict[str, Any], data_steps: set[str], kinds: Mapping[str, str]) -> list[Link]:
    """The links of one raw intent step (its <slots> unfilled) from the `data_steps` before it; `kinds`:
    each slot's kind (a pick names, the others state a process)."""
    each = step.get("for_each")
    each_path = _parse(each.strip().strip("{}")) if isinstance(each, str) else None
    out: list[Link] = []
    for param, value in (step.get("args") or {}).items():
        if not isinstance(value, str):
            continue
        for ref in REF.findall(value):
            path: _Path | None
            if ref.strip().split("|")[0].split(".")[0] == "item" and each_path is not None:
                inner = ref.strip()
                field = inner[len("item."):] if inner.startswith("item.") else each_path.field
                path = _Path(each_path.head, each_path.selectors, field, each_path.filters)
            else:
                path = _parse(ref.strip())
            if path is None or path.head not in data_steps or path.field is None:
                continue
            out.append(_link(path, param, kinds, every=each_path is not None and ref.strip().startswith("item")))
    return out


def _link(path: _Path, param: str, kinds: Mapping[str, str], every: bool) -> Link:
    field = path.field
    assert field is not None
    selectors = [s for s in (_selector(x, kinds) for x in path.selectors) if s is not None]
    narrowing = tuple(s for s in selectors if s.named)
    chosen = [s for s in selectors if not s.named]
    for f in path.filters:
        name, _, arg = f.partition(":")
        if name in ("maxby", "minby"):
            return Link(path.head, param, field, "process", narrowing,
                        "max" if name == "maxby" else "min", arg)
        if name == "mode":
            return Link(path.head, param, field, "process", narrowing, "mode", field)
    if chosen:
        s = chosen[0]
        return Link(path.head, param, field, "process", narrowing, _OPS[s.op], s.field, s.value)
    one = not every and "0" in path.selectors
    return Link(path.head, param, field, "one" if one else "all", narrowing)


def narrowed(records: list[dict[str, Any]], link: Link, filled: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """The source's records the question's own names leave (all of them, without narrowing selectors)."""
    out = records
    for s in link.narrowing:
        slot = PLACEHOLDER.fullmatch(s.value)
        want = filled[slot["name"]][slot["part"] or "say"] if slot is not None else s.value
        if s.op in ("=", "!="):
            out = [r for r in out if (str(r.get(s.field)) == want) == (s.op == "=")]
        else:
            out = [r for r in out if (want in str(r.get(s.field))) == (s.op == "~")]
    return out


def kind_of(link: Link, n: int) -> JunctionKind | str:
    """The junction kind the executed cardinality n gives this link, or why n does not fit how it hands on."""
    if link.how == "one":
        return "SEQ" if n == 1 else f"order_dependent: records[0] of {n} distinct {link.field}"
    if link.how == "all":
        if n == 1:
            return "SEQ"
        return "FAN" if n <= PHI else f"too_many: {n} distinct {link.field} handed on one by one"
    return "DRV" if n > PHI else f"not_drv: a {link.process} over {n} distinct {link.field}"


def cardinality(records: list[dict[str, Any]], link: Link, filled: dict[str, dict[str, str]]) -> int:
    """n: the distinct non-empty values of the link's field in the records the question's names leave."""
    return len({str(v) for r in narrowed(records, link, filled) if (v := r.get(link.field)) not in (None, "")})
