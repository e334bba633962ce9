"""The files an MCP tool call names: which it may write, and the ones no call may touch.

A server's tool takes its paths under names of its own choosing (``path``,
``source`` and ``destination``, ``paths``, ...). Two questions are asked of
a call's arguments before anything is sent:

- :func:`protected_refusal`: does any string argument (the file contents
  and other free text left aside) lead, as given, through ``..``, as an
  absolute path or through a symlink, into ``.git``, ``.hg`` or ``.xcsh``?
  Git runs what ``.git`` holds on the user's next git command, so a call of
  a tool that is not read-only naming such a place is refused before the
  server hears of it. The check is :func:`xcsh.core.protected.protected_reason`,
  the one xcsh's own ``write`` and ``edit`` go through.
- :func:`named_files`: which workspace files the call may write (the file it
  writes, however short the content; both ends of a move), so the undo
  journal records them around the real call.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from xcsh.core import JsonValue, ToolError
from xcsh.core.protected import protected_reason
from xcsh.fs import Workspace
from xcsh.journal import proposed_changes

PATH_KEYS = ("path", "file", "file_path", "filePath", "filename", "fileName", "target")
"""Argument names that name a file (the first one a call gives that is a workspace file counts)."""
SOURCE_KEYS = ("source", "src", "from", "old_path", "oldPath", "source_path", "sourcePath")
"""Argument names of the file a move or copy starts from."""
DESTINATION_KEYS = (
    "destination",
    "dest",
    "dst",
    "to",
    "new_path",
    "newPath",
    "destination_path",
    "destinationPath",
)
"""Argument names of the file a move or copy makes."""
CONTENT_KEYS = ("content", "contents", "text", "data", "body", "new_content", "newContent")
"""Argument names whose string is a file's whole new content."""
FREE_TEXT_KEYS = (
    *CONTENT_KEYS,
    "oldText",
    "newText",
    "old_text",
    "new_text",
    "old_string",
    "new_string",
    "message",
    "description",
    "query",
    "pattern",
    "observations",
)
"""Argument names whose strings are text, not paths (left out of the protected check)."""
LONGEST_PATH = 4096
"""A longer string (or one with a line break or a NUL) is not taken for a path."""


def protected_refusal(arguments: Mapping[str, JsonValue], workspace: Path) -> str | None:
    """Why a call with ``arguments`` may not be made (one leads into ``.git``), else ``None``.

    Every string argument counts, at any depth, except those under
    :data:`FREE_TEXT_KEYS`: relative to ``workspace``, ``~`` expanded, and
    judged by its real place (a symlink into ``.git`` counts as ``.git``).
    """
    root = Path(os.path.realpath(workspace))
    for text in _strings(dict(arguments)):
        refusal = _refusal(text, root)
        if refusal is not None:
            return refusal
    return None


def _strings(value: JsonValue, key: str | None = None) -> Iterator[str]:
    if key in FREE_TEXT_KEYS:
        return
    if isinstance(value, str):
        if value and len(value) <= LONGEST_PATH and not any(c in value for c in "\n\r\0"):
            yield value
    elif isinstance(value, Mapping):
        for name, item in value.items():
            yield from _strings(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, key)


def _refusal(text: str, root: Path) -> str | None:
    given = Path(os.path.expanduser(text))
    absolute = given if given.is_absolute() else root / given
    try:
        real = Path(os.path.realpath(absolute))
    except (OSError, ValueError):
        return None
    inside = real == root or root in real.parents
    where = real.relative_to(root).as_posix() if inside else real.as_posix()
    refusal = protected_reason(where, text)
    if refusal is None or where in (text, f"./{text}"):
        return refusal
    return protected_reason(where, f"{text} (really {where if inside else real})")


def named_files(arguments: Mapping[str, JsonValue], workspace: Path) -> list[str]:
    """The workspace files a call with ``arguments`` may write, as the workspace shows them.

    A file named under :data:`PATH_KEYS` that is a regular file, or that is
    missing while the call gives its content; a move's source when it is a
    regular file, and its destination when that is one or is missing. Paths
    outside the workspace, protected or naming a folder are left out.
    """
    files: list[str] = []
    writes_content = any(isinstance(arguments.get(k), str) for k in CONTENT_KEYS)
    path = first_path(arguments, PATH_KEYS)
    if path is not None:
        files += _regular(workspace, path, missing_ok=writes_content)
    source = first_path(arguments, SOURCE_KEYS)
    destination = first_path(arguments, DESTINATION_KEYS)
    if source is not None and destination is not None:
        moved = _regular(workspace, source, missing_ok=False)
        if moved:
            files += moved + _regular(workspace, destination, missing_ok=True)
    return list(dict.fromkeys(files))


def first_path(arguments: Mapping[str, JsonValue], keys: tuple[str, ...]) -> str | None:
    """The first non-empty string among ``arguments`` under ``keys``, or ``None``."""
    for key in keys:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _regular(workspace: Path, path: str, *, missing_ok: bool) -> list[str]:
    try:
        (change,) = proposed_changes(workspace, {path: None})
    except ToolError:
        return []  # outside the workspace, protected, or a folder
    if change.before is not None:
        return [change.shown]
    missing = not os.path.lexists(Workspace(workspace).resolve(path))
    return [change.shown] if missing_ok and missing else []


__all__ = [
    "CONTENT_KEYS",
    "DESTINATION_KEYS",
    "FREE_TEXT_KEYS",
    "PATH_KEYS",
    "SOURCE_KEYS",
    "first_path",
    "named_files",
    "protected_refusal",
]
