"""A fresh environment per episode: the task's tools only, its injected state, its call budget.

Every call the agent makes goes through :meth:`Environment.call` and is recorded — malformed ones too
(arguments that are not a JSON object, a tool the task does not offer): they are calls the model spent,
so they count toward the budget and toward ACTION's N_total, and the model is told why they failed.

Where the calls go: kopa's ToolRuntime in this process on ``backend`` (the default), or a ``tools`` source
that opens each episode elsewhere — an MCP server (kopa.mcp.client.MCPTools), whose episode holds the
state and answers with the same results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kopa.backends.base import Backend
from kopa.catalog.loader import Catalog
from kopa.eval.task import Task
from kopa.tools.results import ToolError, ToolResult
from kopa.tools.runtime import RetryPolicy, ToolRuntime
from kopa.tools.state import EpisodeState


class EpisodeTools(Protocol):
    """One episode's tools: a ToolRuntime, or an episode on an MCP server."""

    catalog: Catalog

    @property
    def state(self) -> EpisodeState: ...

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult: ...


class ToolSource(Protocol):
    """Opens episodes somewhere other than this process (kopa.mcp.client.MCPTools)."""

    def open_episode(self, current_date: str | None) -> EpisodeTools:
        """A fresh episode whose 'today' is ``current_date`` (None: the source's backend's date)."""
        ...

    def openai_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The tools among ``names`` that the source lists, as OpenAI function schemas."""
        ...

    def require(self, needs: dict[str, Sequence[str]]) -> None:
        """Refuse (a UserError) a source lacking a tool a task needs (task id → its available tools)."""
        ...


@dataclass
class CallRecord:
    tool: str
    arguments: dict[str, Any]
    result: ToolResult
    turn: int
    raw_arguments: str | None = None  # as the model wrote them, when they did not parse
    malformed: str | None = None  # 'bad_arguments: …' or 'unknown_tool'; None when well-formed


@dataclass
class Environment:
    task: Task
    backend: Backend | None  # None only with a tool source
    budget: int | None = None  # None: unlimited (golden execution)
    calls: list[CallRecord] = field(default_factory=list)
    tools: ToolSource | None = None  # None: kopa's ToolRuntime in this process, on ``backend``
    retry: RetryPolicy | None = None  # the in-process runtime's retries (None: its default policy)
    runtime: EpisodeTools = field(init=False)

    def __post_init__(self) -> None:
        predefined = self.task.state.predefined.get("current_date")
        if self.tools is not None:
            self.runtime = self.tools.open_episode(predefined)
        elif self.backend is None:
            raise ValueError(f"task {self.task.id}: an Environment needs a backend or a tool source")
        else:
            today = predefined or self.backend.today().isoformat()
            self.runtime = ToolRuntime(self.backend, state=EpisodeState(current_date=today), retry=self.retry)
        for action in self.task.state.setup:  # ActionSystemState: done before the agent starts
            result = self.runtime.call(action.tool, action.args)
            if not result.ok:
                raise RuntimeError(f"task {self.task.id}: setup {action.tool} failed: {result.error}")

    @property
    def state(self) -> EpisodeState:
        return self.runtime.state

    def call(self, tool: str, arguments: dict[str, Any], turn: int, *, raw_arguments: str | None = None,
             parse_error: str | None = None) -> ToolResult:
        """Execute (or refuse) one call and record it. ``parse_error`` says the model's arguments
        (``raw_arguments``) were not a JSON object: such a call is recorded and refused, never executed."""
        malformed = None
        if parse_error is not None:
            malformed = f"bad_arguments: {parse_error}"
        elif tool not in self.task.available_tools:
            malformed = "unknown_tool"
        if self.budget is not None and len(self.calls) >= self.budget:
            result = _refused(tool, arguments, "budget_exceeded",
                              f"call budget of {self.budget} exhausted; answer with what you have")
        elif parse_error is not None:
            # what it wrote is said back: the conversation carries '{}' in its place (ToolCall.sent_back)
            result = _refused(tool, arguments, "bad_arguments",
                              f"{tool}: {parse_error}; the arguments were: {_clipped(raw_arguments or '')}")
        elif malformed is not None:
            result = _refused(tool, arguments, "unknown_tool", f"{tool} is not available in this task")
        else:
            result = self.runtime.call(tool, arguments)
        self.calls.append(CallRecord(tool, dict(arguments), result, turn,
                                     raw_arguments if parse_error is not None else None, malformed))
        return result


def _clipped(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _refused(tool: str, arguments: dict[str, Any], kind: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, arguments=arguments, ok=False,
                      error=ToolError(error_class="structural", kind=kind, code=kind, message=message))
