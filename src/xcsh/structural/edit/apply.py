"""Writing a previewed structural edit: exactly its bytes, all or nothing, journaled."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.core import ToolError
from xcsh.core.protected import protected_part, protected_reason
from xcsh.core.wording import name_list, plural
from xcsh.fs import Workspace, read_regular_bytes
from xcsh.fs.confined import FileId, sha256_hex
from xcsh.structural.base.results import EditPreview, FileEdit

if TYPE_CHECKING:
    from xcsh.journal import Change, Journal


@dataclass(frozen=True, kw_only=True)
class AppliedEdit:
    """What :func:`apply_preview` wrote: files and replacement counts."""

    files: tuple[str, ...]
    replacements: int
    seq: int | None = None
    """The undo journal's entry, ``None`` when not journaled."""
    warning: str | None = None
    """Set when the files landed but something after (the journal) failed; show it."""


def stale_files(preview: EditPreview) -> list[str]:
    """Display paths of previewed files whose bytes changed since the preview (sha256)."""
    stale: list[str] = []
    for edit in preview.files:
        try:
            current = sha256_hex(read_regular_bytes(edit.path))
        except OSError:
            current = ""
        if current != edit.old_sha256:
            stale.append(edit.file)
    return stale


def apply_preview(
    preview: EditPreview,
    *,
    journal: Journal | None = None,
    label: str | None = None,
    source_tool_name: str = "ast_edit",
) -> AppliedEdit:
    """Write exactly the bytes a preview showed: all or nothing, recorded in ``journal``.

    The one apply entry point for previews (a partial apply passes a preview
    holding the chosen files). Each file's real path must still be inside
    the workspace; the write itself goes through
    :func:`xcsh.journal.apply_changes`, which checks every file (same inode,
    same content as previewed, not hard-linked) before writing any, reaches
    it without following a symlink, re-checks it just before its rename, and
    rolls back on failure. A symlinked file is written through: its target
    (inside the workspace) is replaced and the link stays a link.

    Args:
        preview: the preview (or a subset of its files).
        journal: the workspace's undo journal; ``None`` writes unrecorded.
        label: the entry's label (default ``AST Edit: <R> replacement(s) in <F> file(s)``).
        source_tool_name: recorded with the entry.

    Returns:
        The files written, the number of replacements, the journal entry and
        any warning to show beside the success.

    Raises:
        StalePreviewError: a file's content changed since the preview (naming
            the files; nothing written), so the caller may preview it again.
        ToolError: a file left the workspace, changed since the preview, or
            a write failed (:class:`xcsh.journal.ApplyError`: the message says
            what was restored and names any file left holding new content).
    """
    from xcsh.journal import apply_changes  # a search never loads the writer

    ws = Workspace(preview.root)
    changes = journal_changes(preview)
    stale = stale_files(preview)
    if stale:
        from xcsh.pending import StalePreviewError  # only an apply needs it

        raise StalePreviewError(
            f"These files changed since the preview: {name_list(stale)}. Nothing was written; "
            "discard this preview and preview the edit again.",
            files=tuple(stale),
        )
    files = len(preview.files)
    applied = apply_changes(
        ws.root,
        changes,
        journal=journal,
        label=label
        or f"AST Edit: {plural(preview.total, 'replacement')} in {plural(files, 'file')}",
        source_tool_name=source_tool_name,
    )
    return AppliedEdit(
        files=tuple(e.file for e in preview.files),
        replacements=preview.total,
        seq=applied.seq,
        warning=applied.warning,
    )


def journal_changes(preview: EditPreview) -> list[Change]:
    """The journal's changes for ``preview``'s files, each named inside the workspace.

    Each is the file's real place below the workspace, the bytes read at preview
    time, the new bytes and the identity of the file read.

    Raises:
        ToolError: a file is outside the workspace now (nothing written).
    """
    from xcsh.journal import Change

    ws = Workspace(preview.root)
    outside: list[str] = []
    changes: list[Change] = []
    for edit in preview.files:
        try:
            located = ws.locate(edit.path)
        except OSError:  # a folder on the way vanished (swapped meanwhile): not writable here
            located = None
        if located is None or located[0] != ws.root or located[1] == ".":
            outside.append(edit.file)
            continue
        changes.append(
            Change(
                path=located[1],
                shown=edit.file,
                before=edit.old_bytes,
                after=edit.new_bytes,
                ident=edit.ident,
            )
        )
    if outside:
        raise ToolError(
            f"Refusing to write outside the workspace: {name_list(outside)}. Nothing was written."
        )
    return changes


def identify(edit: FileEdit, root: Path) -> FileEdit | str:
    """Stamp ``edit`` with the identity (device, inode) of the file it read.

    Returns instead why an apply could not write the file: ``"inside .git, which xcsh
    never writes"`` (its real place below ``root`` is in ``.git``, ``.hg`` or ``.xcsh``,
    which the journal refuses), ``"hard-linked"`` (an apply would split its names) or
    ``"read-only"`` (the user may not write it); such files are left out. A file that
    cannot be stat'ed comes back unstamped.
    """
    real = Path(os.path.realpath(edit.path))
    where = real.relative_to(root).as_posix() if root in real.parents else real.as_posix()
    if protected_reason(where) is not None:
        return f"inside {protected_part(where)}, which xcsh never writes"
    try:
        info = os.stat(edit.path)
    except OSError:
        return edit
    if info.st_nlink > 1:
        return "hard-linked"
    if not os.access(edit.path, os.W_OK):
        return "read-only"
    return dataclasses.replace(edit, ident=FileId.of(info))
