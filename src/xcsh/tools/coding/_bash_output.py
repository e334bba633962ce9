"""The ``bash`` tool's output: all of it while short; head and tail plus a log once long."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xcsh.core.wording import plural
from xcsh.fs import xcsh_home
from xcsh.tools.coding._paths import human_size

LOG_HEAD_BYTES = 2 * 1024 * 1024
"""Bytes of a long output its log keeps from the start."""
LOG_TAIL_BYTES = 2 * 1024 * 1024
"""Bytes of a long output its log keeps from the end (the middle is left out)."""
LOG_KEEP = 20
"""Logs kept in the log folder; the oldest beyond this are removed when a new one starts."""
LOG_MAX_AGE = 24 * 3600.0
"""Seconds after which a log is removed when a new one starts."""


@dataclass(frozen=True, kw_only=True)
class LogPolicy:
    folder: Path
    head_bytes: int
    tail_bytes: int
    keep: int
    max_age: float


class Output:
    """Collects a command's output, bounded for the model.

    All of it is kept while short; once long, the head and tail for the model, plus a
    log file that keeps the first and last part of the output.
    """

    def __init__(self, head_bytes: int, tail_bytes: int, policy: LogPolicy) -> None:
        self.head_bytes = head_bytes
        self.tail_bytes = tail_bytes
        self.policy = policy
        self.buffer = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.newlines = 0
        self.spilled = False
        self.log: IO[bytes] | None = None
        self.log_path: str | None = None
        self.log_error: str | None = None
        self.log_written = 0
        self.log_tail = bytearray()
        self.log_omitted = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.newlines += chunk.count(b"\n")
        if not self.spilled:
            self.buffer += chunk
            if len(self.buffer) > self.head_bytes + self.tail_bytes:
                self._spill()
            return
        self._log_write(chunk)
        self.tail += chunk
        if len(self.tail) > self.tail_bytes:
            del self.tail[: len(self.tail) - self.tail_bytes]

    def _spill(self) -> None:
        self.spilled = True
        self._open_log()
        self._log_write(bytes(self.buffer))
        self.tail = bytearray(self.buffer[-self.tail_bytes :])
        del self.buffer[self.head_bytes :]

    def _open_log(self) -> None:
        folder = self.policy.folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            prune_logs(folder, keep=self.policy.keep - 1, max_age=self.policy.max_age)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            fd, name = tempfile.mkstemp(dir=folder, prefix=f"bash-{stamp}-", suffix=".log")
        except OSError as exc:
            self.log_error = f"cannot create a log in {folder}: {exc.strerror or exc}"
            return
        self.log, self.log_path = os.fdopen(fd, "wb"), name

    def _log_write(self, chunk: bytes) -> None:
        if self.log is None:
            return
        room = self.policy.head_bytes - self.log_written
        if room > 0:
            part = chunk[:room]
            try:
                self.log.write(part)
            except OSError as exc:
                self._log_failed(exc)
                return
            self.log_written += len(part)
            chunk = chunk[room:]
        if not chunk:
            return
        self.log_tail += chunk
        excess = len(self.log_tail) - self.policy.tail_bytes
        if excess > 0:
            del self.log_tail[:excess]
            self.log_omitted += excess

    def _log_failed(self, exc: OSError) -> None:
        self.log_error = f"cannot write {self.log_path}: {exc.strerror or exc}"
        if self.log is not None:
            with contextlib.suppress(OSError):
                self.log.close()
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)
        self.log, self.log_path = None, None

    def close(self) -> None:
        """Write the kept end of the output to the log and close it."""
        if self.log is None:
            return
        try:
            if self.log_omitted:
                self.log.write(
                    f"\n[... {human_size(self.log_omitted)} omitted: this log keeps the first "
                    f"{human_size(self.policy.head_bytes)} and the last "
                    f"{human_size(self.policy.tail_bytes)} of the output ...]\n".encode()
                )
            self.log.write(self.log_tail)
            self.log.close()
        except OSError as exc:
            self._log_failed(exc)

    def recent(self, size: int = 4096) -> str:
        data = self.tail if self.spilled else self.buffer
        return bytes(data[-size:]).decode("utf-8", errors="replace")

    def render(self) -> str:
        """The output for the model, with a note when the middle was left out."""
        if not self.spilled:
            return self.buffer.decode("utf-8", errors="replace")
        head = bytes(self.buffer)
        cut = head.rfind(b"\n")
        if cut >= len(head) // 2:
            head = head[: cut + 1]
        tail = bytes(self.tail)
        cut = tail.find(b"\n")
        if 0 <= cut < len(tail) // 2:
            tail = tail[cut + 1 :]
        omitted = self.total - len(head) - len(tail)
        omitted_lines = max(0, self.newlines - head.count(b"\n") - tail.count(b"\n"))
        if self.log_path is None:
            saved = f"The full output could not be saved: {self.log_error}."
        elif self.log_omitted:
            saved = (
                f"Its first {human_size(self.policy.head_bytes)} and last "
                f"{human_size(self.policy.tail_bytes)} are saved to {self.log_path}"
            )
        else:
            saved = f"Full output saved to {self.log_path}"
        return (
            head.decode("utf-8", errors="replace")
            + f"\n[... {human_size(omitted)} ({plural(omitted_lines, 'line')}) omitted ...]\n"
            + tail.decode("utf-8", errors="replace")
            + f"\n[Output truncated: {human_size(self.total)} in total. {saved}]"
        )


def default_log_dir() -> Path:
    """``$XCSH_HOME/logs/bash``: where long outputs are saved (contract §5a)."""
    return xcsh_home() / "logs" / "bash"


def prune_logs(folder: Path, *, keep: int = LOG_KEEP, max_age: float = LOG_MAX_AGE) -> None:
    """Remove old output logs (``bash-*.log``) from ``folder``.

    Keeps the newest ``keep`` logs (by modification time) and removes any log
    older than ``max_age`` seconds. Files that vanish or cannot be removed are
    skipped; other files in the folder are never touched.
    """
    now = time.time()
    logs: list[tuple[float, Path]] = []
    for path in folder.glob("bash-*.log"):
        with contextlib.suppress(OSError):
            logs.append((path.stat().st_mtime, path))
    logs.sort(reverse=True)
    for index, (mtime, path) in enumerate(logs):
        if index >= max(keep, 0) or now - mtime > max_age:
            with contextlib.suppress(OSError):
                path.unlink()
