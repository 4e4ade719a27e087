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
            which is a DRV junction when n > φ (over a handful, SEQ or FAN by what it hands on).

A selector on a value the question names (`[?corp_name=<company>]`: the one company of a name search) is
not a process node: it narrows the records to what the user named, and n is counted over those; so does a
selector before a reduction ("법무부 소관 법령 가운데 가장 최근에 공포된 것": the kind narrows, the max selects).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from kopa.eval.lint import PHI
from kopa.eval.template import REF, _split_pipes, resolve
from kopa.korean.sentence import PLACEHOLDER

How = Literal["one", "all", "process"]
JunctionKind = Literal["SEQ", "FAN", "DRV"]
_CONDITION = re.compile(r"^\s*([^!=<>~]+?)\s*(!=|>=|<=|!~|=|~|>|<)\s*(.*?)\s*$")
_HEAD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)")
_REDUCTION = re.compile(r"\|(?:min|max|mode|maxby|minby|sum|len)\b")
_OPS = {"=": "eq", "~": "eq", ">=": "ge", "<=": "le", ">": "after", "<": "le", "!=": "eq", "!~": "eq"}


@dataclass(frozen=True)
class Selector:
    field: str
    op: str
    value: str  # as written in the intent (a <slot> where the question states it)
    text: str  # the whole selector, '?corp_name=<company>'
    kind: str | None  # the kind of slot its value is (pick, choice, observed, …; a $reference names, as a
    #                   pick does); None for a literal


@dataclass(frozen=True)
class Link:
    """One argument of a step taken from an earlier step's records."""

    source: str
    param: str
    field: str
    how: How
    narrowing: tuple[str, ...] = ()  # selectors (as written) that leave what the question names or states
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
    field = rest[1:] if rest.startswith(".") and re.fullmatch(r"\.[A-Za-z_가-힣][A-Za-z0-9_가-힣]*", rest) else None
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
    if value.startswith("$"):
        # a value an earlier step found ("the company whose stock rose most") names, as a pick does; one a
        # reduction computes here ("= $oil.records[*].price|min": the cheapest) selects: a process node
        reduced = _REDUCTION.search(value) is not None
        return Selector(field, op, value, text, None if reduced else "pick")
    return Selector(field, op, value, text, kinds.get(slot["name"]) if slot is not None else None)


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
    """How the reference hands its field on. A reduction (`maxby`, `minby`, `mode`) is the process node, and
    every selector before it narrows the records to what the question states (a kind, a name). Without one,
    the process node is the selector on an observed pivot, else the last selector on a kind the question
    states (`[?REP_DIV=대표발의]`, a choice); a name the question gives (a pick) only ever narrows."""
    field = path.field
    assert field is not None
    selectors = [s for s in (_selector(x, kinds) for x in path.selectors) if s is not None]
    texts = tuple(s.text for s in selectors)
    for f in path.filters:
        name, _, arg = f.partition(":")
        if name in ("maxby", "minby"):
            return Link(path.head, param, field, "process", texts, "max" if name == "maxby" else "min", arg)
        if name == "mode":
            return Link(path.head, param, field, "process", texts, "mode", field)
    stating = [s for s in selectors if s.kind != "pick"]
    if stating:
        chosen = next((s for s in reversed(stating) if s.kind == "observed"), stating[-1])
        narrowing = tuple(s.text for s in selectors if s is not chosen)
        return Link(path.head, param, field, "process", narrowing, _OPS[chosen.op], chosen.field, chosen.value)
    one = not every and "0" in path.selectors
    return Link(path.head, param, field, "one" if one else "all", texts)


def narrowed(records: list[dict[str, Any]], link: Link, filled: dict[str, dict[str, str]],
             scope: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The source's records the narrowing selectors leave (all of them, without any), read as golden
    execution reads a selector (kopa.eval.template), with the question's values filled in and a $reference
    to an earlier step read in `scope`."""
    if not link.narrowing:
        return records
    selectors = "".join(f"[{PLACEHOLDER.sub(lambda m: filled[m['name']][m['part'] or 'say'], s)}]"
                        for s in link.narrowing)
    found = resolve(f"{_SOURCE}.records{selectors}", {**(scope or {}), _SOURCE: {"records": records}})
    return found if isinstance(found, list) else [found]


_SOURCE = "__source"  # the records being narrowed, beside the steps a $reference may read


def kind_of(link: Link, n: int, passed: int = 1) -> JunctionKind | str:
    """The junction kind the executed cardinality n gives this link (`passed`: how many values it handed
    on), or why n does not fit how it hands on. A process node over n ≤ φ values is no DRV (seed §5.3 types
    by n): the handoff is SEQ or FAN by what passed."""
    if link.how == "one":
        return "SEQ" if n == 1 else f"order_dependent: records[0] of {n} distinct {link.field}"
    if link.how == "all":
        if n == 1:
            return "SEQ"
        return "FAN" if n <= PHI else f"too_many: {n} distinct {link.field} handed on one by one"
    if n > PHI:
        return "DRV"
    return "SEQ" if passed == 1 else "FAN"


def cardinality(records: list[dict[str, Any]], link: Link, filled: dict[str, dict[str, str]],
                scope: dict[str, Any] | None = None) -> int:
    """n: the distinct non-empty values of the link's field in the records the question's names leave."""
    return len({str(v) for r in narrowed(records, link, filled, scope)
                if (v := r.get(link.field)) not in (None, "")})
