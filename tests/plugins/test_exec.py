"""CustomToolAPI.exec: real subprocesses, timeouts and cancellation kill the whole group."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from pathlib import Path

import pytest

from xcsh import CustomToolAPI, ToolError
from xcsh.plugins import HeadlessUI

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

# Starts a grandchild that would outlive a plain kill of the shell, records its pid.
SPAWN = 'sleep 30 & echo $! > "$1"; wait'


def api(tmp_path: Path) -> CustomToolAPI:
    return CustomToolAPI(tmp_path, store=None)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); look at its state.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_dead(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


async def test_output_exit_code_and_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    result = await api(tmp_path).exec(
        "sh", ["-c", 'pwd; echo "oops: $X" >&2; exit 3'], cwd="sub", env={"X": "ünï"}
    )
    assert result.stdout == f"{tmp_path / 'sub'}\n"
    assert result.stderr == "oops: ünï\n"
    assert (result.code, result.killed, result.timed_out, result.ok) == (3, False, False, False)
    ok = await api(tmp_path).exec("cat", stdin="piped")
    assert (ok.stdout, ok.ok) == ("piped", True)


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    run = api(tmp_path).exec("sh", ["-c", SPAWN, "sh", str(pidfile)], timeout=0.5)
    # Killing only the shell would leave `sleep 30` holding the pipes open.
    result = await asyncio.wait_for(run, 10)
    assert result.killed and result.timed_out
    assert result.code < 0
    assert wait_dead(int(pidfile.read_text()))


async def test_cancel_event_kills_the_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    cancel = asyncio.Event()
    task = asyncio.create_task(
        api(tmp_path).exec("sh", ["-c", SPAWN, "sh", str(pidfile)], cancel=cancel)
    )
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.02)
    cancel.set()
    result = await asyncio.wait_for(task, 5)
    assert result.killed and not result.timed_out
    assert wait_dead(int(pidfile.read_text()))


async def test_task_cancellation_kills_the_group_and_propagates(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    task = asyncio.create_task(api(tmp_path).exec("sh", ["-c", SPAWN, "sh", str(pidfile)]))
    while not pidfile.exists() or not pidfile.read_text().strip():
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(int(pidfile.read_text()))


async def test_missing_program_is_a_tool_error(tmp_path: Path) -> None:
    # As documented on CustomToolAPI.exec and in examples/custom_tools/README.md.
    with pytest.raises(ToolError) as info:
        await api(tmp_path).exec("xcsh-no-such-program")
    assert str(info.value).startswith(f"Cannot run 'xcsh-no-such-program' in {tmp_path}: ")
    assert str(info.value).endswith(".")
    with pytest.raises(ToolError) as info:
        await api(tmp_path).exec("true", cwd="missing-folder")
    assert str(info.value).startswith(f"Cannot run 'true' in {tmp_path / 'missing-folder'}: ")
    failed = await api(tmp_path).exec("false")  # a non-zero exit is returned, not raised
    assert (failed.code, failed.ok) == (1, False)


async def test_headless_ui_notifies_the_log_and_refuses_confirm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    logger = logging.getLogger("xcsh.custom_tools.test")
    tool_api = CustomToolAPI(tmp_path, store=None, logger=logger)
    assert isinstance(tool_api.ui, HeadlessUI) and tool_api.ui.interactive is False
    with caplog.at_level(logging.INFO, logger="xcsh.custom_tools.test"):
        tool_api.ui.notify("careful", "warning")
    assert [(r.levelname, r.message) for r in caplog.records] == [("WARNING", "careful")]
    assert await tool_api.ui.confirm("Delete?", "really") is False


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid(1)")
async def test_a_process_that_left_the_group_is_killed_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = 'setsid sh -c \'echo $$ > "$1"; exec sleep 30\' sh "$1" & wait'
    run = api(tmp_path).exec("sh", ["-c", script, "sh", str(pidfile)], timeout=0.5)
    result = await asyncio.wait_for(run, 10)
    assert result.killed and result.timed_out
    pid = int(pidfile.read_text())
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return
    assert stat[stat.rfind(")") + 2] in "ZX", "the setsid child survived the timeout"
