"""Endpoint drift: scenarios of numbered epochs of changes, applied by the simulator at serving time.

A scenario (`sim/scenarios/<name>.toml`) is the ground truth of what changed: each epoch lists changes,
each naming an endpoint by host and endpoint key (as in `Simulator.endpoints`). Epochs are cumulative —
epoch 2 serves every change of epochs 1 and 2 — and epoch 0 is the undrifted simulator.

Drift never touches the world: `DriftView` transforms the endpoint definition a family looks up, the row
indices a query selects and the records it renders. Which records are added or removed is decided per
table row by a named random stream, so the same record is missing from every query that would return it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from sim.endpoints import Bind, Endpoint
from sim.errors import SimInputError
from sim.tomlspec import load_spec, shipped, spec_path
from sim.world.rng import stream

if TYPE_CHECKING:
    from sim.app import Simulator

SCENARIO_DIR = Path(__file__).parent / "scenarios"

DateFormat = Literal["YYYYMMDD", "YYYY-MM-DD", "YYYY.MM.DD", "YYYY/MM/DD"]
_DATE_PATTERNS: dict[str, str] = {"YYYYMMDD": "%Y%m%d", "YYYY-MM-DD": "%Y-%m-%d", "YYYY.MM.DD": "%Y.%m.%d",
                                  "YYYY/MM/DD": "%Y/%m/%d"}


class DriftError(SimInputError):
    """A scenario that cannot be loaded or applied; the message names the file, epoch and change."""


class _Change(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str
    endpoint: str = Field(description="endpoint key as the family names it (see Simulator.endpoints)")
    note: str = ""

    def describe(self) -> str:
        raise NotImplementedError


class FieldRenamed(_Change):
    kind: Literal["field_renamed"]
    field: str
    to: str

    def describe(self) -> str:
        return f"output field {self.field} renamed to {self.to}"


class FieldRemoved(_Change):
    kind: Literal["field_removed"]
    field: str

    def describe(self) -> str:
        return f"output field {self.field} removed"


class FieldAdded(_Change):
    """A new output field; its value is a constant or a copy of another field of the same record."""

    kind: Literal["field_added"]
    field: str
    value: str | None = None
    copy_of: str | None = None

    @model_validator(mode="after")
    def _one_rule(self) -> FieldAdded:
        if (self.value is None) == (self.copy_of is None):
            raise ValueError(f"field_added {self.field}: give exactly one of value= or copy_of=")
        return self

    def describe(self) -> str:
        rule = f"copy of {self.copy_of}" if self.copy_of is not None else f"constant {self.value!r}"
        return f"output field {self.field} added ({rule})"


class ParamRenamed(_Change):
    kind: Literal["param_renamed"]
    param: str
    to: str

    def describe(self) -> str:
        return f"parameter {self.param} renamed to {self.to} (the old name is ignored)"


class DateFormatChanged(_Change):
    kind: Literal["date_format"]
    field: str
    from_format: DateFormat = Field(alias="from")
    to_format: DateFormat = Field(alias="to")

    @model_validator(mode="after")
    def _differs(self) -> DateFormatChanged:
        if self.from_format == self.to_format:
            raise ValueError(f"date_format {self.field}: from and to are both {self.from_format}")
        return self

    def describe(self) -> str:
        return f"output field {self.field} date format {self.from_format} → {self.to_format}"


class MaxPageSizeLowered(_Change):
    kind: Literal["max_page_size"]
    size: int = Field(gt=0)

    def describe(self) -> str:
        return f"maximum page size lowered to {self.size}"


class RecordsChanged(_Change):
    """A deterministic fraction of the table's rows disappear (removed) or appear twice (added: the
    service starts answering a second, corrected copy of each chosen record — unconfirmed choice of what
    'records added' looks like without touching the world)."""

    kind: Literal["records_added", "records_removed"]
    fraction: float = Field(gt=0, lt=1)
    stream: str = Field(description="name of the random stream that picks the rows")

    def describe(self) -> str:
        verb = "added" if self.kind == "records_added" else "removed"
        return f"records {verb}: {self.fraction:.0%} of rows (stream {self.stream!r})"


class EndpointRetired(_Change):
    kind: Literal["retired"]

    def describe(self) -> str:
        return "endpoint retired (answers the family's unknown-service error)"


Change = Annotated[
    FieldRenamed | FieldRemoved | FieldAdded | ParamRenamed | DateFormatChanged | MaxPageSizeLowered
    | RecordsChanged | EndpointRetired,
    Field(discriminator="kind"),
]


class Epoch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    number: int = Field(ge=1)
    description: str = ""
    changes: list[Change] = Field(min_length=1)


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    epochs: list[Epoch] = Field(min_length=1)

    @model_validator(mode="after")
    def _numbered_in_order(self) -> Scenario:
        numbers = [e.number for e in self.epochs]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError(f"epochs must be numbered 1, 2, … in order; got {numbers}")
        return self

    @property
    def max_epoch(self) -> int:
        return len(self.epochs)

    def changes_until(self, epoch: int) -> list[Change]:
        """Every change in force at `epoch` (epochs are cumulative), in declaration order."""
        if not 0 <= epoch <= self.max_epoch:
            raise DriftError(f"scenario {self.name!r} has epochs 0..{self.max_epoch}; got epoch {epoch}")
        return [c for e in self.epochs[:epoch] for c in e.changes]


def scenario_path(name_or_path: str) -> Path:
    return spec_path(name_or_path, SCENARIO_DIR)


def shipped_scenarios() -> list[str]:
    return shipped(SCENARIO_DIR)


def load_scenario(name_or_path: str) -> Scenario:
    """A shipped scenario by name (`default`) or a TOML file by path, validated."""
    return load_spec(name_or_path, SCENARIO_DIR, Scenario, DriftError, "drift scenario")


# ---------------------------------------------------------------- serving


def output_fields(sim: Simulator, ep: Endpoint) -> list[str]:
    """The wire field names an endpoint renders before drift."""
    if ep.columns is not None:
        return list(ep.columns)
    if ep.fields is not None:
        return list(ep.fields)
    return list(sim.world.table(ep.table).column_names)


def _reformat_date(value, source: str, target: str):
    """A value in `source` date format rewritten in `target`; anything else (empty, malformed) as it was."""
    text = str(value)
    try:
        day = dt.datetime.strptime(text, _DATE_PATTERNS[source])
    except ValueError:
        return value
    return day.strftime(_DATE_PATTERNS[target])


def _rename_key(row: dict, old: str, new: str) -> dict:
    """The record with one key renamed in place, so field order stays as the service sends it."""
    return {(new if k == old else k): v for k, v in row.items()}


class DriftView:
    """The changes of one scenario up to one epoch, as the simulator applies them while serving."""

    def __init__(self, scenario: Scenario, epoch: int, sim: Simulator) -> None:
        self.scenario = scenario
        self.epoch = epoch
        self.seed = sim.world.config.seed
        self.changes: dict[tuple[str, str], list[Change]] = {}
        for change in scenario.changes_until(epoch):
            self.changes.setdefault((change.host, change.endpoint), []).append(change)
        self._endpoints: dict[tuple[str, str], Endpoint | None] = {}
        self._masks: dict[tuple[str, str, str], np.ndarray] = {}
        check_scenario(scenario, sim)

    def endpoint(self, ep: Endpoint) -> Endpoint | None:
        """The endpoint as drifted: None once retired; parameters renamed; page size lowered."""
        key = (ep.host, ep.key)
        if key not in self._endpoints:
            self._endpoints[key] = self._drift_endpoint(ep, self.changes.get(key, []))
        return self._endpoints[key]

    @staticmethod
    def _drift_endpoint(ep: Endpoint, changes: list[Change]) -> Endpoint | None:
        for change in changes:
            if isinstance(change, EndpointRetired):
                return None
            if isinstance(change, ParamRenamed):
                binds: dict[str, Bind] = {(change.to if k == change.param else k): b for k, b in ep.binds.items()}
                required = tuple(change.to if r == change.param else r for r in ep.required)
                ep = replace(ep, binds=binds, required=required)
            elif isinstance(change, MaxPageSizeLowered):
                options = dict(ep.options)
                if "max_page_size" in options:  # families that keep the limit among their options (HRD)
                    options["max_page_size"] = change.size
                ep = replace(ep, max_page_size=change.size, options=options)
        return ep

    def select(self, ep: Endpoint, idx: np.ndarray, n_rows: int) -> np.ndarray:
        """Row indices after records were removed or added, still in the service's order."""
        for change in self.changes.get((ep.host, ep.key), []):
            if isinstance(change, RecordsChanged):
                chosen = self._mask(change, n_rows)[idx]
                idx = idx[~chosen] if change.kind == "records_removed" else np.repeat(idx, 1 + chosen)
        return idx

    def _mask(self, change: RecordsChanged, n_rows: int) -> np.ndarray:
        key = (change.host, change.endpoint, change.stream)
        if key not in self._masks:
            rng = stream(self.seed, f"drift:{change.stream}", f"{change.host} {change.endpoint}")
            self._masks[key] = rng.random(n_rows) < change.fraction
        return self._masks[key]

    def rows(self, ep: Endpoint, rows: list[dict]) -> list[dict]:
        """Records with fields renamed, removed, added and dates reformatted, in declaration order."""
        changes = [c for c in self.changes.get((ep.host, ep.key), [])
                   if isinstance(c, FieldRenamed | FieldRemoved | FieldAdded | DateFormatChanged)]
        for change in changes:
            rows = [_apply_field_change(change, row) for row in rows]
        return rows


def _apply_field_change(change: Change, row: dict) -> dict:
    if isinstance(change, FieldRenamed):
        return _rename_key(row, change.field, change.to)
    if isinstance(change, FieldRemoved):
        return {k: v for k, v in row.items() if k != change.field}
    if isinstance(change, FieldAdded):
        value = row.get(change.copy_of, "") if change.copy_of is not None else change.value
        return {**row, change.field: value}
    if isinstance(change, DateFormatChanged) and change.field in row:
        return {**row, change.field: _reformat_date(row[change.field], change.from_format, change.to_format)}
    return row


def check_scenario(scenario: Scenario, sim: Simulator) -> None:
    """Every change names a real endpoint and, applied in order, a field or parameter that exists then."""
    fields: dict[tuple[str, str], list[str]] = {}
    params: dict[tuple[str, str], list[str]] = {}
    retired: set[tuple[str, str]] = set()
    for epoch in scenario.epochs:
        for i, change in enumerate(epoch.changes):
            where = f"scenario {scenario.name!r} epoch {epoch.number} change {i + 1} ({change.kind})"
            key = (change.host, change.endpoint)
            ep = sim.endpoints.get(key)
            if ep is None:
                raise DriftError(f"{where}: no endpoint {change.endpoint!r} on host {change.host!r}")
            if key in retired:
                raise DriftError(f"{where}: endpoint {change.endpoint!r} was already retired")
            have = fields.setdefault(key, output_fields(sim, ep))
            names = params.setdefault(key, list(ep.binds))
            _check_change(change, have, names, ep, where)
            if isinstance(change, EndpointRetired):
                retired.add(key)


def _check_change(change: Change, have: list[str], params: list[str], ep: Endpoint, where: str) -> None:
    def need(name: str, among: list[str], what: str) -> None:
        if name not in among:
            raise DriftError(f"{where}: {what} {name!r} does not exist; it has {among}")

    def free(name: str, among: list[str], what: str) -> None:
        if name in among:
            raise DriftError(f"{where}: {what} {name!r} already exists")

    if isinstance(change, FieldRenamed):
        need(change.field, have, "field")
        free(change.to, have, "field")
        have[have.index(change.field)] = change.to
    elif isinstance(change, FieldRemoved):
        need(change.field, have, "field")
        have.remove(change.field)
    elif isinstance(change, FieldAdded):
        free(change.field, have, "field")
        if change.copy_of is not None:
            need(change.copy_of, have, "field")
        have.append(change.field)
    elif isinstance(change, DateFormatChanged):
        need(change.field, have, "field")
    elif isinstance(change, ParamRenamed):
        need(change.param, params, "parameter")
        free(change.to, params, "parameter")
        params[params.index(change.param)] = change.to
    elif isinstance(change, MaxPageSizeLowered):
        current = ep.max_page_size or ep.options.get("max_page_size")
        if current is not None and change.size >= current:
            raise DriftError(f"{where}: size {change.size} does not lower the maximum page size {current}")
