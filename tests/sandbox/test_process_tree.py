"""Process trees that really die: after a timeout, and when xcsh itself is SIGKILLed,
no descendant of a bash command is left, whatever it did to escape (double fork,
setsid, ignoring SIGTERM). Processes are counted by a token on their command line."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
import uuid
from pathlib import Path

import pytest

from helpers import start_xcsh
from xcsh.core import ToolError
from xcsh.tools.coding import create_bash_tool


def escaping_command(token: str) -> str:
    """Three processes that each try to outlive the command in a different way; only
    they carry ``token`` on their command line (the command itself spells it split)."""
    head, tail = token[:5], token[5:]
    return (
        f'export T="{head}""{tail}"; '
        # a double fork: the grandchild's parent exits at once
        '( ( exec -a "$T-double" sleep 300 ) & ) ; '
        # a new session (and so a new process group)
        "setsid bash -c 'exec -a \"$T-setsid\" sleep 300' & "
        # ignores SIGTERM
        'bash -c \'trap "" TERM; exec -a "$T-noterm" sleep 300\' & '
        "echo started; wait"
    )


def count(token: str) -> int:
    """Live (non-zombie) processes whose command line holds ``token``."""
    found = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = Path(entry.path, "cmdline").read_bytes()
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        if token.encode() in cmdline and stat[stat.rfind(")") + 2] not in "ZX":
            found += 1
    return found


def wait_count(token: str, expected: int, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while (n := count(token)) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return n


async def test_timeout_leaves_no_process_behind(tmp_path: Path) -> None:
    token = f"xcsh-{uuid.uuid4().hex[:12]}"
    tool = create_bash_tool(tmp_path, kill_grace=0.3)
    call = asyncio.ensure_future(
        tool.execute("c", {"command": escaping_command(token), "timeout": 1.5})
    )
    while count(token) < 3 and not call.done():
        await asyncio.sleep(0.05)
    assert count(token) == 3  # the three escapers are running
    with pytest.raises(ToolError) as info:
        await call
    assert await asyncio.to_thread(wait_count, token, 0) == 0
    message = str(info.value)
    assert "Command timed out after 1.5 s; it and every process it started were killed (" in message


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="counting processes needs /proc")
def test_sigkill_of_xcsh_leaves_no_process_behind(tmp_path: Path, xcsh_home: Path) -> None:
    token = f"xcsh-{uuid.uuid4().hex[:12]}"
    project = tmp_path / "proj"
    project.mkdir()
    steps = tmp_path / "steps.json"
    call = {"name": "bash", "arguments": {"command": escaping_command(token)}}
    steps.write_text(json.dumps([{"tool_calls": [call]}, {"text": "done"}]))
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
    proc = start_xcsh(argv, cwd=project, home=xcsh_home)
    try:
        assert wait_count(token, 3, seconds=20) == 3, proc.stderr.read() if proc.poll() else ""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert wait_count(token, 0) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


async def test_supervisors_are_out_of_reach_of_the_terminals_ctrl_c(tmp_path: Path) -> None:
    """A Ctrl-C goes to the terminal's foreground process group (xcsh's): the
    supervisor of a command (and the host that forks it) must not be in it, or a
    Ctrl-C while the host starts kills it and the call fails with a broken socket."""
    tool = create_bash_tool(tmp_path)
    # the supervisor's process group and session, read while it runs (fields 5 and 6)
    result = await tool.execute("c", {"command": "cut -d' ' -f5,6 /proc/$PPID/stat"})
    pgid, sid = (int(x) for x in result.text.split()[:2])
    assert pgid != os.getpgid(0)
    assert sid != os.getsid(0)
