"""``xcsh mcp`` over stdio, as a real subprocess driven by the ``mcp`` package's own client.

``preview_server.py`` runs the real ``xcsh mcp`` command with a file-writing
preview tool (``write_file``) beside ``resolve``; its ``reject`` appends to
``rejected.log`` in the workspace, which is how a discard is observed from
outside the process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from xcsh.cli import main
from xcsh.mcp import DISCONNECT_REASON, max_pending_message, pending_notice
from xcsh.pending import NOTHING_PENDING_MESSAGE

SERVER = Path(__file__).with_name("preview_server.py")


def server_params(workspace: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER), "mcp", "--cwd", str(workspace), *extra],
        env={"XCSH_HOME": os.environ["XCSH_HOME"]},
    )


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


async def test_list_preview_apply_discard_and_the_empty_store_error(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    async with Client(server_params(tmp_path)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == {"write_file", "read_file", "resolve"}
        resolve = listed["resolve"]
        assert resolve.annotations is not None
        assert resolve.annotations.destructive_hint is True
        assert resolve.annotations.read_only_hint is False
        assert resolve.input_schema["required"] == ["action", "reason"]
        assert listed["read_file"].annotations is not None
        assert listed["read_file"].annotations.read_only_hint is True
        assert listed["write_file"].input_schema["required"] == ["path", "content"]

        empty = await client.call_tool("resolve", {"action": "apply", "reason": "nothing yet"})
        assert empty.is_error and texts(empty) == [NOTHING_PENDING_MESSAGE]

        preview = await client.call_tool("write_file", {"path": "a.txt", "content": "new\n"})
        assert not preview.is_error
        assert texts(preview) == ["Preview of a.txt:\n-old\n\n+new\n", pending_notice(1)]
        assert (tmp_path / "a.txt").read_text() == "old\n"

        applied = await client.call_tool("resolve", {"action": "apply", "reason": "looks right"})
        assert not applied.is_error and texts(applied) == ["Wrote a.txt (looks right)"]
        assert (tmp_path / "a.txt").read_text() == "new\n"

        await client.call_tool("write_file", {"path": "a.txt", "content": "newer\n"})
        dropped = await client.call_tool("resolve", {"action": "discard", "reason": "not needed"})
        assert texts(dropped) == ["Discarded: Write: a.txt. Reason: not needed"]
        assert (tmp_path / "a.txt").read_text() == "new\n"
        assert (tmp_path / "rejected.log").read_text() == "a.txt: not needed\n"

        again = await client.call_tool("resolve", {"action": "discard", "reason": "twice"})
        assert again.is_error and texts(again) == [NOTHING_PENDING_MESSAGE]


async def test_stack_limit_refuses_more_previews_until_resolved(tmp_path: Path) -> None:
    async with Client(server_params(tmp_path, "--max-pending", "2")) as client:
        await client.call_tool("write_file", {"path": "a", "content": "a"})
        await client.call_tool("write_file", {"path": "b", "content": "b"})
        refused = await client.call_tool("write_file", {"path": "c", "content": "c"})
        assert refused.is_error
        assert texts(refused) == [max_pending_message("write_file", 2, 2), pending_notice(2)]
        read = await client.call_tool("read_file", {"path": "rejected.log"})
        assert read.is_error and texts(read)[0] == "No file rejected.log"  # reads still run
        await client.call_tool("resolve", {"action": "apply", "reason": "b is fine"})
        accepted = await client.call_tool("write_file", {"path": "c", "content": "c"})
        assert not accepted.is_error and texts(accepted)[-1] == pending_notice(2)
    assert (tmp_path / "b").read_text() == "b"
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()


async def test_two_concurrent_sessions_do_not_see_each_others_actions(tmp_path: Path) -> None:
    async with Client(server_params(tmp_path)) as first, Client(server_params(tmp_path)) as second:
        await first.call_tool("write_file", {"path": "first.txt", "content": "1"})
        alone = await second.call_tool("resolve", {"action": "apply", "reason": "steal"})
        assert alone.is_error and texts(alone) == [NOTHING_PENDING_MESSAGE]
        assert not (tmp_path / "first.txt").exists()

        await second.call_tool("write_file", {"path": "second.txt", "content": "2"})
        applied = await first.call_tool("resolve", {"action": "apply", "reason": "mine"})
        assert texts(applied) == ["Wrote first.txt (mine)"]
        assert (tmp_path / "first.txt").read_text() == "1"
        assert not (tmp_path / "second.txt").exists()

        dropped = await second.call_tool("resolve", {"action": "discard", "reason": "no"})
        assert texts(dropped) == ["Discarded: Write: second.txt. Reason: no"]
        assert not (tmp_path / "second.txt").exists()


async def test_disconnect_discards_pending_actions_and_runs_their_reject(tmp_path: Path) -> None:
    async with Client(server_params(tmp_path)) as client:
        await client.call_tool("write_file", {"path": "a.txt", "content": "A"})
        await client.call_tool("write_file", {"path": "b.txt", "content": "B"})
    # Leaving the block closed the server's stdin and waited for it to exit.
    log = tmp_path / "rejected.log"
    assert log.read_text() == f"b.txt: {DISCONNECT_REASON}\na.txt: {DISCONNECT_REASON}\n"
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()


async def test_sigterm_discards_pending_actions(tmp_path: Path) -> None:
    # A client that stops the server with SIGTERM (instead of closing stdin)
    # must not lose the clean-up either.
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "mcp", "--cwd", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        params = {"name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        call = json.dumps({**message, "params": {**params, "_meta": meta}}) + "\n"
        proc.stdin.write(call)
        proc.stdin.flush()
        reply = await anyio.to_thread.run_sync(proc.stdout.readline)
        assert "Preview of a.txt" in reply, reply
        proc.terminate()
        # The server discards, then ends by the signal's default action.
        assert await anyio.to_thread.run_sync(proc.wait, 20) == -signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
    assert (tmp_path / "rejected.log").read_text() == f"a.txt: {DISCONNECT_REASON}\n"
    assert not (tmp_path / "a.txt").exists()


def test_bad_arguments_name_the_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    for args, expected in [
        (["--cwd", str(missing)], "is not a folder"),
        (["--cwd", str(tmp_path), "--max-pending", "0"], "--max-pending must be at least 1"),
        (["--cwd", str(tmp_path), "--port", "9"], "--port needs --http"),
        (["--cwd", str(tmp_path), "--http", "--port", "70000"], "is not a TCP port"),
    ]:
        assert main(["mcp", *args]) == 2
        captured = capsys.readouterr()
        assert expected in captured.err and "Hint:" in captured.err
        assert captured.out == ""
