"""A loopback proxy that records every request xcsh sends to the model server and its answer.

xcsh talks to the proxy; the proxy forwards each request to ``llama-server``
and streams the answer back unchanged while writing both into the current
run's exchange file (JSON lines: ``{"path", "request": <body>, "status": <int>,
"response": <the raw answer text, SSE included>, "seconds": <the server's time>,
"cancelled": <xcsh hung up before the answer ended>}``).
An xcsh failure in the table names its exchange file, from which the regression test replays the
answers through the SDK's HTTP transport.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class RecordingProxy:
    """Serve on ``127.0.0.1:<free port>``, forwarding to ``upstream_port``.

    Set :attr:`log_path` before each run; ``None`` records nothing.
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.log_path: Path | None = None
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                proxy._forward(self, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                proxy._forward(self, self.rfile.read(length))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """The URL to give xcsh's ``--base-url``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()

    def _forward(self, handler: BaseHTTPRequestHandler, body: bytes | None) -> None:
        started = time.monotonic()
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=900)
        headers = {"Content-Type": handler.headers.get("Content-Type", "application/json")}
        upstream.request(handler.command, handler.path, body=body, headers=headers)
        answer = upstream.getresponse()
        received: list[bytes] = []
        cancelled = False
        try:
            handler.send_response(answer.status)
            if answer.getheader("Content-Type"):
                handler.send_header("Content-Type", answer.getheader("Content-Type") or "")
            handler.send_header("Connection", "close")
            handler.end_headers()
            while chunk := answer.read1(65536):
                received.append(chunk)
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            cancelled = True  # xcsh hung up (a run stopped); closing upstream stops the server
        finally:
            handler.close_connection = True
            upstream.close()
        if body is not None and self.log_path is not None:
            record = {
                "path": handler.path,
                "request": json.loads(body or b"null"),
                "status": answer.status,
                "response": b"".join(received).decode("utf-8", "replace"),
                "seconds": round(time.monotonic() - started, 3),
                "cancelled": cancelled,
            }
            with self._lock, self.log_path.open("a") as out:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")


@dataclass(frozen=True)
class Timing:
    """llama.cpp's own account of one answered request (its ``timings``).

    Attributes:
        cache_n: prompt tokens reused from the server's prompt cache.
        prompt_n: prompt tokens evaluated anew.
        prompt_ms: milliseconds the new prompt tokens took.
    """

    cache_n: int
    prompt_n: int
    prompt_ms: float


def server_timings(exchange: Path | None) -> list[Timing]:
    """The ``timings`` of each answered request in an exchange file, in order.

    Read from the last streamed chunk that carries them (llama.cpp sends them
    with the usage); a request answered without them (a refused one, another
    server) is left out. ``[]`` when the file is missing.
    """
    if exchange is None or not exchange.is_file():
        return []
    out: list[Timing] = []
    for line in exchange.read_text().splitlines():
        record = json.loads(line)
        found: dict[str, Any] | None = None
        for data in str(record.get("response", "")).splitlines():
            if data.startswith("data: {") and '"timings"' in data:
                found = json.loads(data[len("data: ") :]).get("timings")
        if record.get("status") == 200 and isinstance(found, dict):
            out.append(
                Timing(
                    cache_n=int(found.get("cache_n", 0)),
                    prompt_n=int(found.get("prompt_n", 0)),
                    prompt_ms=float(found.get("prompt_ms", 0.0)),
                )
            )
    return out
