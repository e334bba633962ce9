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


def test_the_compact_profile_caps_a_result_to_what_a_small_window_holds(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # Qwen2.5 1.5B read a 1,100-line module whole; under the default cap the next
    # request (16,590 tokens) passed the server's 16,384-token window and was refused.
    from xcsh.agent.run.profile import COMPACT_RESULT_CHARS

    project = tmp_path / "proj"
    project.mkdir()
    (project / "big.py").write_text("".join(f"value_{i} = {i}  # a line\n" for i in range(4000)))
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "read", "arguments": {"path": "big.py"}}]},
                {"text": "It sets values."},
            ]
        )
    )
    (xcsh_home / "settings.toml").write_text('profile = "compact"\n')
    done = run_xcsh(
        ["-p", "read big.py", "--provider", "scripted", "--model", str(steps)],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    sent = [json.loads(line) for line in tmp_path.joinpath("steps.requests.jsonl").open()]
    (result,) = [m for m in sent[1]["messages"] if m["role"] == "tool_result"]
    text = result["content"][0]["text"]
    assert COMPACT_RESULT_CHARS < MAX_RESULT_CHARS
    assert len(text) < COMPACT_RESULT_CHARS + 500 and "value_0 = 0" in text
