"""Endpoint definitions on the simulator side: which table answers, which wire parameter filters
which column, what is required and what format a value must have.

This is the simulator's own knowledge of each service, written apart from the catalog on purpose:
a misunderstanding in one cannot cancel itself out in the other.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from sim.world.table import Cond, Op

DATE = r"\d{8}"  # YYYYMMDD, the services' date (Bind.day / Bind.any_date also check that it is on the calendar)
Calendar = Literal["", "past", "any"]


@dataclass(frozen=True)
class Bind:
    column: str
    op: Op = "eq"
    pattern: str | None = None  # a value not matching it is a bad-format error
    # A date (YYYYMMDD) must be a day on the calendar: 20261345 or 20260230 gets the service's invalid-parameter
    # answer, not an empty one. "past": a day that has happened (a trading day, a day's ridership) — after the
    # world's today there is nothing yet, so the answer is the service's empty one. "any": a day that may lie
    # ahead (one end of a range, a course that starts next month, a law in force from next year).
    calendar: Calendar = ""

    @classmethod
    def day(cls, column: str, op: Op = "eq") -> Bind:
        """A day that has happened, as a request asks about it."""
        return cls(column, op, DATE, "past")

    @classmethod
    def any_date(cls, column: str, op: Op = "eq") -> Bind:
        """A date that may lie ahead: a range's end, a planned day."""
        return cls(column, op, DATE, "any")

    def check(self, value: str) -> bool:
        if self.pattern is not None and re.fullmatch(self.pattern, value) is None:
            return False
        return not self.calendar or on_calendar(value)

    def after(self, value: str, today: str | None) -> bool:
        """Whether a checked value asks about a past day that is after the world's `today` (YYYYMMDD)."""
        return self.calendar == "past" and today is not None and value > today


def on_calendar(value: str) -> bool:
    """A YYYYMMDD that names a real day (the month has that day; February 29 only in a leap year)."""
    try:
        dt.date(int(value[:4]), int(value[4:6]), int(value[6:8]))
    except ValueError:
        return False
    return len(value) == 8 and value.isdigit()


@dataclass(frozen=True)
class Endpoint:
    family: str
    host: str
    key: str  # how the family names the endpoint: DART api name, portal SERVICE, data.go.kr path …
    table: str
    binds: dict[str, Bind] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    fields: tuple[str, ...] | None = None  # output columns; None = every column of the table
    columns: dict[str, str] | None = None  # wire field -> table column, where the wire renames columns
    fixed: tuple[Cond, ...] = ()  # conditions always applied (e.g. the KOSPI-only endpoint of a shared table)
    max_page_size: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    # Set for time series the world does not store whole (prices, financials, ridership, 급식, 시간표): the
    # request's rows are generated on demand (sim.history); `table` then names a stored sample of them.
    history: Any = None


class SimError(Exception):
    """An application error the family renders in its own envelope.

    kind: missing_param | bad_param | too_many | no_data | unknown_service | page_size | bad_window | rate_limit |
    maintenance | server_error
    """

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def conditions(endpoint: Endpoint, args: dict[str, str], today: str | None = None) -> list[Cond]:
    """Validate the arguments an endpoint received and turn them into table conditions. With the world's
    `today` (YYYYMMDD), a day after it selects nothing (see `Bind.date`)."""
    for name in endpoint.required:
        if not args.get(name):
            raise SimError("missing_param", name)
    conds = list(endpoint.fixed)
    for name, bind in endpoint.binds.items():
        value = args.get(name)
        if value is None or value == "":
            continue
        if bind.op == "in":
            # A comma list (e.g. DART fnlttMultiAcnt corp_code=a,b,c), capped where the service caps it.
            parts = tuple(v.strip() for v in value.split(","))
            if len(parts) > endpoint.options.get("max_items", 10**9):
                raise SimError("too_many", name)
            if not all(bind.check(v) for v in parts):
                raise SimError("bad_param", f"{name}={value}")
            conds.append(Cond(bind.column, "in", parts))
            continue
        if not bind.check(value):
            raise SimError("bad_param", f"{name}={value}")
        # nothing is dated after today: an empty selection, which each family answers as it answers no match
        conds.append(Cond(bind.column, "in", ()) if bind.after(value, today) else Cond(bind.column, bind.op, value))
    return conds
