"""A warm session through the installed ``xcsh``: over MCP stdio and HTTP (the official
client; two HTTP sessions share the server's index) and in ``xcsh -p`` (the scripted
model), files are changed behind the session's back between two searches, and every
warm answer is compared with a cold search's."""

from __future__ import annotations

import asyncio
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
from e2e_run import XCSH_BIN, env, newest_session, print_mode, tool_results, write_steps
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from warm_scenario import CHANGES, PATTERN, SETTLE_SECONDS, make_workspace, run_change
from xcsh import PendingActionStore
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool

REWRITE = [{"pat": PATTERN, "out": "h($A)"}]


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def cold_search(root: Path) -> str:
    """What a search with no index answers now."""
    return str((await create_ast_grep_tool(str(root)).execute("cold", {"pat": [PATTERN]})).text)


async def cold_apply(root: Path) -> str:
    """A cold preview of :data:`REWRITE`, applied; returns the preview's text."""
    store = PendingActionStore()
    preview = await create_ast_edit_tool(str(root), store).execute("cold", {"ops": REWRITE})
    applied = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "t"})
    assert not applied.is_error, applied.text
    return str(preview.text)


async def _search(client: Any) -> str:
    found = await client.call_tool("ast_grep", {"pat": [PATTERN]})
    assert not found.is_error, text_of(found)
    return text_of(found)


async def _changes_then_apply(clients: list[Any], root: Path, twin: Path) -> None:
    """Each change behind the server's back, then a search (by the clients in turn)
    compared with a cold one; then an ``ast_edit`` preview and its apply."""
    time.sleep(SETTLE_SECONDS)
    assert await _search(clients[0]) == await cold_search(root)
    assert await _search(clients[-1]) == await cold_search(root)
    for number, (name, source) in enumerate(CHANGES):
        run_change(source, root)
        run_change(source, twin)
        assert await _search(clients[number % len(clients)]) == await cold_search(root), name
    preview = await clients[0].call_tool("ast_edit", {"ops": REWRITE})
    assert preview.content[0].text == await cold_apply(twin)  # then the pending notice
    applied = await clients[0].call_tool("resolve", {"action": "apply", "reason": "e2e"})
    assert not applied.is_error, text_of(applied)
    for client in clients:
        assert await _search(client) == await cold_search(root) == await cold_search(twin)
    assert "No matches" in await _search(clients[-1])


async def test_mcp_stdio_session_sees_every_change_a_cold_search_sees(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    twin = make_workspace(tmp_path / "twin")
    server = StdioServerParameters(
        command=XCSH_BIN, args=["mcp", "--cwd", str(root)], env=env(xcsh_home)
    )
    async with Client(server) as client:
        await _changes_then_apply([client], root, twin)


async def test_mcp_http_sessions_share_one_index_and_see_every_change(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    twin = make_workspace(tmp_path / "twin")
    proc = subprocess.Popen(
        [XCSH_BIN, "mcp", "--cwd", str(root), "--http", "--port", "0"],
        env=env(xcsh_home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("xcsh mcp: serving http://127.0.0.1:"), line
        url, token = line.split("serving ", 1)[1].strip(), proc.stderr.readline().split()[3]
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            Client(
                streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
            ) as first,
            Client(
                streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
            ) as second,
        ):
            await _changes_then_apply([first, second], root, twin)
    finally:
        proc.terminate()
        proc.wait(20)


def _bash(source: str) -> dict[str, object]:
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(source)}"
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def test_print_mode_session_sees_every_change_a_cold_search_sees(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    grep = {"tool_calls": [{"name": "ast_grep", "arguments": {"pat": [PATTERN]}}]}
    steps: list[dict[str, object]] = [_bash(f"import time; time.sleep({SETTLE_SECONDS})")]
    steps += [grep, grep]
    for _, source in CHANGES:
        steps += [_bash(source), grep]
    steps += [
        {"tool_calls": [{"name": "ast_edit", "arguments": {"ops": REWRITE}}]},
        {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "e2e"}}]},
        grep,
        {"text": "done"},
    ]
    done = print_mode(write_steps(tmp_path, "warm", steps), root, xcsh_home)
    assert done.returncode == 0, done.stderr
    results = tool_results(newest_session(xcsh_home))
    assert all(not is_error for _, is_error, _ in results), results
    warm = [(name, text) for name, _, text in results if name != "bash"]

    # The same changes, replayed on a twin of the workspace, searched cold after each.
    twin = make_workspace(tmp_path / "twin")
    expected = [("ast_grep", asyncio.run(cold_search(twin)))] * 2
    for _, source in CHANGES:
        run_change(source, twin)
        expected.append(("ast_grep", asyncio.run(cold_search(twin))))
    expected.append(("ast_edit", asyncio.run(cold_apply(twin))))
    expected.append(("resolve", warm[-2][1]))
    expected.append(("ast_grep", asyncio.run(cold_search(twin))))
    assert [name for name, _ in warm] == [name for name, _ in expected]
    for index, ((name, got), (_, want)) in enumerate(zip(warm, expected, strict=True)):
        assert got == want, (index, name)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")) == sorted(
        p.relative_to(twin).as_posix() for p in twin.rglob("*.py")
    )
