"""SIGTERM and SIGHUP cancel a print-mode run the way Ctrl-C does (a real ``xcsh -p``)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from helpers import find_process, start_xcsh
from xcsh.agent import load_session
from xcsh.core import AssistantMessage, ToolResultMessage


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has already exited


def wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see processes")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_signal_cancels_the_run_and_kills_the_command(
    tmp_path: Path, xcsh_home: Path, sig: signal.Signals
) -> None:
    pid_file = tmp_path / "sleep.pid"
    # The command may run in a PID namespace, where $! is not the pid seen here:
    # the sleep is found by a token on its command line instead.
    token = f"xcsh-sleep-{tmp_path.name}"[-40:]
    command = f'(exec -a "{token}" sleep 20) & echo started > {pid_file}; wait'
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "x"}]
        )
    )
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "sleep"]
    proc = start_xcsh(argv, cwd=tmp_path, home=xcsh_home)
    try:
        assert wait_for(lambda: pid_file.is_file() and pid_file.read_text().strip(), 30)
        grandchild = find_process(token)
        assert alive(grandchild)
        # Let the bash tool reach its supervised wait: a cancellation landing in
        # the instant between spawning bash and supervising it is the bash
        # tool's own concern, not what this test is about.
        time.sleep(0.5)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + sig, err
    assert f"cancelled ({sig.name})" in err and "Traceback" not in err
    assert wait_for(lambda: not alive(grandchild), 10), "the command's process group survived"
    events = [json.loads(line) for line in out.splitlines()]
    assert events[-1]["type"] == "run_end" and events[-1]["reason"] == "cancelled"
    (path,) = (xcsh_home / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r for r in records if r["type"] == "run_end"][-1]["reason"] == "cancelled"
    messages = load_session(path).messages
    calls = [c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert calls and [r.tool_call_id for r in results] == calls
    assert all(r.is_error and "Cancelled" in r.content[0].text for r in results)  # type: ignore[union-attr]
