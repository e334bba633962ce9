"""How a search command's records reach standard output, and how its process ends.

A search of one large file prints 100,000 records of about 1 KB each. Two
costs had nothing to do with searching:

- **One write per record.** Under ``PYTHONUNBUFFERED=1`` (set in many
  container images) or ``python -u``, Python writes each string at once: one
  system call per record. :class:`BlockWriter` joins records into blocks of
  64 KiB when standard output is not a terminal, whatever the interpreter's
  buffering; on a terminal each record is written as it is found.
- **Freeing what the process is about to drop.** Freeing the syntax tree of
  a 5 MB file and its 100,000 matched nodes, then the interpreter's own
  teardown, took about a tenth of the run. When xcsh runs as its own
  process, :func:`end_process` ends it as soon as the output is flushed, as
  compilers do (the kernel takes the memory back in one piece).
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn, TextIO

BLOCK_CHARS = 64 * 1024
"""Characters gathered before :class:`BlockWriter` writes them out."""


class BlockWriter:
    """Writes strings to ``stream`` in blocks of at least ``block`` characters.

    On a terminal (``stream.isatty()``) every string is written at once, so a
    person watching a slow search sees each match as it is found. Elsewhere
    (a pipe, a file) strings wait until ``block`` characters have gathered;
    :meth:`flush` writes what is left. Errors of the stream's ``write``
    (:class:`BrokenPipeError`, a full disk) are raised by the :meth:`write`
    or :meth:`flush` that hits them.
    """

    def __init__(self, stream: TextIO, block: int = BLOCK_CHARS) -> None:
        self._stream = stream
        self._block = 0 if stream.isatty() else block
        self._parts: list[str] = []
        self._pending = 0

    def write(self, text: str) -> None:
        """Write ``text`` now, or once ``block`` characters have gathered."""
        self._parts.append(text)
        self._pending += len(text)
        if self._pending >= self._block:
            self.flush()

    def flush(self) -> None:
        """Write every gathered string to the stream (it may still buffer them)."""
        if self._parts:
            text = "".join(self._parts)
            self._parts.clear()
            self._pending = 0
            self._stream.write(text)


def end_process(code: int) -> NoReturn:
    """Flush standard output and standard error, then end the process with ``code`` at once.

    Nothing is freed and no exit handler runs: only for a process that is
    xcsh's own (the ``xcsh`` command, not a caller's interpreter) and whose
    command has finished everything but printing.

    Raises:
        BrokenPipeError, OSError: flushing standard output failed; the process
            is then not ended here, and the caller reports the failure as usual.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
