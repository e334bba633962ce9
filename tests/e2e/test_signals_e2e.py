"""SIGTERM during `xcsh ast-edit --yes` and SIGHUP during `xcsh undo` over the whole
standard-library copy, as a user's `timeout`, `kill` or closed terminal sends them.

The signal is sent by the command to itself just after the journal's intent record
(its first entry) is written, or as the first file of the undo is written: exact
moments, not timed. The change is finished, the exit code is the command's own (0,
not 143 or 129), and stderr says the signal came too late.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from e2e_run import Tree, env
from stdlib_copy import copy_stdlib, stdlib_dir

from helpers import CTRL_C_SCRIPT
from xcsh.journal import Journal


def _signalled(tree: Tree, home: Path, moment: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``xcsh ARGS`` in the tree, sending itself a signal at ``moment`` (``SIGTERM:intent``)."""
    return subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT, moment, *args],
        cwd=tree.root,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_a_signal_during_ast_edit_yes_and_undo_over_the_standard_library_finishes_them(
    tree: Tree, xcsh_home: Path
) -> None:
    edit = ["ast-edit", "-p", "print($$$A)", "-r", "log.info($$$A)", "--yes"]
    try:
        applied = _signalled(tree, xcsh_home, "SIGTERM:intent", *edit)
        assert applied.returncode == 0, applied.stderr
        assert "Undo it with: xcsh undo" in applied.stdout
        assert (
            "SIGTERM came while the edit was being applied: an apply is never cut short, so "
            "every file above was written. Undo it with: xcsh undo"
        ) in applied.stderr
        journal = Journal.for_root(xcsh_home, tree.root)
        assert journal.incomplete() == []
        [entry] = journal.summaries()
        assert entry.state == "committed" and entry.count > 100
        assert "log.info(" in (tree.root / "pdb.py").read_text()

        undone = _signalled(tree, xcsh_home, "SIGHUP:write-1", "undo")
        assert undone.returncode == 0, undone.stderr
        assert undone.stderr.endswith(
            "xcsh undo: SIGHUP came while the files were being put back: an undo is never "
            "cut short, so it was finished (the files are as the line above says).\n"
        )
        assert (tree.root / "pdb.py").read_bytes() == (stdlib_dir() / "pdb.py").read_bytes()
        assert journal.incomplete() == []
    finally:
        copy_stdlib(tree.root)  # the other scenarios' tree, whatever happened here
