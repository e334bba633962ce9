r"""Unified diffs built straight from the replacements of a preview.

difflib compares whole files (slow on large ones, and it may pair lines
differently from the edit that was made); a preview already knows each
changed range, so its hunks are cut around those ranges: each run of
replaced lines is shown as ``-`` old lines then ``+`` new lines, with three
lines of context, and hunks closer than twice the context are joined, as in
``diff -u``. Lines are split on ``\n`` only, like tree-sitter rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from xcsh.core.safe import visible

CONTEXT = 3


def _split(data: bytes) -> list[bytes]:
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _range(start: int, length: int) -> str:
    # difflib's _format_range_unified: 1-based start; an empty range names the line before.
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _emit(prefix: str, lines: Sequence[bytes], out: list[str]) -> None:
    for line in lines:
        text = line.decode("utf-8")
        if text.endswith("\n"):
            out.append(prefix + text)
        else:
            out.append(prefix + text + "\n\\ No newline at end of file\n")


def unified_diff(file: str, old: bytes, spans: Sequence[tuple[int, int, int, int, bytes]]) -> str:
    """The unified diff of replacing ``spans`` in ``old``.

    Args:
        file: display path (``a/<file>`` and ``b/<file>`` in the header, followed
            by a tab when it holds a space, as git writes it). Control characters in
            it (a newline, an escape) are shown in caret notation
            (:func:`xcsh.core.safe.visible`), so a file name cannot forge a header line.
        old: the file's bytes.
        spans: ``(start_line, end_line, start_byte, end_byte, new_bytes)`` per
            replacement, sorted and non-overlapping; lines are 0-based rows.

    Returns:
        The diff text, or ``""`` when nothing changes.
    """
    if not spans:
        return ""
    old_lines = _split(old)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    # Blocks of whole old lines [first, last) with their new lines.
    blocks: list[tuple[int, int, list[bytes]]] = []
    group: list[tuple[int, int, int, int, bytes]] = []

    def close() -> None:
        first, last = group[0][0], group[-1][1] + 1
        last = min(last, len(old_lines)) if old_lines else 0
        region_start, region_end = starts[first], starts[last] if last < len(starts) else len(old)
        pieces: list[bytes] = []
        cursor = region_start
        for _, _, start_byte, end_byte, new in group:
            pieces += [old[cursor:start_byte], new]
            cursor = end_byte
        pieces.append(old[cursor:region_end])
        blocks.append((first, last, _split(b"".join(pieces))))

    for span in spans:
        if group and span[0] > group[-1][1]:
            close()
            group = []
        group.append(span)
    close()
    shown = visible(file, keep="")
    # A name with a space ends with a tab, as git writes it: GNU patch reads a name
    # up to the first white space unless a tab ends it.
    name_end = "\t" if " " in shown else ""
    out = [f"--- a/{shown}{name_end}\n", f"+++ b/{shown}{name_end}\n"]
    delta = 0
    index = 0
    while index < len(blocks):
        end = index
        while end + 1 < len(blocks) and blocks[end + 1][0] - blocks[end][1] <= 2 * CONTEXT:
            end += 1
        hunk = blocks[index : end + 1]
        old_from = max(0, hunk[0][0] - CONTEXT)
        old_to = min(len(old_lines), hunk[-1][1] + CONTEXT)
        added = sum(len(new) - (last - first) for first, last, new in hunk)
        body: list[str] = []
        cursor = old_from
        for first, last, new in hunk:
            _emit(" ", old_lines[cursor:first], body)
            _emit("-", old_lines[first:last], body)
            _emit("+", new, body)
            cursor = last
        _emit(" ", old_lines[cursor:old_to], body)
        old_len = old_to - old_from
        out.append(
            f"@@ -{_range(old_from, old_len)} +{_range(old_from + delta, old_len + added)} @@\n"
        )
        out += body
        delta += added
        index = end + 1
    return "".join(out)
