"""An episode as OpenAI chat messages: what a trainer's rollout row and an SFT example are made of.

A model policy's transcript is its conversation as it happened. The offline policies have no
conversation, so one is written from what they did: the task's system prompt and query (the same prompt
a model gets), one assistant message per turn with that turn's calls as tool_calls (parallel calls
share a turn), each result as the tool message a model would have read (`render_result`: the API's JSON),
and the final answer. Call ids are `call_<turn>_<i>`, so the same episode always reads the same.
"""

from __future__ import annotations

from typing import Any

import orjson

from kopa.eval.episode import Episode, PredictedCall
from kopa.eval.policies.prompt import initial_messages
from kopa.eval.task import Task
from kopa.tools.render import MAX_TOOL_CHARS, render_result
from kopa.tools.results import ToolResult


def _arguments(call: PredictedCall) -> str:
    # raw_arguments are kept only for a call whose arguments did not parse: a chat template cannot read
    # them, so the call carries '{}' as the agent loop sent it back (ToolCall.sent_back)
    if call.raw_arguments is not None:
        return "{}"
    return orjson.dumps(call.arguments).decode()


def episode_messages(task: Task, episode: Episode, results: list[dict[str, Any]],
                     transcript: list[dict[str, Any]] | None = None,
                     max_tool_chars: int = MAX_TOOL_CHARS) -> list[dict[str, Any]]:
    """The episode's chat: the model's own transcript when it has one, else one written from its calls."""
    if transcript:
        return transcript
    messages = initial_messages(task)
    turns: dict[int, list[int]] = {}
    for index, call in enumerate(episode.calls):
        turns.setdefault(call.turn, []).append(index)
    for turn in sorted(turns):
        indices = turns[turn]
        ids = [f"call_{turn}_{i}" for i in range(len(indices))]
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": episode.calls[i].tool, "arguments": _arguments(episode.calls[i])}}
            for call_id, i in zip(ids, indices, strict=True)]})
        for call_id, i in zip(ids, indices, strict=True):
            content = render_result(ToolResult.model_validate(results[i]), max_tool_chars) if i < len(results) else ""
            messages.append({"role": "tool", "tool_call_id": call_id, "content": content})
    messages.append({"role": "assistant", "content": episode.answer or ""})
    return messages


def tool_calls(episode: Episode) -> list[dict[str, Any]]:
    """The calls in order, without their records: what was asked and how it ended."""
    return [{"tool": c.tool, "arguments": c.arguments, "turn": c.turn, "ok": c.ok,
             "error_class": c.error_class, "error_kind": c.error_kind, "malformed": c.malformed,
             "records": c.records} for c in episode.calls]
