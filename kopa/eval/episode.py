"""What one episode produced (generation) and how it scored (scoring) — two records, two files.

Generation and scoring are apart (DESIGN.md decision 8, BFCL's rule): a run stores every episode as an
:class:`Episode` — the calls with their arguments, results and malformed calls, the final answer and the
final environment state — and scoring reads only that, producing a :class:`ScoredEpisode`. So a scorer
fix re-scores a finished run (``kopa bench score``) without calling a tool or a model again.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kopa.tools.results import ToolError

# The run folder's file of episodes that could not be played (the model server or an MCP server failed):
# kept apart from episodes.jsonl, so they never count in pass@1, Action or the CIs; a rerun plays them.
UNPLAYED = "unplayed.jsonl"


class PredictedCall(BaseModel):
    """One call as the environment received it, well-formed or not.

    A malformed call (arguments that are not a JSON object, a tool the task does not offer) is a call the
    model made: it is recorded, counts toward the call budget and toward ACTION's N_total, and never
    matches a golden call."""

    tool: str
    arguments: dict[str, Any]
    turn: int
    ok: bool
    raw_arguments: str | None = Field(None, description="the arguments as the model wrote them, when they "
                                                        "did not parse as a JSON object")
    malformed: str | None = Field(None, description="why the call is malformed: 'bad_arguments: …' or "
                                                    "'unknown_tool'; None for a well-formed call")
    error: ToolError | None = None
    records: int = 0  # records the call returned (the records themselves are in the transcript file) …
    total_count: int | None = None  # … of how many the service reported

    @property
    def error_class(self) -> str | None:
        return self.error.error_class if self.error else None

    @property
    def error_kind(self) -> str | None:
        return self.error.kind if self.error else None


class PolicyOutput(BaseModel):
    """A policy's answer and its transcript (OpenAI chat messages); its calls are in the environment."""

    answer: str | None
    transcript: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    limits: list[str] = Field(default_factory=list, description="the cuts and limits the episode met (LIMITS)")


# What an episode can run into, recorded per episode so a result can be read with it: a tool result cut to
# --max-tool-chars (the model saw fewer records than the call returned), the --max-turns model calls used up
# with no answer, a reply cut at --max-tokens, the --episode-seconds wall-clock limit.
LIMITS = ("tool_result_cut", "max_turns", "max_tokens", "time_limit")


class EpisodeId(BaseModel):
    """Which episode this is, and its final answer: the fields a stored episode and its score share."""

    task_id: str
    domain: str
    platforms: list[str]
    policy: str
    seed: int
    rollout: int
    answer: str | None


class Episode(EpisodeId):
    """What happened in one episode (a line of ``episodes.jsonl``): everything scoring needs, nothing
    scoring decided. Written once by ``kopa bench run`` and never rewritten by scoring."""

    calls: list[PredictedCall]
    final_state: dict[str, Any] = Field(default_factory=dict,
                                        description="the canonical end state (EpisodeState.model_dump())")
    state_hash: str = ""
    usage: dict[str, int] = Field(default_factory=dict)
    limits: list[str] = Field(default_factory=list, description="the cuts and limits it met (LIMITS)")
    error: str | None = None  # an infrastructure failure (retried apart from the model's failures)


class Transcript(BaseModel):
    """The bulky part of an episode (``transcripts/<task>.s<seed>.r<rollout>.json``): the chat messages
    and every call's full result — records, page, error, redacted request, attempts — in call order."""

    task_id: str
    seed: int
    rollout: int
    messages: list[dict[str, Any]] = Field(default_factory=list)
    results: list[dict[str, Any]] = Field(default_factory=list)


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


class ScoredEpisode(EpisodeId):
    """How one stored episode scored (a line of ``scores.jsonl``): all a report reads, so a folder with
    only scores re-renders (``kopa bench show``)."""

    target_answer: str | None
    score: EpisodeScore
    failure_cause: str | None = None
    calls: int = 0
    malformed_calls: int = 0
    model_requests: int = 0  # requests to the model that came through (a model policy's turns)
    model_attempts: int = 0  # ... and the attempts they took, retries included (kopa's --llm-retries)
    limits: list[str] = Field(default_factory=list, description="the cuts and limits the episode met (LIMITS)")
    error: str | None = None  # the episode's infrastructure failure, if any (then it was not scored)
