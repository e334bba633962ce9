"""A real ``xcsh -p`` against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI


def start_xcsh(base_url: str, cwd: Path, home: Path, *extra: str) -> subprocess.Popen[str]:
    env = {"PATH": os.environ.get("PATH", ""), "XCSH_HOME": str(home), "NO_COLOR": "1"}
    argv = ["--provider", "openai", "--base-url", base_url, "--model", "fake", *extra]
    return subprocess.Popen(
        [sys.executable, "-m", "xcsh", *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("head", [[], [{"content": "Thinking about"}]])
def test_ctrl_c_mid_stream_exits_quietly(
    tmp_path: Path, xcsh_home: Path, head: list[dict[str, Any]]
) -> None:
    with FakeOpenAI([[*head, None]]) as server:
        proc = start_xcsh(server.base_url, tmp_path, xcsh_home, "-p", "hi")
        try:
            assert server.stalled.wait(30)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 130, err
    assert "xcsh: cancelled" in err
    assert "Traceback" not in err and "never retrieved" not in err, err
    assert len(server.requests) == 1  # no retry after the user cancelled
