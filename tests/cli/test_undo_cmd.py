"""``xcsh undo`` as a real subprocess over a journal written the way ``xcsh ast-edit`` writes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from xcsh.journal import Journal, command_journal_dir, record_applies
from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.structural import create_ast_edit_tool

ORIGINAL = 'print("a")\nprint("b")\n'


def xcsh(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xcsh.cli", "undo", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )


async def applied_edit(root: Path, home: Path) -> None:
    """What ``xcsh ast-edit --yes`` does, journaled: preview, then resolve apply."""
    store = PendingActionStore()
    record_applies(store, Journal(command_journal_dir(home)), root)
    tool = create_ast_edit_tool(str(root), store)
    await tool.execute("e1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    result = await create_resolve_tool(store).execute(
        "r1", {"action": "apply", "reason": "applied with --yes"}
    )
    assert not result.is_error


async def test_undo_restores_then_has_nothing_left(tmp_path: Path, xcsh_home: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(ORIGINAL)
    await applied_edit(tmp_path, xcsh_home)
    assert src.read_text() == 'log("a")\nlog("b")\n'

    listed = xcsh(tmp_path, "--list")
    assert "applied  AST Edit: 2 replacements in 1 file: m.py" in listed.stdout
    done = xcsh(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Undid 'AST Edit: 2 replacements in 1 file': restored m.py.\n"
    assert src.read_text() == ORIGINAL
    again = xcsh(tmp_path)
    assert again.returncode == 1 and "Nothing to undo" in again.stderr


async def test_undo_refuses_when_the_file_changed(tmp_path: Path, xcsh_home: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(ORIGINAL)
    await applied_edit(tmp_path, xcsh_home)
    src.write_text("hand edit\n")
    refused = xcsh(tmp_path)
    assert refused.returncode == 1
    assert "these files changed since it was applied: m.py. Nothing was restored." in (
        refused.stderr
    )
    assert src.read_text() == "hand edit\n"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert "Nothing to undo" in xcsh(elsewhere).stderr
