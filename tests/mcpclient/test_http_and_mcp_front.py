"""A server over Streamable HTTP (xcsh's own ``xcsh mcp --http``, its bearer token given in
a header that names an environment variable, never written down), and ``xcsh mcp`` as a
front end: a client of xcsh sees a downstream server's deferred call as one more pending
action, which its ``resolve`` applies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcpclient_helpers import Agent, call, fault_table, new_tag, processes_with

from helpers import xcsh_env


def _read_banner(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("xcsh mcp: serving http://127.0.0.1:"), line
    url = line.split("serving ", 1)[1].strip()
    token_line = proc.stderr.readline()
    assert token_line.startswith("xcsh mcp: token "), token_line
    return url, token_line.split()[3]


def test_streamable_http_server_with_a_token_from_the_environment(
    agent: Agent, tmp_path: Path
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    (served / "app.py").write_text("def old():\n    return old()\n")
    inner_home = tmp_path / "inner-home"
    inner = subprocess.Popen(
        [sys.executable, "-m", "xcsh", "mcp", "--http", "--port", "0", "--cwd", str(served)],
        env=xcsh_env(inner_home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url, token = _read_banner(inner)
        agent.settings(
            "[mcp_servers.inner]\n"
            f'url = "{url}"\n'
            'headers = { Authorization = "Bearer ${INNER_TOKEN}" }\n'
            '[mcp_servers.unset]\nurl = "http://127.0.0.1:9/mcp"\n'
            'headers = { Authorization = "Bearer ${XCSH_TEST_UNSET_TOKEN}" }\n'
        )
        run = agent.run(
            [
                [call("inner__ast_grep", pat=["old()"], path=".")],
                [call("inner__ast_edit", ops=[{"pat": "old()", "out": "new()"}], path=".")],
                [call("resolve", action="discard", reason="only looking")],
            ],
            env={"INNER_TOKEN": token},
        )
    finally:
        inner.terminate()
        inner.wait(timeout=30)
    assert run.code == 0, run.stderr
    assert run.header["notices"] == [
        "MCP server unset did not start: header Authorization names the environment variable "
        "XCSH_TEST_UNSET_TOKEN, which is not set. Its tools are left out."
    ]
    search, edit, _ = run.results()
    assert "app.py" in search["text"] and not search["message"]["is_error"]
    # ast_edit is not read-only over MCP: the outer xcsh previews the call itself
    assert "was not made" in edit["text"] and "Tool: ast_edit" in edit["text"]
    assert (served / "app.py").read_text() == "def old():\n    return old()\n"
    assert token not in run.session_text()
    logs = agent.home / "logs"
    for path in logs.rglob("*") if logs.exists() else ():
        if path.is_file():
            assert token not in path.read_text(errors="replace")


def test_xcsh_mcp_clients_resolve_a_downstream_deferred_call(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    notes = tmp_path / "notes.txt"
    tag = new_tag()
    (home / "settings.toml").write_text(
        fault_table("down", "ok", tag, env=f'{{ NOTE_FILE = "{notes}" }}')
    )
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "xcsh", "mcp", "--cwd", str(work)],
        env={"XCSH_HOME": str(home), "PATH": os.environ.get("PATH", "")},
    )

    async def drive() -> list[str]:
        said: list[str] = []
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "down__write_note" in names and "down__echo" in names
            first = await client.call_tool("down__write_note", {"text": "kept"})
            said.append(first.content[0].text)  # type: ignore[union-attr]
            assert not notes.exists()
            applied = await client.call_tool("resolve", {"action": "apply", "reason": "yes"})
            said.append(applied.content[0].text)  # type: ignore[union-attr]
            await client.call_tool("down__write_note", {"text": "dropped"})
            discarded = await client.call_tool("resolve", {"action": "discard", "reason": "no"})
            said.append(discarded.content[0].text)  # type: ignore[union-attr]
        return said

    preview, applied, discarded = anyio.run(drive)
    assert "Preview p1" in preview and "Tool: write_note" in preview
    assert applied.startswith("Applied: MCP down: write_note.")
    assert "Discarded" in discarded
    assert notes.read_text() == "kept\n"  # the applied call once, the discarded one never
    for _ in range(50):
        if not processes_with(tag):
            break
        anyio.run(anyio.sleep, 0.1)
    assert not processes_with(tag)
