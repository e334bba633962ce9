"""The check's verdict where the model reads it: the agent loop (scripted model) and MCP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from check_support import CHECK, set_check
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from xcsh.agent import load_session
from xcsh.core import AssistantMessage, TextContent, ToolResultMessage

XCSH = str(Path(sys.executable).with_name("xcsh"))
BREAK_OPS = [{"pat": '$S.encode("latin-1")', "out": '$S.encode("utf-8")'}]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="staging needs Linux")


def _steps(folder: Path, turns: list[dict[str, object]]) -> Path:
    path = folder / "steps.json"
    path.write_text(json.dumps(turns))
    return path


def _results(home: Path) -> list[tuple[str, bool, str]]:
    session = max((home / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
    messages = load_session(session).messages
    calls = [c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    return [
        (
            call.name,
            result.is_error,
            "".join(b.text for b in result.content if isinstance(b, TextContent)),
        )
        for call, result in zip(calls, results, strict=True)
    ]


def _agent(steps: Path, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [XCSH, "--provider", "scripted", "--model", str(steps), "-p", "go"],
        cwd=cwd,
        env={**os.environ, "XCSH_HOME": str(home), "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def test_the_model_sees_the_verdict_in_the_preview_and_the_forced_resolve_turn(
    six_project: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    steps = _steps(
        tmp_path,
        [
            {
                "tool_calls": [
                    {
                        "name": "ast_edit",
                        "arguments": {"ops": BREAK_OPS, "path": "six.py", "check": True},
                    }
                ]
            },
            {
                "tool_calls": [
                    {
                        "name": "resolve",
                        "arguments": {"action": "apply", "reason": "the model applies anyway"},
                    }
                ]
            },
            {"text": "done"},
        ],
    )
    done = _agent(steps, six_project, xcsh_home)
    assert done.returncode == 0, done.stderr
    [(edit, edit_error, edit_text), (resolve, resolve_error, resolve_text)] = _results(xcsh_home)
    assert (edit, edit_error, resolve, resolve_error) == ("ast_edit", False, "resolve", False)
    assert f"Check `{CHECK}`: newly fails: test_six.py::test_b." in edit_text
    assert "FAILED test_six.py::test_b" in edit_text  # the tail of its output
    # resolve apply is allowed, and repeats the verdict
    assert resolve_text.endswith(f"Check `{CHECK}`: newly fails: test_six.py::test_b.")
    assert b'encode("utf-8")' in (six_project / "six.py").read_bytes()
    requests = [
        json.loads(line) for line in steps.with_suffix(".requests.jsonl").read_text().splitlines()
    ]
    forced = requests[1]
    assert forced["tool_choice"] == {"name": "resolve"}
    last = json.dumps(forced["messages"][-1])
    assert f"Preview p1: Check `{CHECK}`: newly fails: test_six.py::test_b." in last


def test_apply_requires_checks_keeps_the_preview_pending_for_the_person(
    six_project: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    set_check(xcsh_home, CHECK, apply_requires_checks=True)
    steps = _steps(
        tmp_path,
        [
            {
                "tool_calls": [
                    {
                        "name": "ast_edit",
                        "arguments": {"ops": BREAK_OPS, "path": "six.py", "check": True},
                    }
                ]
            },
            {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "go"}}]},
            {
                "tool_calls": [
                    {
                        "name": "resolve",
                        "arguments": {"action": "discard", "reason": "it breaks test_b"},
                    }
                ]
            },
            {"text": "done"},
        ],
    )
    original = (six_project / "six.py").read_bytes()
    done = _agent(steps, six_project, xcsh_home)
    assert done.returncode == 0, done.stderr
    results = _results(xcsh_home)
    assert [(n, e) for n, e, _ in results] == [
        ("ast_edit", False),
        ("resolve", True),
        ("resolve", False),
    ]
    assert "apply_requires_checks = true, so only the user can apply p1" in results[1][2]
    assert (six_project / "six.py").read_bytes() == original


async def test_the_mcp_ast_edit_result_carries_the_verdict(
    six_project: Path, xcsh_home: Path
) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "xcsh", "mcp", "--cwd", str(six_project)],
        env={"XCSH_HOME": str(xcsh_home), "PATH": os.environ.get("PATH", "")},
    )
    async with Client(server) as client:
        preview = await client.call_tool(
            "ast_edit", {"ops": BREAK_OPS, "path": "six.py", "check": True}
        )
        assert not preview.is_error
        text = "\n".join(getattr(block, "text", "") for block in preview.content)
        assert f"Check `{CHECK}`: newly fails: test_six.py::test_b." in text
        applied = await client.call_tool(
            "resolve", {"action": "discard", "reason": "breaks test_b"}
        )
        assert not applied.is_error
