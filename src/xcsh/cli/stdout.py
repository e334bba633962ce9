"""How a search command's records reach standard output, and how its process ends.

A search of one large file prints 100,000 records of about 1 KB each. Two
costs had nothing to do with searching:

- **One write per record.** Under ``PYTHONUNBUFFERED=1`` (set in many
  container images) or ``python -u``, Python writes each string at once: one
  system call per record. :class:`BlockWriter` joins whole records into
  blocks, whatever the interpreter's buffering: up to 64 KiB to a file, up to
  the pipe's atomic write size (4 KiB) to a pipe or socket, and none on a
  terminal, where each record is written as it is found.
- **Freeing what the process is about to drop.** Freeing the syntax tree of
  a 5 MB file and its 100,000 matched nodes, then the interpreter's own
  teardown, took about a tenth of the run. When xcsh runs as its own
  process, :func:`end_process` ends it as soon as the output is flushed, as
  compilers do (the kernel takes the memory back in one piece).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import stat
import sys
from typing import NoReturn, TextIO

FILE_BLOCK_CHARS = 64 * 1024
"""Characters gathered before :class:`BlockWriter` writes them to a file."""
PIPE_BLOCK_CHARS = select.PIPE_BUF
"""At most this many characters per write to a pipe or socket: the kernel writes up to
``PIPE_BUF`` bytes to a pipe in one piece, so a Ctrl-C during the write, or another
process writing to the same pipe, never cuts a record of ASCII text in two."""


def block_size(stream: TextIO) -> int:
    """How many characters :class:`BlockWriter` gathers for ``stream``.

    0 on a terminal, :data:`PIPE_BLOCK_CHARS` for a pipe or socket, else
    :data:`FILE_BLOCK_CHARS`; 0 for a stream with no file descriptor (what a caller
    put in ``sys.stdout``).
    """
    try:
        if stream.isatty():
            return 0
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no isatty/fileno, closed, StringIO
        return 0
    return PIPE_BLOCK_CHARS if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else FILE_BLOCK_CHARS


class BlockWriter:
    """Writes whole strings (records) to ``stream``, gathered into blocks.

    A block holds at most ``block`` characters (default :func:`block_size`)
    unless one record alone is longer; records are never split. With
    ``block`` 0 every record is written at once. :meth:`flush` writes what is
    left. Errors of the stream's ``write`` (:class:`BrokenPipeError`, a full
    disk) are raised by the :meth:`write` or :meth:`flush` that hits them; a
    record the stream's encoding cannot carry is raised after every record
    before it has been written.
    """

    def __init__(self, stream: TextIO, block: int | None = None) -> None:
        self._stream = stream
        self._block = block_size(stream) if block is None else block
        self._parts: list[str] = []
        self._pending = 0

    def write(self, text: str) -> None:
        """Write ``text`` now, or with the block it is gathered into."""
        if self._parts and self._pending + len(text) > self._block:
            self.flush()
        self._parts.append(text)
        self._pending += len(text)
        if self._pending >= self._block:
            self.flush()

    def flush(self) -> None:
        """Write every gathered record to the stream (it may still buffer them)."""
        if not self._parts:
            return
        parts = self._parts
        self._parts = []
        self._pending = 0
        try:
            self._stream.write("".join(parts))
        except UnicodeEncodeError:  # raised before anything is written: write up to it
            for part in parts:
                self._stream.write(part)
            raise


class JsonArray:
    """Prints JSON-line records as one JSON array, as ``ast-grep --json=pretty|compact``.

    :meth:`write` takes one record (a JSON object and its line break) and keeps
    it; :meth:`close` prints the array: ``[`` and ``]`` around the objects,
    each indented by two spaces per level and separated by ``,`` and a line
    break (``pretty``), or on one line separated by ``,``; ``[]`` when there
    is none. :meth:`flush` does nothing: an array is printed whole.
    """

    def __init__(self, stream: TextIO, *, pretty: bool) -> None:
        self._stream = stream
        self._pretty = pretty
        self._records: list[str] = []

    def write(self, text: str) -> None:
        """Keep one record for :meth:`close`."""
        self._records.append(text.rstrip("\n"))

    def flush(self) -> None:
        """Nothing: the array is printed by :meth:`close`."""

    def close(self) -> None:
        """Print the array of every record written."""
        if not self._records:
            self._stream.write("[]\n")
        elif not self._pretty:
            self._stream.write("[" + ",".join(self._records) + "]\n")
        else:
            import json

            objects = (
                json.dumps(json.loads(record), indent=2, ensure_ascii=False)
                for record in self._records
            )
            self._stream.write("[\n" + ",\n".join(objects) + "\n]\n")
        self._records = []


def is_own_process() -> bool:
    """Whether this process may be ended by :func:`end_process`.

    True when nothing outside xcsh watches it (no profiler, tracer or debugger:
    ``sys.getprofile``/``sys.gettrace``) and no exit handler was registered before
    xcsh started (by a wrapper script or a tool such as coverage). Called when
    ``xcsh.cli.main`` starts.
    """
    count = getattr(atexit, "_ncallbacks", None)  # CPython's count of exit handlers
    return (
        count is not None and count() == 0 and sys.gettrace() is None and sys.getprofile() is None
    )


def end_process(code: int) -> NoReturn:
    """Flush standard output and standard error, then end the process with ``code`` at once.

    Nothing is freed and no exit handler runs: only for a process that is
    xcsh's own (the ``xcsh`` command under :func:`is_own_process`, not a
    caller's interpreter) and whose command has finished everything but
    printing. A failure to flush standard error is ignored (its messages are
    lost either way).

    Raises:
        BrokenPipeError, OSError: flushing standard output failed; the process
            is then not ended here, and the caller reports the failure as usual.
    """
    sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)
