"""Session tools: issue_api_key, get_current_date, evaluate_expression.

They answer from the episode state (and the backend's key source), not from any platform's HTTP,
so their specs live in the catalog's `session.yaml` with family `session`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from kopa.backends.base import Backend, BackendError
from kopa.catalog.loader import Catalog
from kopa.tools.results import ToolError, ToolResult
from kopa.tools.state import EpisodeState


def _error(name: str, args: dict, kind: str, message: str) -> ToolResult:
    return ToolResult(tool=name, arguments=args, ok=False,
                      error=ToolError(error_class="structural", kind=kind, code=kind, message=message))


def _ok(name: str, args: dict, record: dict[str, Any]) -> ToolResult:
    return ToolResult(tool=name, arguments=args, ok=True, records=[record], total_count=1)


def call_session_tool(name: str, args: dict[str, Any], *, catalog: Catalog, backend: Backend,
                      state: EpisodeState) -> ToolResult:
    if name == "issue_api_key":
        platform = str(args.get("platform", ""))
        if platform not in catalog.platforms or platform == "session":
            known = sorted(p for p in catalog.platforms if p != "session")
            return _error(name, args, "bad_param", f"unknown platform {platform!r}; one of {known}")
        key_ids = catalog.key_ids(platform)
        try:
            for key_id in key_ids:
                state.store_key(key_id, backend.issue_key(key_id))
        except BackendError as exc:
            return ToolResult(tool=name, arguments=args, ok=False,
                              error=ToolError(error_class="auth", kind="missing_key", code="missing_key",
                                              message=str(exc)))
        # The key itself is never shown to the model nor written to a transcript.
        return _ok(name, args, {"platform": platform, "status": "issued", "key_systems": ",".join(key_ids)})
    if name == "get_current_date":
        today = dt.date.fromisoformat(state.current_date)
        return _ok(name, args, {"current_date": today.isoformat(), "yyyymmdd": today.strftime("%Y%m%d"),
                                "weekday": "월화수목금토일"[today.weekday()]})
    if name == "evaluate_expression":
        # deferred: sympy (~0.4 s) only when an expression is evaluated
        from kopa.tools.expression import ExpressionError, evaluate_expression

        try:
            result = evaluate_expression(str(args.get("expression", "")))
        except ExpressionError as exc:
            return _error(name, args, "bad_expression", str(exc))
        return _ok(name, args, result.model_dump())
    if name in ("add_watchlist_item", "remove_watchlist_item", "list_watchlist_items"):
        return _watchlist(name, args, state)
    return _error(name, args, "unknown_tool", f"unknown session tool {name!r}")


def _watchlist(name: str, args: dict[str, Any], state: EpisodeState) -> ToolResult:
    """A stateful tool: the list is kept sorted by (category, code), so the end state — and its hash —
    does not depend on the order items were added in."""
    items: list[dict[str, str]] = list(state.data.get("watchlist", []))
    if name == "list_watchlist_items":
        return ToolResult(tool=name, arguments=args, ok=True, records=items, total_count=len(items))
    category, code = str(args.get("category", "")), str(args.get("code", "")).strip()
    if not category or not code:
        return _error(name, args, "missing_param", "category and code are required")
    rest = [i for i in items if (i["category"], i["code"]) != (category, code)]
    if name == "remove_watchlist_item":
        if len(rest) == len(items):
            return _error(name, args, "no_data", f"no watchlist item {category}:{code}")
        state.data = {**state.data, "watchlist": rest}
        return _ok(name, args, {"removed": code, "size": len(rest)})
    entry = {"category": category, "code": code, "name": str(args.get("name", "")).strip()}
    updated = sorted([*rest, entry], key=lambda i: (i["category"], i["code"]))
    state.data = {**state.data, "watchlist": updated}
    return _ok(name, args, {**entry, "size": len(updated)})
