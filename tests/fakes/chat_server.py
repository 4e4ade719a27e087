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


def text(content: str) -> Reply:
    return Reply(content=content)


def calls(*tool_calls: tuple[str, dict[str, Any] | str]) -> Reply:
    return Reply(tool_calls=list(tool_calls))


Step = Reply | Callable[[Request], Reply]


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


class ChatServer:
    """`with ChatServer(script) as server:` then point a client at `server.base_url`."""

    def __init__(self, script: list[Step]) -> None:
        self.script = list(script)
        self.requests: list[Request] = []
        self.headers: list[dict[str, str]] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
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
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            if index >= len(self.script):
                self.errors.append(f"request {index} past the end of a {len(self.script)}-step script")
                return 500, {"error": {"message": "script exhausted", "type": "server_error", "code": None}}
            step = self.script[index]
        try:
            reply = step(body) if callable(step) else step
        except Exception as exc:  # a failing script step is reported, not hidden in a server thread
            self.errors.append(f"step {index}: {type(exc).__name__}: {exc}")
            return 500, {"error": {"message": f"script step failed: {exc}", "type": "server_error", "code": None}}
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
