"""A scripted OpenAI-compatible chat-completions server on loopback, for tests.

It is a real HTTP server (127.0.0.1, an ephemeral port, a daemon thread) speaking the chat-completions
wire format, so the `openai` SDK is exercised for real: request serialisation, auth header, response
parsing, tool-call arguments as JSON strings. It answers `POST /v1/chat/completions` from a script: a list
of replies, each either a fixed reply or a function of the request body (so a scripted "model" can read
the tool results the client sent back and use them). Every request body and its headers are recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Request = dict[str, Any]


@dataclass
class Reply:
    """One assistant message: text, or tool calls as (name, arguments) where arguments is a dict (sent
    as its JSON) or a raw string (sent as is — e.g. malformed JSON)."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)

    def wire(self, index: int, model: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{index}_{i}", "type": "function",
                 "function": {"name": name,
                              "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}}
                for i, (name, args) in enumerate(self.tool_calls)
            ]
        return {
            "id": f"chatcmpl-fake-{index}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if self.tool_calls else "stop"}],
            "usage": {"prompt_tokens": 100 + index, "completion_tokens": 10, "total_tokens": 110 + index},
        }


@dataclass
class Refusal:
    """An HTTP error instead of a reply (a 401 that echoes the key it refused, a 503)."""

    status: int
    message: str


def text(content: str) -> Reply:
    return Reply(content=content)


def calls(*tool_calls: tuple[str, dict[str, Any] | str]) -> Reply:
    return Reply(tool_calls=list(tool_calls))


Step = Reply | Refusal | Callable[[Request], Reply]


def tool_results(request: Request) -> dict[str, Any]:
    """The tool messages of a request, by tool_call_id, their content parsed as JSON."""
    return {m["tool_call_id"]: json.loads(m["content"]) for m in request["messages"] if m.get("role") == "tool"}


def last_tool_results(request: Request) -> list[Any]:
    """The tool results answering the last assistant message, in call order."""
    messages = request["messages"]
    tail: list[Any] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        tail.append(json.loads(message["content"]))
    return tail[::-1]


def vllm_request_error(body: Request) -> str | None:
    """What vLLM's OpenAI server refuses with 400 before a model sees the request, as its chat preprocessing
    does it (vllm/entrypoints/chat_utils.py `_postprocess_messages`, re-implemented here: vLLM itself needs
    torch and a GPU build): every earlier assistant tool call's `arguments` that is not empty (empty is read
    as {}) is `json.loads`-ed, and the chat templates of the tool-calling models then iterate the result as
    a mapping (`arguments|items`). None when the request passes."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: field required"
    for m, message in enumerate(messages):
        if message.get("role") == "tool" and not message.get("tool_call_id"):
            return f"messages.{m}: a tool message needs tool_call_id"
        if message.get("role") != "assistant" or not isinstance(message.get("tool_calls"), list):
            continue
        for c, call in enumerate(message["tool_calls"]):
            arguments = call.get("function", {}).get("arguments")
            if not arguments or isinstance(arguments, dict | list):
                continue
            try:
                parsed = json.loads(arguments)
            except json.JSONDecodeError as exc:
                return f"{exc.msg}: line {exc.lineno} column {exc.colno} (char {exc.pos})"
            if not isinstance(parsed, dict):
                return f"messages.{m}.tool_calls.{c}: '{type(parsed).__name__}' object has no attribute 'items'"
    return None


class ChatServer:
    """`with ChatServer(script) as server:` then point a client at `server.base_url`. With `vllm_checks`
    it refuses what vLLM's server refuses (`vllm_request_error`), answering 400 in vLLM's error shape."""

    def __init__(self, script: list[Step], *, vllm_checks: bool = False, port: int = 0) -> None:
        self.script = list(script)
        self.vllm_checks = vllm_checks
        self.refused: list[str] = []
        self.requests: list[Request] = []
        self.headers: list[dict[str, str]] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="fake-chat-server", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _answer(self, body: Request, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if self.vllm_checks and (problem := vllm_request_error(body)) is not None:
            with self._lock:
                self.refused.append(problem)
            return 400, {"object": "error", "message": problem, "type": "BadRequestError", "param": None,
                         "code": 400}
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            if index >= len(self.script):
                self.errors.append(f"request {index} past the end of a {len(self.script)}-step script")
                return 500, {"error": {"message": "script exhausted", "type": "server_error", "code": None}}
            step = self.script[index]
        try:
            reply = step(body) if callable(step) and not isinstance(step, Refusal) else step
        except Exception as exc:  # a failing script step is reported, not hidden in a server thread
            self.errors.append(f"step {index}: {type(exc).__name__}: {exc}")
            return 500, {"error": {"message": f"script step failed: {exc}", "type": "server_error", "code": None}}
        if isinstance(reply, Refusal):
            return reply.status, {"error": {"message": reply.message, "type": "invalid_request_error", "code": None}}
        return 200, reply.wire(index, body.get("model", "fake"))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length))
                except json.JSONDecodeError as exc:
                    self._send(400, {"error": {"message": f"bad JSON: {exc}", "type": "invalid_request_error"}})
                    return
                self._send(*server._answer(body, {k.lower(): v for k, v in self.headers.items()}))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # quiet in test output
                pass

        return Handler
