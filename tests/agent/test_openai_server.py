"""A real ``xcsh -p`` against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, tool_call_delta

from helpers import start_xcsh
from xcsh.agent import load_session
from xcsh.core import AssistantMessage


def start_against(base_url: str, cwd: Path, home: Path, *extra: str) -> subprocess.Popen[str]:
    argv = ["--provider", "openai", "--base-url", base_url, "--model", "fake", *extra]
    return start_xcsh(argv, cwd=cwd, home=home)


@pytest.mark.parametrize("head", [[], [{"content": "Thinking about"}]])
def test_ctrl_c_mid_stream_exits_quietly(
    tmp_path: Path, xcsh_home: Path, head: list[dict[str, Any]]
) -> None:
    with FakeOpenAI([[*head, None]]) as server:
        proc = start_against(server.base_url, tmp_path, xcsh_home, "-p", "hi")
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


def test_malformed_arguments_get_an_error_result_and_the_model_retries(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "hello.txt").write_text("hi\n")
    answers = [
        [tool_call_delta("call_1", "ls", '{"path": ')],
        [tool_call_delta("call_2", "ls", '{"path": "."}')],
        [{"content": "There is one file."}],
    ]
    with FakeOpenAI(answers) as server:
        proc = start_against(server.base_url, tmp_path, xcsh_home, "-p", "list")
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == "There is one file.\n"
    assert len(server.requests) == 3
    second = server.requests[1]["messages"]
    assistant, result = second[-2], second[-1]
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{}"  # valid JSON goes back
    assert result["role"] == "tool" and result["tool_call_id"] == "call_1"
    assert result["content"] == (
        "Not executed: the arguments for 'ls' could not be read (Expecting value: line 1 "
        "column 10 (char 9)). You sent:\n{\"path\": \nCall 'ls' again with its arguments as "
        "one complete JSON object."
    )
    third = server.requests[2]["messages"]
    assert "hello.txt" in json.dumps(third[-1])
    assert "error in ls: Not executed" in err
    (path,) = (xcsh_home / "sessions").glob("*.jsonl")
    saved = load_session(path)  # the marked call survives a round trip through the file
    calls = [c for m in saved.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert calls[0].invalid_arguments == '{"path": ' and calls[1].invalid_arguments is None
