"""The standard coding tools: ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find``, ``ls``.

File tools refuse paths whose real path is outside the workspace unless the
user allowed the folder (``allow_outside``); writes are atomic, confined at
the moment they happen and recorded in the undo journal
(:func:`xcsh.journal.apply_changes`). ``write`` and ``edit`` change files directly,
as the reference agents' tools do; sweeping structural changes belong to
``ast_edit``, which previews first, and every description says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from xcsh.core import Tool
from xcsh.journal import Journal
from xcsh.journal.commands import CommandRecorder
from xcsh.sandbox import SandboxPlan
from xcsh.tools.coding._bash_previewing import Previewer
from xcsh.tools.coding.bash import BashParams, create_bash_tool
from xcsh.tools.coding.edit import EditParams, create_edit_tool
from xcsh.tools.coding.find import FindParams, create_find_tool
from xcsh.tools.coding.grep import GrepParams, create_grep_tool
from xcsh.tools.coding.ls import LsParams, create_ls_tool
from xcsh.tools.coding.read import ReadParams, create_read_tool
from xcsh.tools.coding.write import WriteParams, create_write_tool


def create_coding_tools(
    cwd: str | Path,
    *,
    allow_outside: Sequence[str | Path] = (),
    journal: Journal | None = None,
    sandbox: SandboxPlan | None = None,
    recorder: CommandRecorder | None = None,
    previewer: Previewer | None = None,
    previews: Callable[[str], bool] | None = None,
) -> list[Tool]:
    """Build the coding tools for one workspace.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed the file tools to use.
        journal: the workspace's undo journal; ``write`` and ``edit`` record
            each change there.
        sandbox: how ``bash`` confines its commands (None: unconfined); see
            :func:`xcsh.sandbox.prepare_sandbox`.
        recorder: records what each ``bash`` command changed in the journal (the
            session's one recorder; ``None``: not recorded).
        previewer: runs ``bash`` commands as previews (``preview: true``).
        previews: the commands ``bash`` previews even when the call did not ask.

    Returns:
        ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find``, ``ls``, in that order.
    """
    return [
        create_read_tool(cwd, allow_outside=allow_outside),
        create_write_tool(cwd, allow_outside=allow_outside, journal=journal),
        create_edit_tool(cwd, allow_outside=allow_outside, journal=journal),
        create_bash_tool(
            cwd,
            sandbox=sandbox,
            recorder=recorder,
            previewer=previewer,
            previews=previews,
        ),
        create_grep_tool(cwd, allow_outside=allow_outside),
        create_find_tool(cwd, allow_outside=allow_outside),
        create_ls_tool(cwd, allow_outside=allow_outside),
    ]


__all__ = [
    "BashParams",
    "EditParams",
    "FindParams",
    "GrepParams",
    "LsParams",
    "ReadParams",
    "WriteParams",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_write_tool",
]
