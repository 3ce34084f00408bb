"""A local HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API.

Each test scripts it with a handler: request body in, Reply out. The helpers build the bodies a
real server sends — an answer as message content (JSON-schema / JSON mode) or as a tool call
(function calling), chosen from what the request asked for — and OpenAI-style error bodies, so
the real `langchain-openai` / `openai` client code, its parsing and its errors all run.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict (sent as JSON) or str (sent as is)
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[dict[str, Any]], Reply]


def schema_name(request: dict[str, Any]) -> str | None:
    """The response model the client asked for: json_schema name or the forced tool's name."""
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["name"]
    tools = request.get("tools") or []
    return tools[0]["function"]["name"] if tools else None


def user_text(request: dict[str, Any]) -> str:
    """The text of the request's user messages."""
    parts = []
    for message in request.get("messages", []):
        if message.get("role") == "user":
            content = message.get("content")
            parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


def line_after(request: dict[str, Any], label: str) -> str | None:
    """The rest of the first user-message line starting with `label` (e.g. "Question:")."""
    match = re.search(rf"^{re.escape(label)}\s*(.*)$", user_text(request), re.MULTILINE)
    return match.group(1).strip() if match else None


def completion(
    request: dict[str, Any], payload: Any, *, usage: tuple[int, int] = (120, 30)
) -> Reply:
    """A 200 answer carrying `payload` as a tool call when tools were offered, else as content."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    finish = "stop"
    if request.get("tools"):
        name = request["tools"][0]["function"]["name"]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
            ],
        }
        finish = "tool_calls"
    return Reply(
        body={
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": request.get("model", "local"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            },
        }
    )


def api_error(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """An OpenAI-style error body."""
    return Reply(
        status=status,
        body={"error": {"message": message, "type": type_, "code": code, "param": None}},
        headers=headers or {},
    )


class OpenAIServer:
    """The server: `url` is the base URL (…/v1); `requests` records every request body."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._request_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()  # wakes handlers that are "hanging"
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)

    def _request_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Request(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                reply = server.handler(body)
                if reply.delay_s and server._stop.wait(reply.delay_s):
                    return
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.send_header("content-length", str(len(data.encode())))
                    self.end_headers()
                    self.wfile.write(data.encode())
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    return

        return _Request
