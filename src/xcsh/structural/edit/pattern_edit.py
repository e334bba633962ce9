"""One change of a ``-p``/``-r`` rewrite, built in one pass over its matched node.

A file of 100,000 matches makes 100,000 changes, so each costs what it must:
the match's range is read once, each captured node is fetched and its range
read once, and from those the replacement text and the
:class:`~xcsh.structural.base.results.Replacement` are made. For output that mirrors
``ast-grep run -r --json`` the positions of the match and its captures are kept
as numbers (:class:`~xcsh.structural.edit.pattern_records.PatternRecords`), and each
JSON line is written from them only when it is printed.

YAML rules (fixes that widen their range, transforms, labels) take the general
path in :mod:`xcsh.structural.edit.scan_edit`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ast_grep_py import SgNode

from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import Replacement
from xcsh.structural.edit.pattern_records import PatternRecords
from xcsh.structural.matches.records import Offsets, bounds, indent_before
from xcsh.structural.pattern.rewrite import Template, TemplateVar, capture_key, expand_template

_new_tuple = tuple.__new__
_STAGED = 1 << 14
"""How many numbers :attr:`PatternRecords.staged` takes before they move to the array."""


@dataclass(frozen=True, kw_only=True)
class PatternChanges:
    """What every change of one op in one file shares.

    What every change of one op in one file shares: the file's text, its line ending
    and byte offsets, the op's pattern and template, and where the changes' JSON lines
    are kept (``records``, ``None``: none are made) under the op's ``entry``.
    """

    text: str
    newline: str
    offsets: Offsets
    pattern: Matcher
    template: Template
    records: PatternRecords | None = None
    entry: int = 0
    indents: dict[str, str] = field(default_factory=dict)

    def change(self, node: SgNode) -> tuple[int, int, Replacement]:
        """The range and the change of the match ``node``.

        ``(start, end, change)`` of the match ``node``: its code-point range and its
        replacement (with the numbers of its JSON line in :attr:`records`).
        """
        text = self.text
        offsets = self.offsets
        # not node.range(), which walks the line for each column (quadratic on one long line)
        start, end, line, column, last_line, last_column = offsets.locate(node)
        records = self.records
        if records is None:
            record_at = -1
            spans = self._spans(node)
        else:
            staged = records.staged
            record_at = len(records.numbers) + len(staged)
            staged.extend((self.entry, start, end, line, column, last_line, last_column))
            # a match on one line holds its captures on that line: no line to look up
            on_line = (line, start - column) if line == last_line else None
            spans = self._recorded(node, staged, on_line)
            if len(staged) >= _STAGED:
                records.settle()
        new = self._one_line(spans)
        if new is None:
            values: dict[str, tuple[int, int] | str | None] = {
                key: spans[at] for key, at in self._keys
            }
            for var in self._unnamed:
                values[capture_key(var)] = capture_spans(node, var)
            new = expand_template(self.template, text, start, values, self.newline)
        if offsets.ascii:
            match_start, match_end = start, end
        else:
            match_start, match_end = offsets.byte_at(start), offsets.byte_at(end)
        indent = indent_before(text, start, column)
        indent = self.indents.setdefault(indent, indent)  # one string for each indentation
        fields = (
            text[start:end],
            new,
            line,
            column,
            match_start,
            match_end,
            line,
            last_line,
            match_start,
            match_end,
            indent,
            "",
            record_at,
        )
        return start, end, _new_tuple(Replacement, fields)

    def _recorded(
        self, node: SgNode, numbers: list[int], on_line: tuple[int, int] | None
    ) -> list[tuple[int, int] | None]:
        """Read the pattern's captures in ``node``, recording their numbers.

        The spans of the pattern's captures in ``node`` (the ``$`` names', then the
        ``$$$`` names'), each captured node's numbers appended to ``numbers``;
        ``on_line``: ``(line, where it starts)`` when ``node`` lies on one line.
        """
        spans: list[tuple[int, int] | None] = []
        pattern = self.pattern
        locate = self.offsets.locate
        for name in pattern.single:
            captured = node.get_match(name)
            if captured is None:
                numbers.append(0)
                spans.append(None)
                continue
            where = locate(captured)
            numbers.append(1)
            numbers.extend(where)
            spans.append((where[0], where[1]))
        for name in pattern.multi:
            nodes = node.get_multiple_matches(name)
            if nodes:
                numbers.append(len(nodes))
                if on_line is None:
                    spans.append(_numbers(nodes, numbers, locate))
                else:
                    spans.append(_numbers_on_line(nodes, numbers, on_line))
            else:
                numbers.append(0 if pattern.multi_bound(node, name) else -1)
                spans.append(None)
        return spans

    def _spans(self, node: SgNode) -> list[tuple[int, int] | None]:
        """Read the captures the template needs from ``node``.

        The spans of the pattern's captures the template names, in :attr:`_captured`
        order (a name the template leaves out is not looked up).
        """
        spans: list[tuple[int, int] | None] = []
        for name, multi in self._captured:
            if multi:
                nodes = node.get_multiple_matches(name)
                spans.append((bounds(nodes[0])[0], bounds(nodes[-1])[1]) if nodes else None)
                continue
            captured = node.get_match(name)
            spans.append(None if captured is None else bounds(captured))
        return spans

    @cached_property
    def _captured(self) -> tuple[tuple[str, bool], ...]:
        """The captures :meth:`change` reads, as ``(name, multi)``.

        The captures :meth:`change` reads, as ``(name, multi)``: with records every
        name the pattern binds (``$`` then ``$$$``), else those the template names.
        """
        pattern = self.pattern
        if self.records is not None:
            return (*((n, False) for n in pattern.single), *((n, True) for n in pattern.multi))
        named = {(v.name, v.multi) for v in self.template.variables}
        bound = [*((n, False) for n in pattern.single), *((n, True) for n in pattern.multi)]
        return tuple(b for b in bound if b in named)

    @cached_property
    def _keys(self) -> tuple[tuple[str, int], ...]:
        """Where each template variable the pattern binds alike is read from.

        Each template variable the pattern binds alike: its key in
        :func:`~xcsh.structural.pattern.rewrite.expand_template`'s captures and its place
        in the spans :meth:`change` reads.
        """
        places = {(name, multi): i for i, (name, multi) in enumerate(self._captured)}
        return tuple(
            (capture_key(var), places[(var.name, var.multi)])
            for var in self.template.variables
            if (var.name, var.multi) in places
        )

    @cached_property
    def _unnamed(self) -> tuple[TemplateVar, ...]:
        """The template variables the pattern does not bind alike.

        The template variables the pattern does not bind alike (``$A`` where it binds
        ``$$$A``, or a name it does not have): read from the node when needed.
        """
        places = set(self._captured)
        return tuple(v for v in self.template.variables if (v.name, v.multi) not in places)

    @cached_property
    def _parts(self) -> tuple[tuple[int, str], ...] | None:
        """The template as the parts :meth:`_one_line` joins, or ``None``.

        The template as ``(span place, fragment after it)`` pairs after its first
        fragment, when :meth:`_one_line` can build every replacement from spans; else
        ``None`` (a line break in the template, or a variable not bound alike).
        """
        fragments = self.template.fragments
        if self._unnamed or any("\n" in fragment for fragment in fragments):
            return None
        return tuple(
            (at, fragment) for (_, at), fragment in zip(self._keys, fragments[1:], strict=True)
        )

    def _one_line(self, spans: list[tuple[int, int] | None]) -> str | None:
        """The replacement of a one-line template and captures, or ``None``.

        The replacement when neither the template nor a captured text holds a line
        break: the captured texts put in as they are, with nothing to re-indent (what
        :func:`~xcsh.structural.pattern.rewrite.expand_template` makes of it); else ``None``.
        """
        parts = self._parts
        if parts is None:
            return None
        text = self.text
        out = [self.template.fragments[0]]
        for at, fragment in parts:
            span = spans[at]
            if span is not None:
                value = text[span[0] : span[1]]
                if "\n" in value:
                    return None
                out.append(value)
            out.append(fragment)
        return "".join(out)


def _numbers(
    nodes: Sequence[SgNode],
    numbers: list[int],
    locate: Callable[[SgNode], tuple[int, int, int, int, int, int]],
) -> tuple[int, int]:
    """Append the six numbers of each of ``nodes``; their first start and last end.

    Append the six numbers of each of ``nodes`` (the hot loop: five captures a match
    are 500,000 in a big file; each node is placed once, by ``locate``:
    :meth:`~xcsh.structural.matches.records.Offsets.locate`); where they start and
    end (code points). ``nodes`` is not empty.
    """
    first = len(numbers)
    extend = numbers.extend
    for node in nodes:
        extend(locate(node))
    return numbers[first], numbers[-5]


def _numbers_on_line(
    nodes: Sequence[SgNode], numbers: list[int], on_line: tuple[int, int]
) -> tuple[int, int]:
    """:func:`_numbers` for nodes all on one line, ``(line, where it starts)``.

    Their lines are known and their columns are their offsets from the line's start,
    so each node costs one call (its edit's offsets) instead of a lookup of its line.
    """
    line, line_start = on_line
    first = len(numbers)
    extend = numbers.extend
    for node in nodes:
        edit = node.replace("")
        start, end = edit.start_pos, edit.end_pos
        extend((start, end, line, start - line_start, line, end - line_start))
    return numbers[first], numbers[-5]


def capture_spans(node: SgNode, var: TemplateVar) -> tuple[int, int] | None:
    """What ``var`` captured in the match ``node``, read from the node.

    What ``var`` captured in the match ``node`` when the pattern does not name it
    alike (``$A`` where the pattern binds ``$$$A``): as
    :func:`xcsh.structural.rules.evaluate.capture_spans` reads it.
    """
    if var.multi:
        nodes = node.get_multiple_matches(var.name)
        return (bounds(nodes[0])[0], bounds(nodes[-1])[1]) if nodes else None
    captured = node.get_match(var.name)
    return None if captured is None else bounds(captured)


__all__ = ["PatternChanges"]
