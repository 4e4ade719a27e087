"""The agent episode loop for any chat model with tool calling (OpenAI-compatible or offline).

Each assistant turn's tool calls are executed with that turn's number — calls issued together are
parallel calls — through `Environment.call`, which enforces the task's tools and call budget and records
every call, malformed ones included (arguments that are not JSON, a tool not offered). Results go
back as tool messages (the JSON a real API would show, `ToolResult.for_model()`). The loop ends when a
reply asks for no tool (its content is the answer) or after `max_turns` model calls (no answer).
"""

from __future__ import annotations

import time
from typing import Any

from kopa.catalog.loader import load_catalog
from kopa.eval.environment import Environment
from kopa.eval.episode import LIMITS, PolicyOutput
from kopa.eval.policies.prompt import initial_messages
from kopa.eval.task import Target, Task
from kopa.llm.client import ChatModel, ToolCall
from kopa.tools.render import MAX_TOOL_CHARS, rendered

ROLLOUT_STRIDE = 10_000


class OpenAIAgentPolicy:
    name = "openai"

    def __init__(self, model: ChatModel, max_turns: int = 16, *, max_tool_chars: int = MAX_TOOL_CHARS,
                 seed: int = 0, params: dict[str, Any] | None = None, time_limit: float | None = None) -> None:
        self.model = model
        self.max_turns = max_turns
        self.max_tool_chars = max_tool_chars
        self.seed = seed
        self.params = dict(params or {})  # e.g. max_tokens, sent with every request
        self.time_limit = time_limit  # seconds of wall clock per episode; no model call starts after it

    def rollout_seed(self, rollout: int) -> int:
        """The sampling seed of one rollout: the run's seed (the model's default, else the policy's) and
        the rollout index, kept apart so (seed 0, rollout 1) and (seed 1, rollout 0) differ. Rollouts thus
        are distinct requests (and cache keys) when sampling; at temperature 0 they are the same greedy run."""
        base = self.model.request_params({}).get("seed")
        return (self.seed if base is None else int(base)) * ROLLOUT_STRIDE + rollout

    def tools_for(self, task: Task) -> list[dict[str, Any]]:
        catalog = load_catalog()
        return [catalog[name].openai_schema() for name in task.available_tools if name in catalog]

    def run(self, task: Task, env: Environment, target: Target | None, rollout: int) -> PolicyOutput:
        # The target is never shown to the model; it is in the signature every policy shares.
        messages = initial_messages(task)
        # Over MCP the tools are the ones the server lists (the same schemas: kopa.mcp.listing).
        tools = self.tools_for(task) if env.tools is None else env.tools.openai_schemas(task.available_tools)
        params = {"seed": self.rollout_seed(rollout), **self.params}
        usage: dict[str, int] = {}
        answer: str | None = None
        limits: set[str] = set()
        started = time.monotonic()
        for turn in range(1, self.max_turns + 1):
            if self.time_limit is not None and time.monotonic() - started > self.time_limit:
                limits.add("time_limit")
                break
            reply = self.model.complete(messages, tools=tools, **params)
            messages.append(reply.assistant_message())
            usage["llm_calls"] = usage.get("llm_calls", 0) + 1
            for key, value in reply.usage.items():
                usage[key] = usage.get(key, 0) + value
            if reply.finish_reason == "length":
                limits.add("max_tokens")
            if not reply.tool_calls:
                answer = reply.content
                break
            for call in reply.tool_calls:
                content, cut = self._execute(call, env, turn)
                if cut:
                    limits.add("tool_result_cut")
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        else:
            limits.add("max_turns")
        return PolicyOutput(answer=answer, transcript=messages, usage=usage,
                            limits=[x for x in LIMITS if x in limits])

    def _execute(self, call: ToolCall, env: Environment, turn: int) -> tuple[str, bool]:
        # A call whose arguments did not parse is still a call the model made: the environment records it
        # (raw arguments kept), counts it against the budget and refuses it with a structural error the
        # model reads, so it may try again.
        result = env.call(call.name, call.arguments, turn, raw_arguments=call.raw_arguments,
                          parse_error=call.parse_error)
        return rendered(result, self.max_tool_chars)
