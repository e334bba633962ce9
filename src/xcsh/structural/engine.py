"""The structural engine's entry points: search, stream matches, preview edits.

Front ends (the tools, ``xcsh ast-grep``/``ast-edit``/``scan``, benchmarks)
say what a call matches (:class:`~xcsh.structural.scan.spec.MatchSpec`, or an
:class:`~xcsh.structural.scan.spec.EditSpec` for a rewrite) and where
(:class:`~xcsh.structural.scan.spec.ScopeSpec`), and call :func:`search`,
:func:`iter_matches`, :func:`preview_edit` and :func:`apply_preview`. See the
package docstring for the whole picture.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from xcsh.core import ToolError
from xcsh.structural.base.errors import BadLimit, Doubt, PatternMatchesNothing
from xcsh.structural.base.results import EditPreview, FileEdit, Match, SearchResult, SkippedFile
from xcsh.structural.edit.apply import AppliedEdit, apply_preview, identify, stale_files
from xcsh.structural.edit.scan_edit import splice
from xcsh.structural.matches.matching import Outcome, Query
from xcsh.structural.matches.records import RecordFormat
from xcsh.structural.scan.query import (
    check_one_language,
    compile_query,
    doubt_of,
    error_patterns_of,
)
from xcsh.structural.scan.rule_files import is_rule_file
from xcsh.structural.scan.runner import (
    PARALLEL_MIN_BYTES,
    PARALLEL_MIN_FILES,
    ProgressCallback,
    run_query,
)
from xcsh.structural.scan.scope import Scope, resolve_scope
from xcsh.structural.scan.spec import EditOp, EditSpec, MatchSpec, ScopeSpec

if TYPE_CHECKING:
    from xcsh.structural.scan.warm import WarmIndex

T = TypeVar("T")

__all__ = [
    "PARALLEL_MIN_BYTES",
    "PARALLEL_MIN_FILES",
    "AppliedEdit",
    "EditOp",
    "EditSpec",
    "MatchSpec",
    "ProgressCallback",
    "Scope",
    "ScopeSpec",
    "apply_preview",
    "check_one_language",
    "error_patterns",
    "explain_nothing_found",
    "iter_matches",
    "iter_records",
    "preview_edit",
    "resolve_scope",
    "search",
    "stale_files",
]


def explain_nothing_found(
    what: MatchSpec, where: ScopeSpec
) -> tuple[Doubt | None, tuple[str, ...]]:
    """Why a search found nothing: ``(doubt, error_patterns)``.

    ``doubt`` says why a pattern probably matches nothing (see
    :attr:`~xcsh.structural.pattern.compile.CompiledPattern.doubt`; word it with
    :meth:`~xcsh.structural.base.errors.Doubt.worded`), else ``None``;
    ``error_patterns`` are the patterns whose tree holds an ERROR node, for a
    hint. Arguments are those of :func:`search`; no file is parsed.

    Raises:
        ToolError: as :func:`search`.
    """
    scope = resolve_scope(where)
    query = compile_query(what, scope)
    return doubt_of(query, scope), error_patterns_of(query)


def error_patterns(what: MatchSpec, where: ScopeSpec) -> tuple[str, ...]:
    """The patterns whose tree holds an ERROR node, for a "found nothing" hint.

    Raises:
        ToolError: as :func:`search`.
    """
    return explain_nothing_found(what, where)[1]


def iter_matches(
    what: MatchSpec,
    where: ScopeSpec,
    *,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    skipped: list[SkippedFile] | None = None,
    max_per_file: int | None = None,
) -> Iterator[Match]:
    """Stream every match, file by file in walk order (for ``--json`` output).

    Arguments are those of :func:`search` (no window); files that could not
    be searched are appended to ``skipped`` when a list is given. Memory
    stays flat: matches are yielded as each batch of files completes.
    ``max_per_file`` yields at most that many matches of each file (a caller
    that stops after N matches passes N + 1 to learn whether more remain,
    without building every match of a huge file).

    Raises:
        ToolError: as :func:`search`, before the first match is yielded.
    """
    query, scope = _prepared(what, where, skipped, max_matches=max_per_file)
    return _streamed(query, scope, progress, workers, skipped, lambda o: o.matches)


def _prepared(
    what: MatchSpec,
    where: ScopeSpec,
    skipped: list[SkippedFile] | None,
    *,
    max_matches: int | None,
    records: RecordFormat | None = None,
) -> tuple[Query, Scope]:
    """The scope and the compiled query of a streamed search.

    The query builds at most ``max_matches`` matches per file and, with
    ``records``, renders them as printed records (see :class:`Query`); the
    scope's left-out files go to ``skipped``. Raises as :func:`search`, before
    any streaming.
    """
    scope = resolve_scope(where, rules=bool(what.rules))
    query = dataclasses.replace(
        compile_query(what, scope), max_matches=max_matches, records=records
    )
    if skipped is not None:
        skipped.extend(scope.skipped)
    return query, scope


def _streamed(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
    skipped: list[SkippedFile] | None,
    items: Callable[[Outcome], Iterable[T]],
    keep_last: list[object] | None = None,
) -> Iterator[T]:
    """The ``items`` of each file's outcome, in walk order.

    The ``items`` of each file's outcome, in walk order; a file left out goes to
    ``skipped`` after its items (rendered records can fail part-way). The last file's
    syntax trees go to ``keep_last`` when given; every other file's are freed once its
    items are out, before the next file is read.
    """
    last = len(scope.files) - 1
    for index, outcome in enumerate(run_query(query, scope, progress, workers)):
        if outcome is None:
            continue
        yield from items(outcome)
        if outcome.skipped is not None and skipped is not None:
            skipped.append(outcome.skipped)
        if keep_last is not None and index == last and outcome.trees is not None:
            keep_last.append(outcome.trees)
        outcome.trees = None


def iter_records(
    what: MatchSpec,
    where: ScopeSpec,
    form: RecordFormat,
    *,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    skipped: list[SkippedFile] | None = None,
    max_per_file: int | None = None,
    keep_last: list[object] | None = None,
) -> Iterator[str]:
    """Stream every match as the text ``form`` prints it, in the order of :func:`iter_matches`.

    The same search as :func:`iter_matches` (same arguments), but no
    :class:`~xcsh.structural.base.results.Match` is built: each matched node is
    rendered at once (one JSON line, or the text lines), in the worker that
    found it. Each string is one whole record, line break included.

    ``keep_last``, when given, receives (one opaque object) the syntax trees and
    matched nodes of the last file searched in this process, instead of their
    being freed as its last record is yielded; a process that exits right after
    printing can then skip freeing them (the ``xcsh`` command does).
    Freeing the tree of a 5 MB file and its 100,000 matched nodes takes about a
    tenth of such a search. Earlier files are freed as the walk moves on, and a
    file searched by a worker process is never kept.

    Raises:
        ToolError: as :func:`search`, before the first record is yielded.
    """
    query, scope = _prepared(what, where, skipped, max_matches=max_per_file, records=form)
    return _streamed(query, scope, progress, workers, skipped, lambda o: o.records, keep_last)


def search(
    what: MatchSpec,
    where: ScopeSpec,
    *,
    limit: int | None = None,
    offset: int = 0,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    index: WarmIndex | None = None,
) -> SearchResult:
    """Search files structurally, as ``ast-grep run -p`` does.

    Args:
        what: the patterns (or YAML rules), selector and strictness.
        where: the workspace, the path or glob inside it, extra globs, the language.
        limit: keep at most this many matches (``None``: all); every match is still counted.
        offset: skip this many matches before keeping any.
        progress: optional ``progress(files_done, files_total)``.
        workers: processes to use (default: up to 2); ``1`` forces in-process.
        index: a warm session's index: files unchanged since it last saw them are
            answered from it (in-process), the others read and remembered.

    Returns:
        The kept matches, the total, and the files skipped (binary, not
        UTF-8, outside the workspace). Files with parse errors are searched.

    Raises:
        PatternMatchesNothing: nothing found, and a pattern probably matches nothing.
        StructuralError: another bad argument with its facts (an empty scope, an
            unknown node kind, a pattern ast-grep refuses, a limit below 1; see
            :mod:`xcsh.structural.base.errors`), worded for the model by ``str()``.
        ToolError: any other bad argument (see :func:`resolve_scope` and
            :func:`~xcsh.structural.pattern.compile.compile_pattern`).
    """
    if limit is not None and limit <= 0:
        raise BadLimit(limit, "matches")
    if offset < 0:
        raise ToolError(f"`offset` must be 0 or more; got {offset}.")
    scope = resolve_scope(where, rules=bool(what.rules), stats=index is not None)
    query = compile_query(what, scope)
    skipped = list(scope.skipped)
    kept: list[Match] = []
    total = 0
    files_with_matches = 0
    last_file: Path | None = None
    if limit is not None:  # later matches of a file are never kept: count them only
        query = dataclasses.replace(query, max_matches=offset + limit)
    for outcome in _run(query, scope, progress, workers, index):
        if outcome is None:
            continue
        if outcome.skipped is not None:
            skipped.append(outcome.skipped)
        for match in outcome.matches:
            if match.path != last_file:
                files_with_matches += 1
                last_file = match.path
            if total >= offset and (limit is None or len(kept) < limit):
                kept.append(match)
            total += 1
        total += outcome.unbuilt
    if total == 0 and (doubt := doubt_of(query, scope)) is not None:
        raise PatternMatchesNothing(doubt)
    return SearchResult(
        matches=kept,
        total=total,
        files_scanned=len(scope.files),
        files_with_matches=files_with_matches,
        skipped=skipped,
        error_patterns=error_patterns_of(query),
    )


def preview_edit(
    edit: EditSpec,
    where: ScopeSpec,
    *,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    captures: bool = False,
    covered: set[str] | None = None,
    index: WarmIndex | None = None,
) -> EditPreview:
    """Compute a structural rewrite without touching disk (contract §4).

    All ops are matched against the file as it is on disk; within one op
    nested matches are left alone (only the outermost is rewritten, as the
    CLI does); two ops whose replacements overlap make the preview fail.

    Args:
        edit: the ops (or rules with a fix), selector, strictness, limit and
            the ``include_*`` flags (see :class:`~xcsh.structural.scan.spec.EditSpec`).
        where: as :func:`search`.
        progress: as :func:`search`.
        workers: as :func:`search`.
        captures: also record each match's metavariable captures (for output that
            mirrors ``ast-grep run -r --json``); off by default, it costs time.
        covered: real paths (``os.path.realpath``) of files already covered; files
            in it are left out and this call's files are added to it, so a front end
            previewing several overlapping paths reads each file once.
        index: as for :func:`search`.

    Returns:
        Each changed file's new bytes (exactly what :func:`apply_preview`
        writes), its replacements, the content hash of what was read, and the
        skipped files (parse errors, binary, not UTF-8, outside the workspace).

    Raises:
        MixedLanguages: without ``lang``, the ``ops`` would change files of several
            languages (``rules`` each have their own, and may).
        StructuralError: as :func:`search` (``BadLimit`` for a limit below 1).
        ToolError: empty ``ops``, a rewrite naming a metavariable its pattern
            does not bind, overlapping ops, or any error of
            :func:`resolve_scope` / ``compile_pattern``.
    """
    limit = edit.limit
    if not edit.ops and not edit.rules:
        raise ToolError("`ops` is empty. Give at least one {pat, out} rewrite.")
    if limit is not None and limit <= 0:
        raise BadLimit(limit, "replacements")
    scope = resolve_scope(where, rules=bool(edit.rules), stats=index is not None)
    if covered is not None:
        _leave_out_covered(scope, covered)
    if scope.language is None and not edit.rules:  # ops written for code, not for ast-grep
        scope.without(is_rule_file)
    query = compile_query(
        edit.match,
        scope,
        templates=[op.out for op in edit.ops],
        skip_parse_errors=not edit.include_parse_errors,
        captures=captures,
        keep_broken=edit.include_broken,
    )
    preview = EditPreview(
        root=scope.root, files=[], skipped=list(scope.skipped), files_scanned=len(scope.files)
    )
    outcomes = _run(query, scope, progress, workers, index)
    try:
        _collect(preview, outcomes, limit)
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    if not preview.files and not preview.identical and (doubt := doubt_of(query, scope)):
        raise PatternMatchesNothing(doubt)
    if scope.language is None and not edit.rules:  # each rule names its own language
        check_one_language(preview)
    return preview


def _collect(preview: EditPreview, outcomes: Iterable[Outcome | None], limit: int | None) -> None:
    """Add each file's outcome to ``preview`` until ``limit`` replacements (``None``: all).

    Raises:
        ToolError: two ops' replacements overlap in a file.
    """
    count = 0
    for outcome in outcomes:
        if outcome is None:
            continue
        if outcome.conflict is not None:
            raise ToolError(
                f"Overlapping replacements: {outcome.conflict}. Nothing was previewed; "
                "split the ops into separate calls or make their patterns disjoint."
            )
        preview.identical += outcome.identical
        if outcome.skipped is not None:
            preview.skipped.append(outcome.skipped)
        changed = outcome.edit
        if changed is None:
            continue
        identified = identify(changed, preview.root)
        if isinstance(identified, str):
            preview.skipped.append(
                SkippedFile(path=changed.path, file=changed.file, reason=identified)
            )
            continue
        changed = identified
        if limit is not None and count + len(changed.replacements) >= limit:
            preview.files.append(_truncate(changed, limit - count))
            preview.limit_reached = True
            return
        preview.files.append(changed)
        count += len(changed.replacements)


def _run(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
    index: WarmIndex | None,
) -> Iterator[Outcome | None]:
    """The outcome of each file: from ``index`` when given, else scanned afresh."""
    if index is None:
        return run_query(query, scope, progress, workers)
    return index.run(query, scope, progress, workers)


def _leave_out_covered(scope: Scope, covered: set[str]) -> None:
    """Drop from ``scope`` the files whose real path is in ``covered``; add the rest."""

    def seen(file: Path, language: str) -> bool:
        real = os.path.realpath(file)
        if real in covered:
            return True
        covered.add(real)
        return False

    scope.without(seen)


def _truncate(edit: FileEdit, keep: int) -> FileEdit:
    if keep >= len(edit.replacements):
        return edit
    reps = edit.replacements[:keep]
    return FileEdit(
        path=edit.path,
        file=edit.file,
        language=edit.language,
        old_sha256=edit.old_sha256,
        old_bytes=edit.old_bytes,
        new_bytes=splice(edit.old_bytes, reps),
        replacements=reps,
        nested_skipped=edit.nested_skipped,
        ident=edit.ident,
        nested=tuple(r for r in edit.nested if r.match_start < reps[-1].match_end) if reps else (),
        records=edit.records,
    )


def select_replacements(preview: EditPreview, keep: set[tuple[int, int]]) -> EditPreview:
    """A preview of only some replacements of ``preview``, for a partial apply.

    Args:
        preview: the whole preview.
        keep: ``(file index, replacement index)`` pairs to keep (indexes into
            ``preview.files`` and each file's ``replacements``).

    Returns:
        A preview whose files hold exactly the kept replacements, spliced
        into the bytes read at preview time (files without one are left out),
        applied by :func:`apply_preview` like any other.
    """
    files = []
    for f_index, edit in enumerate(preview.files):
        reps = tuple(r for r_index, r in enumerate(edit.replacements) if (f_index, r_index) in keep)
        if not reps:
            continue
        if len(reps) == len(edit.replacements):
            files.append(edit)
            continue
        files.append(
            FileEdit(
                path=edit.path,
                file=edit.file,
                language=edit.language,
                old_sha256=edit.old_sha256,
                old_bytes=edit.old_bytes,
                new_bytes=splice(edit.old_bytes, reps),
                replacements=reps,
                ident=edit.ident,
            )
        )
    return EditPreview(
        root=preview.root, files=files, skipped=list(preview.skipped), files_scanned=0
    )
