"""The unified diff of one file's whole change, as a preview shows it.

For producers that know a file's content before and after but not which
ranges changed (a command run on a staged copy, a custom tool proposing new
contents, a tool call's dry run): text files get ``diff -u`` hunks with three
lines of context; a created or deleted file is shown against ``/dev/null``;
a file that is not UTF-8 text is one ``Binary files ... differ`` line, as git
writes it. The hunks are :mod:`difflib`'s, computed by its compiled twin
``cydifflib`` (the same output). File names are made safe to show on one line
(:func:`xcsh.core.safe.visible_line`),
so a newline or escape in a name cannot forge a header line.
"""

from __future__ import annotations

import cydifflib

from xcsh.core.safe import visible_line

CONTEXT = 3


def _text(data: bytes) -> list[str] | None:
    """``data`` as lines (ends kept), or ``None`` when it is not UTF-8 text."""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _name(side: str, path: str) -> str:
    shown = f"{side}/{visible_line(path)}"  # a newline in a name would forge a header
    return f"{shown}\t" if " " in shown else shown


def file_diff(path: str, before: bytes | None, after: bytes | None) -> str:
    """The unified diff of ``path`` going from ``before`` to ``after``.

    Args:
        path: the file as messages name it (relative to the workspace).
        before: its content now, ``None`` when it is created.
        after: its new content, ``None`` when it is deleted.

    Returns:
        The diff text (each line ends with a newline; a last line without one is
        followed by the "No newline at end of file" marker), or ``""`` when nothing changes.
    """
    if before == after:
        return ""
    old = _text(before) if before is not None else []
    new = _text(after) if after is not None else []
    old_name = _name("a", path) if before is not None else "/dev/null"
    new_name = _name("b", path) if after is not None else "/dev/null"
    if old is None or new is None:
        return f"Binary files {old_name.rstrip()} and {new_name.rstrip()} differ\n"
    lines = cydifflib.unified_diff(old, new, fromfile=old_name, tofile=new_name, n=CONTEXT)
    out: list[str] = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


__all__ = ["file_diff"]
