"""``xcsh mcp`` over stdio: a real subprocess driven by the ``mcp`` package's own client."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_helpers import APP, texts, xcsh_mcp

from xcsh.cli import main
from xcsh.mcp import DISCONNECT_REASON, STOP_REASON, max_pending_message, pending_notice
from xcsh.pending import NOTHING_PENDING_MESSAGE

EDIT = {"ops": [{"pat": "print($A)", "out": "log($A)"}], "path": "app.py"}
EDITED = "log(1)\nlog(2)\n"


async def test_tools_preview_apply_discard_and_the_empty_store_error(workspace: Path) -> None:
    app = workspace / "app.py"
    async with Client(xcsh_mcp(workspace, "--trust-project")) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == {"ast_grep", "ast_edit", "resolve", "write_note"}
        hints = {name: tool.annotations for name, tool in listed.items()}
        assert hints["ast_grep"] is not None and hints["ast_grep"].read_only_hint is True
        assert hints["ast_edit"] is not None
        assert hints["ast_edit"].read_only_hint is False
        assert hints["ast_edit"].destructive_hint is False
        assert hints["resolve"] is not None and hints["resolve"].destructive_hint is True
        assert listed["resolve"].input_schema["required"] == ["action", "reason"]
        # a pattern list or a YAML rule: one of the two, checked when called
        assert {"pat", "rule"} <= set(listed["ast_grep"].input_schema["properties"])
        assert {"ops", "rule"} <= set(listed["ast_edit"].input_schema["properties"])
        neither = await client.call_tool("ast_grep", {"path": "app.py"})
        assert neither.is_error and "Give `pat` or `rule`" in texts(neither)[0]
        assert listed["write_note"].input_schema["required"] == ["path", "text"]

        empty = await client.call_tool("resolve", {"action": "apply", "reason": "nothing yet"})
        assert empty.is_error and texts(empty) == [NOTHING_PENDING_MESSAGE]

        found = await client.call_tool("ast_grep", {"pat": ["print($A)"], "path": "app.py"})
        assert not found.is_error and "app.py:2:1: print(2)" in texts(found)[0]

        preview = await client.call_tool("ast_edit", EDIT)
        assert not preview.is_error
        assert "-1:1 print(1)" in texts(preview)[0] and "+1:1 log(1)" in texts(preview)[0]
        assert texts(preview)[-1] == pending_notice(1)
        assert app.read_text() == APP

        applied = await client.call_tool("resolve", {"action": "apply", "reason": "looks right"})
        assert not applied.is_error and pending_notice(1) not in texts(applied)
        assert app.read_text() == EDITED

        again = await client.call_tool("ast_edit", {**EDIT, "ops": [{"pat": "log($A)", "out": ""}]})
        assert texts(again)[-1] == pending_notice(1)
        dropped = await client.call_tool("resolve", {"action": "discard", "reason": "keep it"})
        assert texts(dropped) == ["Discarded: AST Edit: 2 replacements in 1 file. Reason: keep it"]
        assert app.read_text() == EDITED

        twice = await client.call_tool("resolve", {"action": "discard", "reason": "twice"})
        assert twice.is_error and texts(twice) == [NOTHING_PENDING_MESSAGE]


async def test_stack_limit_refuses_previews_until_resolved(workspace: Path) -> None:
    async with Client(xcsh_mcp(workspace, "--max-pending", "2")) as client:
        # Not trusted: the project's custom tool is not offered.
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"ast_grep", "ast_edit", "resolve"}
        await client.call_tool("ast_edit", EDIT)
        second = await client.call_tool("ast_edit", EDIT)
        assert texts(second)[-1] == pending_notice(2)
        refused = await client.call_tool("ast_edit", EDIT)
        assert refused.is_error
        assert texts(refused) == [max_pending_message("ast_edit", 2, 2), pending_notice(2)]
        search = await client.call_tool("ast_grep", {"pat": ["print($A)"]})
        assert not search.is_error  # read-only calls still run
        await client.call_tool("resolve", {"action": "discard", "reason": "duplicate"})
        accepted = await client.call_tool("ast_edit", EDIT)
        assert not accepted.is_error and texts(accepted)[-1] == pending_notice(2)
    assert (workspace / "app.py").read_text() == APP


async def test_two_concurrent_sessions_do_not_see_each_others_actions(workspace: Path) -> None:
    trusted = xcsh_mcp(workspace, "--trust-project")
    async with Client(trusted) as first, Client(trusted) as second:
        await first.call_tool("ast_edit", EDIT)
        stolen = await second.call_tool("resolve", {"action": "apply", "reason": "not mine"})
        assert stolen.is_error and texts(stolen) == [NOTHING_PENDING_MESSAGE]
        assert (workspace / "app.py").read_text() == APP

        await second.call_tool("write_note", {"path": "note.txt", "text": "hi"})
        applied = await first.call_tool("resolve", {"action": "apply", "reason": "mine"})
        assert not applied.is_error
        assert (workspace / "app.py").read_text() == EDITED
        assert not (workspace / "note.txt").exists()

        dropped = await second.call_tool("resolve", {"action": "discard", "reason": "no"})
        assert texts(dropped) == ["Discarded: Note: note.txt. Reason: no"]
        assert (workspace / "rejected.log").read_text() == "note.txt: no\n"


async def test_disconnect_discards_pending_actions_and_runs_their_reject(workspace: Path) -> None:
    async with Client(xcsh_mcp(workspace, "--trust-project")) as client:
        await client.call_tool("write_note", {"path": "a.txt", "text": "A"})
        await client.call_tool("ast_edit", EDIT)
        await client.call_tool("write_note", {"path": "b.txt", "text": "B"})
    # Leaving the block closed the server's stdin and waited for it to exit.
    log = (workspace / "rejected.log").read_text()
    assert log == f"b.txt: {DISCONNECT_REASON}\na.txt: {DISCONNECT_REASON}\n"
    assert (workspace / "app.py").read_text() == APP
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()


async def test_sigterm_discards_pending_actions(workspace: Path) -> None:
    # A client that stops the server with SIGTERM instead of closing stdin.
    proc = subprocess.Popen(
        [sys.executable, "-m", "xcsh", "mcp", "--cwd", str(workspace), "--trust-project"],
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
        params = {"name": "write_note", "arguments": {"path": "a.txt", "text": "A"}}
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
        proc.stdin.write(json.dumps({**request, "params": {**params, "_meta": meta}}) + "\n")
        proc.stdin.flush()
        reply = await anyio.to_thread.run_sync(proc.stdout.readline)
        assert "Preview: a.txt" in reply, reply
        proc.terminate()
        # The server discards, then ends by the signal's default action.
        assert await anyio.to_thread.run_sync(proc.wait, 20) == -signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
    # The server was stopped (the client is still there): the reason says so.
    assert (workspace / "rejected.log").read_text() == f"a.txt: {STOP_REASON}\n"
    assert not (workspace / "a.txt").exists()


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


async def test_a_bad_rule_is_named_once_and_ast_grep_s_complaint_reads_once(
    workspace: Path,
) -> None:
    """A bad `rule` parameter reads without doubled words.

    The rule is `rule `x``, not `rule rule `x``, and ast-grep's "Invalid Kind" /
    "Kind `x` is invalid" causes do not read "Invalid Kind Kind".
    """
    async with Client(xcsh_mcp(workspace)) as client:
        bad = "id: x\nlanguage: python\nrule: {kind: nosuch}\n"
        found = await client.call_tool("ast_grep", {"rule": bad, "path": "app.py"})
        assert found.is_error
        assert texts(found)[0].startswith(
            "rule `x`: rule: ast-grep refused it: `rule` is not configured correctly. Rule "
            "contains invalid kind matcher. Kind `nosuch` is invalid. Fix the rule as the "
            "message says."
        ), texts(found)
        two = "id: a\nlanguage: python\nrule: {kind: call}\n---\n" + bad.replace("x", "y", 1)
        edited = await client.call_tool("ast_edit", {"rule": two, "path": "app.py"})
        assert edited.is_error
        assert texts(edited)[0].startswith("rule `y` (document 2): rule: ast-grep refused it:")
