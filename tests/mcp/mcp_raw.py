"""A plain HTTP view of ``xcsh mcp --http`` for the tests that need exact control
(headers, dropped connections, many sessions): a started server process and a
minimal JSON-RPC-over-HTTP client."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from mcp_helpers import XCSH_MCP, read_http_banner

PROTOCOL = "2025-06-18"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
"""What every JSON-RPC POST of the streamable HTTP transport carries."""
INITIALIZE = {
    "protocolVersion": PROTOCOL,
    "capabilities": {},
    "clientInfo": {"name": "raw", "version": "1"},
}
"""The ``initialize`` request's parameters."""


@dataclass
class Server:
    url: str
    token: str
    proc: subprocess.Popen[str]

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError("no VmRSS")


def start_http(workspace: Path, *flags: str) -> subprocess.Popen[str]:
    """``xcsh mcp --cwd WORKSPACE --http FLAGS`` started; its stderr is a pipe (the banner)."""
    return subprocess.Popen(
        [*XCSH_MCP, "--cwd", str(workspace), "--http", *flags],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )


@contextmanager
def http_server(workspace: Path, *extra: str) -> Iterator[Server]:
    """``xcsh mcp --http --port 0`` on ``workspace`` (project tools trusted), stopped after."""
    proc = start_http(workspace, "--trust-project", "--port", "0", *extra)
    try:
        assert proc.stderr is not None
        url, token = read_http_banner(proc.stderr)
        yield Server(url, token, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def rpc(method: str, params: dict[str, Any] | None = None, id: int | None = 1) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not None:
        message["id"] = id
    return json.dumps(message).encode()


def result_of(response: httpx2.Response) -> dict[str, Any]:
    """The JSON-RPC result (or error) of an SSE or JSON response."""
    body = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in body.splitlines():
            if line.startswith("data:"):
                data: dict[str, Any] = json.loads(line[5:])
                return data
        raise AssertionError(f"no data in {body!r}")
    parsed: dict[str, Any] = json.loads(body)
    return parsed


class RawSession:
    """One MCP session driven by hand (``initialize``, then requests with its id)."""

    def __init__(self, client: httpx2.Client, server: Server, *, token: str | None = None) -> None:
        self.client = client
        self.server = server
        self.headers = dict(HEADERS)
        credential = server.token if token is None else token
        if credential:  # "" sends no Authorization header at all
            self.headers["authorization"] = f"Bearer {credential}"
        self.session_id = ""

    def open(self) -> RawSession:
        response = self.client.post(
            self.server.url, headers=self.headers, content=rpc("initialize", INITIALIZE)
        )
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        self.headers |= {"mcp-session-id": self.session_id, "mcp-protocol-version": PROTOCOL}
        done = self.client.post(
            self.server.url, headers=self.headers, content=rpc("notifications/initialized", id=None)
        )
        assert done.status_code == 202, done.text
        return self

    def post(self, body: bytes, **kwargs: Any) -> httpx2.Response:
        return self.client.post(self.server.url, headers=self.headers, content=body, **kwargs)

    def call(self, tool: str, arguments: dict[str, Any], id: int = 2) -> dict[str, Any]:
        params = {"name": tool, "arguments": arguments}
        return result_of(self.post(rpc("tools/call", params, id=id)))

    def delete(self, **headers: str) -> httpx2.Response:
        return self.client.delete(self.server.url, headers=self.headers | headers)


def texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["result"]["content"]]
