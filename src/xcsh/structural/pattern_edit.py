"""One change of a ``-p``/``-r`` rewrite, built in one pass over its matched node.

A file of 100,000 matches makes 100,000 changes, so each costs what it must:
the match's range is read once, each captured node is fetched and its range
read once, and from those the replacement text and the
:class:`~xcsh.structural.results.Replacement` are made. For output that mirrors
``ast-grep run -r --json`` the positions of the match and its captures are kept
as numbers (:class:`PatternRecords`), and each JSON line is written from them
only when it is printed: the line
:func:`~xcsh.structural.records.json_record` renders for the same node, byte
for byte (the tests compare both with the ``ast-grep`` binary).

YAML rules (fixes that widen their range, transforms, labels) take the general
path in :mod:`xcsh.structural.scan_edit`."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring

from ast_grep_py import SgNode

from xcsh.structural.matcher import Matcher
from xcsh.structural.records import Offsets, line_bounds
from xcsh.structural.results import Replacement
from xcsh.structural.rewrite import Template, TemplateVar, capture_key, expand_template

_new_tuple = tuple.__new__


@dataclass(kw_only=True)
class PatternRecords:
    """The JSON lines of one file's pattern changes, kept as numbers until printed.

    A line of ``ast-grep run -r --json`` is about a kilobyte, mostly positions
    (each captured node has six); 100,000 of them held as text would outweigh
    the syntax tree. Here each change keeps its match's and its captures'
    positions in one flat array (8 bytes a number) and :meth:`render` writes its
    line when it is printed, byte for byte the line
    :func:`~xcsh.structural.records.json_record` renders for the node.

    Attributes:
        text: the file's text (code points; the lines and captured texts are cut from it).
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

    def add(self, pattern: Matcher, language: str) -> int:
        """The entry of a new op: its pattern, and its language's display name."""
        self.ops.append((pattern, encode_basestring(language)))
        return len(self.ops) - 1

    def render(self, change: Replacement) -> str:
        """The line of ``change`` (line break included)."""
        numbers, text = self.numbers, self.text
        at = change.record_at
        entry, start, end, first_line, first_column, last_line, last_column = numbers[at : at + 7]
        at += 7
        pattern, language = self.ops[entry]
        singles = []
        for name in pattern.single:
            if numbers[at]:
                shown = self._captures(at + 1, 1)
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
            multis.append(f"{encode_basestring(name)}:[{self._captures(at, count)}]")
            at += 6 * count
        line_start, line_end = line_bounds(text, start, end)
        bound = (
            f',"metaVariables":{{"single":{{{",".join(singles)}}},'
            f'"multi":{{{",".join(multis)}}},"transformed":{{}}}}'
            if singles or multis  # the CLI omits it when nothing is bound
            else ""
        )
        where = self._range(start, end, first_line, first_column, last_line, last_column)
        return (
            f'{{"text":{encode_basestring(change.old_text)},"range":{where},'
            f'"file":{self.quoted_file},'
            f'"lines":{encode_basestring(text[line_start:line_end])},'
            f'"charCount":{{"leading":{start - line_start},"trailing":{line_end - end}}},'
            f'"replacement":{encode_basestring(change.new_text)},'
            f'"replacementOffsets":{{"start":{change.start_byte},"end":{change.end_byte}}},'
            f'"language":{language}{bound}}}\n'
        )

    def _range(
        self, start: int, end: int, first_line: int, first_column: int, line: int, column: int
    ) -> str:
        """The CLI's ``range`` object."""
        offsets = self.offsets
        low, high = (
            (start, end) if offsets.ascii else (offsets.byte_at(start), offsets.byte_at(end))
        )
        return (
            f'{{"byteOffset":{{"start":{low},"end":{high}}},'
            f'"start":{{"line":{first_line},"column":{first_column}}},'
            f'"end":{{"line":{line},"column":{column}}}}}'
        )

    def _captures(self, at: int, count: int) -> str:
        """``count`` captured nodes' ``{text, range}`` objects, from position ``at`` of
        :attr:`numbers`, joined by commas (the hot loop of printing: five captures a
        match are 500,000 objects in a big file)."""
        numbers, text, offsets = self.numbers, self.text, self.offsets
        ascii_text = offsets.ascii
        out = []
        sixes = iter(numbers[at : at + 6 * count])
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


@dataclass(frozen=True, kw_only=True)
class PatternChanges:
    """What every change of one op in one file shares: the file's text, its line ending
    and byte offsets, the op's pattern and template, and where the changes' JSON lines
    are kept (``records``, ``None``: none are made) under the op's ``entry``."""

    text: str
    newline: str
    offsets: Offsets
    pattern: Matcher
    template: Template
    records: PatternRecords | None = None
    entry: int = 0
    indents: dict[str, str] = field(default_factory=dict)

    def change(self, node: SgNode) -> tuple[int, int, Replacement]:
        """``(start, end, change)`` of the match ``node``: its code-point range and its
        replacement (with the numbers of its JSON line in :attr:`records`)."""
        text, pattern, records = self.text, self.pattern, self.records
        rng = node.range()
        head, tail = rng.start, rng.end
        start, end = head.index, tail.index
        record_at = -1
        numbers: array[int] | None = None
        if records is not None:
            numbers = records.numbers
            record_at = len(numbers)
            numbers.extend((self.entry, start, end, head.line, head.column, tail.line, tail.column))
        # each captured name: (first code point, last code point) or None
        spans: dict[str, tuple[int, int] | None] = {}
        for name in pattern.single if numbers is not None else self._names(multi=False):
            captured = node.get_match(name)
            if captured is None:
                spans[name] = None
                if numbers is not None:
                    numbers.append(0)
                continue
            if numbers is not None:
                numbers.append(1)
                spans[name] = _numbers((captured,), numbers)
            else:
                one = captured.range()
                spans[name] = (one.start.index, one.end.index)
        for name in pattern.multi if numbers is not None else self._names(multi=True):
            nodes = node.get_multiple_matches(name)
            key = f"$$${name}"
            if numbers is not None:
                bound = bool(nodes) or pattern.multi_bound(node, name)
                numbers.append(len(nodes) if bound else -1)
                spans[key] = _numbers(nodes, numbers)
            elif nodes:
                spans[key] = (nodes[0].range().start.index, nodes[-1].range().end.index)
            else:
                spans[key] = None
        values: dict[str, tuple[int, int] | str | None] = {}
        for var in self.template.variables:
            key = capture_key(var)
            values[key] = spans[key] if key in spans else capture_spans(node, var)
        new = self._one_line(values)
        if new is None:
            new = expand_template(self.template, text, start, values, self.newline)
        offsets = self.offsets
        match_start, match_end = (
            (start, end) if offsets.ascii else (offsets.byte(head), offsets.byte(tail))
        )
        line_start = text.rfind("\n", 0, start) + 1
        before = text[line_start:start]
        indent = before[: len(before) - len(before.lstrip(" \t"))]
        indent = self.indents.setdefault(indent, indent)  # one string for each indentation
        fields = (
            text[start:end],
            new,
            head.line,
            head.column,
            match_start,
            match_end,
            head.line,
            tail.line,
            match_start,
            match_end,
            indent,
            "",
            record_at,
        )
        return start, end, _new_tuple(Replacement, fields)

    def _one_line(self, values: dict[str, tuple[int, int] | str | None]) -> str | None:
        """The replacement when neither the template nor a captured text holds a line
        break: the captured texts put in as they are, with nothing to re-indent (what
        :func:`~xcsh.structural.rewrite.expand_template` makes of it); else ``None``."""
        fragments = self.template.fragments
        if self.multi_line:
            return None
        text = self.text
        parts = [fragments[0]]
        for var, fragment in zip(self.template.variables, fragments[1:], strict=True):
            span = values[capture_key(var)]
            if span is not None:
                if isinstance(span, str):
                    return None
                value = text[span[0] : span[1]]
                if "\n" in value:
                    return None
                parts.append(value)
            parts.append(fragment)
        return "".join(parts)

    @cached_property
    def multi_line(self) -> bool:
        """Whether the template itself holds a line break."""
        return any("\n" in fragment for fragment in self.template.fragments)

    def _names(self, *, multi: bool) -> tuple[str, ...]:
        """The names of the template's ``$$$`` (``multi``) or ``$`` metavariables."""
        return tuple(v.name for v in self.template.variables if v.multi == multi)


def _numbers(nodes: Sequence[SgNode], numbers: array[int]) -> tuple[int, int] | None:
    """Append the six numbers of each of ``nodes`` (the hot loop: five captures a match
    are 500,000 in a big file; each node's range is read once); where they start and
    end (code points), or ``None`` for no node."""
    first = -1
    last = 0
    extend = numbers.extend
    for node in nodes:
        rng = node.range()
        start, end = rng.start, rng.end
        low, last = start.index, end.index
        if first < 0:
            first = low
        extend((low, last, start.line, start.column, end.line, end.column))
    return None if first < 0 else (first, last)


def capture_spans(node: SgNode, var: TemplateVar) -> tuple[int, int] | None:
    """What ``var`` captured in the match ``node`` when the pattern does not name it
    alike (``$A`` where the pattern binds ``$$$A``): as
    :func:`xcsh.structural.rules.evaluate.capture_spans` reads it."""
    if var.multi:
        nodes = node.get_multiple_matches(var.name)
        return (nodes[0].range().start.index, nodes[-1].range().end.index) if nodes else None
    captured = node.get_match(var.name)
    return None if captured is None else (captured.range().start.index, captured.range().end.index)


__all__ = ["PatternChanges", "PatternRecords"]
