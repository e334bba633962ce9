"""``xcsh mcp`` over stdio and over HTTP, driven by the official ``mcp`` client, on the
standard-library tree: searches and previewed edits that run on the scan pool."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from e2e_run import CALLS, REPEAT, REPRODUCTION, XCSH_BIN, Tree, env, rounds
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def search_edit_apply(client: Any, tree: Tree, repeat: int) -> None:
    """``repeat`` searches, then one preview and its apply, checked on disk."""
    for _ in range(repeat):
        found = await client.call_tool("ast_grep", {"pat": [REPRODUCTION], "path": tree.scope})
        assert not found.is_error, text_of(found)
        assert f"{tree.scope}/" in text_of(found) and "isinstance(" in text_of(found)
    before = tree.scope_text().count("isinstance(")
    try:
        preview = await client.call_tool(
            "ast_edit",
            {
                "ops": [{"pat": "isinstance($A, $B)", "out": "isinstance_mcp($A, $B)"}],
                "path": tree.scope,
            },
        )
        assert not preview.is_error, text_of(preview)
        assert "isinstance_mcp(" not in tree.scope_text()  # a preview writes nothing
        applied = await client.call_tool("resolve", {"action": "apply", "reason": "e2e"})
        assert not applied.is_error, text_of(applied)
        text = tree.scope_text()
        rewritten = text.count("isinstance_mcp(")
        assert rewritten > 0 and text.count("isinstance(") == before - rewritten
        assert f"{rewritten} replacement" in text_of(applied), text_of(applied)
    finally:
        tree.restore()


@pytest.mark.parametrize("round_", rounds())
async def test_stdio_server_searches_and_applies(tree: Tree, xcsh_home: Path, round_: int) -> None:
    server = StdioServerParameters(
        command=XCSH_BIN, args=["mcp", "--cwd", str(tree.root)], env=env(xcsh_home)
    )
    for _ in range(REPEAT):  # a new server each time, as each editor session starts one
        async with Client(server) as client:
            await search_edit_apply(client, tree, CALLS)


@pytest.fixture
def http_url(tree: Tree, xcsh_home: Path) -> Iterator[tuple[str, str, subprocess.Popen[str]]]:
    proc = subprocess.Popen(
        [XCSH_BIN, "mcp", "--cwd", str(tree.root), "--http", "--port", "0"],
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
        token_line = proc.stderr.readline()
        assert token_line.startswith("xcsh mcp: token "), token_line
        yield line.split("serving ", 1)[1].strip(), token_line.split()[3], proc
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def http_client(url: str, token: str) -> Client:
    """An MCP client that sends the server's bearer token, as a configured editor does."""
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http))


@pytest.mark.parametrize("round_", rounds())
async def test_http_server_serves_one_client_after_another(
    tree: Tree, http_url: tuple[str, str, subprocess.Popen[str]], round_: int
) -> None:
    url, token, proc = http_url
    for _ in range(REPEAT):
        async with http_client(url, token) as client:
            await search_edit_apply(client, tree, CALLS)
        assert proc.poll() is None, "the server went down"
    # Several clients at once: the scans share the server without ending it.
    async with (
        http_client(url, token) as first,
        http_client(url, token) as second,
        anyio.create_task_group() as group,
    ):
        for client in (first, second):
            group.start_soon(
                client.call_tool, "ast_grep", {"pat": [REPRODUCTION], "path": tree.scope}
            )
    assert proc.poll() is None, "the server went down"
