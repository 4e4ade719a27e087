"""A fresh environment per episode: the task's tools only, its injected state, its call budget."""

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

    def call(self, tool: str, arguments: dict[str, Any], turn: int) -> ToolResult:
        if self.budget is not None and len(self.calls) >= self.budget:
            result = _refused(tool, arguments, "budget_exceeded",
                              f"call budget of {self.budget} exhausted; answer with what you have")
        elif tool not in self.task.available_tools:
            result = _refused(tool, arguments, "unknown_tool", f"{tool} is not available in this task")
        else:
            result = self.runtime.call(tool, arguments)
        self.calls.append(CallRecord(tool, dict(arguments), result, turn))
        return result


def _refused(tool: str, arguments: dict[str, Any], kind: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, arguments=arguments, ok=False,
                      error=ToolError(error_class="structural", kind=kind, code=kind, message=message))
