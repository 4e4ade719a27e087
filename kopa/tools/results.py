"""What a tool call returns: records with total count and page info, or one typed error."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kopa.wire.base import ErrorClass, PageInfo


class ToolError(BaseModel):
    model_config = ConfigDict(frozen=True)

    error_class: ErrorClass
    kind: str
    code: str
    message: str


class Attempt(BaseModel):
    """One try of one HTTP exchange: kept for every call, so a run can say what its answers cost."""

    model_config = ConfigDict(frozen=True)

    attempt: int
    outcome: str  # "ok", or the error class
    kind: str | None = None
    code: str | None = None
    waited: float = 0.0  # seconds of backoff before the next attempt (virtual on in-process backends)


class ToolResult(BaseModel):
    tool: str
    arguments: dict[str, Any]
    ok: bool
    records: list[dict[str, Any]] = []
    total_count: int | None = None
    # records the service answered before the tool's own filter (DART's corp-code archive, searched by
    # name client-side): what the call really read, which a junction's cardinality counts; None when the
    # tool filters nothing. Not part of what a model sees.
    scanned: int | None = Field(None, exclude=True)  # kept off transcripts: a client over MCP cannot know it
    page: PageInfo | None = None
    error: ToolError | None = None
    request: str | None = None  # method and URL with the key redacted, for transcripts
    attempts: list[Attempt] = []  # every try of every exchange the call made, retries included

    def for_model(self) -> dict[str, Any]:
        """The JSON a model sees: what the real API exposes, nothing more (a model that reads only
        page 1 sees only page 1)."""
        if not self.ok and self.error is not None:
            return {"error": self.error.model_dump()}
        out: dict[str, Any] = {"total_count": self.total_count, "records": self.records}
        if self.page is not None:
            out["page"] = self.page.model_dump(exclude_none=True)
        return out
