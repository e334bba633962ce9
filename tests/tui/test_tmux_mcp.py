"""Another MCP server's tools in the interactive terminal: a server that fails is named in the
greeting, progress shows under the call, a deferred call is a preview the resolve makes, and
leaving ends every server's process."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tmux_harness import TmuxXcsh, needs_tmux

pytestmark = needs_tmux

FAULT_SERVER = Path(__file__).resolve().parents[1] / "mcpclient" / "fault_server.py"


def _table(name: str, mode: str, tag: str, extra: str = "") -> str:
    args = json.dumps([str(FAULT_SERVER), mode, tag])
    return f'[mcp_servers.{name}]\ncommand = "{sys.executable}"\nargs = {args}\n{extra}'


def _alive(tag: str) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if tag.encode() in (entry / "cmdline").read_bytes():
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state not in ("Z", "X"):
                        return True
            except OSError:
                continue
    return False


def test_mcp_preview_progress_and_failure_in_the_terminal(
    term: TmuxXcsh, tmp_path: Path, xcsh_home: Path
) -> None:
    tag = f"xcsh-tui-mcp-{time.monotonic_ns()}"
    notes = tmp_path / "notes.txt"
    (xcsh_home / "settings.toml").write_text(
        _table("ok", "ok", tag, f'env = {{ NOTE_FILE = "{notes}" }}\n')
        + _table("exiter", "exit", tag)
    )
    project = tmp_path / "proj"
    project.mkdir()
    resolve = {"name": "resolve", "arguments": {"action": "apply", "reason": "keep it"}}
    steps = [
        {"tool_calls": [{"name": "ok__slow", "arguments": {"seconds": 0.4}}]},
        {"tool_calls": [{"name": "ok__write_note", "arguments": {"text": "from the terminal"}}]},
        {"tool_calls": [resolve]},
        {"text": "Noted."},
    ]
    script = tmp_path / "steps.json"
    script.write_text(json.dumps(steps))
    term.start(
        project, {"XCSH_HOME": str(xcsh_home)}, "--provider", "scripted", "--model", str(script)
    )
    screen = term.wait_for("no pending", "MCP server exiter did not start")
    term.type("write a note")
    screen = term.wait_for("Noted.")
    assert "100% (4/4)" in screen, screen  # the call's progress, under it
    assert "Tool: write_note" in screen and "Annotations: none" in screen, screen
    assert "Accept: write_note" in screen, screen
    assert notes.read_text() == "from the terminal\n"
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")
    for _ in range(50):
        if not _alive(tag):
            break
        time.sleep(0.1)
    assert not _alive(tag)
