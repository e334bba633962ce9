"""The ``read`` tool: a text file with line numbers, or an image as an image block."""

from __future__ import annotations

import asyncio
import base64
import difflib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    ImageContent,
    TextContent,
    ToolCallContext,
    ToolError,
)
from xcsh.core.wording import plural
from xcsh.fs import Workspace, read_regular_bytes
from xcsh.fs.text import BINARY_SNIFF_BYTES
from xcsh.tools.coding._paths import human_size
from xcsh.tools.coding.details import ReadDetails

DEFAULT_LIMIT = 2000
"""Lines shown when no ``limit`` is given."""
MAX_LINE_CHARS = 2000
"""Longer lines are cut, with a note saying how much was left out."""
MAX_OUTPUT_BYTES = 50 * 1024
"""The shown text stops at the last whole line under this size."""
MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024
"""Larger files are read only in parts (``offset``/``limit``)."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Images above this are refused (model providers reject larger ones)."""

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)

DESCRIPTION = f"""\
Read a file from the workspace. Text comes back with line numbers (cat -n style: \
number, tab, line); use these numbers to pick `offset`/`limit` for the next part, but \
never copy them into `edit`'s old_text. At most {DEFAULT_LIMIT} lines and \
{MAX_OUTPUT_BYTES // 1024} KiB are shown per call; lines longer than {MAX_LINE_CHARS} \
characters are cut. PNG, JPEG, GIF and WebP images come back as images. Binary files are \
refused; files over {MAX_WHOLE_FILE_BYTES // (1024 * 1024)} MiB must be read in parts or \
searched with `grep`. Read a file before editing it. To find code by its structure \
across many files, `ast_grep` is the better choice."""


class ReadParams(BaseModel):
    """Arguments of ``read``."""

    path: str = Field(description="File to read, relative to the workspace or absolute.")
    offset: int | None = Field(
        default=None, ge=1, description="First line to show, 1-based (default 1)."
    )
    limit: int | None = Field(
        default=None, ge=1, description=f"How many lines to show (default {DEFAULT_LIMIT})."
    )


def image_mime(head: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP image from its first bytes, else None."""
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def create_read_tool(
    cwd: str | Path, *, allow_outside: Sequence[str | Path] = ()
) -> AgentTool[ReadParams, ReadDetails]:
    """Build the ``read`` tool.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed reading from.

    Returns:
        A read-only tool; ``run`` raises :class:`ToolError` for a missing file,
        a folder, a binary file, an oversized image or an offset past the end.
    """
    policy = Workspace(cwd, allow_outside)

    def read(params: ReadParams) -> AgentToolResult[ReadDetails]:
        path = policy.resolve(params.path)
        shown = policy.display(path)
        _check_readable_file(path, shown)
        if not path.is_file():
            raise ToolError(f"{shown} is not a regular file (a device, socket or pipe); not read.")
        try:
            size = path.stat().st_size
            head = read_regular_bytes(path, BINARY_SNIFF_BYTES)
        except OSError as exc:
            raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from exc
        mime = image_mime(head)
        if mime is not None:
            return _read_image(path, shown, mime, size)
        if b"\x00" in head:
            raise ToolError(
                f"{shown} is a binary file ({human_size(size)}); read shows text files and "
                "PNG, JPEG, GIF or WebP images only. Inspect it with bash "
                "(e.g. `file` or `xxd | head`) if you must."
            )
        whole = params.offset is None and params.limit is None
        if whole and size > MAX_WHOLE_FILE_BYTES:
            raise ToolError(
                f"{shown} is {human_size(size)}, too large to read at once. Read a part with "
                "offset and limit (e.g. offset=1, limit=200), or search it with grep."
            )
        try:
            return _read_text(
                path, shown, params.offset or 1, params.limit, size <= MAX_WHOLE_FILE_BYTES
            )
        except OSError as exc:
            raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from exc

    async def run(params: ReadParams, ctx: ToolCallContext) -> AgentToolResult[ReadDetails]:
        # A large file or a far offset takes a while to scan: keep the event loop free.
        return await asyncio.to_thread(read, params)

    return AgentTool(
        name="read",
        label="Read",
        description=DESCRIPTION,
        parameters=ReadParams,
        run=run,
        read_only=True,
    )


def _check_readable_file(path: Path, shown: str) -> None:
    if path.is_dir():
        raise ToolError(
            f"{shown} is a folder, not a file. List it with ls, or search it with find."
        )
    if path.exists():
        return
    hint = ""
    parent = path.parent
    if parent.is_dir():
        names = sorted(os.listdir(parent))
        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
        if close:
            hint = " Did you mean " + ", ".join(f"'{name}'" for name in close) + "?"
    else:
        hint = " Its folder does not exist either."
    raise ToolError(f"File not found: {shown}.{hint} Use find or ls to locate it.")


def _read_image(path: Path, shown: str, mime: str, size: int) -> AgentToolResult[ReadDetails]:
    if size > MAX_IMAGE_BYTES:
        raise ToolError(
            f"{shown} is an image ({mime}) of {human_size(size)}, above the "
            f"{human_size(MAX_IMAGE_BYTES)} a model accepts. Resize it first (e.g. with bash)."
        )
    data = path.read_bytes()
    return AgentToolResult(
        content=[
            TextContent(f"Image {shown} ({mime}, {human_size(size)})."),
            ImageContent(base64.b64encode(data).decode("ascii"), mime),
        ],
        details=ReadDetails(path=str(path), mime_type=mime, bytes=size),
    )


def _read_text(
    path: Path, shown: str, offset: int, limit: int | None, count_all: bool
) -> AgentToolResult[ReadDetails]:
    wanted = limit if limit is not None else DEFAULT_LIMIT
    lines: list[str] = []
    total = 0
    note_utf8 = False
    stopped_early = False
    with path.open("rb") as handle:
        raw_lines: Iterable[bytes] = handle
        for number, raw in enumerate(raw_lines, start=1):
            total = number
            if number < offset:
                continue
            if len(lines) < wanted:
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    text = raw.decode("utf-8", errors="replace")
                    note_utf8 = True
                lines.append(text.rstrip("\r\n"))
            elif not count_all:
                stopped_early = True  # a part of a huge file: do not scan to its end
                break
    counted = not stopped_early
    if not lines:
        if offset == 1:
            return AgentToolResult(
                content=[TextContent(f"{shown} is empty.")],
                details=ReadDetails(path=str(path), total_lines=0),
            )
        raise ToolError(
            f"offset {offset} is past the end of {shown} ({plural(total, 'line')}). "
            "Use a smaller offset."
        )
    out: list[str] = []
    used = 0
    cut_lines = 0
    for index, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            cut_lines += 1
            line = (
                line[:MAX_LINE_CHARS]
                + f" … [line cut: {len(line) - MAX_LINE_CHARS} more characters]"
            )
        entry = f"{offset + index:>6}\t{line}"
        size = len(entry.encode("utf-8")) + 1
        if out and used + size > MAX_OUTPUT_BYTES:
            break
        out.append(entry)
        used += size
    last = offset + len(out) - 1
    notes: list[str] = []
    more_after = last < total or stopped_early
    if more_after:
        of_total = f" of {total}" if counted else ""
        notes.append(
            f"[Showing lines {offset}-{last}{of_total}. Use offset={last + 1} to continue.]"
        )
    if cut_lines:
        notes.append(
            f"[{plural(cut_lines, 'long line')} cut; use bash (e.g. cut or fold) to see all.]"
        )
    if note_utf8:
        notes.append(
            "[Not valid UTF-8: undecodable bytes are shown as �; edit cannot change this file.]"
        )
    text = "\n".join(out + ([""] if notes else []) + notes)
    return AgentToolResult(
        content=[TextContent(text)],
        details=ReadDetails(
            path=str(path),
            start_line=offset,
            end_line=last,
            total_lines=total if counted else None,
            truncated=more_after,
        ),
    )
