"""Print mode on stderr: every failed call shows its whole error under its own name,
the model's text beside tool calls is shown, and an error is printed once."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from agent_harness import call, preview_write_tool, read_tool
from pydantic import BaseModel

from xcsh.cli.agent_cmd import build_parser, run_print
from xcsh.core import AgentTool, AgentToolResult, ToolCallContext, ToolError
from xcsh.pending import PendingActionStore


class FailParams(BaseModel):
    delay: float
    message: str


def slow_fail_tool() -> AgentTool[FailParams]:
    async def run(params: FailParams, ctx: ToolCallContext) -> AgentToolResult:
        await asyncio.sleep(params.delay)
        raise ToolError(params.message)

    return AgentTool(
        name="slow_fail",
        label="Slow fail",
        description="Fail after a delay.",
        parameters=FailParams,
        run=run,
        read_only=True,
    )


def tools_for(cwd: Path, store: PendingActionStore) -> list[AgentTool[Any]]:
    return [read_tool(cwd), preview_write_tool(cwd, store), slow_fail_tool()]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


async def run_steps(project: Path, steps: list[dict[str, Any]]) -> tuple[int, str]:
    path = project.parent / "steps.json"
    path.write_text(json.dumps(steps))
    args = build_parser().parse_args(["--provider", "scripted", "--model", str(path), "-p", "go"])
    out = io.StringIO()
    code = await run_print(args, stdout=out, tools=tools_for)
    return code, out.getvalue()


async def test_every_error_line_is_shown_under_its_call(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [
        {
            "text": "Let me look around first.",
            "tool_calls": [
                call("read"),  # no path: a validation error of two lines
                call("resolve", action="apply", reason="early"),  # nothing pending
                call("resolve", action="maybe", reason="x"),  # invalid arguments
            ],
        },
        {
            "tool_calls": [
                call("slow_fail", delay=0.2, message="first failed\nsecond line of first"),
                call("slow_fail", delay=0, message="second failed"),
            ]
        },
        {"text": "Done."},
    ]
    code, out = await run_steps(project, steps)
    err = capsys.readouterr().err
    assert code == 0 and out == "Done.\n"
    lines = err.replace("→", "->").splitlines()
    assert lines[0] == "Let me look around first."
    assert lines[1] == "-> read {}"
    assert lines[2] == "  error in read: Invalid arguments for tool 'read':"
    assert lines[3] == "    - path: Field required"
    assert lines[4].startswith("-> resolve ")
    assert lines[5] == (
        "  error in resolve: No pending action to resolve. Nothing to apply or discard."
    )
    assert lines[6].startswith("-> resolve ")
    assert lines[7] == "  error in resolve: Invalid arguments for tool 'resolve':"
    assert lines[8].startswith("    - action: ")
    # concurrent read-only calls: the later error names the whole call it belongs to
    assert lines[9].startswith("-> slow_fail ") and lines[10].startswith("-> slow_fail ")
    assert lines[11] == "  error in slow_fail: second failed"
    assert lines[12] == (
        '  error in slow_fail {"delay": 0.2, "message": "first failed\\nsecond line of first"}:'
        " first failed"
    )
    assert lines[13] == "    second line of first"


async def test_provider_error_is_printed_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = await run_steps(project, [{"error": "the server said no"}])
    err = capsys.readouterr().err
    assert code == 1 and out == ""
    assert err.count("the server said no") == 1, err
