"""A model server that streams garbage: one clean error line from a real ``xcsh -p``.

A local HTTP server on 127.0.0.1 answers every request with a 200 event
stream that the SDKs cannot parse (a chunk that is not JSON, events out of
order). The installed ``xcsh`` runs as a subprocess, as a user runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

NOT_JSON = b"data: {not json\n\n"
OUT_OF_ORDER = (  # a delta for a message that never started (the Anthropic SDK asserts)
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"x"}}\n\n'
)
BODIES = {
    "/v1/chat/completions": NOT_JSON,
    "/v1/responses": NOT_JSON,
    "/v1/messages": OUT_OF_ORDER,
}
"""What the server streams, by the path each API posts to."""


class BrokenStreamServer:
    """Answers every POST with a complete 200 ``text/event-stream`` from :data:`BODIES`."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = BODIES[self.path]
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]


@pytest.fixture
def broken_server() -> Iterator[BrokenStreamServer]:
    server = BrokenStreamServer()
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


CASES = [  # provider, what the SDK raised
    ("openai", "JSONDecodeError"),
    ("openai-responses", "JSONDecodeError"),
    ("anthropic", "AssertionError"),
]


def test_a_malformed_stream_is_one_error_line_and_exit_1(
    broken_server: BrokenStreamServer, tmp_path: Path
) -> None:
    base = f"http://127.0.0.1:{broken_server.port}"
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-test"}
    runs = []
    for provider, _ in CASES:  # side by side: each waits on its own server answer
        url = base if provider == "anthropic" else f"{base}/v1"
        command = [sys.executable, "-m", "xcsh", "-p", "hi", "--provider", provider]
        proc = subprocess.Popen(
            [*command, "--model", "m", "--base-url", url],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        runs.append((url, proc))
    for (provider, detail), (url, proc) in zip(CASES, runs, strict=True):
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 1, stderr
        assert stdout == ""
        assert "Traceback" not in stderr
        errors = [line for line in stderr.splitlines() if not line.startswith("session ")]
        assert len(errors) == 1, stderr
        api = "Anthropic Messages" if provider == "anthropic" else "OpenAI"
        assert errors[0].startswith(
            f"error: {provider} at {url}: the server sent a malformed stream ({detail}"
        ), errors[0]
        assert errors[0].endswith(
            f"). Check that --base-url points at a server speaking the {api} API."
        )
