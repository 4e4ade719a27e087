"""Columnar, dictionary-encoded tables held in memory for serving.

DuckDB is the store at rest; serving from it costs ~0.4 ms a query, too slow for thousands of calls a
second, so tables are loaded once into integer code arrays with a sorted vocabulary per column.
Sorted vocabularies make range filters on codes equal to range filters on values, and keep a
225k-row table in a few megabytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Op = Literal["eq", "ne", "contains", "prefix", "ge", "le", "gt", "lt", "in"]


@dataclass(frozen=True)
class Cond:
    column: str
    op: Op
    value: Any


@dataclass
class TableData:
    """What a world generator produces: columns of equal length and the entity each carries."""

    name: str
    # Mapping (read-only, so covariant): generators hand over dict[str, list] or numpy arrays as they are
    columns: Mapping[str, Sequence[Any] | np.ndarray]
    entities: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        lengths = {k: len(v) for k, v in self.columns.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"table {self.name}: columns differ in length {lengths}")

    @property
    def n_rows(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0


class Column:
    __slots__ = ("_index", "_text", "codes", "vocab")

    def __init__(self, values: np.ndarray) -> None:
        if values.dtype.kind == "O":
            vocab, codes = _factorize_objects(values)
        else:
            vocab, codes = np.unique(values, return_inverse=True)
        self.vocab: np.ndarray = vocab
        self.codes: np.ndarray = codes.astype(np.int32).reshape(-1)
        self._index: tuple[np.ndarray, np.ndarray] | None = None
        self._text: np.ndarray | None = None

    def text_vocab(self) -> np.ndarray:
        """The vocabulary rendered as strings once, for services that answer every value as text."""
        if self._text is None:
            text = np.empty(len(self.vocab), dtype=object)
            text[:] = [str(v) for v in self.vocab.tolist()]
            self._text = text
        return self._text

    def coerce(self, value: Any) -> Any:
        """Wire values arrive as text; compare them as the column stores them."""
        kind = self.vocab.dtype.kind
        if kind in "iu":
            return int(value)
        if kind == "f":
            return float(value)
        return str(value) if not isinstance(value, str) else value

    def code_of(self, value: Any) -> int | None:
        try:
            value = self.coerce(value)
        except (TypeError, ValueError):
            return None
        i = int(np.searchsorted(self.vocab, value))
        return i if i < len(self.vocab) and self.vocab[i] == value else None

    def rows_equal(self, value: Any) -> np.ndarray:
        code = self.code_of(value)
        if code is None:
            return np.empty(0, dtype=np.int64)
        if self._index is None:
            order = np.argsort(self.codes, kind="stable")
            starts = np.searchsorted(self.codes[order], np.arange(len(self.vocab) + 1))
            self._index = (order, starts)
        order, starts = self._index
        return order[starts[code] : starts[code + 1]]

    def vocab_mask(self, op: Op, value: Any) -> np.ndarray:
        vocab = self.vocab
        if op == "contains":
            needle = str(value)
            return np.fromiter((needle in str(v) for v in vocab), dtype=bool, count=len(vocab))
        if op == "prefix":
            needle = str(value)
            return np.fromiter((str(v).startswith(needle) for v in vocab), dtype=bool, count=len(vocab))
        if op == "in":
            wanted = set()
            for v in value:
                try:
                    wanted.add(self.coerce(v))
                except (TypeError, ValueError):
                    continue
            return np.fromiter((v in wanted for v in vocab.tolist()), dtype=bool, count=len(vocab))
        try:
            value = self.coerce(value)
        except (TypeError, ValueError):
            return np.zeros(len(vocab), dtype=bool)
        if op == "ne":
            return vocab != value
        # Range ops: vocab is sorted, so a searchsorted bound splits it.
        sides: dict[str, Literal["left", "right"]] = {"ge": "left", "lt": "left", "gt": "right", "le": "right"}
        side = sides[op]
        cut = int(np.searchsorted(vocab, value, side=side))
        mask = np.zeros(len(vocab), dtype=bool)
        if op in ("ge", "gt"):
            mask[cut:] = True
        else:
            mask[:cut] = True
        return mask


def _factorize_objects(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique for object arrays, in O(n) dictionary passes plus a sort of the distinct values only."""
    first: dict[Any, int] = {}
    raw = np.fromiter((first.setdefault(v, len(first)) for v in values.tolist()), dtype=np.int64, count=len(values))
    distinct = list(first)
    order = sorted(range(len(distinct)), key=distinct.__getitem__)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[order] = np.arange(len(distinct))
    vocab = np.empty(len(distinct), dtype=object)
    vocab[:] = [distinct[i] for i in order]
    return vocab, rank[raw]


class Table:
    def __init__(self, name: str, columns: Mapping[str, np.ndarray | Column], entities: dict[str, str]) -> None:
        self.name = name
        self.column_names = list(columns)
        self.entities = dict(entities)
        self.cols = {k: v if isinstance(v, Column) else Column(np.asarray(v)) for k, v in columns.items()}
        self.n_rows = len(next(iter(self.cols.values())).codes) if self.cols else 0

    def select(self, conds: Sequence[Cond]) -> np.ndarray:
        """Row indices (ascending) matching every condition."""
        rows: np.ndarray | None = None
        mask: np.ndarray | None = None
        for cond in conds:
            col = self.cols[cond.column]
            if cond.op == "eq":
                hit = col.rows_equal(cond.value)
                rows = hit if rows is None else np.intersect1d(rows, hit, assume_unique=True)
            else:
                m = col.vocab_mask(cond.op, cond.value)[col.codes]
                mask = m if mask is None else (mask & m)
        if rows is None and mask is None:
            return np.arange(self.n_rows)
        if rows is None:
            assert mask is not None
            return np.flatnonzero(mask)
        rows = np.sort(rows)
        if mask is not None:
            rows = rows[mask[rows]]
        return rows

    def rows(self, idx: np.ndarray, columns: Sequence[str] | None = None, *, text: bool = False
             ) -> list[dict[str, Any]]:
        names = list(columns) if columns is not None else self.column_names
        cols = [self.cols[c] for c in names]
        decoded = [(c.text_vocab() if text else c.vocab)[c.codes[idx]].tolist() for c in cols]
        return [dict(zip(names, values, strict=True)) for values in zip(*decoded, strict=True)]

    def value(self, row: int, column: str) -> Any:
        col = self.cols[column]
        return col.vocab[col.codes[row : row + 1]].tolist()[0]
