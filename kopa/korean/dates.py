"""Days, months and years as a person writes them, and the days a service's text names."""

from __future__ import annotations

import datetime as dt
import re

DAY = re.compile(r"^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$")
MONTH = re.compile(r"^(19|20)\d{2}(0[1-9]|1[0-2])$")
YEAR = re.compile(r"^(19|20)\d{2}$")
ISO_DAY = re.compile(r"^(19|20)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
# a day, month or year already written the Korean way: "2026년 1월 30일", "2026년 1월", "2026년"
WRITTEN = re.compile(r"\d{4}년( \d{1,2}월( \d{1,2}일)?)?")


def calendar_day(value: str) -> dt.date | None:
    """The day '20260128' or '2026-01-28' names; None for anything else, an impossible day (20250230) or a
    service's placeholder (20000000) among them."""
    if not (DAY.match(value) or ISO_DAY.match(value)):
        return None
    digits = value.replace("-", "")
    try:
        return dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None


def date_phrase(value: str) -> str | None:
    """'20251103' (or '2025-11-03') → '2025년 11월 3일', '202511' → '2025년 11월', '2025' → '2025년'; None
    otherwise."""
    if ISO_DAY.match(value):
        value = value.replace("-", "")
    if DAY.match(value):
        return f"{value[:4]}년 {int(value[4:6])}월 {int(value[6:8])}일"
    if MONTH.match(value):
        return f"{value[:4]}년 {int(value[4:6])}월"
    if YEAR.match(value):
        return f"{value}년"
    return None


def day_phrase(day: dt.date) -> str:
    return f"{day.year}년 {day.month}월 {day.day}일"
