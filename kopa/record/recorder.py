"""The tool-call side of recording: one snapshot row per call, with its records."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx

from kopa.catalog.models import Tool
from kopa.record.snapshot import CallRow, Snapshot, call_id
from kopa.record.transports import canonical_of

if TYPE_CHECKING:  # a type only: the recording layer sits below the tools
    from kopa.tools.results import ToolResult


class SnapshotRecorder:
    def __init__(self, snapshot: Snapshot, captured_at: Callable[[], str], provenance: str) -> None:
        self.snapshot = snapshot
        self.captured_at = captured_at
        self.provenance = provenance
        self.stored = 0
        self.skipped = 0

    def observe(self, tool: Tool, arguments: dict[str, Any], result: ToolResult, latency_ms: float,
                requests: list[httpx.Request]) -> None:
        canonicals = [canonical_of(r) for r in requests]
        secrets = tuple(s for c in canonicals for s in c.secrets)
        error = result.error
        row = CallRow(
            call_id=call_id(tool.name, arguments), platform=tool.platform, tool=tool.name, family=tool.family,
            request_fingerprints=[c.fingerprint for c in canonicals], arguments=arguments, ok=result.ok,
            status="ok" if result.ok else (error.code if error else "error"),
            error_class=error.error_class if error else None, error_kind=error.kind if error else None,
            error_message=error.message if error else None, record_count=len(result.records),
            total_count=result.total_count,
            page=result.page.model_dump(exclude_none=True) if result.page is not None else None,
            latency_ms=round(latency_ms, 3), captured_at=self.captured_at(), backend=self.provenance,
            records=result.records,
        )
        if self.snapshot.add_call(row, secrets):
            self.stored += 1
        else:
            self.skipped += 1
