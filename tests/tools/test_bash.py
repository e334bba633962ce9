"""bash: exit codes, timeout and cancellation kill the whole process group, long output."""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from pathlib import Path

import pytest

from xcsh.core import AgentToolResult, ToolError
from xcsh.tools.coding import create_bash_tool
from xcsh.tools.coding.bash import LOG_HEAD_BYTES, LOG_TAIL_BYTES

from .conftest import Tools


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


async def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        if process_gone(pid):
            return True
        await asyncio.sleep(0.05)
    return process_gone(pid)


async def read_pid(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError("the command never wrote its child's pid")


async def test_runs_in_workspace_and_reports_exit_code(ws: Path, tools: Tools) -> None:
    result = await tools("bash", command="pwd; echo oops >&2; exit 3")
    assert result.text == f"{ws}\noops\n\nExit code: 3"
    assert not result.is_error and result.details["exit_code"] == 3
    quiet = await tools("bash", command="true")
    assert quiet.text == "(no output)\n\nExit code: 0"


async def test_timeout_kills_grandchild(ws: Path, tools: Tools) -> None:
    pid_file = ws / "pid"
    command = f"sleep 300 & echo $! > {pid_file}; echo started; wait"
    with pytest.raises(ToolError) as info:
        await tools("bash", command=command, timeout=0.5)
    message = str(info.value)
    assert message.startswith("started\n\nCommand timed out after 0.5 s")
    assert info.value.details["timed_out"] is True
    assert await wait_gone(await read_pid(pid_file))


async def test_timeout_escalates_to_sigkill(ws: Path) -> None:
    tool = create_bash_tool(ws, kill_grace=0.3)
    pid_file = ws / "pid"
    command = f"trap '' TERM; (trap '' TERM; sleep 300) & echo $! > {pid_file}; wait; wait"
    with pytest.raises(ToolError, match="timed out"):
        await tool.execute("c", {"command": command, "timeout": 0.3})
    assert await wait_gone(await read_pid(pid_file))


async def test_cancel_event_kills_group(ws: Path, tools: Tools) -> None:
    pid_file = ws / "pid"
    cancel = asyncio.Event()
    call = asyncio.ensure_future(
        tools.by_name["bash"].execute(
            "c", {"command": f"sleep 300 & echo $! > {pid_file}; wait"}, cancel=cancel
        )
    )
    pid = await read_pid(pid_file)
    cancel.set()
    with pytest.raises(ToolError, match=r"Command cancelled after \d+\.\d s"):
        await asyncio.wait_for(call, 10)
    assert await wait_gone(pid)


async def test_task_cancellation_kills_group(ws: Path, tools: Tools) -> None:
    pid_file = ws / "pid"
    call = asyncio.ensure_future(tools("bash", command=f"sleep 300 & echo $! > {pid_file}; wait"))
    pid = await read_pid(pid_file)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await wait_gone(pid)


async def test_cancellation_while_connecting_the_pipe_kills_group(
    ws: Path, tools: Tools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancellation between spawning bash and reading its output still kills the group."""
    loop = asyncio.get_running_loop()
    connecting = asyncio.Event()

    async def stalled_connect(*args: object, **kwargs: object) -> object:
        connecting.set()
        await asyncio.Event().wait()
        raise AssertionError("never reached")

    monkeypatch.setattr(loop, "connect_read_pipe", stalled_connect)
    pid_file = ws / "pid"
    call = asyncio.ensure_future(tools("bash", command=f"sleep 300 & echo $! > {pid_file}; wait"))
    pid = await read_pid(pid_file)
    await asyncio.wait_for(connecting.wait(), 5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await wait_gone(pid)


async def test_long_output_keeps_head_and_tail_and_saves_log(
    ws: Path, tools: Tools, xcsh_home: Path
) -> None:
    result = await tools("bash", command="seq 1 100000")
    text = result.text
    log = result.details["full_output_path"]
    assert log is not None
    assert Path(log).parent == xcsh_home / "logs" / "bash"  # contract §5a: user state stays home
    assert text.startswith("1\n2\n3\n")
    assert text.endswith(
        f"99999\n100000\n\n[Output truncated: 575.1 KiB in total. Full output saved to {log}]"
        "\n\nExit code: 0"
    )
    assert Path(log).read_text() == "".join(f"{i}\n" for i in range(1, 100001))
    omitted = re.search(r"\[\.\.\. [\d.]+ KiB \((\d+) lines\) omitted \.\.\.\]", text)
    assert omitted is not None
    shown = [line for line in text.splitlines() if line.isdigit()]
    assert len(shown) + int(omitted.group(1)) == 100000
    assert len(text.encode()) < 40 * 1024


async def test_short_output_has_no_log(ws: Path, tools: Tools) -> None:
    result = await tools("bash", command="printf 'a%.0s' $(seq 1 100)")
    assert result.details["full_output_path"] is None
    assert result.text.startswith("a" * 100)


async def test_background_process_holding_output_does_not_block(ws: Path, tools: Tools) -> None:
    pid_file = ws / "pid"
    result = await tools("bash", command=f"sleep 300 & echo $! > {pid_file}; echo done")
    assert result.text.startswith("done\n")
    assert "Background processes still hold the output open" in result.text
    os.kill(await read_pid(pid_file), 9)


async def test_progress_updates(ws: Path, tools: Tools) -> None:
    seen: list[AgentToolResult] = []
    await tools.by_name["bash"].execute(
        "c", {"command": "echo first; sleep 0.7; echo second"}, on_update=seen.append
    )
    assert seen and "first" in seen[-1].text


async def test_long_output_writes_nothing_to_the_system_temp_folder(
    ws: Path, tools: Tools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    monkeypatch.setenv("TMPDIR", str(system_tmp))
    result = await tools("bash", command="seq 1 100000")
    assert result.details["full_output_path"] is not None
    assert list(system_tmp.iterdir()) == []


async def test_log_keeps_first_and_last_part_of_a_huge_output(ws: Path, tools: Tools) -> None:
    # QA: `yes` for 2 s left a 608 MiB log; a log is now capped at its head and tail.
    size = 12 * 1024 * 1024
    result = await tools("bash", command=f"yes | head -c {size}; echo END")
    log = Path(result.details["full_output_path"])
    data = log.read_bytes()
    assert len(data) < LOG_HEAD_BYTES + LOG_TAIL_BYTES + 200
    assert data.startswith(b"y\n" * 1000)
    assert data.endswith(b"y\nEND\n")
    omitted = size + 4 - LOG_HEAD_BYTES - LOG_TAIL_BYTES
    assert result.details["log_omitted_bytes"] == omitted
    assert (
        f"[Output truncated: 12.0 MiB in total. Its first 2.0 MiB and last 2.0 MiB are saved "
        f"to {log}]"
    ) in result.text


async def test_log_cap_marks_what_it_left_out(ws: Path) -> None:
    tool = create_bash_tool(ws, log_head_bytes=1000, log_tail_bytes=1000)
    result = await tool.execute("c", {"command": "seq 1 100000"})
    everything = "".join(f"{i}\n" for i in range(1, 100001)).encode()
    omitted = len(everything) - 2000
    marker = (
        f"\n[... {omitted / 1024:.1f} KiB omitted: this log keeps the first 1000 bytes and the "
        "last 1000 bytes of the output ...]\n"
    ).encode()
    log = Path(result.details["full_output_path"])
    assert log.read_bytes() == everything[:1000] + marker + everything[-1000:]
    assert result.details["log_omitted_bytes"] == omitted


async def test_starting_a_log_prunes_old_ones(ws: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    now = time.time()
    for age in range(8):  # bash-0.log is the newest
        old = logs / f"bash-{age}.log"
        old.write_text("old")
        os.utime(old, (now - 60 * (age + 1), now - 60 * (age + 1)))
    stale = logs / "bash-stale.log"
    stale.write_text("two days old")
    os.utime(stale, (now - 2 * 86400, now - 2 * 86400))
    other = logs / "notes.txt"
    other.write_text("not a log")
    os.utime(other, (now - 9 * 86400, now - 9 * 86400))
    tool = create_bash_tool(ws, log_dir=logs, keep_logs=4)
    result = await tool.execute("c", {"command": "seq 1 100000"})
    new = Path(result.details["full_output_path"])
    assert sorted(p.name for p in logs.iterdir()) == sorted(
        ["bash-0.log", "bash-1.log", "bash-2.log", new.name, "notes.txt"]
    )


async def test_log_folder_that_cannot_be_made_is_reported(ws: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "home-is-a-file"
    blocker.write_text("")
    tool = create_bash_tool(ws, log_dir=blocker / "logs" / "bash")
    result = await tool.execute("c", {"command": "seq 1 100000"})
    assert result.details["full_output_path"] is None
    assert (
        "[Output truncated: 575.1 KiB in total. The full output could not be saved: "
        f"cannot create a log in {blocker / 'logs' / 'bash'}: Not a directory.]"
    ) in result.text
    assert result.text.endswith("Exit code: 0")
