"""The ``write`` tool: create or replace a whole file, atomically."""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.fs import Workspace, detect_newline, read_regular_bytes
from xcsh.fs.text import BINARY_SNIFF_BYTES
from xcsh.journal import Journal
from xcsh.tools.coding._journaled import write_file
from xcsh.tools.coding._paths import human_size
from xcsh.tools.coding.details import WriteDetails

DESCRIPTION = """\
Create a file, or replace a file's whole content, with `content`. Missing parent folders \
are created. The write is atomic: the file holds the old or the new content, never half. \
When replacing a file that uses CRLF line endings or a UTF-8 BOM, LF-only content is \
written back with CRLF and the BOM is kept. Prefer `edit` for changing part of an existing \
file (read it first); use `write` for new files or complete rewrites. For sweeping \
structural code changes across many files (renaming a call, changing a signature \
everywhere), `ast_edit` is the better choice: it previews the change before applying it."""


class WriteParams(BaseModel):
    """Arguments of ``write``."""

    path: str = Field(description="File to write, relative to the workspace or absolute.")
    content: str = Field(description="The complete new content of the file.")


def create_write_tool(
    cwd: str | Path,
    *,
    allow_outside: Sequence[str | Path] = (),
    journal: Journal | None = None,
) -> AgentTool[WriteParams, WriteDetails]:
    """Build the ``write`` tool.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed writing to.
        journal: the workspace's undo journal; each write is recorded there.

    Returns:
        A tool whose ``run`` raises :class:`ToolError` when the path is outside
        the allowed roots, is a folder, is an existing binary file (refused so a
        text write never silently replaces an image or archive), or cannot be
        written (the message says why; the old file is unchanged).
    """
    policy = Workspace(cwd, allow_outside)

    def run(params: WriteParams, ctx: ToolCallContext) -> AgentToolResult[WriteDetails]:
        path = policy.resolve(params.path)
        shown = policy.display(path)
        if path.is_dir():
            raise ToolError(f"{shown} is a folder; give a file path to write.")
        content = params.content
        notes: list[str] = []
        existed = path.exists()
        before: bytes | None = None
        if existed:
            content, notes = _match_existing_style(path, shown, content)
            try:
                before = read_regular_bytes(path)
            except OSError as exc:
                raise ToolError(
                    f"Cannot read {shown} before replacing it: {exc.strerror or exc}."
                ) from exc
        _check_parents(path, shown, policy)
        data = content.encode("utf-8")
        warning = write_file(
            policy,
            path,
            shown=shown,
            before=before,
            after=data,
            journal=journal,
            label=f"Write: {shown}",
            tool="write",
        )
        if warning:
            notes.append(warning)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        verb = "Replaced" if existed else "Created"
        text = f"{verb} {shown} ({human_size(len(data))}, {plural(lines, 'line')})."
        if notes:
            text += " " + " ".join(notes)
        return AgentToolResult(
            content=[TextContent(text)],
            details=WriteDetails(path=str(path), bytes=len(data), created=not existed),
        )

    return AgentTool(
        name="write", label="Write", description=DESCRIPTION, parameters=WriteParams, run=run
    )


def _match_existing_style(path: Path, shown: str, content: str) -> tuple[str, list[str]]:
    """Keep an existing text file's CRLF endings and BOM; refuse a binary file."""
    try:
        head = read_regular_bytes(path, BINARY_SNIFF_BYTES)
    except OSError as exc:
        raise ToolError(f"Cannot read {shown} before replacing it: {exc.strerror or exc}.") from exc
    if b"\x00" in head:
        raise ToolError(
            f"{shown} is a binary file; write replaces text files only. If you really mean to "
            "replace it, delete it first with bash (after checking with the user)."
        )
    notes: list[str] = []
    bom = head.startswith(codecs.BOM_UTF8)
    old_newline = detect_newline(head.decode("utf-8", errors="replace"))
    if old_newline == "\r\n" and "\n" in content and "\r" not in content:
        content = content.replace("\n", "\r\n")
        notes.append("Kept the file's CRLF line endings.")
    if bom and not content.startswith("\ufeff"):
        content = "\ufeff" + content
        notes.append("Kept the file's UTF-8 BOM.")
    return content, notes


def _check_parents(path: Path, shown: str, policy: Workspace) -> None:
    """Refuse when a file stands where a folder of ``path`` should be.

    The write makes missing folders itself, confined like the write.

    Raises:
        ToolError: a file stands in the way (the message names it; nothing was written).
    """
    parent = path.parent
    if parent.is_dir():
        return
    blocker = parent
    while not blocker.exists() and blocker != blocker.parent:
        blocker = blocker.parent
    if blocker.exists() and not blocker.is_dir():
        raise ToolError(
            f"Cannot write {shown}: {policy.display(blocker)} is a file, not a folder. "
            "Choose another path, or move that file first. Nothing was written."
        )
