"""The ``edit`` tool: exact text replacement that keeps encoding and line endings."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.fs import NotTextError, TextFile, Workspace, read_text_file
from xcsh.journal import Journal
from xcsh.tools.coding._journaled import write_file
from xcsh.tools.coding.details import EditFileDetails

DESCRIPTION = """\
Replace exact text in a file. `old_text` must match the file exactly, including \
indentation and blank lines (line endings do not matter: CRLF files stay CRLF, a UTF-8 BOM \
is kept). It must occur exactly once unless `replace_all` is true; when it occurs several \
times, include more surrounding lines to make it unique. Read the file first, and copy the \
text without the line-number prefix `read` shows. Use `write` to create files or rewrite \
them completely. For sweeping structural code changes (the same rewrite at many call \
sites or across files, where exact text differs by names or arguments), `ast_edit` is the \
better choice: it matches syntax, not text, and previews before applying."""

_MAX_HINT_LINES = 50_000


class EditParams(BaseModel):
    """Arguments of ``edit``."""

    path: str = Field(description="File to edit, relative to the workspace or absolute.")
    old_text: str = Field(description="Exact text to find (must be unique unless replace_all).")
    new_text: str = Field(description="Text to put in its place (may be empty to delete).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of requiring one."
    )


@dataclass(frozen=True)
class _Normalised:
    """A text with CRLF turned into LF, and where each removed CR was."""

    text: str
    removed: list[int]  # indexes (in ``text``) of the LF that followed each removed CR

    @classmethod
    def of(cls, original: str) -> _Normalised:
        parts: list[str] = []
        removed: list[int] = []
        start = 0
        shift = 0
        while True:
            found = original.find("\r\n", start)
            if found < 0:
                parts.append(original[start:])
                break
            parts.append(original[start:found])
            removed.append(found - shift)
            shift += 1
            start = found + 1  # keep the LF
        return cls("".join(parts), removed)

    def original_index(self, index: int) -> int:
        """Map an index in the normalised text to the same place in the original."""
        return index + bisect.bisect_left(self.removed, index)


def create_edit_tool(
    cwd: str | Path,
    *,
    allow_outside: Sequence[str | Path] = (),
    journal: Journal | None = None,
) -> AgentTool[EditParams, EditFileDetails]:
    """Build the ``edit`` tool.

    Matching compares ``old_text`` with the file after both have CRLF turned
    into LF; the replacement is spliced into the original bytes, with its line
    breaks written in the file's own style, so every byte outside the match
    stays as it was (contract case F1). The file is written atomically, keeping its
    mode and BOM.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed editing in.
        journal: where each edit is recorded for undo (``None``: unrecorded).

    Returns:
        A tool whose ``run`` raises :class:`ToolError` when the file is missing,
        binary or not UTF-8, when ``old_text`` is empty, absent (the message shows
        the closest lines) or not unique (the message gives the count and the
        lines), or when the write fails (the file is unchanged).
    """
    policy = Workspace(cwd, allow_outside)

    def run(params: EditParams, ctx: ToolCallContext) -> AgentToolResult[EditFileDetails]:
        path = policy.resolve(params.path)
        shown = policy.display(path)
        current = _read(path, shown)
        old = params.old_text.replace("\r\n", "\n")
        new = params.new_text.replace("\r\n", "\n")
        if not old:
            raise ToolError(
                "old_text is empty. Give the exact text to replace, or use write to "
                "replace the whole file."
            )
        if old == new:
            raise ToolError("old_text and new_text are the same; nothing to change.")
        norm = _Normalised.of(current.text)
        starts = _find_all(norm.text, old)
        if not starts:
            raise ToolError(_missing_message(shown, norm.text, old))
        if len(starts) > 1 and not params.replace_all:
            lines = ", ".join(str(norm.text.count("\n", 0, s) + 1) for s in starts[:20])
            raise ToolError(
                f"old_text occurs {len(starts)} times in {shown} (at lines {lines}). "
                "Include more surrounding lines so it matches exactly once, or set "
                "replace_all to true to change every occurrence. The file was not changed."
            )
        updated = _spliced(current.text, norm, starts, len(old), new.replace("\n", current.newline))
        warning = write_file(
            policy,
            path,
            shown=shown,
            before=current.raw,
            after=current.encode(updated),
            journal=journal,
            label=f"Edit: {shown}",
            tool="edit",
        )
        first_line = norm.text.count("\n", 0, starts[0]) + 1
        diff = _diff(current.text, updated, shown)
        where = f"at line {first_line}" if len(starts) == 1 else f"first at line {first_line}"
        text = f"Edited {shown}: replaced {plural(len(starts), 'occurrence')} {where}."
        if warning:
            text += "\n" + warning
        return AgentToolResult(
            content=[TextContent(text)],
            details=EditFileDetails(
                path=str(path), replacements=len(starts), first_line=first_line, diff=diff
            ),
        )

    return AgentTool(
        name="edit", label="Edit", description=DESCRIPTION, parameters=EditParams, run=run
    )


def _read(path: Path, shown: str) -> TextFile:
    """The file ``edit`` changes.

    Raises:
        ToolError: it is a folder, missing, binary or not UTF-8, or unreadable.
    """
    if path.is_dir():
        raise ToolError(f"{shown} is a folder; edit changes one file.")
    if not path.exists():
        raise ToolError(f"File not found: {shown}. Use write to create a new file.")
    try:
        current = read_text_file(path, display_name=shown)
    except NotTextError as exc:
        raise ToolError(f"Cannot edit {shown}: {exc}") from exc
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from exc
    return current


def _spliced(text: str, norm: _Normalised, starts: list[int], length: int, new: str) -> str:
    """Replace each match in ``text`` by ``new``; every byte outside the matches stays.

    ``starts`` and ``length`` are offsets in the normalised text.
    """
    pieces: list[str] = []
    cursor = 0
    for start in starts:
        begin = norm.original_index(start)
        end = norm.original_index(start + length)
        pieces.append(text[cursor:begin])
        pieces.append(new)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _diff(before: str, after: str, shown: str) -> str:
    """The unified diff of the edit (two lines of context), LF line breaks."""
    return "".join(
        difflib.unified_diff(
            before.replace("\r\n", "\n").splitlines(keepends=True),
            after.replace("\r\n", "\n").splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
            n=2,
        )
    )


def _find_all(text: str, needle: str) -> list[int]:
    """Start indexes of non-overlapping occurrences, left to right."""
    starts: list[int] = []
    index = text.find(needle)
    while index >= 0:
        starts.append(index)
        index = text.find(needle, index + len(needle))
    return starts


def _missing_message(shown: str, text: str, old: str) -> str:
    message = f"old_text was not found in {shown}. The file was not changed."
    file_lines = text.split("\n")
    wanted = [line.strip() for line in old.split("\n")]
    if len(file_lines) <= _MAX_HINT_LINES and wanted:
        stripped = [line.strip() for line in file_lines]
        squashed_file = "\n".join(stripped)
        if "\n".join(wanted) in squashed_file:
            return message + (
                " It matches if leading/trailing spaces on each line are ignored: copy the "
                "indentation exactly as read shows it (tabs versus spaces)."
            )
        probe = max(wanted, key=len)
        if probe:
            close = difflib.get_close_matches(probe, stripped, n=3, cutoff=0.6)
            numbered: list[str] = []
            for candidate in close:
                number = stripped.index(candidate)
                numbered.append(f"{number + 1:>6}\t{file_lines[number]}")
            if numbered:
                return (
                    message
                    + " The closest lines are:\n"
                    + "\n".join(numbered)
                    + "\nRead the file again and copy old_text exactly."
                )
    return message + " Read the file again and copy old_text exactly."
