"""Inspect's model behind kopa's `ChatModel` protocol, so kopa's agent loop runs unchanged under Inspect.

kopa's loop is synchronous and runs in a worker thread (`anyio.to_thread`); each `complete` hands the request
to Inspect's event loop (`anyio.from_thread.run`), where `Model.generate` runs as in any Inspect solver — so
Inspect logs every model call, applies its limits and retries, and picks the provider (`--model vllm/…`).
"""

from __future__ import annotations

import json
from typing import Any

import anyio.from_thread
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, messages_from_openai
from inspect_ai.tool import ToolInfo, ToolParams

from kopa.llm.client import ChatReply, Message, ToolCall


def tool_info(schema: dict[str, Any]) -> ToolInfo:
    """An OpenAI function schema (kopa's `Tool.openai_schema()`) as Inspect's ToolInfo. Inspect's JSON Schema
    model keeps type, description, enum, default, items and the like; a `pattern` is not among them, so a
    model under Inspect reads the parameters without it."""
    function = schema["function"]
    return ToolInfo(name=function["name"], description=function.get("description", ""),
                    parameters=ToolParams.model_validate(function.get("parameters") or {}))


def reply_from_output(output: ModelOutput) -> ChatReply:
    """Inspect's ModelOutput as kopa's ChatReply: the text, the calls (a call whose arguments did not parse
    keeps Inspect's parse error, so kopa records it as a malformed call), the stop reason, the token counts."""
    message = output.message
    calls = [ToolCall(id=c.id, name=c.function, arguments=dict(c.arguments or {}),
                      raw_arguments=_raw(c.arguments), parse_error=c.parse_error)
             for c in message.tool_calls or []]
    usage = output.usage
    return ChatReply(content=message.text or None, tool_calls=calls,
                     finish_reason="length" if output.stop_reason == "max_tokens" else output.stop_reason,
                     usage={} if usage is None else {"prompt_tokens": usage.input_tokens,
                                                     "completion_tokens": usage.output_tokens})


async def inspect_messages(messages: list[Message]) -> list[ChatMessage]:
    """kopa's chat (OpenAI messages) as Inspect's, one message for one: an assistant turn that only calls tools
    gets empty text instead of none, which Inspect's converter would otherwise fill with the next assistant
    message's text — the final answer shown inside the last calling turn, before that call's result."""
    kept = [{**m, "content": ""} if m.get("role") == "assistant" and m.get("tool_calls") and m.get("content") is None
            else m for m in messages]
    return await messages_from_openai(kept)  # type: ignore[arg-type]


def _raw(arguments: dict[str, Any] | None) -> str:
    return json.dumps(arguments or {}, ensure_ascii=False)


class InspectChatModel:
    """`ChatModel` over an Inspect `Model`; call `complete` from a thread anyio started (the solver's)."""

    def __init__(self, model: Model) -> None:
        self.inspect_model = model
        self.model = str(model)

    def request_params(self, params: dict[str, Any]) -> dict[str, Any]:
        return dict(params)  # Inspect's own config (--temperature, --seed, …) applies on top

    def complete(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                 **params: Any) -> ChatReply:
        return anyio.from_thread.run(self._generate, messages, tools or [], params)

    async def _generate(self, messages: list[Message], tools: list[dict[str, Any]],
                        params: dict[str, Any]) -> ChatReply:
        config = GenerateConfig(**{k: v for k, v in params.items() if k in ("seed", "max_tokens")})
        output = await self.inspect_model.generate(await inspect_messages(messages),
                                                   tools=[tool_info(t) for t in tools], config=config)
        return reply_from_output(output)
