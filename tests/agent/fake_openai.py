"""A fake OpenAI-compatible server on 127.0.0.1 for driving a real ``xcsh -p``.

Each POST to ``/v1/chat/completions`` takes the next scripted answer: a list
of ``delta`` dicts streamed as chat-completion chunks, then ``[DONE]``. A
``None`` in the list stalls the stream until the client goes away. The
request bodies are kept in :attr:`FakeOpenAI.requests`. ``GET /v1/models``
answers ``models`` when given (404 otherwise).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Delta = dict[str, Any] | None


def tool_call_delta(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "index": 0,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    }


class FakeOpenAI:
    def __init__(self, answers: list[list[Delta]], *, models: dict[str, Any] | None = None) -> None:
        self.answers = list(answers)
        self.models = models
        self.requests: list[dict[str, Any]] = []
        self.stalled = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                # GET /v1/models: the model list, when one was given
                body = json.dumps(fake.models).encode() if fake.models is not None else b"{}"
                self.send_response(200 if fake.models is not None else 404)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                fake.requests.append(json.loads(body))
                deltas = fake.answers.pop(0) if fake.answers else [{"content": "(no more)"}]
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                tools = any("tool_calls" in d for d in deltas if d)
                try:
                    for delta in deltas:
                        if delta is None:
                            fake.stalled.set()
                            time.sleep(30)
                            return
                        self._chunk({"delta": delta, "finish_reason": None})
                    self._chunk({"delta": {}, "finish_reason": "tool_calls" if tools else "stop"})
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _chunk(self, choice: dict[str, Any]) -> None:
                chunk = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion.chunk",
                    "created": 1764449000,
                    "model": "fake",
                    "choices": [{"index": 0, "logprobs": None, **choice}],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
