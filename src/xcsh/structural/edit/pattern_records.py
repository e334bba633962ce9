"""The JSON lines of a ``-p``/``-r`` rewrite, kept as numbers until they are printed.

:class:`PatternRecords` holds, for every change of one file, the positions of its
match and captures in one flat array, and writes each change's line of
``ast-grep run -r --json=stream`` when it is printed: byte for byte the line
:func:`~xcsh.structural.matches.records.json_record` renders for the same node
(the tests compare both with the ``ast-grep`` binary). Once a worker process has
sent it back it holds no text (:meth:`PatternRecords.detach`): the lines are cut
from the bytes the caller read again.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring

from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import Replacement
from xcsh.structural.matches.records import Offsets, line_bounds


@dataclass(kw_only=True)
class PatternRecords:
    """The JSON lines of one file's pattern changes, kept as numbers until printed.

    A line of ``ast-grep run -r --json`` is about a kilobyte, mostly positions
    (each captured node has six); 100,000 of them held as text would outweigh
    the syntax tree. Here each change keeps its match's and its captures'
    positions in one flat array (4 bytes a number) and :meth:`lines` writes the
    lines when they are printed.

    Attributes:
        text: the file's text (code points; the lines and captured texts are cut from
            it); ``""`` once :meth:`detach` dropped it (a worker process's edit comes
            back without the file: the lines are then cut from the bytes the caller
            read again).
        offsets: its byte offsets.
        quoted_file: the file's name, JSON-quoted.
        ops: for each op entry, its pattern and JSON-quoted language name.
        numbers: per change: the op entry, the match's start and end (code points),
            start line and column, end line and column (32-bit: tree-sitter's own
            positions are); then per ``$`` name of the
            pattern 0 (unbound) or 1 and the capture's six numbers (the same as the
            match's); then per ``$$$`` name -1 (unbound) or how many nodes it
            captured, and six numbers each.
    """

    text: str
    offsets: Offsets
    quoted_file: str
    ops: list[tuple[Matcher, str]] = field(default_factory=list)
    numbers: array[int] = field(default_factory=lambda: array("i"))
    staged: list[int] = field(default_factory=list)
    """Numbers of the latest changes, not yet moved to :attr:`numbers` (a list takes
    them several times faster than an array; :meth:`settle` moves them)."""
    detached: bool = False
    """:attr:`text` and :attr:`offsets` were dropped by :meth:`detach`."""

    def add(self, pattern: Matcher, language: str) -> int:
        """The entry of a new op: its pattern, and its language's display name."""
        self.ops.append((pattern, encode_basestring(language)))
        return len(self.ops) - 1

    def settle(self) -> None:
        """Move the :attr:`staged` numbers to :attr:`numbers`."""
        self.numbers.fromlist(self.staged)
        self.staged.clear()

    def detach(self) -> None:
        """Drop the file's text, which the bytes read again give back (see :meth:`lines`)."""
        self.settle()
        self.text = ""
        self.offsets = Offsets("")
        self.detached = True

    def _source(self, raw: bytes) -> tuple[str, Offsets]:
        """The file's text and offsets: kept, or decoded from ``raw`` after :meth:`detach`."""
        if not self.detached:
            return self.text, self.offsets
        text = raw.decode("utf-8")  # a BOM stays U+FEFF, as the text a scan reads
        return text, Offsets(text)

    def render(self, change: Replacement, raw: bytes = b"") -> str:
        """The line of ``change`` (line break included); ``raw``: as for :meth:`lines`."""
        return next(self.lines([change], raw))

    def lines(self, changes: Sequence[Replacement], raw: bytes = b"") -> Iterator[str]:
        """The line of each of ``changes`` (line breaks included), in their order.

        ``raw`` is the file's bytes, needed only after :meth:`detach`; the text is then
        decoded once for all the lines.
        """
        if self.staged:
            self.settle()
        text, offsets = self._source(raw)
        return (self._line(change, text, offsets) for change in changes)

    def _line(self, change: Replacement, text: str, offsets: Offsets) -> str:
        """The line of ``change``, cut from ``text`` (whose byte offsets are ``offsets``)."""
        numbers = self.numbers
        at = change.record_at
        entry, start, end, first_line, first_column, last_line, last_column = numbers[at : at + 7]
        at += 7
        pattern, language = self.ops[entry]
        singles = []
        for name in pattern.single:
            if numbers[at]:
                shown = self._captures(at + 1, 1, text, offsets)
                singles.append(f"{encode_basestring(name)}:{shown}")
                at += 7
            else:
                at += 1
        multis = []
        for name in pattern.multi:
            count = numbers[at]
            at += 1
            if count < 0:
                continue  # the CLI does not bind it
            multis.append(f"{encode_basestring(name)}:[{self._captures(at, count, text, offsets)}]")
            at += 6 * count
        line_start, line_end = line_bounds(text, start, end)
        bound = (
            f',"metaVariables":{{"single":{{{",".join(singles)}}},'
            f'"multi":{{{",".join(multis)}}},"transformed":{{}}}}'
            if singles or multis  # the CLI omits it when nothing is bound
            else ""
        )
        low, high = (
            (start, end) if offsets.ascii else (offsets.byte_at(start), offsets.byte_at(end))
        )
        return (
            f'{{"text":{encode_basestring(change.old_text)},'
            f'"range":{{"byteOffset":{{"start":{low},"end":{high}}},'
            f'"start":{{"line":{first_line},"column":{first_column}}},'
            f'"end":{{"line":{last_line},"column":{last_column}}}}},'
            f'"file":{self.quoted_file},'
            f'"lines":{encode_basestring(text[line_start:line_end])},'
            f'"charCount":{{"leading":{start - line_start},"trailing":{line_end - end}}},'
            f'"replacement":{encode_basestring(change.new_text)},'
            f'"replacementOffsets":{{"start":{change.start_byte},"end":{change.end_byte}}},'
            f'"language":{language}{bound}}}\n'
        )

    def _captures(self, at: int, count: int, text: str, offsets: Offsets) -> str:
        """Captured nodes' ``{text, range}`` objects, joined by commas.

        ``count`` captured nodes' ``{text, range}`` objects, from position ``at`` of
        :attr:`numbers`, joined by commas (the hot loop of printing: five captures a
        match are 500,000 objects in a big file).
        """
        ascii_text = offsets.ascii
        out = []
        sixes = iter(self.numbers[at : at + 6 * count])
        for start, end, first_line, first_column, line, column in zip(
            sixes, sixes, sixes, sixes, sixes, sixes, strict=True
        ):
            low, high = (
                (start, end) if ascii_text else (offsets.byte_at(start), offsets.byte_at(end))
            )
            out.append(
                f'{{"text":{encode_basestring(text[start:end])},'
                f'"range":{{"byteOffset":{{"start":{low},"end":{high}}},'
                f'"start":{{"line":{first_line},"column":{first_column}}},'
                f'"end":{{"line":{line},"column":{column}}}}}}}'
            )
        return ",".join(out)


__all__ = ["PatternRecords"]
