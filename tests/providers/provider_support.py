"""Helpers for provider tests: a recording mock transport, SSE fixtures, sample requests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx2

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ImageContent,
    ModelRequest,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
GOLDEN = HERE / "golden"


@dataclass
class Exchange:
    """Canned answers, served in order, and the requests received."""

    answers: list[httpx2.Response]
    requests: list[httpx2.Request] = field(default_factory=list)

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected extra request to {request.url}")
        return self.answers.pop(0)

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler))

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) for r in self.requests]


def sse(name: str) -> httpx2.Response:
    """A 200 answer streaming the recorded SSE fixture ``name``."""
    return httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=(FIXTURES / name).read_bytes(),
    )


def error(status: int, body: Any, **headers: str) -> httpx2.Response:
    """A JSON error answer."""
    return httpx2.Response(status, json=body, headers=headers)


REMINDER = "This is a preview. Call the `resolve` tool to apply or discard these changes."
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
    "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

TOOLS = [
    ToolSpec(
        name="ast_edit",
        description="Structural rewrite; previews first.",
        parameters={
            "type": "object",
            "properties": {
                "ops": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"pat": {"type": "string"}, "out": {"type": "string"}},
                        "required": ["pat", "out"],
                    },
                },
                "path": {"type": "string"},
            },
            "required": ["ops"],
        },
    ),
    ToolSpec(
        name="read",
        description="Read a file.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    ),
    ToolSpec(
        name="resolve",
        description="Apply or discard the most recent pending action.",
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["apply", "discard"]},
                "reason": {"type": "string"},
            },
            "required": ["action", "reason"],
        },
    ),
]

SYSTEM = "You are xcsh, a coding agent."


def simple_request(**overrides: Any) -> ModelRequest:
    """One user message, tools offered, ``auto`` unless overridden."""
    values: dict[str, Any] = {
        "system": SYSTEM,
        "messages": [UserMessage(content=[TextContent("Rename hello to greet in src/app.py")])],
        "tools": TOOLS,
    }
    values.update(overrides)
    return ModelRequest(**values)


def conversation_request(**overrides: Any) -> ModelRequest:
    """A conversation after a preview: two tool calls, their results, a hidden reminder.

    Forced to ``resolve`` with thinking asked for, as the loop sends it while
    an action is pending (contract §3).
    """
    messages = [
        UserMessage(
            content=[
                TextContent("Rename hello to greet in src/app.py; the screenshot shows the bug."),
                ImageContent(PNG, "image/png"),
            ]
        ),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="Read the file, then rewrite.", signature="sig-abc"),
                TextContent("Let me look and preview the rename."),
                ToolCall(id="call_read_1", name="read", arguments={"path": "src/app.py"}),
                ToolCall(
                    id="call_edit_2",
                    name="ast_edit",
                    arguments={"ops": [{"pat": "hello($A)", "out": "greet($A)"}]},
                ),
            ],
            stop_reason="tool_use",
            provider="test",
            model="test",
        ),
        ToolResultMessage(
            tool_call_id="call_read_1",
            tool_name="read",
            content=[TextContent("def hello(name):\n    return name\n")],
        ),
        ToolResultMessage(
            tool_call_id="call_edit_2",
            tool_name="ast_edit",
            content=[TextContent("-hello(x)\n+greet(x)\n1 change pending.")],
        ),
        UserMessage(content=[TextContent(REMINDER)], hidden=True),
    ]
    values: dict[str, Any] = {
        "system": SYSTEM,
        "messages": messages,
        "tools": TOOLS,
        "tool_choice": ForcedTool(name="resolve"),
        "thinking": True,
    }
    values.update(overrides)
    return ModelRequest(**values)


def llama_chat_sse(
    *,
    text: str = "",
    calls: list[tuple[str, str, dict[str, Any]]] = (),  # type: ignore[assignment]
    model: str = "qwen2.5-coder-1.5b-instruct",
) -> httpx2.Response:
    """A 200 Chat Completions stream shaped as llama.cpp's ``llama-server`` sends it.

    The chunk layout follows the server's streaming output: a role chunk,
    content pieces, one chunk per tool call carrying its whole arguments
    string, a finish chunk with ``finish_reason`` and ``usage``, then
    ``[DONE]``. ``calls`` are ``(id, name, arguments)``.
    """
    base = {
        "id": "chatcmpl-llama",
        "object": "chat.completion.chunk",
        "created": 1764449001,
        "model": model,
        "system_fingerprint": "b6500-2f1a3c4",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps({**base, "choices": [choice], **extra}) + "\n\n"

    parts = [chunk({"role": "assistant", "content": None})]
    for piece in [text[i : i + 16] for i in range(0, len(text), 16)]:
        parts.append(chunk({"content": piece}))
    for index, (call_id, name, arguments) in enumerate(calls):
        function = {"name": name, "arguments": json.dumps(arguments)}
        delta = {
            "tool_calls": [
                {"index": index, "id": call_id, "type": "function", "function": function}
            ]
        }
        parts.append(chunk(delta))
    usage = {"completion_tokens": 20, "prompt_tokens": 300, "total_tokens": 320}
    parts.append(chunk({}, "tool_calls" if calls else "stop", usage=usage))
    parts.append("data: [DONE]\n\n")
    return httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content="".join(parts).encode()
    )


RECORDED = FIXTURES / "recorded"
"""Exchanges recorded between xcsh and a real ``llama-server`` by ``make e2e-model``."""


def recorded(name: str) -> tuple[list[dict[str, Any]], list[httpx2.Response]]:
    """The requests xcsh sent and the server's answers, from ``recorded/NAME.jsonl``.

    Each line is ``{"path", "request", "status", "response"}`` as the e2e
    layer's recording proxy wrote it; the answers are served back verbatim
    (SSE streams as ``text/event-stream``, errors as JSON).
    """
    requests: list[dict[str, Any]] = []
    answers: list[httpx2.Response] = []
    for line in (RECORDED / f"{name}.jsonl").read_text().splitlines():
        record = json.loads(line)
        requests.append(record["request"])
        kind = "text/event-stream" if record["status"] == 200 else "application/json"
        answers.append(
            httpx2.Response(
                record["status"],
                headers={"content-type": kind},
                content=record["response"].encode(),
            )
        )
    return requests, answers


class ReplayServer:
    """A loopback OpenAI-compatible server that answers with a recorded exchange, in order.

    ``GET /v1/models`` reports a llama.cpp model with ``meta.n_ctx`` of
    ``window`` (the window the recorded server had); each ``POST`` gets the
    next recorded answer, byte for byte, and its body is kept in
    :attr:`requests`. A request past the recording gets HTTP 400 (which no
    client retries), so a run that asks more than the model answered ends
    there, and the test reads what it asked.
    """

    def __init__(self, name: str, *, window: int = 16384) -> None:
        self.recorded_requests, answers = recorded(name)
        self.answers = [(a.status_code, a.headers["content-type"], a.content) for a in answers]
        self.requests: list[Any] = []
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                models = {"object": "list", "data": [{"id": "local", "meta": {"n_ctx": window}}]}
                self._send(200, "application/json", json.dumps(models).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                replay.requests.append(json.loads(self.rfile.read(length)))
                if not replay.answers:
                    self._send(400, "application/json", b'{"error": "past the recording"}')
                    return
                self._send(*replay.answers.pop(0))

            def _send(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The ``--base-url`` to give xcsh."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()


XCSH = str(Path(sys.executable).with_name("xcsh"))
"""The installed ``xcsh`` of this environment."""


def replay(
    name: str, prompt: str, cwd: Path, home: Path, settings: str = ""
) -> tuple[list[Any], ReplayServer]:
    """Run ``xcsh -p PROMPT --mode json`` against the recording ``name``; its events.

    ``settings``: lines added to the settings file (``max_tokens = 1024`` is always set).
    """
    (home / "settings.toml").write_text("max_tokens = 1024\n" + settings)
    env = {"PATH": os.environ.get("PATH", ""), "XCSH_HOME": str(home), "NO_COLOR": "1"}
    with ReplayServer(name) as server:
        command = [XCSH, "-p", prompt, "--mode", "json", "--provider", "openai"]
        done = subprocess.run(
            [*command, "--model", "local", "--base-url", server.base_url],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    assert "Traceback" not in done.stderr, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return events, server


def of(events: list[Any], kind: str) -> list[Any]:
    """The events of one ``type``, in order."""
    return [e for e in events if e.get("type") == kind]
