"""bash under Landlock: writes outside the workspace are denied and said so; inside works;
the network can be switched off; "require" without kernel support refuses."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from xcsh.core import AgentTool, ToolError
from xcsh.sandbox import SandboxSettings, kernel_support, prepare_sandbox
from xcsh.tools.coding import create_bash_tool

SUPPORT = kernel_support()
needs_landlock = pytest.mark.skipif(
    not SUPPORT.confines, reason=f"the kernel cannot confine: {SUPPORT.reason}"
)
needs_landlock_network = pytest.mark.skipif(
    not SUPPORT.network, reason=f"this kernel's Landlock (ABI {SUPPORT.abi}) cannot deny TCP"
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


def bash(ws: Path, home: Path, **settings: Any) -> AgentTool[Any]:
    plan = prepare_sandbox(SandboxSettings(**settings), workspace=ws, home=home)
    return create_bash_tool(ws, sandbox=plan)


@needs_landlock
async def test_a_write_outside_the_workspace_is_denied_and_the_result_says_so(
    ws: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    outside = tmp_path / "outside.txt"
    tool = bash(ws, xcsh_home)
    result = await tool.execute("c", {"command": f"echo x > {outside}; echo x > inside.txt"})
    assert not outside.exists()
    assert (ws / "inside.txt").read_text() == "x\n"
    assert "Permission denied" in result.text
    assert f"The sandbox denied writing {outside}" in result.text
    assert result.details["sandbox_denied"] == [str(outside)]


@needs_landlock
async def test_writes_inside_the_workspace_and_tmpdir_work(ws: Path, xcsh_home: Path) -> None:
    tool = bash(ws, xcsh_home)
    command = (
        "mkdir -p a/b && echo hi > a/b/f && mv a/b/f a/g && t=$(mktemp) && "
        'echo ok > "$t" && cat "$t" a/g && echo done > /dev/null'
    )
    result = await tool.execute("c", {"command": command})
    assert result.text == "ok\nhi\n\nExit code: 0", result.text
    assert (ws / "a" / "g").exists()
    assert "write only inside the workspace and $TMPDIR" in tool.description


@needs_landlock
async def test_listed_paths_are_writable(ws: Path, tmp_path: Path, xcsh_home: Path) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    tool = bash(ws, xcsh_home, write=(extra.resolve(),))
    result = await tool.execute("c", {"command": f"echo x > {extra}/f"})
    assert result.text.endswith("Exit code: 0") and (extra / "f").exists()


async def _serve() -> tuple[asyncio.Server, int]:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"hello\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, port


@needs_landlock_network
async def test_network_is_denied_when_the_settings_say_so(ws: Path, xcsh_home: Path) -> None:
    server, port = await _serve()
    command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && head -1 <&3"
    async with server:
        allowed = await bash(ws, xcsh_home).execute("c", {"command": command})
        denied = await bash(ws, xcsh_home, network=False).execute("c", {"command": command})
    assert allowed.text == "hello\n\nExit code: 0"
    # Landlock refuses the connection; in a network namespace nothing listens
    assert "hello" not in denied.text and "Exit code: 1" in denied.text
    assert "may not use the network" in denied.text or "denies network" in denied.text


def test_require_without_kernel_support_refuses_bash(ws: Path, xcsh_home: Path) -> None:
    from xcsh.sandbox import KernelSupport

    # The seam: the kernel's answer is an argument (XCSH_SANDBOX_ABI=0 does the
    # same for the binary; see test_policy_cli).
    none = KernelSupport(abi=0, reason="this kernel has no Landlock")
    plan = prepare_sandbox(
        SandboxSettings(mode="require"), workspace=ws, home=xcsh_home, support=none
    )
    tool = create_bash_tool(ws, sandbox=plan)
    with pytest.raises(ToolError) as info:
        asyncio.run(tool.execute("c", {"command": f"touch {ws}/made"}))
    assert str(info.value) == (
        'bash is refused: sandbox = "require" in settings.toml, but this kernel has no '
        "Landlock; bash commands cannot be confined, so none is run."
    )
    assert not (ws / "made").exists()
    auto = prepare_sandbox(SandboxSettings(mode="auto"), workspace=ws, home=xcsh_home, support=none)
    assert auto.confinement is None and auto.notice.startswith("bash runs unconfined: ")
