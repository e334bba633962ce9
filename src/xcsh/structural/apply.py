"""Writing a previewed structural edit: exactly its bytes, atomically, all or nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from xcsh.core import ToolError
from xcsh.fs import FileWriteError, Workspace, atomic_write
from xcsh.structural.results import EditPreview, FileEdit

_SERIAL_WRITES = 8
_WRITE_THREADS = 8


@dataclass(frozen=True, kw_only=True)
class AppliedEdit:
    """What :func:`apply_preview` wrote: files and replacement counts."""

    files: tuple[str, ...]
    replacements: int


def name_list(names: Sequence[str], shown: int = 20) -> str:
    """``a, b, c`` — at most ``shown`` names, then ``and N more``."""
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"


def stale_files(preview: EditPreview) -> list[str]:
    """Display paths of previewed files whose bytes changed since the preview (sha256)."""
    stale: list[str] = []
    for edit in preview.files:
        try:
            current = hashlib.sha256(edit.path.read_bytes()).hexdigest()
        except OSError:
            current = ""
        if current != edit.old_sha256:
            stale.append(edit.file)
    return stale


def apply_preview(preview: EditPreview) -> AppliedEdit:
    """Write exactly the bytes a preview showed: atomically, all or nothing.

    Every file is checked first: still inside the workspace by real path, and
    unchanged since the preview (sha256 of its bytes). Then each file is
    replaced atomically (temporary file + rename, mode kept, symlinks written
    through, never replaced); if one write fails, the files already written
    get their previous bytes back.

    Returns:
        The files written and the number of replacements.

    Raises:
        ToolError: a file changed since the preview (naming the files; nothing
            written), left the workspace, or a write failed (earlier files
            restored; the message says so).
    """
    ws = Workspace(preview.root)
    outside = [edit.file for edit in preview.files if not ws.contains(edit.path)]
    if outside:
        raise ToolError(
            f"Refusing to write outside the workspace: {name_list(outside)}. Nothing was written."
        )
    stale = stale_files(preview)
    if stale:
        raise ToolError(
            f"These files changed since the preview: {name_list(stale)}. Nothing was written; "
            "discard this preview and preview the edit again."
        )
    written, failures = _write_all(preview.files)
    if failures:
        failed_restore = []
        for done in written:
            try:
                atomic_write(done.path, done.old_bytes)
            except FileWriteError:
                failed_restore.append(done.file)
        edit, exc = failures[0]
        restored = (
            "The files written before it were restored; nothing changed."
            if not failed_restore
            else f"Could not restore: {', '.join(failed_restore)}."
        )
        raise ToolError(f"Writing {edit.file} failed: {exc} {restored}") from exc
    return AppliedEdit(files=tuple(e.file for e in preview.files), replacements=preview.total)


def _write_all(
    edits: Sequence[FileEdit],
) -> tuple[list[FileEdit], list[tuple[FileEdit, FileWriteError]]]:
    """Write every edit; returns the ones written and the failures (in preview order).

    Many files are written by a few threads: each atomic write waits on fsync,
    which releases the GIL.
    """

    def write(edit: FileEdit) -> FileWriteError | None:
        try:
            atomic_write(edit.path, edit.new_bytes)
        except FileWriteError as exc:
            return exc
        return None

    if len(edits) <= _SERIAL_WRITES:
        outcomes = []
        for edit in edits:
            outcomes.append(write(edit))
            if outcomes[-1] is not None:
                break
    else:
        with ThreadPoolExecutor(max_workers=_WRITE_THREADS) as pool:
            outcomes = list(pool.map(write, edits))
    written = [e for e, err in zip(edits, outcomes, strict=False) if err is None]
    failures = [(e, err) for e, err in zip(edits, outcomes, strict=False) if err is not None]
    return written, failures
