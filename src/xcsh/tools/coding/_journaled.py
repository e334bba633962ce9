"""How ``write`` and ``edit`` put a file's new content on disk: journaled and confined.

Both go through :func:`xcsh.journal.apply_changes`, like an approved
``ast_edit``: the file is reached from the workspace root without following a
symlink on the way (a symlinked file is written through to its target when
that target is inside an allowed folder), its content is checked again just
before the rename, and the change is recorded in the workspace's undo
journal, so ``xcsh undo`` and ``/undo`` can revert it.
"""

from __future__ import annotations

from pathlib import Path

from xcsh.core import ToolError
from xcsh.fs import OutsideWorkspaceError, Workspace
from xcsh.journal import ApplyError, Change, Journal, apply_changes


def write_file(
    ws: Workspace,
    path: Path,
    *,
    shown: str,
    before: bytes | None,
    after: bytes,
    journal: Journal | None,
    label: str,
    tool: str,
) -> str | None:
    """Replace (or create) ``path`` with ``after`` if it still holds ``before``.

    Args:
        ws: the workspace and allowed folders.
        path: the file (as resolved by ``ws``).
        shown: its name in messages.
        before: what the tool read (``None``: the file must not exist).
        after: the new content.
        journal: the workspace's journal (``None``: unrecorded); a file in an
            allowed folder outside the workspace goes to that folder's journal.
        label: the action's label, recorded with the entry.
        tool: the tool's name (``"write"``, ``"edit"``), recorded with the entry.

    Returns:
        A warning to add to the result, or ``None``.

    Raises:
        ToolError: the file left the allowed folders, changed meanwhile, or
            the write failed; the message says the file was not changed.
    """
    located = ws.locate(path)
    if located is None or located[1] == ".":
        raise OutsideWorkspaceError(
            f"Path '{shown}' is outside the workspace {ws.root}. Nothing was written."
        )
    root, rel = located
    if journal is not None and root != journal.root:
        journal = journal.for_other(root)
    try:
        applied = apply_changes(
            root,
            [Change(path=rel, shown=shown, before=before, after=after)],
            journal=journal,
            label=label,
            source_tool_name=tool,
        )
    except ApplyError as exc:
        if exc.stale:
            raise ToolError(
                f"{shown} changed while it was being written; it was not changed. "
                "Read it again, then retry."
            ) from exc
        raise ToolError(str(exc)) from exc
    return applied.warning
