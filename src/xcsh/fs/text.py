"""Reading text files exactly: UTF-8 with or without a BOM, line endings kept."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import ToolError

BINARY_SNIFF_BYTES = 8192


class NotTextError(ToolError):
    """A file that is binary or not valid UTF-8.

    Attributes:
        reason: ``"binary"`` or ``"not UTF-8"``.
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class TextFile:
    r"""A text file's content, decoded without losing a byte.

    Attributes:
        path: where it was read from.
        raw: the bytes on disk.
        text: the decoded text (BOM removed, line endings untouched).
        bom: the file started with a UTF-8 BOM.
        newline: the file's line ending (``"\r\n"`` or ``"\n"``; ``"\n"`` when it has none).
    """

    path: Path
    raw: bytes
    text: str
    bom: bool
    newline: str

    def encode(self, text: str) -> bytes:
        """Encode new content the way this file was stored (UTF-8, BOM kept)."""
        body = text.encode("utf-8")
        return codecs.BOM_UTF8 + body if self.bom else body


def decode_text(raw: bytes, *, name: str = "file") -> tuple[str, bool]:
    """Decode bytes as UTF-8 text.

    Returns:
        ``(text, had_bom)``.

    Raises:
        NotTextError: a NUL byte in the first 8 KiB (binary), or invalid UTF-8.
    """
    if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
        raise NotTextError(f"{name} is a binary file; skipped.", reason="binary")
    bom = raw.startswith(codecs.BOM_UTF8)
    body = raw[len(codecs.BOM_UTF8) :] if bom else raw
    try:
        return body.decode("utf-8"), bom
    except UnicodeDecodeError as exc:
        raise NotTextError(
            f"{name} is not valid UTF-8 (byte {exc.start}); skipped. "
            "Convert it to UTF-8 to edit it with xcsh.",
            reason="not UTF-8",
        ) from exc


def detect_newline(text: str) -> str:
    r"""The line ending of the first line break in ``text`` (``"\n"`` when there is none)."""
    index = text.find("\n")
    if index > 0 and text[index - 1] == "\r":
        return "\r\n"
    return "\n"


class NotRegularFileError(OSError):
    """The path is a FIFO, a device or a socket: reading it could block forever."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(errno.EINVAL, "not a regular file (a pipe, device or socket)", str(path))


def open_regular(path: Path | str) -> int:
    """Open ``path`` for reading without ever blocking, and only if it is a regular file.

    The file is opened with ``O_NONBLOCK`` (opening a FIFO with no writer would
    wait forever otherwise), then checked with ``fstat`` on the open descriptor,
    so a file swapped for a FIFO or a symlink to one is refused too.

    Returns:
        An open file descriptor (the caller closes it).

    Raises:
        NotRegularFileError: a FIFO, device, socket (or a symlink to one).
        OSError: it cannot be opened.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of a regular file (the first ``limit`` bytes when given), never blocking.

    Raises:
        NotRegularFileError: a FIFO, device, socket (or a symlink to one).
        OSError: it cannot be read.
    """
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read() if limit is None else handle.read(limit)


def read_text_file(path: Path, *, display_name: str | None = None) -> TextFile:
    """Read ``path`` as UTF-8 text.

    Raises:
        NotTextError: the file is binary or not UTF-8.
        NotRegularFileError: it is a FIFO, device or socket (never opened blocking).
        OSError: it cannot be read.
    """
    raw = read_regular_bytes(path)
    text, bom = decode_text(raw, name=display_name or str(path))
    return TextFile(path=path, raw=raw, text=text, bom=bom, newline=detect_newline(text))


def not_utf8_at(raw: bytes, error: UnicodeDecodeError) -> tuple[int, int]:
    """``(line, column)`` of the byte decoding ``raw`` as UTF-8 stopped at (``error``'s).

    Both count from 1; the column counts the characters of that line before
    the byte, as an editor shows it.
    """
    start = raw.rfind(b"\n", 0, error.start) + 1
    line = raw.count(b"\n", 0, start) + 1
    return line, len(raw[start : error.start].decode("utf-8", errors="replace")) + 1
