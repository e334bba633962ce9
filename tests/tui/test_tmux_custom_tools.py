"""A custom tool's preview and resolution in the interactive terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tmux_harness import TmuxXcsh, needs_tmux

from helpers import STAMP_TOOL

pytestmark = needs_tmux


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
    assert (project / "stamp.txt").read_text() == "stamped\n"
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")


def test_leaving_the_terminal_runs_reject_of_a_custom_preview_still_pending(
    term: TmuxXcsh, tmp_path: Path, xcsh_home: Path
) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "custom_tools"
    (xcsh_home / "tools").mkdir()
    shutil.copy(examples / "batch_rename_preview.py", xcsh_home / "tools")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "n.txt").write_text("notes\n")
    rename = {"from": "n.txt", "to": "m.txt"}
    script = tmp_path / "steps.json"
    steps = [{"tool_calls": [{"name": "batch_rename_preview", "arguments": {"renames": [rename]}}]}]
    script.write_text(json.dumps([*steps, {"text": "Not now."}]))
    term.start(
        project, {"XCSH_HOME": str(xcsh_home)}, "--provider", "scripted", "--model", str(script)
    )
    term.wait_for("no pending")
    term.type("rename it")
    term.wait_for("Stopped:")  # the model never resolved it; the preview stays pending
    assert list((project / ".xcsh" / "batch_rename").glob("*.json"))
    term.keys("C-d")
    screen = term.wait_for("[xcsh exited 0]")
    # the plan file only its reject removes is gone, and the screen said why
    assert "Discard: 1 file" in screen and "The xcsh session ended with this" in screen, screen
    assert not (project / ".xcsh").exists()
    assert (project / "n.txt").exists() and not (project / "m.txt").exists()
