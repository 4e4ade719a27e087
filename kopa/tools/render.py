"""What a model reads of a tool result: its JSON (`ToolResult.for_model()`), cut to a number of characters
by dropping trailing records, so it stays valid JSON, with a note (in Korean, as the services speak) saying
how many records were shown and how to read the rest. The agent loop, the RL adapters and the MCP servers
all cut here, so a model meets the same cut wherever it runs."""

from __future__ import annotations

import json
from typing import Any

from kopa.tools.results import ToolResult

MAX_TOOL_CHARS = 24_000  # about 8k tokens of Korean JSON: keeps a huge page from flooding the context
CUT_MARK = " …(잘림)"  # ends a text cut where no records could be dropped


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def shown_within(result: ToolResult, limit: int = MAX_TOOL_CHARS) -> tuple[dict[str, Any], bool]:
    """`result.for_model()` with as many leading records as fit in `limit` characters of JSON and a
    `truncated` note when some were dropped; whether it was cut. A result with no records to drop comes
    back whole (its text may still be over `limit`: `rendered` cuts that)."""
    shown = result.for_model()
    records = shown.get("records")
    if len(_dump(shown)) <= limit or not isinstance(records, list):
        return shown, False
    lo, hi = 0, len(records)  # the largest prefix that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(_dump(_cut(shown, records, mid))) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return _cut(shown, records, lo), True


def rendered(result: ToolResult, limit: int = MAX_TOOL_CHARS) -> tuple[str, bool]:
    """The tool message content — `shown_within`'s JSON, cut as text if it is still over `limit` — and
    whether it had to be cut."""
    shown, cut = shown_within(result, limit)
    text = _dump(shown)
    if len(text) <= limit:
        return text, cut
    return text[:limit] + CUT_MARK, True


def render_result(result: ToolResult, limit: int = MAX_TOOL_CHARS) -> str:
    return rendered(result, limit)[0]


def _cut(shown: dict[str, Any], records: list[Any], n: int) -> dict[str, Any]:
    note = (f"응답이 너무 커서 이 페이지의 records {len(records)}건 중 앞의 {n}건만 표시했습니다. "
            "나머지가 필요하면 페이지 크기를 줄이거나 조건을 좁혀 다시 조회하세요.")
    return {**shown, "records": records[:n], "truncated": note}
