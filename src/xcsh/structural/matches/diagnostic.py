"""A rule's match drawn as ``ast-grep scan`` draws it: a framed diagnostic, plain text.

ast-grep draws a rule's match without a fix with the ``codespan-reporting`` crate's
"rich" style (no colour): a header ``error[id]: message``, the file and position,
the source lines the labels cover (a multi-line label drawn with ``╭``/``│``/``╰``,
a one-line one underlined with ``^`` for a primary label and ``-`` for a secondary
one, their messages beside or below), and the note after ``=``. This module draws
the same bytes from the same facts. Offsets are code-point offsets into the file's
text (the crate counts bytes; the drawing is the same).
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass, field

_TAB = 4
"""Columns per tab stop (the crate's default)."""


@dataclass(frozen=True, kw_only=True)
class Label:
    """A part of the file a diagnostic points at: ``start``/``end`` code-point offsets."""

    primary: bool
    start: int
    end: int
    message: str = ""


@dataclass(frozen=True)
class _Multi:
    """A multi-line label's part on one line.

    ``top`` is its first line (``at``: its start column), ``left`` a line in between,
    ``bottom`` its last line (``at``: its end column).
    """

    index: int
    primary: bool
    part: str
    at: int = 0
    message: str = ""


@dataclass
class _Line:
    number: int
    start: int
    end: int
    singles: list[tuple[bool, int, int, str]] = field(default_factory=list)
    multis: list[_Multi] = field(default_factory=list)
    shown: bool = False


def rust_lines(text: str) -> list[str]:
    r"""Split ``text`` into lines as Rust's ``str::lines`` does.

    Lines end at ``\n``, a ``\r`` before it is dropped, and there is no last empty line
    after a final line break.
    """
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if lines[-1] == "":
        lines.pop()
    return lines


def _width(char: str, column: int) -> int:
    if char == "\t":
        return _TAB - column % _TAB
    if unicodedata.combining(char) or unicodedata.category(char) in ("Cc", "Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _metrics(text: str) -> list[tuple[int, str, int]]:
    """``(index, char, display width)`` of each character of a line."""
    out = []
    column = 0
    for index, char in enumerate(text):
        width = _width(char, column)
        column += width
        out.append((index, char, width))
    return out


class _Source:
    """Line lookups on one file's text, as the crate's ``SimpleFile`` does them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(i + 1 for i, char in enumerate(text) if char == "\n")

    def line_index(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def line_range(self, index: int) -> tuple[int, int]:
        following = index + 1
        end = self.starts[following] if following < len(self.starts) else len(self.text)
        return self.starts[index], end

    def location(self, offset: int) -> tuple[int, int]:
        index = self.line_index(offset)
        start, end = self.line_range(index)
        return index + 1, min(offset, end) - start + 1


def render_diagnostic(
    *,
    severity: str,
    code: str,
    message: str,
    name: str,
    text: str,
    labels: list[Label],
    notes: list[str],
) -> str:
    """The diagnostic, as ``ast-grep scan --color never`` prints it (final blank line included).

    ``severity`` is the word of the header (``error``, ``warning``, ``note``, ``help``).
    """
    source = _Source(text)
    lines: dict[int, _Line] = {}
    padding = 0
    multis = 0
    locus: tuple[bool, int] | None = None

    def line(index: int) -> _Line:
        if index not in lines:
            start, end = source.line_range(index)
            lines[index] = _Line(number=index + 1, start=start, end=end)
        return lines[index]

    for label in labels:
        first, last = source.line_index(label.start), source.line_index(label.end)
        padding = max(padding, len(str(first + 1)), len(str(last + 1)))
        if locus is None or (label.primary, -label.start) > (locus[0], -locus[1]):
            locus = (label.primary, label.start)
        if first == last:
            row = line(first)
            lo = label.start - row.start
            hi = max(label.end - row.start, lo + 1)
            spot = bisect.bisect_left([(s[1], s[2]) for s in row.singles], (lo, hi))
            row.singles.insert(spot, (label.primary, lo, hi, label.message))
            row.shown = True
            continue
        index = multis
        multis += 1
        top = line(first)
        top.multis.append(_Multi(index, label.primary, "top", label.start - top.start))
        top.shown = True
        for between in range(first + 1, last):
            padding = max(padding, len(str(between + 1)))
            line(between).multis.append(_Multi(index, label.primary, "left"))
        bottom = line(last)
        bottom.multis.append(
            _Multi(index, label.primary, "bottom", label.end - bottom.start, label.message)
        )
        bottom.shown = True
    head = f"{severity}[{code}]" if code else severity
    out = [f"{head}: {message}\n"]
    draw = _Drawing(padding, multis, out)
    if lines and locus is not None:
        number, column = source.location(locus[1])
        out.append(f"{' ' * padding} ┌─ {name}:{number}:{column}\n")
        draw.empty([])
        shown = sorted(index for index, row in lines.items() if row.shown)
        for position, index in enumerate(shown):
            row = lines[index]
            draw.source(row.number, text[row.start : row.end], row.singles, row.multis)
            if position + 1 == len(shown):
                break
            following = shown[position + 1]
            if following - index == 2:
                middle = lines.get(index + 1)
                start, end = source.line_range(index + 1)
                draw.source(index + 2, text[start:end], [], middle.multis if middle else [])
            elif following - index > 2:
                draw.gap(lines[following].multis)
        if notes:
            draw.empty([])
    for note in notes:
        for number, note_line in enumerate(rust_lines(note)):
            out.append(f"{' ' * padding} {'=' if number == 0 else ' '} {note_line}\n")
    out.append("\n")
    return "".join(out)


class _Drawing:
    """Writes the framed lines of one diagnostic into ``out``."""

    def __init__(self, padding: int, multis: int, out: list[str]) -> None:
        self.padding = padding
        self.multis = multis
        self.out = out

    def _gutter(self) -> str:
        return " " * self.padding + " "

    def _inner(self, multis: list[_Multi]) -> str:
        by_index = {m.index: m for m in multis}
        return "".join(
            " │" if (m := by_index.get(col)) is not None and m.part != "top" else "  "
            for col in range(self.multis)
        )

    def empty(self, multis: list[_Multi]) -> None:
        self.out.append(f"{self._gutter()}│{self._inner(multis)}\n")

    def gap(self, multis: list[_Multi]) -> None:
        self.out.append(f"{self._gutter()}·{self._inner(multis)}\n")

    def source(
        self,
        number: int,
        raw: str,
        singles: list[tuple[bool, int, int, str]],
        multis: list[_Multi],
    ) -> None:
        text = raw.rstrip("\n\r\0")
        indent = len(text) - len(text.lstrip())
        metrics = _metrics(text)
        by_index = {m.index: m for m in multis}
        gutter = []
        for col in range(self.multis):
            m = by_index.get(col)
            if m is None or (m.part == "top" and m.at > indent):
                gutter.append("  ")
            else:
                gutter.append(" ╭" if m.part == "top" else " │")
        shown = "".join(" " * w if c == "\t" else c for _, c, w in metrics)
        self.out.append(f"{str(number).rjust(self.padding)} │{''.join(gutter)} {shown}\n")
        if singles:
            self._singles(text, metrics, singles, multis)
        for position, m in enumerate(multis):
            if m.part == "left" or (m.part == "top" and m.at <= indent):
                continue
            self._multi_caret(metrics, multis, position, m)

    def _singles(
        self,
        text: str,
        metrics: list[tuple[int, str, int]],
        singles: list[tuple[bool, int, int, str]],
        multis: list[_Multi],
    ) -> None:
        messages = 0
        max_start = max_end = 0
        trailing: int | None = None
        for position, (_, lo, hi, message) in enumerate(singles):
            messages += bool(message)
            max_start, max_end = max(max_start, lo), max(max_end, hi)
            if hi == max_end:
                trailing = position if message else None
        if trailing is not None:
            _, t_lo, t_hi, _ = singles[trailing]
            if any(
                max(t_lo, lo) < min(t_hi, hi)
                for position, (_, lo, hi, _) in enumerate(singles)
                if position != trailing
            ):
                trailing = None
        lead = f"{self._gutter()}│{self._inner(multis)} "
        carets = []
        for index, _, width in [*metrics, (len(text), "\0", 1)]:
            styles = [p for p, lo, hi, _ in singles if lo <= index < hi]
            if styles:
                carets.append(("^" if any(styles) else "-") * width)
            elif index < max_end:
                carets.append(" " * width)
        tail = f" {singles[trailing][3]}" if trailing is not None else ""
        self.out.append(f"{lead}{''.join(carets)}{tail}\n")
        if messages <= (trailing is not None):
            return
        hanging = [s for position, s in enumerate(singles) if s[3] and position != trailing]

        def pointers(upto: int) -> str:
            drawn = []
            for index, _, width in metrics:
                if index >= upto:
                    break
                points = any(lo == index for _, lo, _, _ in hanging)
                if points:
                    drawn.append("│")
                if index <= max_start:
                    drawn.append(" " * (width - 1 if points else width))
            return "".join(drawn)

        self.out.append(f"{lead}{pointers(len(text))}\n")
        for _, lo, _, message in reversed(hanging):
            self.out.append(f"{lead}{pointers(lo)}{message}\n")

    def _multi_caret(
        self, metrics: list[tuple[int, str, int]], multis: list[_Multi], position: int, m: _Multi
    ) -> None:
        by_index = {other.index: (i, other) for i, other in enumerate(multis)}
        underline: str | None = None
        drawn = []
        for col in range(self.multis):
            found = by_index.get(col)
            if found is None:
                drawn.append("  " if underline is None else "──")
                continue
            i, other = found
            left = (
                other.part == "left"
                or (other.part == "top" and position > i)
                or (other.part == "bottom" and position < i)
            )
            if left:
                drawn.append(("─" if underline is not None else " ") + "│")
            elif i == position:
                underline = other.part
                drawn.append(" ╭" if other.part == "top" else " ╰")
            else:
                drawn.append("  " if underline is None else "──")
        caret = "^" if m.primary else "'"
        if m.part == "top":
            line = "".join("─" * w for index, _, w in metrics if index < m.at + 1)
            tail = ""
        else:
            line = "".join("─" * w for index, _, w in metrics if index < m.at)
            tail = f" {m.message}" if m.message else ""
        self.out.append(f"{self._gutter()}│{''.join(drawn)}{line}{caret}{tail}\n")
