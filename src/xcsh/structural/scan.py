"""Per-file work: read, pre-filter, parse, match, rewrite. Runs in worker processes.

Everything here takes and returns picklable values, so the same function
serves the in-process path (small scans) and the process pool (large ones).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ast_grep_py import Pos, SgNode, SgRoot

from xcsh.fs import NotTextError, decode_text, detect_newline
from xcsh.structural.pattern import CompiledPattern
from xcsh.structural.results import (
    Capture,
    FileEdit,
    Match,
    Position,
    Replacement,
    SkippedFile,
    Span,
)
from xcsh.structural.rewrite import Template, expand_template


@dataclass(frozen=True, kw_only=True)
class Query:
    """What to do with each file.

    Attributes:
        patterns: one per pattern (search) or op (edit), all of one language.
        templates: the rewrites of an edit, parallel to ``patterns``; empty for a search.
        display: the CLI's language name.
        skip_parse_errors: edits leave files whose tree has ERROR nodes alone.
        captures: record metavariable captures on the matches of an edit (searches always do).
        keep_broken: an edit keeps a file whose new text has parse errors its
            old text did not have (noted on the edit); by default it is left
            out, with the first new error's position.
    """

    patterns: tuple[CompiledPattern, ...]
    templates: tuple[Template, ...] = ()
    display: str = ""
    skip_parse_errors: bool = False
    captures: bool = True
    keep_broken: bool = False

    @property
    def is_edit(self) -> bool:
        """True for an edit preview."""
        return bool(self.templates)


@dataclass(kw_only=True)
class Outcome:
    """The result for one file (``None`` fields when not applicable)."""

    matches: list[Match] = field(default_factory=list)
    edit: FileEdit | None = None
    skipped: SkippedFile | None = None
    identical: int = 0
    conflict: str | None = None


BROKEN_REASON = "the rewrite would not parse"
"""Why a file whose rewritten text has new parse errors was left out of an edit."""


class _Offsets:
    """Code-point positions to UTF-8 byte offsets, cheap for ASCII files."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._line_cp: list[int] = []
        self._line_byte: list[int] = []

    def byte(self, pos: Pos) -> int:
        if self.ascii:
            return pos.index
        if not self._line_cp:
            cp = byte = 0
            for line in self.text.split("\n"):
                self._line_cp.append(cp)
                self._line_byte.append(byte)
                cp += len(line) + 1
                byte += len(line.encode("utf-8")) + 1
        start = self._line_cp[pos.line]
        return self._line_byte[pos.line] + len(self.text[start : pos.index].encode("utf-8"))

    def span(self, node: SgNode) -> Span:
        rng = node.range()
        return Span(
            start_byte=self.byte(rng.start),
            end_byte=self.byte(rng.end),
            start=Position(line=rng.start.line, column=rng.start.column),
            end=Position(line=rng.end.line, column=rng.end.column),
        )


def _make_match(
    node: SgNode,
    text: str,
    offsets: _Offsets,
    pattern: CompiledPattern,
    index: int,
    path: Path,
    file: str,
    display: str,
    captures: bool = True,
) -> Match:
    rng = node.range()
    start, end = rng.start.index, rng.end.index
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end < 0:
        line_end = len(text)
    single: dict[str, Capture] = {}
    multi: dict[str, list[Capture]] = {}
    if captures:
        for name in pattern.single:
            captured = node.get_match(name)
            if captured is not None:
                single[name] = Capture(text=captured.text(), span=offsets.span(captured))
        for name in pattern.multi:
            multi[name] = [
                Capture(text=n.text(), span=offsets.span(n))
                for n in node.get_multiple_matches(name)
            ]
    return Match(
        path=path,
        file=file,
        language=display,
        pattern_index=index,
        text=text[start:end],
        span=offsets.span(node),
        lines=text[line_start:line_end],
        leading=start - line_start,
        trailing=line_end - end,
        single=single,
        multi=multi,
    )


def _captures(node: SgNode, template: Template) -> dict[str, tuple[int, int] | None]:
    out: dict[str, tuple[int, int] | None] = {}
    for var in template.variables:
        if var.multi:
            nodes = node.get_multiple_matches(var.name)
            out[var.name] = (
                (nodes[0].range().start.index, nodes[-1].range().end.index) if nodes else None
            )
        else:
            captured = node.get_match(var.name)
            out[var.name] = (
                None
                if captured is None
                else (captured.range().start.index, captured.range().end.index)
            )
    return out


def _error_rule(root: SgNode) -> dict[str, Any]:
    # ERROR nodes, and MISSING nodes (tree-sitter inserts them with empty text).
    return {"any": [{"kind": "ERROR"}, {"regex": "^$", "not": {"kind": root.kind()}}]}


def _has_error(root: SgNode) -> bool:
    return root.find(**_error_rule(root)) is not None


def _new_error(old_root: SgNode, old_has_error: bool, new_bytes: bytes, language: str) -> str:
    """Where the rewritten text has a parse error the old text did not have, or ``""``.

    Returns:
        ``"line L, column C"`` (1-based) of the first error node of the new
        tree; for an old text that already had errors, only when the new one
        has more of them.
    """
    new_root = SgRoot(new_bytes.decode("utf-8", errors="replace"), language).root()
    rule = _error_rule(new_root)
    first = new_root.find(**rule)
    if first is None:
        return ""
    if old_has_error and len(new_root.find_all(**rule)) <= len(
        old_root.find_all(**_error_rule(old_root))
    ):
        return ""
    pos = first.range().start
    return f"line {pos.line + 1}, column {pos.column + 1}"


def scan_file(query: Query, path: Path, file: str) -> Outcome | None:
    """Search or preview-edit one file.

    Args:
        query: patterns (and rewrites) to run.
        path: absolute path to read.
        file: the path as displayed.

    Returns:
        ``None`` when the file cannot match (pre-filter) or has no match;
        otherwise its matches, its edit, or why it was skipped.
    """
    try:
        raw = path.read_bytes()
    except OSError:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="unreadable"))
    try:
        body, bom = decode_text(raw, name=file)
    except NotTextError as exc:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason=exc.reason))
    active = [i for i, pat in enumerate(query.patterns) if all(tok in raw for tok in pat.tokens)]
    if not active:
        return None
    text = "\ufeff" + body if bom else body  # offsets count the BOM, as the CLI's do
    root = SgRoot(text, query.patterns[0].language).root()
    offsets = _Offsets(text)
    if not query.is_edit:
        matches = [
            _make_match(node, text, offsets, query.patterns[i], i, path, file, query.display)
            for i in active
            for node in root.find_all(**query.patterns[i].rule)
        ]
        if len(active) > 1:
            matches.sort(key=lambda m: (m.span.start_byte, -m.span.end_byte, m.pattern_index))
        return Outcome(matches=matches) if matches else None
    return _edit(query, active, root, text, raw, offsets, path, file)


def _edit(
    query: Query,
    active: list[int],
    root: SgNode,
    text: str,
    raw: bytes,
    offsets: _Offsets,
    path: Path,
    file: str,
) -> Outcome | None:
    newline = detect_newline(text)
    kept: list[tuple[int, int, int, SgNode, str]] = []  # start, end, op, node, new text
    nested = identical = 0
    for i in active:
        pattern, template = query.patterns[i], query.templates[i]
        candidates = []
        for node in root.find_all(**pattern.rule):
            rng = node.range()
            start, end = rng.start.index, rng.end.index
            new = expand_template(template, text, start, _captures(node, template), newline)
            candidates.append((start, end, i, node, new))
        candidates.sort(key=lambda c: (c[0], -c[1]))
        last_end = -1
        for cand in candidates:
            if cand[0] < last_end:  # inside an earlier match: the CLI skips it too
                nested += 1
                continue
            last_end = cand[1]
            if cand[4] == text[cand[0] : cand[1]]:
                identical += 1  # S2: an identity rewrite is not a change
                continue
            kept.append(cand)
    if not kept:
        return Outcome(identical=identical) if identical else None
    kept.sort(key=lambda c: (c[0], -c[1]))
    for before, after in itertools.pairwise(kept):
        if after[0] < before[1]:
            line = after[3].range().start
            return Outcome(
                conflict=(
                    f"{file}:{line.line + 1}:{line.column + 1}: op {after[2] + 1} (`"
                    f"{query.patterns[after[2]].source}`) overlaps op {before[2] + 1} (`"
                    f"{query.patterns[before[2]].source}`)"
                )
            )
    old_has_error = _has_error(root)
    if query.skip_parse_errors and old_has_error:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="parse errors"))
    replacements = tuple(
        Replacement(
            match=_make_match(
                node,
                text,
                offsets,
                query.patterns[op],
                op,
                path,
                file,
                query.display,
                query.captures,
            ),
            new_text=new,
        )
        for _, _, op, node, new in kept
    )
    new_bytes = splice(raw, replacements)
    error = _new_error(root, old_has_error, new_bytes, query.patterns[0].language)
    if error and not query.keep_broken:
        return Outcome(
            skipped=SkippedFile(path=path, file=file, reason=BROKEN_REASON, error=error),
            identical=identical,
        )
    return Outcome(
        edit=FileEdit(
            path=path,
            file=file,
            language=query.display,
            old_sha256=hashlib.sha256(raw).hexdigest(),
            old_bytes=raw,
            new_bytes=new_bytes,
            replacements=replacements,
            nested_skipped=nested,
            new_error=error,
        ),
        identical=identical,
    )


def splice(raw: bytes, replacements: tuple[Replacement, ...]) -> bytes:
    """Apply ``replacements`` (sorted, non-overlapping) to ``raw`` by byte offsets."""
    parts: list[bytes] = []
    cursor = 0
    for rep in replacements:
        parts.append(raw[cursor : rep.match.span.start_byte])
        parts.append(rep.new_text.encode("utf-8"))
        cursor = rep.match.span.end_byte
    parts.append(raw[cursor:])
    return b"".join(parts)


def scan_file_safely(query: Query, path: Path, file: str) -> Outcome | None:
    """:func:`scan_file`, but a failure inside ast-grep skips the file instead of the scan.

    ast-grep-py reports some internal failures as a Rust panic, a
    ``BaseException``; interrupts and exits still propagate.
    """
    try:
        return scan_file(query, path, file)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a panic in ast-grep-py for this one file
        reason = f"ast-grep failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        return Outcome(skipped=SkippedFile(path=path, file=file, reason=reason))


def scan_chunk(query: Query, items: list[tuple[Path, str]]) -> list[Outcome | None]:
    """:func:`scan_file_safely` over several files (one task of the process pool).

    An edit comes back without its file's bytes (``old_bytes`` and
    ``new_bytes`` empty; ``old_sha256`` kept): sending whole files back
    through the pool's pipes costs more than reading them again, and a worker
    blocked on a full pipe does no work. :func:`restore_edit` puts them back.
    """
    outcomes = [scan_file_safely(query, path, file) for path, file in items]
    for outcome in outcomes:
        if outcome is not None and outcome.edit is not None:
            outcome.edit = dataclasses.replace(outcome.edit, old_bytes=b"", new_bytes=b"")
    return outcomes


def restore_edit(query: Query, outcome: Outcome, path: Path, file: str) -> Outcome | None:
    """The outcome of :func:`scan_chunk` for one file with its edit's bytes back.

    The file is read again; if its bytes no longer have the sha256 the
    worker saw (changed in between), the file is scanned again here, so the
    edit always matches the bytes it carries.
    """
    edit = outcome.edit
    if edit is None or edit.old_bytes or not edit.replacements:
        return outcome
    try:
        raw = path.read_bytes()
    except OSError:
        raw = b""
    if hashlib.sha256(raw).hexdigest() != edit.old_sha256:
        return scan_file_safely(query, path, file)
    outcome.edit = dataclasses.replace(
        edit, old_bytes=raw, new_bytes=splice(raw, edit.replacements)
    )
    return outcome
