"""A custom tool's huge result is capped for the model, the session file and the terminal."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh
from xcsh.core import MAX_RESULT_CHARS

HUGE_TOOL = """
from xcsh import CustomTool, CustomToolPendingAction


def factory(api):
    def execute(tool_call_id, params):
        text = "head\\n" + "z" * 5_000_000 + "\\ntail"
        if params.get("stage"):
            api.push_pending_action(
                CustomToolPendingAction(label="Huge: one change", apply=lambda reason: "ok")
            )
        return text

    return CustomTool(
        name="huge",
        label="Huge",
        description="Returns five million characters.",
        parameters={"type": "object", "properties": {"stage": {"type": "boolean"}}},
        execute=execute,
    )
"""


def test_huge_custom_tool_result_is_capped_everywhere(tmp_path: Path, xcsh_home: Path) -> None:
    (xcsh_home / "tools").mkdir()
    (xcsh_home / "tools" / "huge.py").write_text(HUGE_TOOL)
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "huge", "arguments": {}}]},
                {"tool_calls": [{"name": "huge", "arguments": {"stage": True}}]},
                {
                    "tool_calls": [
                        {"name": "resolve", "arguments": {"action": "discard", "reason": "x"}}
                    ]
                },
                {"text": "done"},
            ]
        )
    )
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "-p", "go"], cwd=tmp_path, home=xcsh_home
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "done\n"
    assert len(done.stderr) < 3 * MAX_RESULT_CHARS  # the preview on the terminal is bounded
    assert "characters cut" in done.stderr
    (session,) = (xcsh_home / "sessions").glob("*.jsonl")
    assert session.stat().st_size < 5 * MAX_RESULT_CHARS
    log = [json.loads(x) for x in steps.with_name("steps.requests.jsonl").read_text().splitlines()]
    sent = log[1]["messages"][-1]["content"][0]["text"]
    assert sent.startswith("head\nzzz") and sent.endswith("zzz\ntail")
    assert len(sent) < MAX_RESULT_CHARS + 200 and "characters cut" in sent
