"""Match records as ``xcsh ast-grep`` prints them, rendered straight from the matched nodes.

A search for a command's output does not build :class:`~xcsh.structural.base.results.Match`
objects: each matched node becomes its output text at once (one JSON line of
``ast-grep run --json=stream``, or the ``path:LINE:COL:line`` text lines), so a
file holding 100,000 matches with 500,000 captures costs one string per match
and no object per capture. :meth:`Match.to_cli_json
<xcsh.structural.base.results.Match.to_cli_json>` is the same JSON object as a dict;
the two are kept identical by the tests.

Positions come from ast-grep-py in code points; UTF-8 byte offsets are the
code-point offset itself in an ASCII file, and otherwise come from
:class:`Offsets`, a table built in one pass over the file.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING

from ast_grep_py import Pos, SgNode

from xcsh.core.safe import visible_line
from xcsh.fs import detect_newline
from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import Position, RuleReport, Span
from xcsh.structural.matches.json_lines import plain_json_records
from xcsh.structural.pattern.rewrite import expand_template

if TYPE_CHECKING:
    from xcsh.structural.rules.extras import RuleExtras

_BLOCK = 256
"""Code points per entry of a non-ASCII file's byte-offset table."""
_NEWLINE = re.compile("\n")
_BLANKS = re.compile("[ \t]*")


def bounds(node: SgNode) -> tuple[int, int]:
    """``node``'s start and end as code-point offsets into its text, in one call.

    An edit's positions are the node's offsets as they are; ``node.range()``
    also finds each position's column by walking its line from the start, so
    reading the matches of one long line through it is quadratic.
    """
    edit = node.replace("")
    return edit.start_pos, edit.end_pos


class Offsets:
    """Where nodes are in one file's text: code points to UTF-8 bytes, lines and columns.

    Byte offsets are free for an ASCII file. Otherwise the first call builds, in
    one pass, the byte offset of every 256th code point; a lookup then encodes at
    most 255 code points. Lines and columns (:meth:`locate`) come from the text's
    line starts, listed once, by bisection, not from ``node.range()``, which walks
    the line for each column. So a file's cost does not grow with its matches
    times its line length (a one-line file of 80,000 matches stays linear).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._table: list[int] = []
        self._line_starts: list[int] = []

    def locate(self, node: SgNode) -> tuple[int, int, int, int, int, int]:
        r"""Where ``node`` is, as ``range()`` says it, read in time independent of line length.

        Returns:
            ``(start, end, line, column, end_line, end_column)``: code-point offsets
            into the text, then the 0-based line and code-point column of the start
            and of the end (lines are split at ``\n`` alone, as ast-grep splits them).
        """
        start, end = bounds(node)
        starts = self._line_starts
        if not starts:
            starts.append(0)
            starts.extend(found.end() for found in _NEWLINE.finditer(self.text))
        line = bisect_right(starts, start) - 1
        end_line = line
        if line + 1 < len(starts) and end >= starts[line + 1]:
            end_line = bisect_right(starts, end) - 1
        return start, end, line, start - starts[line], end_line, end - starts[end_line]

    def byte(self, pos: Pos) -> int:
        """The UTF-8 byte offset of ``pos``."""
        return pos.index if self.ascii else self.byte_at(pos.index)

    def byte_at(self, index: int) -> int:
        """The UTF-8 byte offset of code point ``index``."""
        if self.ascii:
            return index
        text = self.text
        if not self._table:
            table = self._table
            byte = 0
            for start in range(0, len(text) + 1, _BLOCK):
                table.append(byte)
                byte += len(text[start : start + _BLOCK].encode("utf-8", "surrogatepass"))
        base = index - index % _BLOCK
        return self._table[index // _BLOCK] + len(text[base:index].encode("utf-8", "surrogatepass"))

    def span(self, node: SgNode) -> Span:
        """Where ``node`` is, as a :class:`~xcsh.structural.base.results.Span`."""
        return self.span_of(node, node)

    def span_of(self, first: SgNode, last: SgNode) -> Span:
        """Span from the start of ``first`` to the end of ``last``.

        The span is a :class:`~xcsh.structural.base.results.Span`.
        """
        start, _, line, column, _, _ = self.locate(first)
        _, end, _, _, end_line, end_column = self.locate(last)
        return Span(
            start_byte=self.byte_at(start),
            end_byte=self.byte_at(end),
            start=Position(line=line, column=column),
            end=Position(line=end_line, column=end_column),
        )


def indent_before(text: str, start: int, column: int) -> str:
    """The spaces and tabs starting the line of code point ``start`` (at ``column``), to ``start``.

    Read from the line's start: the line before ``start`` is never copied nor scanned.
    """
    found = _BLANKS.match(text, start - column, start)
    return found.group() if found is not None else ""


def line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The code-point bounds of the whole lines holding ``text[start:end]`` (no final break)."""
    line_end = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if line_end < 0 else line_end


def secondary_nodes(node: SgNode) -> list[SgNode]:
    """List the nodes a YAML rule's relational parts matched for ``node``.

    ast-grep keeps them under the ``secondary`` label; no metavariable can have that
    lowercase name.
    """
    return node.get_multiple_matches("secondary")


def rule_parts(
    node: SgNode, rule: RuleExtras, text: str, offsets: Offsets, *, fix: bool = True
) -> tuple[dict[str, str], tuple[str, int, int] | None, RuleReport]:
    """What a YAML rule adds to its match: ``(transformed, fix, report)``.

    ``transformed`` holds the transforms' values by name; ``fix`` is ``(new text,
    start byte, end byte)`` of the range the rule's ``fix`` replaces (``None``
    without a fix, or when ``fix`` is false); ``report`` the id, severity,
    message (metavariables filled in) and note.
    """
    from xcsh.structural.rules.evaluate import (  # loaded only when a search runs rules
        interpolate,
        transformed_values,
    )

    transformed = transformed_values(node, rule, text)
    replaced: tuple[str, int, int] | None = None
    if rule.fix is not None and fix:
        new, start, end = match_fix(node, rule, text, transformed)
        replaced = (new, offsets.byte_at(start), offsets.byte_at(end))
    report = RuleReport(
        id=rule.id,
        severity=rule.severity,
        message=interpolate(rule, node, text, transformed),
        note=rule.note,
    )
    return transformed, replaced, report


def match_fix(
    node: SgNode, rule: RuleExtras, text: str, transformed: dict[str, str]
) -> tuple[str, int, int]:
    """Build the fix of ``rule`` (which has one) for its match ``node``.

    Returns the new text and the code-point range of ``text`` it replaces (wider than the
    match with ``expandStart`` or ``expandEnd``).
    """
    from xcsh.structural.rules.evaluate import capture_spans, expanded_range, rule_template

    first, last = expanded_range(node, rule.fix)
    start = first.range().start.index
    values = capture_spans(node, rule_template(rule))
    values.update(transformed)
    new = expand_template(rule_template(rule), text, start, values, detect_newline(text))
    return new, start, last.range().end.index


@dataclass(frozen=True, kw_only=True)
class RecordFormat:
    """How a search's matches are printed, and under which file names.

    Attributes:
        json: one JSON object per match and line (the fields and order of
            ``ast-grep run --json=stream``); otherwise text: a rule's
            ``severity[id]: message`` line, then ``file:LINE:COL:line`` for the
            first line of the match and ``file:LINE-line`` for the others
            (1-based line and column, column in code points, no line break).
        root: the workspace folder the engine's file names are relative to;
            when given, names are printed relative to ``cwd`` instead (as
            ``ast-grep`` prints them), or absolute when ``absolute``.
        cwd: the folder names are printed relative to (with ``root``).
        absolute: print absolute names (the search path was given as one).
        layout: the text's layout: ``"lines"`` (the lines above), ``"prefix"`` or
            ``"heading"`` (``ast-grep run --heading never|always``), or ``"report"``
            (``ast-grep scan``'s report); see :mod:`xcsh.structural.matches.report`.
    """

    json: bool
    layout: str = "lines"
    root: str | None = None
    cwd: str = "."
    absolute: bool = False

    def name(self, file: str) -> str:
        """Show the workspace-relative ``file`` as a record prints it.

        In text it stays on one line, any control character in visible notation (a newline
        in a name must not forge a match line); in JSON it is as it is (JSON escapes it).
        """
        if self.root is not None:
            full = os.path.join(self.root, file)
            file = (
                full
                if self.absolute and not os.path.isabs(file)
                else os.path.relpath(full, self.cwd)
            )
        return file if self.json else visible_line(file)


def render(
    form: RecordFormat,
    found: Sequence[tuple[SgNode, Matcher, RuleExtras | None, str]],
    text: str,
    offsets: Offsets,
    file: str,
) -> Iterator[str]:
    """One record per ``(node, matcher, rule's extras, language display name)`` of ``found``.

    The extras are what a YAML rule adds to its matches (``None`` for a pattern:
    :meth:`~xcsh.structural.matches.matching.Query.rule`).

    Each record is a complete piece of output, its final line break included.
    Nodes are handles into trees of ``text`` (or of a source with the same
    positions, for code embedded in HTML).
    """
    shown = form.name(file)
    if form.json:
        quoted = encode_basestring(shown)
        if offsets.ascii and all(extras is None for _, _, extras, _ in found):
            yield from plain_json_records(found, text, quoted)
            return
        languages: dict[str, str] = {}
        for node, pattern, extras, display in found:
            language = languages.get(display)
            if language is None:
                language = languages[display] = encode_basestring(display)
            yield json_record(node, pattern, text, offsets, quoted, language, extras=extras)
    elif form.layout == "lines":
        for node, _, extras, _ in found:
            yield _text_record(node, extras, text, offsets, shown)
    elif form.layout == "report":
        yield from _report(found, text, shown)
    else:
        from xcsh.structural.matches.report import run_text

        nodes = [node for node, _, _, _ in found]
        yield from run_text(nodes, text, shown, heading=form.layout == "heading")


def _report(
    found: Sequence[tuple[SgNode, Matcher, RuleExtras | None, str]], text: str, shown: str
) -> list[str]:
    """``ast-grep scan``'s report of one file's rule matches, one record per match."""
    from xcsh.structural.matches.report import rule_report
    from xcsh.structural.rules.evaluate import interpolate, transformed_values

    matched: list[tuple[SgNode, RuleExtras]] = []
    fixes: list[tuple[str, int, int] | None] = []
    messages: list[str] = []
    for node, _, rule, _ in found:
        assert rule is not None  # the report lays out rules' matches only
        transformed = transformed_values(node, rule, text)
        matched.append((node, rule))
        fixes.append(None if rule.fix is None else match_fix(node, rule, text, transformed))
        messages.append(interpolate(rule, node, text, transformed))
    return rule_report(matched, text, shown, fixes, messages)


def is_error_record(record: str, *, json: bool, report: bool = False) -> bool:
    """Tell whether ``record`` (rendered by :func:`render`) is a match of an ``error`` rule.

    In JSON the match's own text is escaped, so the unescaped field can only be the
    record's; a text record starts with ``severity[id]``, and in a ``report`` so does a
    diagnostic, while a fix's starts with the file's name and has the rule's line second
    (a diagnostic's second line is its frame).
    """
    if json:
        return '"severity":"error","note":' in record
    if report:
        lines = record.split("\n", 2)
        if len(lines) > 1 and lines[1].startswith(("error[", "warning[", "note[", "help[")):
            return lines[1].startswith("error[")
    return record.startswith("error[")


def located_json(where: tuple[int, int, int, int, int, int], offsets: Offsets) -> str:
    """The CLI's ``range`` object of a node :meth:`Offsets.locate` placed at ``where``."""
    start, end, line, column, end_line, end_column = where
    first, last = (start, end) if offsets.ascii else (offsets.byte_at(start), offsets.byte_at(end))
    return (
        f'{{"byteOffset":{{"start":{first},"end":{last}}},'
        f'"start":{{"line":{line},"column":{column}}},'
        f'"end":{{"line":{end_line},"column":{end_column}}}}}'
    )


def _positions_json(start: Pos, end: Pos, offsets: Offsets) -> str:
    if offsets.ascii:
        first, last = start.index, end.index
    else:
        first, last = offsets.byte_at(start.index), offsets.byte_at(end.index)
    return (
        f'{{"byteOffset":{{"start":{first},"end":{last}}},'
        f'"start":{{"line":{start.line},"column":{start.column}}},'
        f'"end":{{"line":{end.line},"column":{end.column}}}}}'
    )


def _captures_json(nodes: Sequence[SgNode], text: str, offsets: Offsets) -> list[str]:
    """Write the CLI's ``{text, range}`` JSON object of each of ``nodes``.

    This is the hot loop of a search with many captures: one ``range()`` call and one
    format per node.
    """
    out = []
    ascii_text = offsets.ascii
    locate = offsets.locate
    for node in nodes:
        first, last, line, column, end_line, end_column = locate(node)
        if ascii_text:
            low, high = first, last
        else:
            low, high = offsets.byte_at(first), offsets.byte_at(last)
        out.append(
            f'{{"text":{encode_basestring(text[first:last])},'
            f'"range":{{"byteOffset":{{"start":{low},"end":{high}}},'
            f'"start":{{"line":{line},"column":{column}}},'
            f'"end":{{"line":{end_line},"column":{end_column}}}}}}}'
        )
    return out


def json_record(
    node: SgNode,
    pattern: Matcher,
    text: str,
    offsets: Offsets,
    file: str,
    language: str,
    replacement: tuple[str, int, int] | None = None,
    *,
    extras: RuleExtras | None = None,
) -> str:
    """``node``'s line of ``ast-grep run --json=stream`` (line break included).

    ``file`` and ``language`` come already JSON-quoted (``encode_basestring``).
    With ``replacement`` (``(new text, start byte, end byte)``), the line is the
    one of ``run -r ... --json``: its ``replacement`` and ``replacementOffsets``
    are those given (a rule's own fix is then not computed). ``extras`` is what
    the YAML rule behind ``pattern`` adds (``None`` for a pattern).
    """
    located = offsets.locate(node)
    start, end = located[0], located[1]
    line_start, line_end = line_bounds(text, start, end)
    matched = encode_basestring(text[start:end])
    where = located_json(located, offsets)
    parts = [
        f'{{"text":{matched},"range":{where},"file":{file},'
        f'"lines":{encode_basestring(text[line_start:line_end])},'
        f'"charCount":{{"leading":{start - line_start},"trailing":{line_end - end}}}'
    ]
    transformed: dict[str, str] = {}
    report: RuleReport | None = None
    secondary: list[str] = []
    fix = replacement
    if extras is not None:
        transformed, own_fix, report = rule_parts(
            node, extras, text, offsets, fix=replacement is None
        )
        fix = fix or own_fix
        secondary = _captures_json(secondary_nodes(node), text, offsets)
    if fix is not None:
        parts.append(
            f',"replacement":{encode_basestring(fix[0])},'
            f'"replacementOffsets":{{"start":{fix[1]},"end":{fix[2]}}}'
        )
    parts.append(f',"language":{language}')
    parts.append(_meta_json(node, pattern, (text, offsets), secondary, transformed))
    if report is not None and extras is not None:
        labels = (matched, where, secondary)
        parts.append(_report_json(report, node, extras, (text, offsets), labels))
    parts.append("}\n")
    return "".join(parts)


def _meta_json(
    node: SgNode,
    pattern: Matcher,
    source: tuple[str, Offsets],
    secondary: list[str],
    transformed: dict[str, str],
) -> str:
    """Write the ``metaVariables`` member of a match's JSON line.

    ``""`` when nothing is bound, as the CLI leaves it out; ``secondary`` are a rule's
    secondary nodes, as JSON.
    """
    text, offsets = source
    single = []
    for name in pattern.single:
        captured = node.get_match(name)
        if captured is not None:
            single.append(
                f"{encode_basestring(name)}:{_captures_json([captured], text, offsets)[0]}"
            )
    multi = []
    for name in pattern.multi:
        nodes = node.get_multiple_matches(name)
        if not nodes and not pattern.multi_bound(node, name):
            continue  # the CLI does not bind it
        multi.append(
            f"{encode_basestring(name)}:[{','.join(_captures_json(nodes, text, offsets))}]"
        )
    if secondary:
        multi.append(f'"secondary":[{",".join(secondary)}]')
    if not (single or multi or transformed):  # the CLI omits it when nothing is bound
        return ""
    values = ",".join(
        f"{encode_basestring(name)}:{encode_basestring(value)}"
        for name, value in transformed.items()
    )
    return (
        f',"metaVariables":{{"single":{{{",".join(single)}}},'
        f'"multi":{{{",".join(multi)}}},"transformed":{{{values}}}}}'
    )


def _report_json(
    report: RuleReport,
    node: SgNode,
    rule: RuleExtras,
    source: tuple[str, Offsets],
    labels: tuple[str, str, list[str]],
) -> str:
    """Write the rule's members of a match's JSON line.

    Those are id, severity, note, message and labels (``labels``: the matched text and
    range as JSON, and the secondary nodes' JSON).
    """
    text, offsets = source
    matched, where, secondary = labels
    note = "null" if report.note is None else encode_basestring(report.note)
    parts = [
        f',"ruleId":{encode_basestring(report.id)},'
        f'"severity":{encode_basestring(report.severity)},"note":{note},'
        f'"message":{encode_basestring(report.message)},'
        f'"labels":['
    ]
    if rule.labels is None:
        parts.append(f'{{"text":{matched},"range":{where},"style":"primary"}}')
        parts.extend(f',{label[:-1]},"style":"secondary"}}' for label in secondary)
    else:
        parts.append(",".join(_labels_json(node, rule, text, offsets)))
    parts.append("]")
    return "".join(parts)


def _labels_json(node: SgNode, rule: RuleExtras, text: str, offsets: Offsets) -> Iterator[str]:
    """The CLI's JSON objects of a rule's ``labels:`` on the match ``node``."""
    from xcsh.structural.rules.labels import label_nodes

    for label in label_nodes(node, rule.labels):
        start, end = label.first.range().start, label.last.range().end
        message = "" if label.message is None else f',"message":{encode_basestring(label.message)}'
        style = "primary" if label.primary else "secondary"
        yield (
            f'{{"text":{encode_basestring(text[start.index : end.index])},'
            f'"range":{_positions_json(start, end, offsets)}{message},"style":"{style}"}}'
        )


def _text_record(
    node: SgNode, rule: RuleExtras | None, text: str, offsets: Offsets, file: str
) -> str:
    first, end, line, column, _, _ = offsets.locate(node)
    line_start, line_end = line_bounds(text, first, end)
    lines = text[line_start:line_end]
    head = ""
    if rule is not None:
        message = rule.message
        if rule.message_template is not None:
            from xcsh.structural.rules.evaluate import interpolate, transformed_values

            transformed = transformed_values(node, rule, text)
            message = interpolate(rule, node, text, transformed)
        label = f"{rule.severity}[{rule.id}]"
        head = f"{label}: {message}\n" if message else f"{label}\n"
    number = line + 1
    if "\n" not in lines:
        return f"{head}{file}:{number}:{column + 1}:{lines.removesuffix(chr(13))}\n"
    rows = lines.split("\n")
    out = [f"{head}{file}:{number}:{column + 1}:{rows[0].removesuffix(chr(13))}\n"]
    out.extend(
        f"{file}:{number + index}-{row.removesuffix(chr(13))}\n"
        for index, row in enumerate(rows[1:], 1)
    )
    return "".join(out)
