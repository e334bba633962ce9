"""The typed details of the coding tools' results: frozen values front ends read by attribute.

One class for each of ``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find`` and ``ls``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xcsh.core.details import ToolDetails


@dataclass(frozen=True, kw_only=True, eq=False)
class ReadDetails(ToolDetails):
    """What ``read`` read.

    Args:
        path: the file, absolute.
        start_line: the first line shown (1-based); ``None`` for an image or an empty file.
        end_line: the last line shown; ``None`` likewise.
        total_lines: lines in the file, ``None`` when the read stopped before counting them.
        truncated: lines follow the last one shown.
        mime_type: for an image, its type (``image/png``); ``None`` for text.
        bytes: for an image, its size in bytes.
    """

    path: str
    start_line: int | None = None
    end_line: int | None = None
    total_lines: int | None = None
    truncated: bool = False
    mime_type: str | None = None
    bytes: int | None = None


@dataclass(frozen=True, kw_only=True, eq=False)
class WriteDetails(ToolDetails):
    """What ``write`` wrote: the file (absolute), its size in bytes, whether it is new."""

    path: str
    bytes: int
    created: bool


@dataclass(frozen=True, kw_only=True, eq=False)
class EditFileDetails(ToolDetails):
    """What ``edit`` changed.

    Args:
        path: the file, absolute.
        replacements: how many occurrences were replaced.
        first_line: the line (1-based) of the first replacement.
        diff: the unified diff of the change.
    """

    path: str
    replacements: int
    first_line: int
    diff: str


@dataclass(frozen=True, kw_only=True, eq=False)
class BashDetails(ToolDetails):
    """How a ``bash`` command ended.

    Args:
        command: the command run.
        exit_code: its exit status (negative: killed by that signal); ``None`` when unknown.
        seconds: how long it ran.
        output_bytes: bytes of output it wrote.
        full_output_path: the log holding all of a long output, or ``None``.
        log_omitted_bytes: bytes the log left out (it keeps its head and tail).
        timed_out: it was killed at its timeout.
        cancelled: the user cancelled it.
        sandbox_denied: paths the sandbox refused it, writes then reads (``None``: none
            noticed).
        env_withheld: environment variables withheld from commands, on the
            session's first result only (``None`` elsewhere).
        journal_entry: the undo journal entry recording what it changed (``None``:
            it changed nothing recorded, or it is not recorded).
        recorded: the files that entry holds (created, changed or deleted).
        ignored_touched: paths ignored by the workspace's ignore rules it touched
            (not recorded).
        not_recorded: files it changed that are not recorded (over the size cap).
        not_kept: files it changed or deleted whose earlier bytes xcsh had not read
            yet (the session's first look at the workspace was under way).
        preview_id: for a command run as a preview, the pending action it pushed
            (``None``: it would change nothing, or it was not a preview).
    """

    command: str
    exit_code: int | None
    seconds: float
    output_bytes: int
    full_output_path: str | None = None
    log_omitted_bytes: int = 0
    timed_out: bool = False
    cancelled: bool = False
    sandbox_denied: tuple[str, ...] | None = None
    env_withheld: tuple[str, ...] | None = None
    journal_entry: int | None = None
    recorded: tuple[str, ...] = ()
    ignored_touched: int = 0
    not_recorded: tuple[str, ...] = ()
    not_kept: tuple[str, ...] = ()
    preview_id: str | None = None


@dataclass(frozen=True, kw_only=True, eq=False)
class GrepDetails(ToolDetails):
    """What ``grep`` found.

    The search backend (``ripgrep``, ``python``), matching lines shown, files with a
    match, and whether more matches were left out.
    """

    backend: str
    matches: int
    files: int
    truncated: bool


@dataclass(frozen=True, kw_only=True, eq=False)
class FindDetails(ToolDetails):
    """What ``find`` found: how many paths, and whether more were left out."""

    count: int
    truncated: bool


@dataclass(frozen=True, kw_only=True, eq=False)
class LsDetails(ToolDetails):
    """What ``ls`` listed: the folder (absolute) and how many entries."""

    path: str
    count: int


__all__ = [
    "BashDetails",
    "EditFileDetails",
    "FindDetails",
    "GrepDetails",
    "LsDetails",
    "ReadDetails",
    "WriteDetails",
]
