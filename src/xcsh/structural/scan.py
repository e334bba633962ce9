"""Per-file work: read, pre-filter, parse, match, rewrite. Runs in worker processes.

Everything here takes and returns picklable values, so the same function
serves the in-process path (small scans) and the process pool (large ones).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ast_grep_py import Config, SgNode, SgRoot

from xcsh.fs import (
    NotRegularFileError,
    NotTextError,
    decode_text,
    detect_newline,
    read_regular_bytes,
)
from xcsh.structural.embedded import HOSTED, embedded_sources, hosts
from xcsh.structural.pattern import CompiledPattern
from xcsh.structural.records import Offsets, RecordFormat, line_bounds, render, rule_parts
from xcsh.structural.results import (
    Capture,
    FileEdit,
    Match,
    Replacement,
    RuleReport,
    SkippedFile,
    Span,
)
from xcsh.structural.rewrite import Template, expand_template
from xcsh.structural.rule_eval import capture_spans, expanded_range, transformed_values
from xcsh.structural.rules import CompiledRule

Matcher = CompiledPattern | CompiledRule
"""A pattern (``-p``, ``pat``) or a YAML rule: what a query runs on each file."""


@dataclass(frozen=True, kw_only=True)
class LanguageQuery:
    """The patterns of a call compiled for one language.

    Attributes:
        name: the ast-grep-py language id.
        display: the CLI's language name (JSON ``language`` field).
        patterns: parallel to the call's patterns (or ops); ``None`` where a pattern
            does not compile in this language (it is left out there, as the CLI does).
    """

    name: str
    display: str
    patterns: tuple[Matcher | None, ...]


@dataclass(frozen=True, kw_only=True)
class Query:
    """What to do with each file.

    Attributes:
        languages: the compiled patterns per language name; a file is searched with
            the entry of its own language, and an HTML file also with the entries of
            the languages embedded in it (``<script>``, ``<style>``).
        templates: the rewrites of an edit, parallel to the patterns (``None`` for a rule
            without ``fix``: it is not rewritten); empty for a search.
        skip_parse_errors: edits leave files whose tree has ERROR nodes alone (contract §4).
        captures: record metavariable captures on the matches of an edit (searches always
            do), and the nested matches an edit leaves alone.
        max_matches: a search builds at most this many matches per file (in source
            order) and only counts the others (``Outcome.unbuilt``): with a limit,
            a file holding 50,000 matches costs 5 match records, not 50,000.
        keep_broken: an edit keeps a file whose new text has parse errors its
            old text did not have (noted on the edit); by default it is left
            out, with the first new error's position.
        records: a search renders each match as this printed record
            (``Outcome.records``) instead of building ``Outcome.matches``.
    """

    languages: dict[str, LanguageQuery]
    templates: tuple[Template | None, ...] = ()
    skip_parse_errors: bool = False
    captures: bool = True
    max_matches: int | None = None
    keep_broken: bool = False
    records: RecordFormat | None = None

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
    unbuilt: int = 0
    """Matches found after ``Query.max_matches``: counted, not built."""
    records: Iterable[str] = ()
    """With ``Query.records``: the printed record of each kept match, in order. Produced
    lazily in-process (a failure part-way sets ``skipped``), as a list from the pool."""


BROKEN_REASON = "the rewrite would not parse"
"""Why a file whose rewritten text has new parse errors was left out of an edit."""


def find_nodes(root: SgNode, matcher: Matcher) -> list[SgNode]:
    """Every node under ``root`` (itself included) that ``matcher`` matches, in source order."""
    if isinstance(matcher, CompiledRule):
        return root.find_all(cast("Config", matcher.config))
    return root.find_all(**matcher.rule)


def _make_match(
    node: SgNode,
    text: str,
    offsets: Offsets,
    pattern: Matcher,
    index: int,
    path: Path,
    file: str,
    display: str,
    captures: bool = True,
) -> Match:
    rng = node.range()
    start, end = rng.start.index, rng.end.index
    line_start, line_end = line_bounds(text, start, end)
    single: dict[str, Capture] = {}
    multi: dict[str, list[Capture]] = {}
    transformed: dict[str, str] = {}
    if captures:
        for name in pattern.single:
            captured = node.get_match(name)
            if captured is not None:
                single[name] = Capture(text=captured.text(), span=offsets.span(captured))
        for name in pattern.multi:
            nodes = node.get_multiple_matches(name)
            if not nodes and name in pattern.trailing_multi:
                continue  # never reached by ast-grep's matcher: the CLI does not bind it
            multi[name] = [Capture(text=n.text(), span=offsets.span(n)) for n in nodes]
    rule: RuleReport | None = None
    fix: tuple[str, int, int] | None = None
    if isinstance(pattern, CompiledRule):
        transformed, fix, rule = rule_parts(node, pattern, text, offsets, fix=captures)
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
        transformed=transformed,
        rule=rule,
        fix=fix,
    )


def _error_rule(root: SgNode) -> dict[str, Any]:
    # ERROR nodes, and MISSING nodes (tree-sitter inserts them with empty text).
    return {"any": [{"kind": "ERROR"}, {"regex": "^$", "not": {"kind": root.kind()}}]}


def _has_error(root: SgNode) -> bool:
    return root.find(**_error_rule(root)) is not None


_STATEMENT_LISTS = frozenset(
    {
        "module",
        "block",
        "program",
        "statement_block",
        "source_file",
        "compound_statement",
        "translation_unit",
    }
)


def _fits(node: SgNode, new: str, text: str, language: str) -> bool:
    """Whether a replacement surely keeps a file that parsed cleanly free of parse errors.

    True when ``new``, parsed on its own, has no error and is a node of the
    same kind as the matched one (or a list of statements standing where a
    statement stood): putting a well-formed node of a kind where one of that
    kind was keeps the grammar's derivation valid. Otherwise the caller parses
    the whole new text, so this only saves time, never decides a doubtful case.
    """
    if not new.strip():
        return False
    start = node.range().start
    line = text[text.rfind("\n", 0, start.index) + 1 : start.index]
    base = line[: len(line) - len(line.lstrip(" \t"))]
    lines = new.split("\n")
    snippet = "\n".join(
        [lines[0]] + [ln[len(base) :] if ln.startswith(base) else ln for ln in lines[1:]]
    )
    root = SgRoot(snippet, language).root()
    if _has_error(root):
        return False
    kinds: set[str] = set()
    target: SgNode | None = node
    outer = node
    span = (node.range().start.index, node.range().end.index)
    while target is not None:
        rng = target.range()
        if (rng.start.index, rng.end.index) != span:
            break
        kinds.add(target.kind())
        outer = target
        target = target.parent()
    whole = len(snippet.rstrip())
    lead = len(snippet) - len(snippet.lstrip())
    current: SgNode | None = root
    while current is not None:
        rng = current.range()
        spans = (rng.start.index, rng.end.index) == (lead, whole)
        if current is not root and spans and current.kind() in kinds:
            return True
        children = [c for c in current.children() if c.range().end.index > lead]
        current = children[0] if len(children) == 1 else None
    parent = outer.parent()
    return (
        parent is not None
        and parent.kind() in _STATEMENT_LISTS
        and root.kind() in (_STATEMENT_LISTS)
    )


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


def _units(query: Query, language: str, text: str) -> list[tuple[LanguageQuery, str]]:
    """The (language, source) pairs to search in one file: its own, and embedded ones."""
    units: list[tuple[LanguageQuery, str]] = []
    own = query.languages.get(language)
    if own is not None:
        units.append((own, text))
    if language == "html":
        wanted = {name for name in query.languages if name != "html"}
        if wanted & HOSTED:
            for name, source in embedded_sources(text, wanted).items():
                units.append((query.languages[name], source))
    return units


def scan_file(query: Query, path: Path, file: str, language: str) -> Outcome | None:
    """Search or preview-edit one file.

    Args:
        query: patterns (and rewrites) to run.
        path: absolute path to read.
        file: the path as displayed.
        language: the file's language name (its patterns are ``query.languages[language]``).

    Returns:
        ``None`` when the file cannot match (pre-filter, empty file) or has no match;
        otherwise its matches, its edit, or why it was skipped.
    """
    try:
        raw = read_regular_bytes(path)
    except NotRegularFileError:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="not a regular file"))
    except OSError:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="unreadable"))
    if not raw:
        return None  # an empty file holds no node to match, as for the CLI
    try:
        body, bom = decode_text(raw, name=file)
    except NotTextError as exc:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason=exc.reason))
    own = query.languages.get(language)
    if own is not None and not hosts(language) and not _active(own, raw, file):
        return None
    text = "\ufeff" + body if bom else body  # offsets count the BOM, as the CLI's do
    offsets = Offsets(text)
    found: list[tuple[LanguageQuery, SgNode, list[int]]] = []
    for unit, source in _units(query, language, text):
        active = _active(unit, raw, file)
        if active:
            found.append((unit, SgRoot(source, unit.name).root(), active))
    if not found:
        return None
    if not query.is_edit:
        return _search(query, found, text, offsets, path, file)
    return _edit(query, found, text, raw, offsets, path, file, language)


def _active(unit: LanguageQuery, raw: bytes, file: str) -> list[int]:
    """The patterns of ``unit`` whose fixed tokens all occur in ``raw`` (and, for rules,
    whose ``files``/``ignores`` take ``file``)."""
    return [
        i
        for i, pat in enumerate(unit.patterns)
        if pat is not None
        and all(tok in raw for tok in pat.tokens)
        and (not isinstance(pat, CompiledRule) or pat.applies_to(file))
    ]


def _search(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    text: str,
    offsets: Offsets,
    path: Path,
    file: str,
) -> Outcome | None:
    # Nodes first (cheap handles into the tree), match records only for those kept.
    nodes = [
        (node, unit, pattern, i)
        for unit, root, active in found
        for i in active
        if (pattern := unit.patterns[i]) is not None
        for node in find_nodes(root, pattern)
    ]
    if not nodes:
        return None
    if len(found) > 1 or len(found[0][2]) > 1:
        ranges = [node.range() for node, *_ in nodes]
        order = sorted(
            range(len(nodes)),
            key=lambda k: (ranges[k].start.index, -ranges[k].end.index, nodes[k][3]),
        )
        nodes = [nodes[k] for k in order]
    keep = len(nodes) if query.max_matches is None else max(0, query.max_matches)
    if query.records is not None:
        outcome = Outcome(unbuilt=len(nodes) - min(keep, len(nodes)))
        found_nodes = [(node, pattern, unit.display) for node, unit, pattern, _ in nodes[:keep]]
        outcome.records = _guarded(
            outcome, path, file, render(query.records, found_nodes, text, offsets, file)
        )
        return outcome
    matches = [
        _make_match(node, text, offsets, pattern, i, path, file, unit.display)
        for node, unit, pattern, i in nodes[:keep]
    ]
    return Outcome(matches=matches, unbuilt=len(nodes) - len(matches))


def _guarded(outcome: Outcome, path: Path, file: str, records: Iterator[str]) -> Iterator[str]:
    """``records``, ending at a failure inside ast-grep, which marks the file as skipped
    (as :func:`scan_file_safely` does for a failure before the first match)."""
    try:
        yield from records
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a panic in ast-grep-py for this one file
        outcome.skipped = SkippedFile(path=path, file=file, reason=_failure(exc))


def _edit(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    text: str,
    raw: bytes,
    offsets: Offsets,
    path: Path,
    file: str,
    language: str,
) -> Outcome | None:
    newline = detect_newline(text)
    # start, end, op, node, new text, the language's patterns
    kept: list[tuple[int, int, int, SgNode, str, LanguageQuery]] = []
    nested: list[tuple[int, int, int, SgNode, str, LanguageQuery]] = []
    identical = 0
    for unit, root, active in found:
        for i in active:
            pattern, template = unit.patterns[i], query.templates[i]
            if pattern is None or template is None:
                continue  # a rule without a fix only reports
            candidates = []
            for node in find_nodes(root, pattern):
                start, end = node.range().start.index, node.range().end.index
                values = capture_spans(node, template)
                if isinstance(pattern, CompiledRule):
                    first, last = expanded_range(node, pattern.fix)
                    start, end = first.range().start.index, last.range().end.index
                    values.update(transformed_values(node, pattern, text))
                new = expand_template(template, text, start, values, newline)
                candidates.append((start, end, i, node, new, unit))
            candidates.sort(key=lambda c: (c[0], -c[1]))
            last_end = -1
            for cand in candidates:
                if cand[0] < last_end:  # inside an earlier match: the CLI skips it too
                    nested.append(cand)
                    continue
                last_end = cand[1]
                if cand[4] == text[cand[0] : cand[1]]:
                    identical += 1  # S2: an identity rewrite is not a change
                    continue
                kept.append(cand)
    if not kept:
        return Outcome(identical=identical) if identical else None
    kept.sort(key=lambda c: (c[0], -c[1]))
    if isinstance(kept[0][5].patterns[kept[0][2]], CompiledRule):
        # Fixes of several rules: as `ast-grep scan -U`, a fix overlapping an earlier
        # one is left out (reported as nested); scanning again applies it.
        chosen: list[tuple[int, int, int, SgNode, str, LanguageQuery]] = []
        for cand in kept:
            if chosen and cand[0] < chosen[-1][1]:
                nested.append(cand)
                continue
            chosen.append(cand)
        kept = chosen
    for before, after in itertools.pairwise(kept):
        if after[0] < before[1]:
            line = after[3].range().start
            later = after[5].patterns[after[2]]
            earlier = before[5].patterns[before[2]]
            return Outcome(
                conflict=(
                    f"{file}:{line.line + 1}:{line.column + 1}: op {after[2] + 1} (`"
                    f"{later.source if later else ''}`) overlaps op {before[2] + 1} (`"
                    f"{earlier.source if earlier else ''}`)"
                )
            )
    errors = [_has_error(root) for _, root, _ in found]
    if query.skip_parse_errors and any(errors):
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="parse errors"))

    def replacement(cand: tuple[int, int, int, SgNode, str, LanguageQuery]) -> Replacement:
        start, end, op, node, new, unit = cand
        pattern = unit.patterns[op]
        assert pattern is not None
        match = _make_match(
            node, text, offsets, pattern, op, path, file, unit.display, query.captures
        )
        expanded = None
        if (start, end) != (node.range().start.index, node.range().end.index):
            first, last = expanded_range(node, getattr(pattern, "fix", None))
            head, tail = offsets.span(first), offsets.span(last)
            expanded = Span(
                start_byte=head.start_byte, end_byte=tail.end_byte, start=head.start, end=tail.end
            )
        return Replacement(match=match, new_text=new, expanded=expanded)

    replacements = tuple(replacement(cand) for cand in kept)
    inner = tuple(replacement(cand) for cand in nested) if query.captures else ()
    new_bytes = splice(raw, replacements)
    # The file is parsed again in its own language (code embedded in HTML is not re-checked).
    mine = query.languages.get(language)
    own = next((i for i, (unit, _, _) in enumerate(found) if unit is mine), None)
    error = ""
    if own is not None and not (
        not errors[own]
        and all(
            _fits(node, new, text, found[own][0].name)
            for _, _, _, node, new, unit in kept
            if unit is mine
        )
    ):
        error = _new_error(found[own][1], errors[own], new_bytes, found[own][0].name)
    if error and not query.keep_broken:
        return Outcome(
            skipped=SkippedFile(
                path=path,
                file=file,
                reason=BROKEN_REASON,
                error=error,
                language=kept[0][5].display,
            ),
            identical=identical,
        )
    return Outcome(
        edit=FileEdit(
            path=path,
            file=file,
            language=kept[0][5].display,
            old_sha256=hashlib.sha256(raw).hexdigest(),
            old_bytes=raw,
            new_bytes=new_bytes,
            replacements=replacements,
            nested_skipped=len(nested),
            nested=inner,
            new_error=error,
        ),
        identical=identical,
    )


def splice(raw: bytes, replacements: tuple[Replacement, ...]) -> bytes:
    """Apply ``replacements`` (sorted, non-overlapping) to ``raw`` by byte offsets."""
    parts: list[bytes] = []
    cursor = 0
    for rep in replacements:
        parts.append(raw[cursor : rep.span.start_byte])
        parts.append(rep.new_text.encode("utf-8"))
        cursor = rep.span.end_byte
    parts.append(raw[cursor:])
    return b"".join(parts)


def scan_file_safely(query: Query, path: Path, file: str, language: str) -> Outcome | None:
    """:func:`scan_file`, but a failure inside ast-grep skips the file instead of the scan.

    ast-grep-py reports some internal failures as a Rust panic, a
    ``BaseException``; interrupts and exits still propagate.
    """
    try:
        return scan_file(query, path, file, language)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a panic in ast-grep-py for this one file
        return Outcome(skipped=SkippedFile(path=path, file=file, reason=_failure(exc)))


def _failure(exc: BaseException) -> str:
    """Why a file was skipped after ``exc`` was raised inside ast-grep."""
    return f"ast-grep failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def scan_chunk(query: Query, items: list[tuple[Path, str, str]]) -> list[Outcome | None]:
    """:func:`scan_file_safely` over several files (one task of the process pool).

    An edit comes back without its file's bytes (``old_bytes`` and
    ``new_bytes`` empty; ``old_sha256`` kept): sending whole files back
    through the pool's pipes costs more than reading them again, and a worker
    blocked on a full pipe does no work. :func:`restore_edit` puts them back.
    """
    outcomes = [scan_file_safely(query, path, file, lang) for path, file, lang in items]
    for outcome in outcomes:
        if outcome is not None and query.records is not None:
            outcome.records = list(outcome.records)  # a generator does not cross processes
        if outcome is not None and outcome.edit is not None:
            outcome.edit = dataclasses.replace(outcome.edit, old_bytes=b"", new_bytes=b"")
    return outcomes


def restore_edit(
    query: Query, outcome: Outcome, path: Path, file: str, language: str
) -> Outcome | None:
    """The outcome of :func:`scan_chunk` for one file with its edit's bytes back.

    The file is read again; if its bytes no longer have the sha256 the
    worker saw (changed in between), the file is scanned again here, so the
    edit always matches the bytes it carries.
    """
    edit = outcome.edit
    if edit is None or edit.old_bytes or not edit.replacements:
        return outcome
    try:
        raw = read_regular_bytes(path)
    except OSError:
        raw = b""
    if hashlib.sha256(raw).hexdigest() != edit.old_sha256:
        return scan_file_safely(query, path, file, language)
    outcome.edit = dataclasses.replace(
        edit, old_bytes=raw, new_bytes=splice(raw, edit.replacements)
    )
    return outcome
