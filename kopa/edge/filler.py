"""The first-call argument filler as an LLM role (DESIGN.md decision 6): a chat model fills the required
inputs of a path's first tool, seeing the tool as a model does (kopa.catalog.view), the virtual today and
values already seen in successful answers. The offline default is `kopa.edge.phase_a.ArgumentFiller`;
both have `fill(tool, cache, rng) -> dict | None`.

Wrap the chat model in `kopa.llm.cache.CachedChatModel`: a run made with a real model then replays
offline, and the prompt holds nothing random (the rng is not used), so the same state asks the same.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from kopa.catalog.models import Tool
from kopa.catalog.view import ParamView, ToolView, ToolViews
from kopa.edge.plan import is_generic
from kopa.edge.proposer import first_json_object
from kopa.errors import UserError
from kopa.llm.client import ChatModel, Message

SEEN_PER_PARAM = 5  # values of the validated cache shown per parameter

FILLER_PROMPT = """당신은 한국 공공 API 도구의 첫 호출 인자를 채우는 argument filler입니다.
도구의 필수 입력 파라미터마다 실제로 결과가 나올 만한 값을 하나씩 고르세요.
오늘 날짜(today)와 이전 호출에서 확인된 값(seen)을 참고할 수 있습니다.
JSON 객체 하나로만 답하세요: {"arguments": {"파라미터 이름": 값, ...}}
채울 수 없는 파라미터가 있으면 {"arguments": null} 로 답하세요."""


class FillerAnswerError(UserError, ValueError):
    """The filler model's answer cannot be used: the one line names the model, the tool and what is wrong.
    A broken filler stops the run rather than silently starting every path elsewhere."""


def _param_doc(p: ParamView, seen: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": p.name, "type": p.type, "description": p.text}
    if p.pattern:
        doc["pattern"] = p.pattern
    if p.enum:
        doc["enum"] = list(p.enum)
    if p.default is not None:
        doc["default"] = p.default
    if seen:
        doc["seen"] = seen[:SEEN_PER_PARAM]
    return doc


def filler_messages(tool: ToolView, today: str, cache: dict[str, list[str]]) -> list[Message] | None:
    """The prompt, or None when the tool has no required input to fill."""
    required = [p for p in tool.params if p.required and not is_generic(p)]
    if not required:
        return None
    body = {"tool": {"name": tool.name, "title": tool.title, "description": tool.description},
            "today": today, "required": [_param_doc(p, cache.get(p.name) or []) for p in required]}
    return [{"role": "system", "content": FILLER_PROMPT},
            {"role": "user", "content": json.dumps(body, ensure_ascii=False, sort_keys=True)}]


def parse_arguments(tool: ToolView, content: str | None, model: str) -> dict[str, Any] | None:
    """The arguments of a reply: every required input present (extra names dropped), or None when the
    model says it cannot fill them. Anything else is a FillerAnswerError."""
    required = [p for p in tool.params if p.required and not is_generic(p)]
    try:
        raw = first_json_object(content)
    except (ValueError, json.JSONDecodeError) as exc:
        raise FillerAnswerError(f"argument filler {model!r}: unusable answer for {tool.name}: {exc}: "
                                f"{(content or '')[:80]!r}") from None
    if "arguments" not in raw:
        raise FillerAnswerError(f"argument filler {model!r}: answer for {tool.name} has no 'arguments' key")
    args = raw["arguments"]
    if args is None:
        return None
    if not isinstance(args, dict):
        raise FillerAnswerError(f"argument filler {model!r}: 'arguments' for {tool.name} is a "
                                f"{type(args).__name__}, not an object")
    missing = [p.name for p in required if args.get(p.name) in (None, "")]
    if missing:
        raise FillerAnswerError(f"argument filler {model!r}: answer for {tool.name} leaves required "
                                f"{', '.join(missing)} empty")
    return {p.name: args[p.name] for p in required}


class OpenAIFiller:
    """One chat call per first-call fill; the caller wraps `chat_model` in CachedChatModel."""

    def __init__(self, chat_model: ChatModel, today: str) -> None:
        self.chat_model = chat_model
        self.today = today.replace("-", "")
        self.name = f"chat:{chat_model.model}"
        self.view = ToolViews()

    def fill(self, tool: Tool, cache: dict[str, list[str]], rng: np.random.Generator) -> dict[str, Any] | None:
        view = self.view(tool)
        messages = filler_messages(view, self.today, cache)
        if messages is None:
            return {}
        reply = self.chat_model.complete(messages)
        return parse_arguments(view, reply.content, self.chat_model.model)
