"""JSON lines of ``ast-grep run --json=stream`` made with one ``%`` format each.

A line is mostly numbers (six per captured node) between fixed text. In an ASCII
file a byte offset is the code-point offset itself, so a line is the numbers as
ast-grep-py gives them and a few texts cut from the file, put into a format made
once per *shape* of line (pattern, language, and which names are bound to how
many nodes): one format per line instead of one f-string per captured node.
:func:`plain_json_records` writes a search's lines this way, byte for byte the lines
:func:`~xcsh.structural.matches.records.json_record` writes
(``tests/structural/test_records.py``); on the 100,000 matches of a 4.6 MB file
it took 0.91 to 1.13 s where ``json_record`` took 1.04 to 1.34 s (CPU, three
runs each in one process).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from json.encoder import encode_basestring
from typing import TYPE_CHECKING

from ast_grep_py import SgNode

from xcsh.structural.base.matcher import Matcher

if TYPE_CHECKING:
    from xcsh.structural.rules.extras import RuleExtras

CAPTURE = (
    '{"text":%s,"range":{"byteOffset":{"start":%d,"end":%d},'
    '"start":{"line":%d,"column":%d},"end":{"line":%d,"column":%d}}}'
)
"""A node's ``{text, range}`` object: its text (JSON-quoted), then its six numbers."""
HEAD = CAPTURE[:-1] + ',"file":'
"""A line up to its file's name: the matched text, then the match's six numbers."""


def literal(text: str) -> str:
    """``text`` as a literal part of a ``%`` format."""
    return text.replace("%", "%%")


def bound_format(pattern: Matcher, singles: Sequence[bool], counts: Sequence[int]) -> str:
    """The ``metaVariables`` member for these captures, or ``""`` when nothing is bound.

    ``singles``: whether each ``$`` name of ``pattern`` is bound; ``counts``: how many
    nodes each ``$$$`` name captured (-1: not bound, as the CLI leaves it out).
    """
    single = [
        f"{literal(encode_basestring(name))}:{CAPTURE}"
        for name, captured in zip(pattern.single, singles, strict=True)
        if captured
    ]
    multi = [
        f"{literal(encode_basestring(name))}:[{','.join([CAPTURE] * count)}]"
        for name, count in zip(pattern.multi, counts, strict=True)
        if count >= 0
    ]
    if not (single or multi):  # the CLI omits it when nothing is bound
        return ""
    return (
        f',"metaVariables":{{"single":{{{",".join(single)}}},'
        f'"multi":{{{",".join(multi)}}},"transformed":{{}}}}'
    )


def plain_json_records(
    found: Sequence[tuple[SgNode, Matcher, RuleExtras | None, str]], text: str, quoted: str
) -> Iterator[str]:
    """The line of each ``(node, pattern, extras, language display name)`` of an ASCII file.

    The patterns are plain ones (their extras ``None``: no YAML rule); ``quoted``
    is the file's name, JSON-quoted.
    """
    formats: dict[tuple[int, str, tuple[bool, ...], tuple[int, ...]], str] = {}
    find, rfind, size = text.find, text.rfind, len(text)
    quote = encode_basestring
    for node, pattern, _, display in found:
        rng = node.range()
        head, tail = rng.start, rng.end
        start, end = head.index, tail.index
        line_start = rfind("\n", 0, start) + 1
        line_end = find("\n", end)
        if line_end < 0:
            line_end = size
        values: list[object] = [
            quote(text[start:end]),
            start,
            end,
            head.line,
            head.column,
            tail.line,
            tail.column,
            quote(text[line_start:line_end]),
            start - line_start,
            line_end - end,
        ]
        # a match on one line holds its captures on that line: no position objects
        on_line = (head.line, line_start) if head.line == tail.line else None
        singles: list[bool] = []
        for name in pattern.single:
            captured = node.get_match(name)
            singles.append(captured is not None)
            if captured is not None:
                _capture_values(captured, text, values, on_line)
        counts: list[int] = []
        for name in pattern.multi:
            nodes = node.get_multiple_matches(name)
            bound = bool(nodes) or pattern.multi_bound(node, name)
            counts.append(len(nodes) if bound else -1)
            for captured in nodes:
                _capture_values(captured, text, values, on_line)
        key = (id(pattern), display, tuple(singles), tuple(counts))
        form = formats.get(key)
        if form is None:
            form = formats[key] = (
                f'{HEAD}{literal(quoted)},"lines":%s,'
                '"charCount":{"leading":%d,"trailing":%d},'
                f'"language":{literal(encode_basestring(display))}'
                f"{bound_format(pattern, singles, counts)}}}\n"
            )
        yield form % tuple(values)


def _capture_values(
    node: SgNode, text: str, values: list[object], on_line: tuple[int, int] | None
) -> None:
    """Append a captured node's text (JSON-quoted) and six numbers to ``values``.

    ``on_line``: ``(line, where it starts)`` when the match lies on one line, so the
    node does too: its columns are then its offsets from the line's start, read from
    one call (its edit's offsets) instead of its range's two position objects.
    """
    if on_line is not None:
        line, line_start = on_line
        edit = node.replace("")
        first, last = edit.start_pos, edit.end_pos
        values += (
            encode_basestring(text[first:last]),
            first,
            last,
            line,
            first - line_start,
            line,
            last - line_start,
        )
        return
    rng = node.range()
    head, tail = rng.start, rng.end
    first, last = head.index, tail.index
    values += (
        encode_basestring(text[first:last]),
        first,
        last,
        head.line,
        head.column,
        tail.line,
        tail.column,
    )


__all__ = ["plain_json_records"]
