"""``xcsh mcp --http``: two client sessions on one loopback server, and session ends."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
from mcp_helpers import XCSH_MCP, http_client, texts
from mcp_raw import http_server

from xcsh.mcp import (
    DISCONNECT_REASON,
    IDLE_REASON,
    STOP_REASON,
    HttpSessions,
    McpSession,
    pending_notice,
)
from xcsh.pending import NOTHING_PENDING_MESSAGE, PendingAction, PendingActionStore
from xcsh.tools import create_resolve_tool


async def test_two_http_sessions_are_isolated_and_a_closed_one_is_discarded(
    workspace: Path,
) -> None:
    with http_server(workspace) as server:
        await _two_sessions(workspace, server.url, server.token, server.proc)
    assert not (workspace / "c.txt").exists() and not (workspace / "d.txt").exists()


async def _two_sessions(workspace: Path, url: str, token: str, proc: subprocess.Popen[str]) -> None:
    log = workspace / "rejected.log"
    async with http_client(url, token) as first, http_client(url, token) as second:
        names = {tool.name for tool in (await first.list_tools()).tools}
        assert names == {"ast_grep", "ast_edit", "resolve", "write_note"}

        preview = await first.call_tool("write_note", {"path": "a.txt", "text": "A"})
        assert texts(preview)[-1] == pending_notice(1)
        stolen = await second.call_tool("resolve", {"action": "apply", "reason": "not mine"})
        assert stolen.is_error and texts(stolen) == [NOTHING_PENDING_MESSAGE]

        await second.call_tool("write_note", {"path": "b.txt", "text": "B"})
        applied = await first.call_tool("resolve", {"action": "apply", "reason": "mine"})
        assert texts(applied) == ["Wrote a.txt."]
        assert (workspace / "a.txt").read_text() == "A"
        assert not (workspace / "b.txt").exists()

        async with http_client(url, token) as third:
            await third.call_tool("write_note", {"path": "c.txt", "text": "C"})
        # The third client deleted its session on the way out: discarded, not applied.
        assert log.read_text() == f"c.txt: {DISCONNECT_REASON}\n"

        still = await second.call_tool("resolve", {"action": "apply", "reason": "now"})
        assert texts(still) == ["Wrote b.txt."]

        # Stopping the server discards what is still pending in open sessions.
        await second.call_tool("write_note", {"path": "d.txt", "text": "D"})
        proc.send_signal(signal.SIGTERM)
        # uvicorn shuts down gracefully, then ends by the signal's default action.
        assert await anyio.to_thread.run_sync(proc.wait, 20) == -signal.SIGTERM
        assert log.read_text() == f"c.txt: {DISCONNECT_REASON}\nd.txt: {STOP_REASON}\n"
        # The open event streams were ended cleanly: uvicorn logged no error.
        assert proc.stderr is not None
        assert "ASGI callable" not in proc.stderr.read()


class _Ctx(SimpleNamespace):
    pass


def _ctx(session_id: str | None) -> Any:
    headers = {} if session_id is None else {"mcp-session-id": session_id}
    return _Ctx(request=SimpleNamespace(headers=headers))


async def test_http_sessions_by_id_idle_reaping_and_shutdown() -> None:
    rejected: list[str] = []

    def factory(store: PendingActionStore) -> list[Any]:
        return [create_resolve_tool(store)]

    def push(session: McpSession, label: str) -> None:
        session.store.push(
            PendingAction(
                label=label, source_tool_name="t", apply=lambda r: None, reject=rejected.append
            )
        )

    sessions = HttpSessions(factory, idle_timeout=60.0)
    assert sessions.session_for(_ctx(None)) is None
    one = sessions.session_for(_ctx("one"))
    two = sessions.session_for(_ctx("two"))
    assert one is not None and two is not None and one is not two
    assert sessions.session_for(_ctx("one")) is one
    assert one.store is not two.store
    push(one, "first")
    push(two, "second")

    await sessions.reap_idle()  # nothing idle yet
    assert len(sessions) == 2 and not rejected
    await sessions.reap_idle(now=time.monotonic() + 10**9)
    assert len(sessions) == 0 and sorted(rejected) == [IDLE_REASON] * 2

    three = sessions.session_for(_ctx("three"))
    assert three is not None
    push(three, "third")
    await sessions.close_all()
    assert len(rejected) == 3 and three.closed and rejected[-1] == STOP_REASON


def test_a_port_in_use_is_one_line_and_exit_2(workspace: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*XCSH_MCP, "--cwd", str(workspace), "--http", "--port", str(port)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == f"xcsh mcp: port {port} is in use (try --port 0)\n"
    assert done.stdout == ""
