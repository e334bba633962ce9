"""Typed results of searches and edit previews, and their CLI-shaped JSON."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from xcsh.core.safe import visible_line
from xcsh.fs.confined import FileId
from xcsh.structural.base.diff import unified_diff

if TYPE_CHECKING:  # a type only: the engine's commands do not load pydantic
    from xcsh.core.details import JsonObject, JsonValue


@dataclass(frozen=True, kw_only=True)
class Position:
    """A 0-based line and a 0-based column counted in code points (as the CLI's JSON)."""

    line: int
    column: int


@dataclass(frozen=True, kw_only=True)
class Span:
    """Where a node is: UTF-8 byte offsets (end exclusive) and line/column positions."""

    start_byte: int
    end_byte: int
    start: Position
    end: Position

    def to_json(self) -> JsonObject:
        """The CLI's ``range`` object."""
        return {
            "byteOffset": {"start": self.start_byte, "end": self.end_byte},
            "start": {"line": self.start.line, "column": self.start.column},
            "end": {"line": self.end.line, "column": self.end.column},
        }


@dataclass(frozen=True, kw_only=True)
class RuleReport:
    """What a YAML rule says about its match: ``ruleId``, ``severity``, ``message``, ``note``."""

    id: str
    severity: str
    message: str
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class Capture:
    """Text a metavariable captured, with its span."""

    text: str
    span: Span

    def to_json(self) -> JsonObject:
        """The CLI's ``{text, range}`` object."""
        return {"text": self.text, "range": self.span.to_json()}


@dataclass(frozen=True, kw_only=True)
class MatchLabel:
    """One of a rule's ``labels:`` on a match: the text it spans, its style and message."""

    text: str
    span: Span
    primary: bool
    message: str | None = None

    def to_json(self) -> JsonObject:
        """The CLI's label object (``message`` only when the label has one)."""
        out: JsonObject = {"text": self.text, "range": self.span.to_json()}
        if self.message is not None:
            out["message"] = self.message
        out["style"] = "primary" if self.primary else "secondary"
        return out


@dataclass(frozen=True, kw_only=True)
class Match:
    """One match of a pattern in a file.

    Attributes:
        path: absolute path of the file.
        file: the path as displayed (relative to the workspace, ``/`` separators).
        language: the CLI's language name (``"Python"``).
        pattern_index: which pattern (or op) of the call matched.
        text: the matched source text.
        span: where it is.
        lines: the full source lines the match spans (without the final line break).
        leading: code points before the match on its first line.
        trailing: code points after the match on its last line.
        single: captures of ``$NAME`` metavariables that matched.
        multi: captures of ``$$$NAME`` metavariables (separators included, as the CLI).
        transformed: the values of a rule's ``transform``, by name.
        rule: the rule that matched (id, severity, message), for a YAML rule's match.
    """

    path: Path
    file: str
    language: str
    pattern_index: int
    text: str
    span: Span
    lines: str
    leading: int
    trailing: int
    single: dict[str, Capture] = field(default_factory=dict)
    multi: dict[str, list[Capture]] = field(default_factory=dict)
    transformed: dict[str, str] = field(default_factory=dict)
    rule: RuleReport | None = None
    fix: tuple[str, int, int] | None = None
    """A YAML rule's fix for this match: ``(text, start byte, end byte)`` of the range it
    replaces; reported as ``ast-grep scan --json`` reports it."""
    secondary: tuple[Capture, ...] = ()
    """The nodes a YAML rule's relational parts (``inside``, ``has``, ``follows``,
    ``precedes``) matched, in the order ast-grep found them: the CLI's secondary labels."""
    labels: tuple[MatchLabel, ...] | None = None
    """A rule's ``labels:`` on this match, which replace the default ones (the match and
    :attr:`secondary`); ``None`` for a rule without them."""

    def to_cli_json(self) -> JsonObject:
        """This match as one object of ``ast-grep run --json`` (same keys, same order)."""
        out: JsonObject = {
            "text": self.text,
            "range": self.span.to_json(),
            "file": self.file,
            "lines": self.lines,
            "charCount": {"leading": self.leading, "trailing": self.trailing},
        }
        if self.fix is not None:
            out["replacement"] = self.fix[0]
            out["replacementOffsets"] = {"start": self.fix[1], "end": self.fix[2]}
        out["language"] = self.language
        # the CLI omits it when nothing is bound
        if self.single or self.multi or self.transformed or self.secondary:
            multi: JsonObject = {
                name: [cap.to_json() for cap in caps] for name, caps in self.multi.items()
            }
            if self.secondary:
                multi["secondary"] = [cap.to_json() for cap in self.secondary]
            single: JsonObject = {name: cap.to_json() for name, cap in self.single.items()}
            out["metaVariables"] = {
                "single": single,
                "multi": multi,
                "transformed": dict(self.transformed),
            }
        if self.rule is not None:
            out["ruleId"] = self.rule.id
            out["severity"] = self.rule.severity
            out["note"] = self.rule.note
            out["message"] = self.rule.message
            labels: list[JsonValue] = (
                [label.to_json() for label in self.labels]
                if self.labels is not None
                else [
                    {"text": self.text, "range": self.span.to_json(), "style": "primary"},
                    *({**cap.to_json(), "style": "secondary"} for cap in self.secondary),
                ]
            )
            out["labels"] = labels
        return out


class Replacement(NamedTuple):
    """One previewed change: where its match is, the range it replaces, the old and new text.

    A plain tuple, so a preview of 100,000 changes costs one small object per change
    (no :class:`Match`, no span objects, no captures). Lines and columns are 0-based
    (columns in code points); byte offsets are UTF-8, end exclusive.

    Attributes:
        old_text: the matched text.
        new_text: the text that replaces the range.
        line: the match's first line.
        column: the match's first column.
        start_byte: start of the range replaced: the match's, or wider when a rule's
            fix widens it (``expandStart``/``expandEnd``).
        end_byte: end of the range replaced.
        first_line: the first line of the range replaced.
        last_line: the last line of the range replaced.
        match_start: the match's own start byte.
        match_end: the match's own end byte.
        indent: the white space starting the match's first line.
        record: the change as one line of ``ast-grep run -r ... --json=stream``
            (line break included) when the preview recorded captures, else ``""``
            (see :meth:`FileEdit.record`).
        record_at: where the numbers of that line start in its file's
            :attr:`FileEdit.records` (a pattern's change keeps its line as numbers
            until printed), else -1.
    """

    old_text: str
    new_text: str
    line: int
    column: int
    start_byte: int
    end_byte: int
    first_line: int
    last_line: int
    match_start: int
    match_end: int
    indent: str
    record: str = ""
    record_at: int = -1


class RecordBook(Protocol):
    """Where a file's changes keep their JSON lines until printed.

    See :class:`xcsh.structural.edit.pattern_edit.PatternRecords`.
    """

    def render(self, change: Replacement, raw: bytes = b"") -> str:
        """The line of ``change``, line break included (``raw``: the file's bytes)."""
        ...

    def lines(self, changes: Sequence[Replacement], raw: bytes = b"") -> Iterator[str]:
        """The line of each of ``changes``, in order (``raw``: the file's bytes)."""
        ...


@dataclass(frozen=True, kw_only=True)
class SkippedFile:
    """A file left out of a search or edit, and why.

    ``reason`` is one of ``"binary"``, ``"not UTF-8"``, ``"parse errors"``,
    ``"outside the workspace"``, ``"unreadable"``, ``"inside .git, which xcsh never
    writes"`` (or ``.hg``, ``.xcsh``: the journal refuses it), ``"hard-linked"`` (an apply
    replaces a file by a rename, which would split it from its other names),
    ``"read-only"`` (the user may not write it),
    ``"the rewrite would not parse"`` (then ``error`` says where the first new
    parse error is: ``"line 3, column 7"``), or ``"ast-grep failed: ..."``.
    """

    path: Path
    file: str
    reason: str
    error: str = ""
    language: str = ""
    """For a file the rewrite would break: the CLI's name of its language."""


def skipped_note(skipped: Iterable[tuple[str, str]], *, shown: int = 20) -> str | None:
    """The one wording of every "files left out" note, or ``None`` when none were.

    For example ``Skipped 2 files: a.py (binary), b.py (parse errors).``, with
    ``and N more`` past ``shown`` names.

    Args:
        skipped: ``(file, reason)`` pairs, as in :class:`SkippedFile`.
        shown: how many files to name.
    """
    entries = list(skipped)
    if not entries:
        return None
    names = ", ".join(f"{visible_line(file)} ({reason})" for file, reason in entries[:shown])
    more = f" and {len(entries) - shown} more" if len(entries) > shown else ""
    noun = "file" if len(entries) == 1 else "files"
    return f"Skipped {len(entries)} {noun}: {names}{more}."


@dataclass(frozen=True, kw_only=True)
class FileEdit:
    """The previewed new content of one file.

    Attributes:
        path: the file (as walked: a symlink stays a symlink; writes go through it).
        file: display path.
        language: the CLI's language name.
        old_sha256: hex sha256 of the bytes read at preview time.
        old_bytes: those bytes (kept for the diff and for rollback).
        new_bytes: exactly what apply writes.
        replacements: the changes, in file order.
        nested_skipped: matches inside another match that were not rewritten.
        ident: device and inode of the file read (the apply refuses another file
            with the same content, such as a symlink swapped in).
        nested: those nested matches with the replacement each would get on its own
            (only when the preview records captures, for output that mirrors
            ``ast-grep run -r --json``, which lists them); never written.
        new_error: where the new text has a parse error the old one did not
            (``"line 3, column 7"``), for an edit kept on request; else ``""``.
        records: the JSON lines of the changes that keep theirs as numbers
            (:attr:`Replacement.record_at`); see :meth:`record`.
    """

    path: Path
    file: str
    language: str
    old_sha256: str
    old_bytes: bytes
    new_bytes: bytes
    replacements: tuple[Replacement, ...]
    nested_skipped: int = 0
    nested: tuple[Replacement, ...] = ()
    ident: FileId | None = None
    new_error: str = ""
    records: RecordBook | None = None

    def record(self, change: Replacement) -> str:
        """``change`` (one of this file's) as one line of ``ast-grep run -r ... --json=stream``.

        The line break is included; ``""`` when the preview recorded no captures.
        """
        if change.record_at < 0 or self.records is None:
            return change.record
        return self.records.render(change, self.old_bytes)

    def lines(self) -> Iterator[str]:
        """:meth:`record` of each of :meth:`listed`, the file's text read once for them all."""
        listed = self.listed()
        if self.records is None:
            return (change.record for change in listed)
        kept = [change for change in listed if change.record_at >= 0]
        if len(kept) < len(listed):  # some made their line as they were found
            return (self.record(change) for change in listed)
        return self.records.lines(listed, self.old_bytes)

    def listed(self) -> list[Replacement]:
        """Every match of the file as the CLI's ``--json`` lists them.

        That is the replacements and the nested matches, in source order (an enclosing
        match first).
        """
        if not self.nested:
            return list(self.replacements)
        return sorted(
            (*self.replacements, *self.nested),
            key=lambda r: (r.match_start, -r.match_end),
        )

    def diff(self) -> str:
        """A unified diff (``a/<file>`` → ``b/<file>``) of this edit, computed on demand.

        Hunks are cut around the replacements themselves (see :mod:`xcsh.structural.base.diff`).
        """
        spans = [
            (rep.first_line, rep.last_line, rep.start_byte, rep.end_byte, rep.new_text.encode())
            for rep in self.replacements
        ]
        return unified_diff(self.file, self.old_bytes, spans)


@dataclass(kw_only=True)
class SearchResult:
    """What :func:`~xcsh.structural.engine.search` found.

    Attributes:
        matches: the kept matches (``offset``/``limit`` window), in walk order.
        total: all matches found in scope.
        files_scanned: files considered (after language and glob filters).
        files_with_matches: files with at least one match.
        skipped: files that could not be searched.
        error_patterns: the patterns whose tree holds an ERROR node (they may
            find less than they seem to say).
    """

    matches: list[Match]
    total: int
    files_scanned: int
    files_with_matches: int
    skipped: list[SkippedFile]
    error_patterns: tuple[str, ...] = ()


@dataclass(kw_only=True)
class EditPreview:
    """A previewed structural edit; :func:`~xcsh.structural.engine.apply_preview` writes it.

    Attributes:
        root: the workspace folder (real path) the preview was made in.
        files: the files that change, in walk order.
        skipped: files left out (parse errors, binary, not UTF-8, ...).
        files_scanned: files considered.
        limit_reached: the ``limit`` stopped the scan early.
        identical: matches whose rewrite equals the matched text (not replacements, S2).
    """

    root: Path
    files: list[FileEdit]
    skipped: list[SkippedFile]
    files_scanned: int
    limit_reached: bool = False
    identical: int = 0

    @property
    def total(self) -> int:
        """Number of replacements across files."""
        return sum(len(f.replacements) for f in self.files)

    @property
    def nested_skipped(self) -> int:
        """Nested matches not rewritten because an enclosing match was."""
        return sum(f.nested_skipped for f in self.files)

    def diff(self) -> str:
        """The unified diff of every file, concatenated."""
        return "".join(f.diff() for f in self.files)
