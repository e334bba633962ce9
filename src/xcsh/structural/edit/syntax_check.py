"""Whether a rewritten file still parses: the check that keeps a broken rewrite out of a preview.

:func:`start_check` parses the new text of a file and finds its first new
parse error. A big file's check runs in a forked process on the other core
while the caller goes on (:class:`SyntaxCheck` is its handle), so its JSON
lines are written while the new text is parsed; :meth:`SyntaxCheck.verdict`
waits for the answer. Where no second core or no ``fork`` is available, or
the child fails, the check runs in the calling process: the answer is the
same either way.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from typing import Any

from ast_grep_py import SgNode, SgRoot

BACKGROUND_MIN_BYTES = 1 << 20
"""A new text at least this long is checked in a forked process (parsing a megabyte
takes about a quarter of a second; a fork of a big process a few milliseconds)."""

_ANSWER_LIMIT = 4096
"""The most bytes a check's answer takes (``"line L, column C"``, or nothing)."""


def error_rule(root: SgNode) -> dict[str, Any]:
    """The rule finding parse errors under ``root``.

    The rule finding parse errors under ``root``: ERROR nodes, and the MISSING nodes
    tree-sitter inserts (empty text, not the root itself).
    """
    return {"any": [{"kind": "ERROR"}, {"regex": "^$", "not": {"kind": root.kind()}}]}


def has_error(root: SgNode) -> bool:
    """Whether the tree under ``root`` holds a parse error (see :func:`error_rule`)."""
    return root.find(**error_rule(root)) is not None


def new_error(old_errors: int | None, new_bytes: bytes, language: str) -> str:
    """Where the rewritten text has a parse error the old text did not have, or ``""``.

    Args:
        old_errors: how many error nodes the old text has (``None``: it had none).
        new_bytes: the rewritten file (UTF-8; a bad byte reads as U+FFFD).
        language: its language (an ast-grep-py name).

    Returns:
        ``"line L, column C"`` (1-based) of the first error node of the new
        tree; for an old text that already had errors, only when the new one
        has more of them.
    """
    new_root = SgRoot(new_bytes.decode("utf-8", errors="replace"), language).root()
    rule = error_rule(new_root)
    first = new_root.find(**rule)
    if first is None:
        return ""
    if old_errors is not None and len(new_root.find_all(**rule)) <= old_errors:
        return ""
    pos = first.range().start
    return f"line {pos.line + 1}, column {pos.column + 1}"


@dataclass(kw_only=True)
class SyntaxCheck:
    """A started check of one rewritten file (see :func:`start_check`).

    Attributes:
        new_bytes: the rewritten file.
        language: its language.
        old_errors: error nodes in the old text (``None``: it had none).
        pid: the forked process computing the answer (0: none, it is computed here).
        reader: the read end of the pipe the answer comes on (-1: none).
        background: the check runs in another process while the caller goes on.
    """

    new_bytes: bytes
    language: str
    old_errors: int | None
    pid: int = 0
    reader: int = -1

    @property
    def background(self) -> bool:
        """Whether the answer is being computed in another process."""
        return self.pid > 0

    def verdict(self) -> str:
        """The answer of :func:`new_error` for this file; waits for the forked process.

        A forked process that fails (killed, crashed, no answer) is not trusted:
        the check is then made here. Interrupted (Ctrl-C), the forked process is
        killed and reaped before the interruption goes on.
        """
        if self.pid <= 0:
            return new_error(self.old_errors, self.new_bytes, self.language)
        answer: bytes | None = None
        try:
            answer = _read_all(self.reader)
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
            if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
                answer = None
        finally:
            os.close(self.reader)
            self.reader = -1
            if self.pid > 0:  # interrupted: the answer is not wanted any more
                _end(self.pid)
                self.pid = 0
        if answer is None or not answer.startswith(b"="):
            return new_error(self.old_errors, self.new_bytes, self.language)
        return answer[1:].decode()


def start_check(
    new_bytes: bytes, language: str, old_errors: int | None, *, background: bool
) -> SyntaxCheck:
    """Start checking ``new_bytes`` for new parse errors (see :func:`new_error`).

    With ``background``, a text of at least :data:`BACKGROUND_MIN_BYTES`, on a
    machine with a processor to spare (two or more, and a load average that
    leaves one free), is parsed in a forked process, so the caller's own work
    overlaps the parse; otherwise (or when the fork fails)
    :meth:`SyntaxCheck.verdict` parses it when asked.
    """
    check = SyntaxCheck(new_bytes=new_bytes, language=language, old_errors=old_errors)
    if not background or len(new_bytes) < BACKGROUND_MIN_BYTES or not _spare_processor():
        return check
    # loaded before the fork, so the child finds it loaded
    from xcsh.structural.base.pool import reset_signals_after_fork  # noqa: F401

    _release_free_memory()  # the old tree was just freed: the fork starts small
    reader, writer = os.pipe()
    # the child starts with SIGINT and SIGTERM blocked, until it dropped the caller's handlers
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(reader)
        os.close(writer)
        return check
    if pid == 0:  # pragma: no cover - the child ends with os._exit, never returns
        _child(check, reader, writer)
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    os.close(writer)
    check.pid, check.reader = pid, reader
    return check


def _child(check: SyntaxCheck, reader: int, writer: int) -> None:
    """The forked process's work: the answer, then exit.

    The forked process: compute the answer, write it (``=`` and the text), exit
    without freeing anything (the tree of a big file takes a tenth of its parse to free).
    """
    code = 1
    try:
        from xcsh.structural.base.pool import reset_signals_after_fork  # loaded before the fork

        reset_signals_after_fork()
        os.close(reader)
        answer = new_error(check.old_errors, check.new_bytes, check.language)
        os.write(writer, b"=" + answer.encode()[:_ANSWER_LIMIT])
        code = 0
    finally:
        os._exit(code)


def _read_all(fd: int) -> bytes:
    """Everything readable on ``fd`` until its end."""
    parts = []
    while chunk := os.read(fd, _ANSWER_LIMIT + 1):
        parts.append(chunk)
    return b"".join(parts)


def _end(pid: int) -> None:
    """Kill the forked process ``pid`` and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)


def _spare_processor() -> bool:
    """Whether a processor is likely idle for the check.

    This process may run on two processors or more, and the load average of the
    last minute leaves one of them free: on a busy machine the forked parse would
    only take turns with the caller, and the fork and the lines written ahead
    would cost more than they save.
    """
    try:
        processors = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        processors = os.cpu_count() or 1
    if processors < 2:
        return False
    try:
        return os.getloadavg()[0] <= processors - 1
    except OSError:  # no load average: assume the machine is not saturated
        return True


def _release_free_memory() -> None:
    """Give the memory freed so far back to the system.

    Give the memory freed so far back to the system (glibc's ``malloc_trim``), so a
    forked process and the caller do not each keep a copy of the freed heap.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError, ImportError):
        return
    trim(0)


__all__ = [
    "BACKGROUND_MIN_BYTES",
    "SyntaxCheck",
    "error_rule",
    "has_error",
    "new_error",
    "start_check",
]
