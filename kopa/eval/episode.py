"""What one episode produced, and what policies return."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class PredictedCall(BaseModel):
    tool: str
    arguments: dict[str, Any]
    turn: int
    ok: bool
    error_class: str | None = None
    error_kind: str | None = None
    records: int = 0  # records the call returned …
    total_count: int | None = None  # … of how many the service reported


class PolicyOutput(BaseModel):
    """A policy's answer and its transcript (OpenAI chat messages); its calls are in the environment."""

    answer: str | None
    transcript: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)


class EpisodeScore(BaseModel):
    response: bool | None = None  # None when RESPONSE is not in the task's reward_basis
    response_method: str | None = None
    environment: bool | None = None
    environment_diff: list[str] = Field(default_factory=list)
    correctness: float = 0.0
    efficiency: float = 0.0
    action_raw: float = 0.0  # (Corr + Eff) / 2
    action: float = 0.0  # gated on the outcome: 0 unless the task passed
    passed: bool = False
    details: dict[str, Any] = Field(default_factory=dict)


class EpisodeResult(BaseModel):
    task_id: str
    domain: str
    platforms: list[str]
    policy: str
    seed: int
    rollout: int
    answer: str | None
    target_answer: str | None
    calls: list[PredictedCall]
    state_hash: str
    score: EpisodeScore
    failure_cause: str | None = None
    transcript: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    error: str | None = None  # an infrastructure failure (retried apart from the model's failures)
