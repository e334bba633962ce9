"""Workspace files: path confinement, text decoding, walks and the user-state folder.

The walks honour ignore files; the user-state folder is :func:`xcsh_home`.

Shared by every tool that reads or writes the user's files, so that all of
them refuse the same paths, skip the same files and write the same safe way.
"""

from xcsh.fs.home import xcsh_home
from xcsh.fs.settings_file import read_settings_file
from xcsh.fs.text import (
    NotRegularFileError,
    NotTextError,
    TextFile,
    decode_text,
    detect_newline,
    not_utf8_at,
    open_regular,
    read_regular_bytes,
    read_text_file,
)
from xcsh.fs.walk import ALWAYS_SKIPPED_DIRS, IgnoreRules, ignored_by, inherited_rules, iter_files
from xcsh.fs.workspace import OutsideWorkspaceError, Workspace

__all__ = [
    "ALWAYS_SKIPPED_DIRS",
    "IgnoreRules",
    "NotRegularFileError",
    "NotTextError",
    "OutsideWorkspaceError",
    "TextFile",
    "Workspace",
    "decode_text",
    "detect_newline",
    "ignored_by",
    "inherited_rules",
    "iter_files",
    "not_utf8_at",
    "open_regular",
    "read_regular_bytes",
    "read_settings_file",
    "read_text_file",
    "xcsh_home",
]
