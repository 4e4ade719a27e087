"""The chat-model protocol every LLM role talks through, and its OpenAI-compatible implementation.

`ChatModel.complete(messages, tools=None, **params) -> ChatReply` is all a role needs. Offline
deterministic implementations satisfy it without a network; `OpenAIChatModel` speaks the
chat-completions wire format through the `openai` SDK to any `base_url` (OpenAI, a local vLLM, a fake
server in tests). `kopa.llm.cache.CachedChatModel` wraps either to record and replay by request hash.

A model plays a role (`ROLES`: the agent, a judge, the query writer, …), and the role says where its API key
is read from at construction: `KOPA_<ROLE>_API_KEY`, else `OPENAI_API_KEY` (`role_key_env`). The key is
handed straight to the SDK: it is never stored as an attribute, logged, put in a request dict or cached,
and an error that echoes it is scrubbed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from pydantic import BaseModel, Field

from kopa.record.secrets import scrub_text

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

Message = dict[str, Any]


class ToolCall(BaseModel):
    """One tool call of an assistant reply. `arguments` is the parsed JSON object; when the model wrote
    arguments that are not a JSON object, `arguments` is empty and `parse_error` says why — a model's
    malformed output is data to score, not an exception."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = Field("{}", description="the arguments exactly as the model wrote them")
    parse_error: str | None = None

    def sent_back(self) -> str:
        """The arguments as the conversation carries them back to the model: its own text when that is a JSON
        object, else '{}'. An OpenAI-compatible server parses every earlier tool call's arguments (vLLM
        `json.loads` them and answers 400 when they do not parse; chat templates iterate them as a mapping),
        so sending malformed text back would fail the next request — the model's mistake would become the
        server's. The tool result says what was wrong with what it wrote, and the episode keeps the text."""
        return self.raw_arguments if self.parse_error is None and self.raw_arguments.strip() else "{}"


class ChatReply(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int] = Field(default_factory=dict)

    def assistant_message(self) -> Message:
        """The reply as an assistant message to send back: tool-call arguments as the model wrote them
        where they parse (`ToolCall.sent_back`), so the conversation the model sees next is the one it
        produced and one every server accepts."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.sent_back()}}
                for c in self.tool_calls
            ]
        return message


@runtime_checkable
class ChatModel(Protocol):
    """What every LLM role (agent policy, judge, ...) calls. `model` names the model (part of the
    cache key); `request_params` gives the sampling parameters a call will actually use (defaults
    merged with the call's), so a cache keys on them too."""

    model: str

    def request_params(self, params: dict[str, Any]) -> dict[str, Any]: ...

    def complete(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                 **params: Any) -> ChatReply: ...


# What a model does for kopa: `--role NAME=MODEL[@URL]` names one of these on the command line
# (kopa.cli_options), and the role names the variable its API key is read from.
ROLES = ("agent", "judge", "solver", "writer", "proposer", "filler", "generator", "checker")


def role_key_env(role: str) -> tuple[str, ...]:
    """Where a role's API key is read from, first set wins: kopa's own variable for the role, then the one
    every OpenAI client reads. A local vLLM server needs none."""
    return (f"KOPA_{role.upper()}_API_KEY", "OPENAI_API_KEY")


def api_key(names: tuple[str, ...]) -> str | None:
    return next((os.environ[n] for n in names if os.environ.get(n)), None)


class ChatModelError(RuntimeError):
    """The model endpoint failed (unreachable, HTTP error, unusable response). Infrastructure, not the
    model's answer: callers retry or record the episode as errored."""


def parse_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """JSON-object arguments, or ({}, why) when the model wrote something else."""
    if raw is None or raw.strip() == "":
        return {}, None  # vLLM sends "" for a call without arguments; treat as {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


def reply_from_completion(completion: Any) -> ChatReply:
    """A ChatReply from an SDK `ChatCompletion` (first choice)."""
    if not completion.choices:
        raise ChatModelError("the model returned no choices")
    choice = completion.choices[0]
    message = choice.message
    calls = []
    for i, call in enumerate(message.tool_calls or []):
        function = getattr(call, "function", None)
        if function is None:  # a non-function (custom) tool call: nothing we can execute
            calls.append(ToolCall(id=call.id or f"call_{i}", name=getattr(call, "type", "unknown"),
                                  raw_arguments="", parse_error="not a function tool call"))
            continue
        arguments, error = parse_arguments(function.arguments)
        calls.append(ToolCall(id=call.id or f"call_{i}", name=function.name, arguments=arguments,
                              raw_arguments=function.arguments or "", parse_error=error))
    usage: dict[str, int] = {}
    if completion.usage is not None:
        for field in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = getattr(completion.usage, field, None)
            if isinstance(value, int):
                usage[field] = value
    return ChatReply(content=message.content, tool_calls=calls, finish_reason=choice.finish_reason, usage=usage)


RETRY_WAIT = 0.5  # seconds before the first retry, doubled each time (a Retry-After header wins)
RETRYABLE_STATUSES = frozenset({408, 409, 429})  # and every 5xx: what the SDK itself would retry


def _retry_after(value: str | None) -> float | None:
    """A Retry-After header in seconds (capped at a minute); None when absent or a date."""
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


class OpenAIChatModel:
    """Chat completions with tools through the `openai` SDK, against any OpenAI-compatible `base_url`."""

    def __init__(self, model: str, base_url: str | None = None, *, role: str = "agent",
                 temperature: float = 0.0, seed: int | None = None, timeout: float = 120.0,
                 max_retries: int = 2, http_client: Any = None, retry_wait: float = RETRY_WAIT) -> None:
        import openai  # imported here so offline use of kopa never needs the SDK loaded

        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.seed = seed
        self.max_retries = max_retries
        self.retry_wait = retry_wait
        key = api_key(role_key_env(role))
        # A local server still needs *some* key: the SDK refuses to construct without one. kopa retries
        # (complete): the SDK's own retries are off, so --llm-retries N is N and each attempt is counted.
        self._client = openai.OpenAI(base_url=base_url, api_key=key or "EMPTY",
                                     timeout=timeout, max_retries=0, http_client=http_client)
        # a server may echo the key in an error (a 401 naming the key it refused): errors are scrubbed of it
        # before they reach a message, a log or a run file; only this closure holds it
        self._scrub: Callable[[str], str] = lambda text: scrub_text(text, [key]) if key else text  # every encoded form (kopa.record.secrets)

    def __repr__(self) -> str:  # never the key
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r})"

    def request_params(self, params: dict[str, Any]) -> dict[str, Any]:
        merged: dict[str, Any] = {"temperature": self.temperature}
        if self.seed is not None:
            merged["seed"] = self.seed
        merged.update(params)
        return merged

    def complete(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                 **params: Any) -> ChatReply:
        import openai  # as in __init__: offline use of kopa never loads the SDK

        kwargs = self.request_params(params)
        if tools:
            kwargs = {"tools": tools, "parallel_tool_calls": True, **kwargs}
        # messages are the wire's JSON objects, which the SDK types one TypedDict per role
        wire = cast("list[ChatCompletionMessageParam]", messages)
        failed: list[str] = []  # each failed attempt's status (503, connection)
        waited = 0.0
        for attempt in range(self.max_retries + 1):
            try:
                completion = self._client.chat.completions.create(model=self.model, messages=wire, **kwargs)
                break
            except openai.APIStatusError as exc:
                failed.append(str(exc.status_code))
                error = f"HTTP {exc.status_code}: {exc.message}"
                retryable = exc.status_code in RETRYABLE_STATUSES or exc.status_code >= 500
                after = _retry_after(exc.response.headers.get("retry-after"))
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                failed.append("timeout" if isinstance(exc, openai.APITimeoutError) else "connection")
                error, retryable, after = exc.message, True, None
            except openai.APIError as exc:  # an unusable response: asking again gets the same
                failed.append("unusable")
                error, retryable, after = exc.message, False, None
            if not retryable or attempt == self.max_retries:
                tried = f" after {len(failed)} attempts ({', '.join(failed)})" if len(failed) > 1 else ""
                raise ChatModelError(self._scrub(f"{self.model} at {self.base_url}: {error}{tried}")) from None
            wait = after if after is not None else self.retry_wait * 2 ** attempt
            time.sleep(wait)
            waited += wait
        reply = reply_from_completion(completion)
        # what it took, counted into the episode's usage beside the tokens: attempts, each failure by its
        # status, the time spent waiting between them
        reply.usage["llm_attempts"] = len(failed) + 1
        for status in failed:
            reply.usage[f"llm_failed_{status}"] = reply.usage.get(f"llm_failed_{status}", 0) + 1
        if waited:
            reply.usage["llm_wait_ms"] = round(waited * 1000)
        return reply
