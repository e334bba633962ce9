"""The ``ast_edit`` preview and apply as the model reads them.

That is the label, each change with its id, the notes on what was left out, and the
result of an apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcsh.core.safe import visible_line
from xcsh.core.wording import name_list, plural
from xcsh.structural.base.results import EditPreview, Match, SkippedFile, skipped_note
from xcsh.structural.edit.scan_edit import BROKEN_REASON
from xcsh.structural.engine import AppliedEdit

if TYPE_CHECKING:
    from xcsh.core import AgentToolResult
    from xcsh.structural.tools.details import AppliedEditDetails

# The notes and label are also what `xcsh ast-edit --json` prints, which builds no tool
# result: the result types (pydantic, through the pending actions) load with the first one.


def edit_label(replacements: int, files: int, broken: int = 0) -> str:
    """``AST Edit: <R> replacement(s) in <F> file(s)`` with English singular/plural.

    With ``broken`` files left out because their rewrite would not parse, it
    ends with `` (<B> file(s) left out: the rewrite would not parse)``.
    """
    label = f"AST Edit: {plural(replacements, 'replacement')} in {plural(files, 'file')}"
    if broken:
        label += f" ({plural(broken, 'file')} left out: {BROKEN_REASON})"
    return label


def line_indent(match: Match) -> str:
    """The spaces and tabs that start the first line of ``match``."""
    line = match.lines
    return line[: len(line) - len(line.lstrip(" \t"))]


def block(head: str, text: str, base: str, indent: str) -> list[str]:
    """``head text`` for one line; otherwise ``head`` then the lines, re-based from ``base``."""
    lines = text.split("\n")
    if len(lines) == 1:
        return [f"{head} {text}" if text else head]
    body = [lines[0]] + [line[len(base) :] if line.startswith(base) else line for line in lines[1:]]
    return [head] + [indent + line for line in body]


def skipped_text(skipped: list[SkippedFile]) -> str | None:
    """One note naming the files left out and why (``None`` when there are none)."""
    return skipped_note((s.file, s.reason) for s in skipped)


def preview_text(preview: EditPreview, ids: list[str], budget: int) -> list[str]:
    """Write each file and change with its id, until about ``budget`` characters are written.

    The changes past the budget are summed up in one line: the model reads a bounded text,
    so a preview of 100,000 changes does not format them all.
    """
    lines: list[str] = []
    used = 0
    position = 0
    for edit in preview.files:
        lines.append(f"{edit.file}: {plural(len(edit.replacements), 'replacement')}")
        for rep in edit.replacements:
            if used > budget:
                rest = len(ids) - position
                lines.append(
                    f"... and {plural(rest, 'more change')} ({ids[position]} to {ids[-1]}) "
                    "not listed here: the diff shows them all."
                )
                return lines
            change_id = ids[position]
            position += 1
            pos = f"{rep.line + 1}:{rep.column + 1}"
            base = rep.indent
            pad = " " * (len(change_id) + 1)
            start = len(lines)
            lines += block(f"  {change_id} -{pos}", rep.old_text, base, "      " + pad)
            lines += block(f"  {pad}+{pos}", rep.new_text, base, "      " + pad)
            used += sum(len(line) + 1 for line in lines[start:])
    return lines


def _broken_notes(preview: EditPreview, flag: str) -> list[str]:
    """Notes on files whose rewrite would not parse: left out, or included anyway."""
    notes = []
    broken = [s for s in preview.skipped if s.reason == BROKEN_REASON]
    if broken:
        names = name_list([f"{s.file} ({s.error})" for s in broken])
        notes.append(
            f"Left out {plural(len(broken), 'file')} whose rewrite would not parse (new "
            f"parse errors, first at): {names}. Check the rewrite; {flag} writes them anyway."
        )
    kept = [f for f in preview.files if f.new_error]
    if kept:
        names = name_list([f"{f.file} ({f.new_error})" for f in kept])
        notes.append(f"Included although the rewrite does not parse: {names}.")
    return notes


def edit_notes(preview: EditPreview, broken_flag: str = "`include_broken`") -> list[str]:
    """The notes under a preview: files left out, nested and identical matches, the limit."""
    notes: list[str] = _broken_notes(preview, broken_flag)
    if preview.nested_skipped:
        notes.append(
            f"{plural(preview.nested_skipped, 'nested match', 'nested matches')} inside other "
            "matches will not be rewritten (only the outermost match is); preview again after "
            "applying to rewrite them."
        )
    if preview.identical:
        notes.append(
            f"{plural(preview.identical, 'match', 'matches')} already read as the rewrite "
            "(no change)."
        )
    if preview.limit_reached:
        notes.append("The limit was reached; more matches may remain.")
    skipped = skipped_text([s for s in preview.skipped if s.reason != BROKEN_REASON])
    if skipped:
        notes.append(skipped)
    return notes


def result_text(preview: EditPreview, ids: list[str], notes: list[str], preview_id: str) -> str:
    """Word the preview result the model reads.

    That is the changes with their ids, the total, the notes and how to apply only some
    changes.
    """
    from xcsh.core import MAX_RESULT_CHARS

    lines = preview_text(preview, ids, MAX_RESULT_CHARS // 2)
    lines.append(
        f"Total: {plural(preview.total, 'replacement')} in {plural(len(preview.files), 'file')}."
    )
    lines += notes
    lines.append(
        f"This is preview {preview_id}: nothing has changed yet. To apply only some changes, "
        f"give resolve `only` with their ids (such as {ids[0]}) or files."
    )
    return "\n".join(lines)


def applied_result(done: AppliedEdit, note: str = "") -> AgentToolResult[AppliedEditDetails]:
    """The result of an apply: the replacements and the files written, any warning, ``note``."""
    from xcsh.core import AgentToolResult, TextContent
    from xcsh.structural.tools.details import AppliedEditDetails

    names = name_list([visible_line(f) for f in done.files])
    text = (
        f"Applied {plural(done.replacements, 'replacement')} in "
        f"{plural(len(done.files), 'file')}: {names}."
    )
    if done.warning:
        text += "\n" + done.warning
    if note:
        text += "\n" + note
    return AgentToolResult(
        content=[TextContent(text)],
        details=AppliedEditDetails(files=tuple(done.files), total=done.replacements),
    )


__all__ = [
    "applied_result",
    "block",
    "edit_label",
    "edit_notes",
    "line_indent",
    "preview_text",
    "result_text",
    "skipped_text",
]
