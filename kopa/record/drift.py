"""Drift between two snapshots, per tool: which fields came or went or were renamed, which changed type or
format, whose record counts moved, whose error rate moved, which endpoints were retired.

Only calls present in both snapshots (same tool and arguments, i.e. same call id) are compared, so a
drift report says what changed in the answers, not what changed in the questions. The other side may be a
backend: `kopa.tools.reissue` issues the first snapshot's calls again on it into a temporary recording
(that calls tools, a layer above this one), then compares the two here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import BaseModel

from kopa.record.snapshot import Snapshot

SNAPSHOT_FILE = "snapshot.duckdb"

FindingKind = Literal["retired", "error_rate", "record_count", "field_added", "field_removed", "field_renamed",
                      "type_changed", "format_changed"]

# Value formats, most specific first; the first that matches names a string value's format.
_FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(pattern)) for name, pattern in (
        ("YYYYMMDD", r"(19|20)\d\d(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])"),
        ("YYYY-MM-DD", r"(19|20)\d\d-\d\d-\d\d"),
        ("YYYY.MM.DD", r"(19|20)\d\d\.\d{1,2}\.\d{1,2}"),
        ("YYYY/MM/DD", r"(19|20)\d\d/\d\d/\d\d"),
        ("datetime", r"(19|20)\d\d-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?"),
        ("YYYYMM", r"(19|20)\d\d(0[1-9]|1[0-2])"),
        ("integer", r"[-+]?\d+"),
        ("decimal", r"[-+]?\d*\.\d+"),
        ("comma-number", r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?"),
    )
]
_NUMERIC_LOOKING = {"integer", "YYYYMMDD", "YYYYMM"}  # an integer column may hold date-looking numbers


class Finding(BaseModel):
    tool: str
    platform: str
    kind: FindingKind
    field: str | None = None
    to: str | None = None  # the new name of a renamed field
    before: str | None = None
    after: str | None = None

    def sentence(self) -> str:
        if self.kind == "retired":
            return f"endpoint retired: every call now fails with unknown_service ({self.after})"
        if self.kind == "error_rate":
            return f"error rate {self.before} → {self.after}"
        if self.kind == "record_count":
            return f"record counts changed: {self.before} → {self.after}"
        if self.kind == "field_added":
            return f"field added: `{self.field}` ({self.after})"
        if self.kind == "field_removed":
            return f"field removed: `{self.field}` ({self.before})"
        if self.kind == "field_renamed":
            return f"field renamed: `{self.field}` → `{self.to}`"
        what = "type" if self.kind == "type_changed" else "format"
        return f"{what} of `{self.field}` changed: {self.before} → {self.after}"


class Side(BaseModel):
    source: str  # the snapshot path or backend string given
    backend: str  # provenance recorded in the snapshot
    calls: int


class DriftReport(BaseModel):
    a: Side
    b: Side
    matched_calls: int
    only_in_a: int
    only_in_b: int
    tools: list[str]  # tools with at least one call in both
    findings: list[Finding]

    def by_tool(self) -> dict[str, list[Finding]]:
        out: dict[str, list[Finding]] = {}
        for f in self.findings:
            out.setdefault(f.tool, []).append(f)
        return out

    def to_json(self) -> bytes:
        return orjson.dumps(self.model_dump(), option=orjson.OPT_INDENT_2)

    def markdown(self) -> str:
        lines = ["# Drift report", "",
                 f"- **A**: `{self.a.source}` — {self.a.backend} ({self.a.calls} calls)",
                 f"- **B**: `{self.b.source}` — {self.b.backend} ({self.b.calls} calls)",
                 f"- compared {self.matched_calls} calls present in both, over {len(self.tools)} tools "
                 f"(only in A: {self.only_in_a}, only in B: {self.only_in_b})", ""]
        grouped = self.by_tool()
        if not grouped:
            lines.append("No drift: every compared tool answers with the same fields, formats, record counts "
                         "and error rate.")
            return "\n".join(lines) + "\n"
        lines += [f"{len(self.findings)} changes in {len(grouped)} of {len(self.tools)} tools.", "",
                  "| tool | platform | changes |", "|---|---|---|"]
        for tool, findings in grouped.items():
            kinds = ", ".join(sorted({f.kind for f in findings}))
            lines.append(f"| `{tool}` | {findings[0].platform} | {kinds} |")
        for tool, findings in grouped.items():
            lines += ["", f"## `{tool}`", ""]
            lines += [f"- {f.sentence()}" for f in findings]
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reading snapshots


@dataclass
class _Call:
    call_id: str
    seq: int
    platform: str
    tool: str
    arguments: dict[str, Any]
    ok: bool
    error_kind: str | None
    count: int
    records: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Loaded:
    backend: str
    calls: dict[str, _Call]


def snapshot_path(path: str | Path) -> Path:
    """A snapshot file, or the snapshot inside a recording directory."""
    p = Path(path)
    return p / SNAPSHOT_FILE if p.is_dir() else p


def _load(path: Path) -> _Loaded:
    with Snapshot(path, read_only=True) as snap:
        meta = dict(snap.query("SELECT key, value FROM meta"))
        rows = snap.query("SELECT call_id, seq, platform, tool, arguments, ok, error_kind, record_count, total_count "
                          "FROM calls ORDER BY seq")
        calls = {r[0]: _Call(r[0], r[1], r[2], r[3], orjson.loads(r[4]) if r[4] else {}, bool(r[5]), r[6],
                             r[8] if r[8] is not None else (r[7] or 0)) for r in rows}
        for cid, record in snap.query("SELECT call_id, record FROM records ORDER BY call_id, idx"):
            calls[cid].records.append(orjson.loads(record))
        if "backend" not in meta:  # a snapshot written without meta: the provenance beside its calls
            meta["backend"] = ", ".join(b for (b,) in snap.query(
                "SELECT DISTINCT backend FROM calls WHERE backend IS NOT NULL ORDER BY backend"))
    return _Loaded(meta["backend"], calls)


# ---------------------------------------------------------------- classifying values


def value_format(value: Any) -> tuple[str, str] | None:
    """(JSON type, format) of one value; None for an empty one, which says nothing about the field."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean", "boolean"
    if isinstance(value, int):
        return "integer", "integer"
    if isinstance(value, float):
        return "number", "decimal"
    if isinstance(value, dict | list):
        return type(value).__name__, "json"
    text = str(value).strip()
    if not text:
        return None
    for name, pattern in _FORMATS:
        if pattern.fullmatch(text):
            return "string", name
    return "string", "text"


def _one(names: set[str]) -> str | None:
    """A field's format from the formats its values showed: a mixture collapses to what covers them all."""
    if not names:
        return None
    if len(names) == 1:
        return next(iter(names))
    if names <= _NUMERIC_LOOKING:
        return "integer"
    if names <= _NUMERIC_LOOKING | {"decimal"}:
        return "decimal"
    if names <= _NUMERIC_LOOKING | {"decimal", "comma-number"}:
        return "comma-number"
    return "text"


def field_profile(records: Iterable[dict[str, Any]], name: str) -> tuple[str | None, str | None]:
    types: set[str] = set()
    formats: set[str] = set()
    for r in records:
        got = value_format(r.get(name))
        if got is not None:
            types.add(got[0])
            formats.add(got[1])
    kind = next(iter(types)) if len(types) == 1 else ("mixed" if types else None)
    return kind, _one(formats)


def _values(records: Iterable[dict[str, Any]], name: str) -> set[str]:
    return {str(r[name]) for r in records if name in r and r[name] not in (None, "")}


def _fields(records: Iterable[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        seen.update(dict.fromkeys(r))
    return list(seen)


# ---------------------------------------------------------------- comparing


def _rate(calls: list[_Call]) -> str:
    failed = sum(not c.ok for c in calls)
    return f"{failed}/{len(calls)} ({failed / len(calls):.0%})"


def _error_kinds(calls: list[_Call]) -> str:
    kinds = sorted({c.error_kind or "?" for c in calls if not c.ok})
    return ", ".join(kinds) if kinds else "none"


def _compare_tool(tool: str, platform: str, pairs: list[tuple[_Call, _Call]]) -> list[Finding]:
    a_calls = [a for a, _ in pairs]
    b_calls = [b for _, b in pairs]
    if all(not b.ok and b.error_kind == "unknown_service" for b in b_calls) and any(
            a.ok or a.error_kind != "unknown_service" for a in a_calls):
        return [Finding(tool=tool, platform=platform, kind="retired", before=_rate(a_calls), after=_rate(b_calls))]
    findings: list[Finding] = []
    if sum(not c.ok for c in a_calls) != sum(not c.ok for c in b_calls):
        findings.append(Finding(tool=tool, platform=platform, kind="error_rate",
                                before=f"{_rate(a_calls)} [{_error_kinds(a_calls)}]",
                                after=f"{_rate(b_calls)} [{_error_kinds(b_calls)}]"))
    both_ok = [(a, b) for a, b in pairs if a.ok and b.ok]
    moved = [(a, b) for a, b in both_ok if a.count != b.count]
    if moved:
        findings.append(Finding(tool=tool, platform=platform, kind="record_count",
                                before=f"{sum(a.count for a, _ in moved)} records in {len(moved)} calls",
                                after=f"{sum(b.count for _, b in moved)} records"))
    a_records = [r for a, _ in both_ok for r in a.records]
    b_records = [r for _, b in both_ok for r in b.records]
    findings += _compare_fields(tool, platform, a_records, b_records)
    return findings


def _compare_fields(tool: str, platform: str, a_records: list[dict], b_records: list[dict]) -> list[Finding]:
    a_fields, b_fields = _fields(a_records), _fields(b_records)
    removed = [f for f in a_fields if f not in b_fields]
    added = [f for f in b_fields if f not in a_fields]
    renamed: list[tuple[str, str]] = []
    for old in list(removed):
        old_values = _values(a_records, old)
        best, best_score = None, 0.0
        for new in added:
            new_values = _values(b_records, new)
            if old_values and new_values:
                score = len(old_values & new_values) / min(len(old_values), len(new_values))
                if score > best_score:
                    best, best_score = new, score
        # Renamed = the same values under a new name; a removed field whose values reappear elsewhere.
        if best is not None and best_score >= 0.9:
            renamed.append((old, best))
            removed.remove(old)
            added.remove(best)
    findings = [Finding(tool=tool, platform=platform, kind="field_renamed", field=old, to=new)
                for old, new in renamed]
    findings += [Finding(tool=tool, platform=platform, kind="field_removed", field=f,
                         before=_describe(field_profile(a_records, f))) for f in removed]
    findings += [Finding(tool=tool, platform=platform, kind="field_added", field=f,
                         after=_describe(field_profile(b_records, f))) for f in added]
    common = [(f, f) for f in a_fields if f in b_fields] + renamed
    for old, new in common:
        a_type, a_format = field_profile(a_records, old)
        b_type, b_format = field_profile(b_records, new)
        if None in (a_type, b_type):
            continue
        if a_type != b_type:
            findings.append(Finding(tool=tool, platform=platform, kind="type_changed", field=new,
                                    before=a_type, after=b_type))
        elif a_format != b_format:
            findings.append(Finding(tool=tool, platform=platform, kind="format_changed", field=new,
                                    before=a_format, after=b_format))
    return findings


def _describe(profile: tuple[str | None, str | None]) -> str:
    kind, fmt = profile
    return "always empty" if kind is None else f"{kind}, {fmt}"


def compare_snapshots(a: str | Path, b: str | Path, *, a_label: str | None = None,
                      b_label: str | None = None) -> DriftReport:
    """The drift from snapshot (or recording directory) A to B."""
    left, right = _load(snapshot_path(a)), _load(snapshot_path(b))
    matched = [cid for cid in left.calls if cid in right.calls]
    by_tool: dict[str, list[tuple[_Call, _Call]]] = {}
    for cid in matched:
        by_tool.setdefault(left.calls[cid].tool, []).append((left.calls[cid], right.calls[cid]))
    findings: list[Finding] = []
    for tool in sorted(by_tool):
        pairs = by_tool[tool]
        findings += _compare_tool(tool, pairs[0][0].platform, pairs)
    return DriftReport(
        a=Side(source=a_label or str(a), backend=left.backend, calls=len(left.calls)),
        b=Side(source=b_label or str(b), backend=right.backend, calls=len(right.calls)),
        matched_calls=len(matched), only_in_a=len(left.calls) - len(matched),
        only_in_b=sum(cid not in left.calls for cid in right.calls), tools=sorted(by_tool), findings=findings)


def recorded_calls(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of every call of a snapshot (or recording directory), in the order they were made."""
    calls = sorted(_load(snapshot_path(path)).calls.values(), key=lambda c: c.seq)
    return [(c.tool, c.arguments) for c in calls]
