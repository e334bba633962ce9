"""Rewriting one file: its replacements, their overlaps, whether the new text parses.

:func:`edit_file` turns the matches of a file into its :class:`FileEdit` (or
says why it was left out); :func:`splice` writes replacements into bytes.
Runs in worker processes, like :mod:`xcsh.structural.scan.per_file`.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from pathlib import Path

from ast_grep_py import SgNode

from xcsh.fs import detect_newline
from xcsh.fs.confined import sha256_hex
from xcsh.structural.base.results import FileEdit, Replacement, SkippedFile
from xcsh.structural.edit.candidates import Candidate, op_candidates
from xcsh.structural.edit.fits import FITS_COST_IN_BYTES, fits
from xcsh.structural.edit.pattern_records import PatternRecords
from xcsh.structural.edit.syntax_check import error_rule, has_error, new_error
from xcsh.structural.matches.matching import LanguageQuery, Outcome, Query, find_nodes
from xcsh.structural.matches.records import Offsets, indent_before, json_record

BROKEN_REASON = "the rewrite would not parse"
"""Why a file whose rewritten text has new parse errors was left out of an edit."""


@dataclass(frozen=True, kw_only=True)
class _Planned:
    """The changes of one file, known while its syntax trees are alive.

    The changes of one file, known while its syntax trees are alive; ``check`` says
    whether the new text must be parsed again: ``(language, errors in the old text
    or None when it had none)``.
    """

    replacements: tuple[Replacement, ...]
    inner: tuple[Replacement, ...]
    nested: int
    identical: int
    display: str
    check: tuple[str, int | None] | None
    records: PatternRecords | None = None


def _plan(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    text: str,
    offsets: Offsets,
    path: Path,
    file: str,
    language: str,
) -> _Planned | Outcome | None:
    """The changes of one file (see :func:`edit_file`), or the outcome that ends it."""
    records = (
        PatternRecords(text=text, offsets=offsets, quoted_file=encode_basestring(file))
        if query.captures
        else None
    )
    kept, nested, identical = _candidates(query, found, text, offsets, records)
    if not kept:
        return Outcome(identical=identical) if identical else None
    _in_source_order(kept)
    if query.rules:
        # Fixes of several rules: as `ast-grep scan -U`, a fix overlapping an earlier
        # one is left out (reported as nested); scanning again applies it.
        chosen: list[Candidate] = []
        for cand in kept:
            if chosen and cand[0] < chosen[-1][1]:
                nested.append(cand)
                continue
            chosen.append(cand)
        kept = chosen
    conflict = _conflict(kept, file)
    if conflict is not None:
        return conflict
    errors = [has_error(root) for _, root, _ in found]
    if query.skip_parse_errors and any(errors):
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="parse errors"))
    check = _check(query, found, kept, (text, errors), language)
    replacement = _builder(query, text, offsets, file)
    count, display = len(nested), kept[0][5].display
    return _Planned(  # _each empties kept and nested as it builds
        replacements=_each(kept, replacement),
        inner=_each(nested, replacement) if query.captures else (),
        nested=count,
        identical=identical,
        display=display,
        check=check,
        records=records,
    )


def _candidates(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    text: str,
    offsets: Offsets,
    records: PatternRecords | None,
) -> tuple[list[Candidate], list[Candidate], int]:
    """Each fixing pattern's changes: kept, nested, and identity rewrites.

    Each fixing pattern's changes: kept, nested inside an earlier match of the same
    pattern (the CLI skips those too), and how many rewrote a node to itself. A
    pattern's JSON lines go to ``records`` as numbers (see :func:`op_candidates`).
    """
    newline = detect_newline(text)
    kept: list[Candidate] = []
    nested: list[Candidate] = []
    identical = 0
    for unit, root, active in found:
        for i in active:
            pattern, template = unit.patterns[i], query.templates[i]
            if pattern is None or template is None:
                continue  # a rule without a fix only reports
            nodes = find_nodes(root, pattern)
            candidates = op_candidates(
                nodes,
                i,
                unit,
                template,
                text,
                offsets,
                newline,
                records,
                keep_nodes=len(nodes) * FITS_COST_IN_BYTES < len(text),
                extras=query.rule(i),
            )
            _in_source_order(candidates)
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
    return kept, nested, identical


def _in_source_order(candidates: list[Candidate]) -> None:
    """Sort ``candidates`` by start, an enclosing one first (by end, descending).

    One op's matches come in that order already (ast-grep walks the tree in
    order): when their starts strictly increase, nothing is sorted, which spares
    a key tuple per match (100,000 in a big file).
    """
    starts = [cand[0] for cand in candidates]
    if not all(map(operator.lt, starts, itertools.islice(starts, 1, None))):
        candidates.sort(key=lambda c: (c[0], -c[1]))


def _conflict(kept: list[Candidate], file: str) -> Outcome | None:
    """The outcome naming the first two changes that overlap, or ``None``."""
    for before, after in itertools.pairwise(kept):
        if after[0] < before[1]:
            line, column = after.where()
            later = after[5].patterns[after[2]]
            earlier = before[5].patterns[before[2]]
            return Outcome(
                conflict=(
                    f"{file}:{line + 1}:{column + 1}: op {after[2] + 1} (`"
                    f"{later.source if later else ''}`) overlaps op {before[2] + 1} (`"
                    f"{earlier.source if earlier else ''}`)"
                )
            )
    return None


def _builder(
    query: Query, text: str, offsets: Offsets, file: str
) -> Callable[[Candidate], Replacement]:
    """Build the :class:`Replacement` of a change of this file.

    Builds the :class:`Replacement` of a change of this file (with its JSON record
    when the query wants captures).
    """
    quoted = encode_basestring(file) if query.captures else ""

    def replacement(cand: Candidate) -> Replacement:
        start, end, op, node, new, unit, made = cand
        if made is not None:
            return made
        assert node is not None  # only a pattern's changes are made beforehand
        head, tail, line, column, end_line, _ = offsets.locate(node)
        match_start, match_end = offsets.byte_at(head), offsets.byte_at(tail)
        first_byte, last_byte, first_line, last_line = match_start, match_end, line, end_line
        pattern = unit.patterns[op]
        assert pattern is not None
        if (start, end) != (head, tail):  # a rule's fix widens the range
            # loaded with such a fix only: a pattern's edit never imports the rule machinery
            from xcsh.structural.rules.evaluate import expanded_range

            rule = query.rule(op)
            first, last = expanded_range(node, rule.fix if rule is not None else None)
            opened, _, first_line, _, _, _ = offsets.locate(first)
            _, closed, _, _, last_line, _ = offsets.locate(last)
            first_byte, last_byte = offsets.byte_at(opened), offsets.byte_at(closed)
        record = ""
        if query.captures:
            language = encode_basestring(unit.display)
            record = json_record(
                node,
                pattern,
                text,
                offsets,
                quoted,
                language,
                (new, first_byte, last_byte),
                extras=query.rule(op),
            )
        return Replacement(
            text[head:tail],
            new,
            line,
            column,
            first_byte,
            last_byte,
            first_line,
            last_line,
            match_start,
            match_end,
            indent_before(text, head, column),
            record,
        )

    return replacement


def _check(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    kept: list[Candidate],
    source: tuple[str, list[bool]],
    language: str,
) -> tuple[str, int | None] | None:
    """Whether the new text must be parsed again, and how.

    Whether the new text must be parsed again in the file's own language (code
    embedded in HTML is not re-checked): ``(language, errors in the old text)``, or
    ``None`` when every change fits where it goes (``source``: the text and which
    parsed trees have errors).
    """
    text, errors = source
    mine = query.languages.get(language)
    own = next((i for i, (unit, _, _) in enumerate(found) if unit is mine), None)
    if own is None:
        return None
    if (
        not errors[own]
        and len(kept) * FITS_COST_IN_BYTES < len(text)
        and all(
            node is not None and fits(node, new, text, found[own][0].name, (start, end))
            for start, end, _, node, new, unit, _ in kept
            if unit is mine
        )
    ):
        return None
    old_root = found[own][1]
    old_errors = len(old_root.find_all(**error_rule(old_root))) if errors[own] else None
    return (found[own][0].name, old_errors)


def _each(
    candidates: list[Candidate],
    build: Callable[[Candidate], Replacement],
) -> tuple[Replacement, ...]:
    """``build(c)`` for each of ``candidates`` in order, emptying the list.

    ``build(c)`` for each of ``candidates`` in order, emptying the list as it goes: each
    node handle (hundreds of bytes in ast-grep-py) is freed once its change is built, so
    a file of 100,000 changes never holds both all its handles and all its changes.
    """
    candidates.reverse()
    built = []
    while candidates:
        built.append(build(candidates.pop()))
    return tuple(built)


def edit_file(
    query: Query,
    found: list[tuple[LanguageQuery, SgNode, list[int]]],
    text: str,
    raw: bytes,
    offsets: Offsets,
    path: Path,
    file: str,
    language: str,
) -> Outcome | None:
    """The edit of one file, or why it was left out.

    The edit of one file from the nodes ``found`` in it (per language: its patterns,
    tree and active pattern indexes), or why it was left out; ``None`` when nothing
    would change.

    ``found`` is emptied once the changes are known, so its syntax trees are freed
    before the new text is parsed (the two trees of a big file never coexist).
    """
    planned = _plan(query, found, text, offsets, path, file, language)
    found.clear()
    if not isinstance(planned, _Planned):
        return planned
    new_bytes = splice(raw, planned.replacements)
    error = ""
    if planned.check is not None:
        language, old_errors = planned.check
        error = new_error(old_errors, new_bytes, language)
    if error and not query.keep_broken:
        return Outcome(
            skipped=SkippedFile(
                path=path,
                file=file,
                reason=BROKEN_REASON,
                error=error,
                language=planned.display,
            ),
            identical=planned.identical,
        )
    return Outcome(
        edit=FileEdit(
            path=path,
            file=file,
            language=planned.display,
            old_sha256=sha256_hex(raw),
            old_bytes=raw,
            new_bytes=new_bytes,
            replacements=planned.replacements,
            nested_skipped=planned.nested,
            nested=planned.inner,
            new_error=error,
            records=planned.records,
        ),
        identical=planned.identical,
    )


def splice(raw: bytes, replacements: tuple[Replacement, ...]) -> bytes:
    """Apply ``replacements`` (sorted, non-overlapping) to ``raw`` by byte offsets."""
    parts: list[bytes] = []
    cursor = 0
    for rep in replacements:
        parts.append(raw[cursor : rep.start_byte])
        parts.append(rep.new_text.encode("utf-8"))
        cursor = rep.end_byte
    parts.append(raw[cursor:])
    return b"".join(parts)
