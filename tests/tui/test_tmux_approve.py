"""``xcsh --approve ask -p`` on a terminal: the person's review starts from the model's choice."""

from __future__ import annotations

import json
from pathlib import Path

from tmux_harness import TmuxXcsh, needs_tmux

pytestmark = needs_tmux


def test_review_walks_only_the_changes_the_model_chose(
    term: TmuxXcsh, tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("print(1)\nprint(2)\nprint(3)\n")
    edit = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
    resolve = {
        "name": "resolve",
        "arguments": {"action": "apply", "reason": "the last two", "only": ["c2", "c3"]},
    }
    script = tmp_path / "steps.json"
    script.write_text(
        json.dumps([{"tool_calls": [edit]}, {"tool_calls": [resolve]}, {"text": "Done."}])
    )
    argv = ("--provider", "scripted", "--model", str(script), "--approve", "ask", "-p", "go")
    term.start(project, {"XCSH_HOME": str(xcsh_home)}, *argv)
    term.wait_for("only the model's choice: 2 of 3 changes (c2, c3 in a.py)", "[r]eview")
    term.type("r")
    screen = term.wait_for("c2 (1/2) a.py")
    assert "c1 (" not in screen
    term.type("y")
    term.wait_for("c3 (2/2) a.py")
    term.type("n")
    screen = term.wait_for("[xcsh exited 0]")
    assert (project / "a.py").read_text() == "print(1)\nlog(2)\nprint(3)\n", screen
