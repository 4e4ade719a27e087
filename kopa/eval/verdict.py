"""A RESPONSE verdict: what the scorers and the judges (kopa.eval.judge) return for one answer."""

from __future__ import annotations

from pydantic import BaseModel


class ResponseVerdict(BaseModel):
    passed: bool | None  # None: undecidable (counted as not passed, and reported as such)
    method: str  # "<type>:<rule>", e.g. number:boxed:precision, string:items, judge:offline
    details: str
