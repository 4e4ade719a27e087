"""A fresh environment per episode: the task's tools only, its injected state, its call budget.

Every call the agent makes goes through :meth:`Environment.call` and is recorded — malformed ones too
(arguments that are not a JSON object, a tool the task does not offer): they are calls the model spent,
so they count toward the budget and toward ACTION's N_total, and the model is told why they failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kopa.backends.spec import Backend
from kopa.eval.task import Task
from kopa.tools.results import ToolError, ToolResult
from kopa.tools.runtime import ToolRuntime
from kopa.tools.state import EpisodeState


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
    backend: Backend
    budget: int | None = None  # None: unlimited (golden execution)
    calls: list[CallRecord] = field(default_factory=list)
    runtime: ToolRuntime = field(init=False)

    def __post_init__(self) -> None:
        today = self.task.state.predefined.get("current_date") or self.backend.today().isoformat()
        self.runtime = ToolRuntime(self.backend, state=EpisodeState(current_date=today))
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
            result = _refused(tool, arguments, "bad_arguments", f"{tool}: {parse_error}")
        elif malformed is not None:
            result = _refused(tool, arguments, "unknown_tool", f"{tool} is not available in this task")
        else:
            result = self.runtime.call(tool, arguments)
        self.calls.append(CallRecord(tool, dict(arguments), result, turn,
                                     raw_arguments if parse_error is not None else None, malformed))
        return result


def _refused(tool: str, arguments: dict[str, Any], kind: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, arguments=arguments, ok=False,
                      error=ToolError(error_class="structural", kind=kind, code=kind, message=message))
