"""A custom tool's preview and resolution in the interactive terminal."""

from __future__ import annotations

import json
from pathlib import Path

from tmux_harness import TmuxXcsh, needs_tmux

pytestmark = needs_tmux

STAMP_TOOL = """
from xcsh import CustomTool, CustomToolPendingAction

def factory(api):
    def execute(tool_call_id, params):
        def apply(reason):
            (api.cwd / "stamp.txt").write_text("stamped")
        api.push_pending_action(CustomToolPendingAction(label="Write stamp.txt", apply=apply))
        return "Previewed: write stamp.txt."
    return CustomTool(name="stamp", label="Stamp File", description="Writes stamp.txt.",
                      parameters={"type": "object", "properties": {}}, execute=execute)
"""


def test_a_custom_tools_resolution_is_badged_with_the_tools_label(
    term: TmuxXcsh, tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    tools = project / ".xcsh" / "tools"
    tools.mkdir(parents=True)
    (tools / "stamp.py").write_text(STAMP_TOOL)
    script = tmp_path / "steps.json"
    resolve = {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}
    steps = [
        {"tool_calls": [{"name": "stamp", "arguments": {}}]},
        {"tool_calls": [resolve]},
        {"text": "Stamped."},
    ]
    script.write_text(json.dumps(steps))
    argv = ("--provider", "scripted", "--model", str(script), "--trust-project")
    term.start(project, {"XCSH_HOME": str(xcsh_home)}, *argv)
    term.wait_for("no pending")
    term.type("stamp it")
    screen = term.wait_for("Stamped.")
    # the action keeps the generic source "custom_tool"; the badge names the tool
    assert "Accept: Write stamp.txt  [Stamp File]" in screen, screen
    assert "[custom_tool]" not in screen
    assert (project / "stamp.txt").read_text() == "stamped"
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")
