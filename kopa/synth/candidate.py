"""A synthesized trajectory as the filter, the dataset and the report read it: the task with its target, its
handoffs typed by executed cardinality (`JunctionInfo`), its template block (`BlockInfo`), what the answer is
(`AnswerInfo`) and the values the question states (`Literal_`) — the same whether an intent of the bank or a
walk on G* built it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from kopa.eval.task import Target, Task


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Literal_(_Model):
    """An argument a user states (not handed on by a junction): written into the query as `phrase`."""

    step: str
    param: str
    label: str
    value: str
    phrase: str  # how a person states the value (a name, a date as a date, an enum's meaning)
    contains: bool = False  # a search on part of a name ("이름에 '삼성'이 들어간")


class JunctionInfo(_Model):
    kind: Literal["SEQ", "FAN", "DRV"]
    source: str  # step ids
    target: str
    source_tool: str
    target_tool: str
    field: str  # T_i.f_i
    param: str  # T_{i+1}.a_i
    field_label: str
    cardinality: int  # n_i: distinct values of the field in the executed result
    records: int  # records the source step read: the paper's cardinality of the handoff
    total: int | None  # what the service reported as the total count
    pages: int = 1  # pages the source step read (the most any one of its calls read)
    process: str | None = None  # DRV: max · min · ge · le · eq · after
    pivot_field: str | None = None
    pivot_label: str | None = None
    pivot: str | None = None
    passed: list[str] = []  # the values handed on, as golden execution hands them on


class AnswerInfo(_Model):
    kind: Literal["field", "count", "sum", "max", "argmax", "list", "facts", "difference", "total"]
    step: str
    field: str | None = None
    label: str | None = None
    by: str | None = None  # argmax: the field ordered by
    by_label: str | None = None
    precision: int | None = None
    number: bool = False  # a number answer (count, sum and max always are)


class BlockInfo(_Model):
    """A non-sequential template (SEM / CMP / COND) and what the writer says about it."""

    kind: Literal["SEM", "CMP", "COND"]
    source: str | None  # the step whose result feeds the block (None: the user states both CMP values)
    records: int | None = None  # records the source returned: the block's handoff, counted as a junction's
    lookup: str | None = None  # source None: what the lookup of each stated value answers (its subject)
    steps: list[str]  # the block's steps (a parallel group's members, or the branch taken)
    tools: list[str]
    subjects: list[str]  # what each call answers, as a person names it (kopa.korean.vocabulary)
    fields: list[str]  # labels of the source fields each block call takes
    values: list[str] = []  # what the block's calls received (never written into the query)
    quantity: str | None = None  # CMP: the compared quantity; COND: the tested one (labels)
    quantity_field: str | None = None  # ... and its field (None for CMP on record counts)
    op: str | None = None  # COND: ">=" or "<"
    threshold: str | None = None  # COND: an observed-value pivot
    taken: int | None = None  # COND: 0 when the condition held (first branch), 1 otherwise


class Candidate(_Model):
    """One executed trajectory as a task, with what the writer, the filter and the report need."""

    index: int
    pattern: str  # junction types in order, e.g. SEQ+FAN
    category: str  # the paper's type: SEQ / FAN / DRV for one junction, MIXED for longer compositions
    junctions: list[JunctionInfo]
    block: BlockInfo | None = None
    answer: AnswerInfo
    titles: dict[str, str]  # step id → the tool's Korean title
    literals: list[Literal_]
    task: Task
    target: Target


class Failure(_Model):
    index: int
    reason: str  # no_start · dead_end · no_answer · not_reproduced · answer_error · unfilled · not_in_graph …
    intent: str | None = None  # the bank's intent that was drawn (intent synthesis)
    detail: str | None = None  # what exactly was refused (a step, a handoff, an edge G* lacks)


class QueryInput(_Model):
    """What the query writer is told about a trajectory: its structure, never its intermediate values."""

    pattern: str
    junctions: list[JunctionInfo]
    block: BlockInfo | None = None
    as_of: str | None = None  # the injected date, stated when a real-time tool is in the chain
    answer: AnswerInfo
    subjects: dict[str, str]  # step id → what the step's tool answers, as a person names it (kopa.korean.vocabulary)
    literals: list[Literal_]
