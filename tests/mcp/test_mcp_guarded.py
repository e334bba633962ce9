"""``xcsh mcp --http`` guarded: a token before anything else, effects only after the
SDK's checks, no preview kept whose result never reached the client, bounded
sessions whose tool modules are imported once, and a prompt stop on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import httpx2
import pytest
from mcp_helpers import XCSH_MCP
from mcp_raw import (
    HEADERS,
    INITIALIZE,
    RawSession,
    Server,
    http_server,
    result_of,
    rpc,
    start_http,
    texts,
)

from xcsh.mcp import DISCONNECT_REASON, STOP_REASON, UNDELIVERED_REASON
from xcsh.pending import NOTHING_PENDING_MESSAGE

SLOW_TOOL = """
import asyncio
from pathlib import Path
from xcsh import CustomTool, CustomToolPendingAction

with (Path(__file__).parents[2] / "imports.log").open("a") as log:
    log.write("imported\\n")


def factory(api):
    with (api.cwd / "factories.log").open("a") as log:
        log.write("factory\\n")

    async def execute(tool_call_id, params):
        await asyncio.sleep(params["delay"])

        def reject(reason):
            with (api.cwd / "rejected.log").open("a") as log:
                log.write(f"slow: {reason}\\n")

        api.push_pending_action(
            CustomToolPendingAction(label="Slow", apply=lambda r: "applied", reject=reject)
        )
        return "Preview: slow"

    return CustomTool(
        name="slow_preview",
        description="Preview after a delay.",
        parameters={"type": "object", "properties": {"delay": {"type": "number"}}},
        execute=execute,
    )
"""


@pytest.fixture
def guarded(workspace: Path) -> Path:
    (workspace / ".xcsh" / "tools" / "slow.py").write_text(SLOW_TOOL)
    return workspace


def log_lines(workspace: Path, name: str) -> list[str]:
    path = workspace / name
    return path.read_text().splitlines() if path.exists() else []


def test_requests_without_the_token_are_refused_and_change_nothing(guarded: Path) -> None:
    with http_server(guarded) as server, httpx2.Client(timeout=30) as client:
        owner = RawSession(client, server).open()
        assert "Preview" in texts(owner.call("write_note", {"path": "a.txt", "text": "A"}))[0]
        imported = log_lines(guarded, "factories.log")
        for token in ("", "wrong-token"):
            intruder = RawSession(client, server, token=token)
            refused = client.post(
                server.url, headers=intruder.headers, content=rpc("initialize", {})
            )
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert "needs its token" in refused.json()["error"]["message"]
            # even with the owner's session id: no apply, no delete, no session made
            headers = intruder.headers | {"mcp-session-id": owner.session_id}
            call = rpc(
                "tools/call", {"name": "resolve", "arguments": {"action": "apply", "reason": "x"}}
            )
            assert client.post(server.url, headers=headers, content=call).status_code == 401
            assert client.delete(server.url, headers=headers).status_code == 401
        assert not (guarded / "a.txt").exists() and not (guarded / "rejected.log").exists()
        assert log_lines(guarded, "factories.log") == imported  # no session was built
        # the token in the query string works for clients that cannot set headers
        plain = {k: v for k, v in owner.headers.items() if k != "authorization"}
        listed = client.post(
            f"{server.url}?token={server.token}", headers=plain, content=rpc("tools/list", {})
        )
        assert listed.status_code == 200
        assert texts(owner.call("resolve", {"action": "apply", "reason": "mine"})) == [
            "Wrote a.txt."
        ]
    assert (guarded / "a.txt").read_text() == "A"


def test_a_delete_with_a_forged_host_leaves_the_previews(guarded: Path) -> None:
    with http_server(guarded) as server, httpx2.Client(timeout=30) as client:
        owner = RawSession(client, server).open()
        owner.call("write_note", {"path": "a.txt", "text": "A"})
        forged = owner.delete(host="evil.example.com")
        assert forged.status_code == 421
        assert owner.delete(origin="http://evil.example.com").status_code == 403
        assert not (guarded / "rejected.log").exists()
        assert texts(owner.call("resolve", {"action": "apply", "reason": "still mine"})) == [
            "Wrote a.txt."
        ]
        owner.call("write_note", {"path": "b.txt", "text": "B"})
        assert owner.delete().status_code == 200
        assert log_lines(guarded, "rejected.log") == [f"b.txt: {DISCONNECT_REASON}"]


def test_a_dropped_connection_during_a_preview_leaves_nothing_pending(guarded: Path) -> None:
    for i in range(1000):  # enough files that the preview takes a while
        (guarded / f"m{i}.py").write_text("print(1)\n" * 40)
    with http_server(guarded) as server, httpx2.Client(timeout=30) as client:
        session = RawSession(client, server).open()
        for tool, arguments in (
            ("ast_edit", {"ops": [{"pat": "print($A)", "out": "log($A)"}]}),
            ("slow_preview", {"delay": 1.0}),  # finishes after the drop: discarded then
        ):
            with pytest.raises(httpx2.TimeoutException):
                session.post(rpc("tools/call", {"name": tool, "arguments": arguments}), timeout=0.3)
            time.sleep(2.0)
            left = session.call("resolve", {"action": "apply", "reason": "the one I saw"}, id=9)
            assert texts(left) == [NOTHING_PENDING_MESSAGE], (tool, left)
        assert log_lines(guarded, "rejected.log") == [f"slow: {UNDELIVERED_REASON}"]
        assert (guarded / "m0.py").read_text() == "print(1)\n" * 40
        # a result that did arrive keeps its preview
        assert "Preview: slow" in texts(session.call("slow_preview", {"delay": 0}))


SESSIONS = int(os.environ.get("XCSH_STRESS_SESSIONS", "200"))
"""Sessions opened and closed by the memory test (``make stress-mcp`` runs 1,000)."""


def test_many_sessions_leave_memory_flat_and_import_tools_once(guarded: Path) -> None:
    def cycle(server: Server, client: httpx2.Client, count: int) -> None:
        for _ in range(count):
            session = RawSession(client, server).open()
            assert session.call("write_note", {"path": "n.txt", "text": "N"})["result"]
            assert session.delete().status_code == 200

    with http_server(guarded, "--max-sessions", "4") as server, httpx2.Client(timeout=30) as client:
        cycle(server, client, 50)  # warm up
        before = server.rss_kib()
        cycle(server, client, SESSIONS)
        after = server.rss_kib()
        print(f"{SESSIONS} sessions: RSS {before} KiB -> {after} KiB")
        # flat, not merely small: 40 KiB left behind per session would reach 8 MiB here
        assert after - before < 4 * 1024, (before, after)
        # every session ended and discarded its preview; the bound was never hit
        assert len(log_lines(guarded, "rejected.log")) == 50 + SESSIONS
        assert log_lines(guarded, "imports.log") == ["imported"]
        assert len(log_lines(guarded, "factories.log")) >= 50 + SESSIONS
        # the bound: a fifth open session is refused until one ends
        open_ones = [RawSession(client, server).open() for _ in range(4)]
        fifth = RawSession(client, server)
        refused = client.post(server.url, headers=fifth.headers, content=rpc("initialize", {}))
        assert refused.status_code == 503
        assert open_ones[0].delete().status_code == 200
        fifth.open()


def _hanging_call(session: RawSession) -> None:
    with pytest.raises(httpx2.TimeoutException):
        session.post(
            rpc("tools/call", {"name": "slow_preview", "arguments": {"delay": 3600}}), timeout=0.5
        )


def test_sigterm_during_a_hanging_call_stops_http_within_five_seconds(
    guarded: Path, xcsh_home: Path
) -> None:
    with http_server(guarded) as server, httpx2.Client(timeout=30) as client:
        token_file = xcsh_home / "mcp" / f"http-{server.url.split(':')[2].split('/')[0]}.token"
        assert token_file.read_text().strip() == server.token
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        session = RawSession(client, server).open()
        session.call("write_note", {"path": "a.txt", "text": "A"})
        _hanging_call(session)
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(10) == -signal.SIGTERM
        assert time.monotonic() - started < 5
    assert log_lines(guarded, "rejected.log") == [f"a.txt: {STOP_REASON}"]
    assert not token_file.exists()


@pytest.mark.parametrize("how", ["sigterm", "client closes stdin"])
def test_a_hanging_call_does_not_keep_a_stdio_server_alive(guarded: Path, how: str) -> None:
    proc = subprocess.Popen(
        [*XCSH_MCP, "--cwd", str(guarded), "--trust-project"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(body: bytes) -> None:
        assert proc.stdin is not None
        proc.stdin.write(body.decode() + "\n")
        proc.stdin.flush()

    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        send(rpc("initialize", init))
        assert json.loads(proc.stdout.readline())["id"] == 1
        send(rpc("notifications/initialized", id=None))
        send(
            rpc(
                "tools/call",
                {"name": "write_note", "arguments": {"path": "a.txt", "text": "A"}},
                id=2,
            )
        )
        assert json.loads(proc.stdout.readline())["id"] == 2
        send(rpc("tools/call", {"name": "slow_preview", "arguments": {"delay": 3600}}, id=3))
        time.sleep(0.5)
        started = time.monotonic()
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == -signal.SIGTERM
        else:
            proc.stdin.close()
            assert proc.wait(10) == 0
        assert time.monotonic() - started < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reason = STOP_REASON if how == "sigterm" else DISCONNECT_REASON
    assert log_lines(guarded, "rejected.log") == [f"a.txt: {reason}"]


def test_unix_socket_is_private_and_needs_no_token(guarded: Path, tmp_path: Path) -> None:
    path = tmp_path / "xcsh.sock"
    proc = start_http(guarded, "--socket", str(path))
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().strip() == f"xcsh mcp: serving unix:{path}"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        transport = httpx2.HTTPTransport(uds=str(path))
        with httpx2.Client(transport=transport, timeout=30) as client:
            response = client.post(
                "http://localhost/mcp", headers=HEADERS, content=rpc("initialize", INITIALIZE)
            )
            assert response.status_code == 200, response.text
            assert result_of(response)["result"]["serverInfo"]["name"] == "xcsh"
    finally:
        proc.terminate()
        proc.wait(10)
    assert not path.exists()
