"""LLM calls cached by request hash, recordable and replayable like API calls.

The key is the SHA-256 of the canonical request: model name, messages, tools and the sampling
parameters the call actually uses. The API key and the endpoint are not part of it — the same request to
the same model is the same request wherever it was served — so a run recorded against a real model
replays offline, with the server gone. One JSON file per request, written atomically (temporary file,
then rename), so concurrent episodes and interrupted runs never leave a half-written entry.

Modes: `auto` reads a hit and records a miss; `record` always asks the model and overwrites; `replay`
never asks the model and raises `CacheMiss`, naming the request hash, on a miss.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

import orjson
from pydantic import ValidationError

from kopa.errors import UserError
from kopa.fileio import write_atomic
from kopa.llm.client import ChatModel, ChatReply, Message, OpenAIChatModel

CacheMode = Literal["auto", "record", "replay"]
FORMAT_VERSION = 1


class CacheMiss(UserError, LookupError):
    """Replay mode met a request that was never recorded: like a replay miss of an API call, the user
    records it (mode auto or record) or replays another cache."""


class CacheFileError(UserError, ValueError):
    """A cache entry that cannot be read; the message names the file."""


def canonical_request(model: str, messages: list[Message], tools: list[dict[str, Any]] | None,
                      params: dict[str, Any]) -> bytes:
    body = {"model": model, "messages": messages, "tools": tools or [], "params": params}
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def request_hash(model: str, messages: list[Message], tools: list[dict[str, Any]] | None,
                 params: dict[str, Any]) -> str:
    return hashlib.sha256(canonical_request(model, messages, tools, params)).hexdigest()


class CachedChatModel:
    """A ChatModel in front of another one, with a directory of recorded replies."""

    def __init__(self, inner: ChatModel, directory: str | Path, mode: CacheMode = "auto") -> None:
        if mode not in ("auto", "record", "replay"):
            raise ValueError(f"cache mode must be auto, record or replay, not {mode!r}")
        self.inner = inner
        self.model = inner.model
        self.directory = Path(directory)
        self.mode = mode
        self.hits = 0
        self.misses = 0

    def __repr__(self) -> str:
        return f"CachedChatModel({self.inner!r}, {str(self.directory)!r}, mode={self.mode!r})"

    def request_params(self, params: dict[str, Any]) -> dict[str, Any]:
        return self.inner.request_params(params)

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def complete(self, messages: list[Message], tools: list[dict[str, Any]] | None = None,
                 **params: Any) -> ChatReply:
        effective = self.inner.request_params(params)
        key = request_hash(self.model, messages, tools, effective)
        path = self.path_for(key)
        if self.mode != "record" and path.exists():
            self.hits += 1
            return self._read(path)
        if self.mode == "replay":
            raise CacheMiss(f"no recorded LLM reply for request {key} (model {self.model!r}, "
                            f"{len(messages)} messages) in {self.directory}; record it with mode='record' or 'auto'")
        self.misses += 1
        reply = self.inner.complete(messages, tools, **params)
        self._write(path, key, messages, tools, effective, reply)
        return reply

    def _read(self, path: Path) -> ChatReply:
        try:
            entry = orjson.loads(path.read_bytes())
            return ChatReply.model_validate(entry["reply"])
        except (orjson.JSONDecodeError, KeyError, TypeError, ValidationError) as exc:
            raise CacheFileError(f"{path}: not a valid LLM cache entry: {exc}") from exc

    def _write(self, path: Path, key: str, messages: list[Message], tools: list[dict[str, Any]] | None,
               params: dict[str, Any], reply: ChatReply) -> None:
        # The request is stored beside the reply so a recording can be read and audited; it holds only
        # what the hash covers — never the API key, never the endpoint.
        entry = {"version": FORMAT_VERSION, "key": key,
                 "request": {"model": self.model, "messages": messages, "tools": tools or [], "params": params},
                 "reply": reply.model_dump()}
        data = orjson.dumps(entry, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
        write_atomic(path, data)


def cached_openai_model(model: str, base_url: str | None, cache_dir: str | Path | None, mode: CacheMode = "auto",
                        *, role: str, temperature: float = 0.0, seed: int | None = None) -> ChatModel:
    """An OpenAI-compatible chat model playing `role`, behind the request-hash cache (when `cache_dir` is
    given): the one way every `--role NAME=MODEL[@URL]` with `--llm-cache/--llm-mode` is built. In replay mode
    the endpoint is never contacted, so a recorded run reproduces with the server gone."""
    inner = OpenAIChatModel(model, base_url=base_url, role=role, temperature=temperature, seed=seed)
    return CachedChatModel(inner, cache_dir, mode=mode) if cache_dir is not None else inner
