"""Ctrl-C in the terminal while the model's ``resolve`` writes an edit (the real ``xcsh`` in tmux).

Ctrl-C during a run reaches xcsh as SIGINT; here the process sends it to itself
as the apply starts its k-th file write (a ``sitecustomize`` hook), so the
moment is exact. The apply is never cut short: every file is written, the run
then ends cancelled, and the session records the ``resolve`` as applied.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tmux_harness import TmuxXcsh, needs_tmux

from xcsh.agent import load_session
from xcsh.core import ToolResultMessage

pytestmark = needs_tmux

FILES = 60

HOOK = """
import os
import signal

from xcsh.fs import confined

_real = confined._write_all
_count = 0


def _write(fd, data):
    global _count
    _count += 1
    if _count == 30:
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C on the terminal sends
    _real(fd, data)


confined._write_all = _write
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    for i in range(FILES):
        (root / "pkg" / f"m{i:02}.py").write_text(f"print({i})\n")
    return root


def test_ctrl_c_while_resolve_applies_lets_the_apply_finish(
    term: TmuxXcsh, project: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOOK)
    edit = {
        "name": "ast_edit",
        "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}], "lang": "python"},
    }
    apply = {"name": "resolve", "arguments": {"action": "apply", "reason": "use the logger"}}
    script = tmp_path / "steps.json"
    script.write_text(
        json.dumps([{"tool_calls": [edit]}, {"tool_calls": [apply]}, {"text": "never sent"}])
    )
    env = {"XCSH_HOME": str(xcsh_home), "PYTHONPATH": str(hook)}
    term.start(project, env, "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("log instead of print")
    term.wait_for("Accept: 60 replacements in 60 files", "Cancelled.", "no pending", timeout=30)
    rewritten = [p for p in (project / "pkg").iterdir() if p.read_text().startswith("log(")]
    assert len(rewritten) == FILES
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")

    [session_file] = (xcsh_home / "sessions").glob("*.jsonl")
    results = [m for m in load_session(session_file).messages if isinstance(m, ToolResultMessage)]
    resolve = [r for r in results if r.tool_name == "resolve"]
    assert len(resolve) == 1 and not resolve[0].is_error
    assert resolve[0].content[0].text.startswith("Applied 60 replacements in 60 files")  # type: ignore[union-attr]
