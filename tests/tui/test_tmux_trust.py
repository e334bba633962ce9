"""The interactive terminal asks before running a repository's custom tools, once
per version of those tools, and shows load problems as readable lines."""

from __future__ import annotations

import json
from pathlib import Path

from tmux_harness import TmuxXcsh, needs_tmux

pytestmark = needs_tmux

TOOL = """
from xcsh import CustomTool

def factory(api):
    return CustomTool(name="hello_tool", description="d", parameters={"type": "object"},
                      execute=lambda tool_call_id, params: "ok")
"""


def test_trust_is_asked_once_per_version_of_the_tools(
    term: TmuxXcsh, tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    tools = project / ".xcsh" / "tools"
    tools.mkdir(parents=True)
    (tools / "hello.py").write_text(TOOL)
    (tools / "broken.py").write_text("def factory(api):\n    raise ValueError('no config')\n")
    script = tmp_path / "steps.json"
    script.write_text(json.dumps([{"text": "hi"}]))
    argv = ("--provider", "scripted", "--model", str(script))
    env = {"XCSH_HOME": str(xcsh_home)}

    term.start(project, env, *argv)
    term.wait_for("contains custom tools", "[y]es, always / [o]nce")
    term.type("y")
    screen = term.wait_for("no pending", "broken.py")
    # a load problem is one readable line, not a LoadError(...) repr
    line = "broken.py: factory raised ValueError: no config"
    # the terminal wraps long lines, at a space or inside a word
    assert line in screen.replace("\n", "") or line in " ".join(screen.split()), screen
    assert "LoadError(" not in screen
    term.type("/tools")
    term.wait_for("hello_tool")
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")

    term.start(project, env, *argv)  # same tools: not asked again
    screen = term.wait_for("no pending")
    assert "Trust " not in screen
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")

    (tools / "hello.py").write_text(TOOL + "\n# changed\n")
    term.start(project, env, *argv)  # changed tools: asked again; "no" loads none
    term.wait_for("changed since you trusted it", "[y]es, always / [o]nce")
    term.type("n")
    screen = term.wait_for("no pending", "changed since you")
    term.type("/tools")
    screen = term.wait_for("(hidden: resolves previews)")
    assert "hello_tool" not in screen
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")
