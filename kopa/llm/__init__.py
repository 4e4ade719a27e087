"""LLM roles as small protocols: `ChatModel` (offline or OpenAI-compatible), cached by request hash."""

from kopa.llm.cache import CachedChatModel, CacheFileError, CacheMiss, request_hash
from kopa.llm.client import ChatModel, ChatModelError, ChatReply, OpenAIChatModel, ToolCall, parse_arguments

__all__ = [
    "CacheFileError",
    "CacheMiss",
    "CachedChatModel",
    "ChatModel",
    "ChatModelError",
    "ChatReply",
    "OpenAIChatModel",
    "ToolCall",
    "parse_arguments",
    "request_hash",
]
