"""The structural engine: compiled queries, parallel scans, previews.

Front ends (the tools, ``xcsh ast-grep``/``xcsh ast-edit``, benchmarks) call
:func:`search`, :func:`iter_matches`, :func:`preview_edit` and
:func:`apply_preview`. See the package docstring for the whole picture.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.core import ToolError
from xcsh.structural.apply import AppliedEdit, apply_preview, identify, name_list, stale_files
from xcsh.structural.query import check_one_language, compile_query, doubt_of, error_patterns_of
from xcsh.structural.records import RecordFormat
from xcsh.structural.results import EditPreview, FileEdit, Match, SearchResult, SkippedFile
from xcsh.structural.scan import (
    Outcome,
    Query,
    restore_edit,
    scan_chunk,
    scan_file_safely,
    splice,
)
from xcsh.structural.scope import Scope, resolve_scope

if TYPE_CHECKING:
    import multiprocessing.context

    from xcsh.structural.rules import CompiledRule

__all__ = [
    "AppliedEdit",
    "EditOp",
    "ProgressCallback",
    "Scope",
    "apply_preview",
    "check_one_language",
    "error_patterns",
    "explain_nothing_found",
    "iter_matches",
    "iter_records",
    "name_list",
    "preview_edit",
    "resolve_scope",
    "search",
    "stale_files",
]

ProgressCallback = Callable[[int, int], None]
"""``progress(files_done, files_total)``: called on the calling thread after
each file (in-process) or batch of files (process pool); ``files_total`` is
fixed for one call. It may raise to cancel the scan: the exception
propagates to the caller after the worker processes are stopped."""

PARALLEL_MIN_FILES = 16
"""Scans of fewer files run in-process (a pool costs more than it saves)."""
PARALLEL_MIN_BYTES = 1024 * 1024
"""Scans of fewer bytes than this run in-process too."""
_MIN_CHUNK_BYTES = 64 * 1024
_MAX_CHUNK_FILES = 64
_WINDOW_PER_WORKER = 4


@dataclass(frozen=True, kw_only=True)
class EditOp:
    """One rewrite: ``pat`` becomes ``out`` (empty ``out`` deletes the match)."""

    pat: str
    out: str


def _pool_context() -> multiprocessing.context.BaseContext:
    # fork: workers start in milliseconds with ast-grep-py already loaded, and, unlike
    # spawn/forkserver, never re-run the caller's __main__ module. Workers only run
    # scan_chunk, which imports nothing new, so threads of the parent cannot deadlock them.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _run(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
) -> Iterator[Outcome | None]:
    """Yield one outcome per file, in walk order; in-process or on a process pool."""
    files = scope.files
    total = len(files)
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    small = total < PARALLEL_MIN_FILES or scope.total_bytes < PARALLEL_MIN_BYTES
    if count <= 1 or small:
        for done, (path, display, language) in enumerate(files, 1):
            outcome = scan_file_safely(query, path, display, language)
            if progress is not None:
                progress(done, total)
            yield outcome
        return
    sizes = scope.sizes if len(scope.sizes) == total else [1] * total
    # the pool (multiprocessing) loads only for scans big enough to share
    from xcsh.structural.pool import WorkerDied, plan_chunks, run_chunks

    ends = plan_chunks(sizes, count, min_bytes=_MIN_CHUNK_BYTES, max_items=_MAX_CHUNK_FILES)
    chunks = [files[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    done = 0
    results = run_chunks(
        functools.partial(scan_chunk, query),
        chunks,
        workers=count,
        context=_pool_context(),
        window_per_worker=_WINDOW_PER_WORKER,
    )
    try:
        for chunk, outcomes in zip(chunks, results, strict=False):
            done += len(outcomes)
            if progress is not None:
                progress(done, total)
            for (path, display, language), outcome in zip(chunk, outcomes, strict=True):
                if outcome is not None and outcome.edit is not None:
                    outcome = restore_edit(query, outcome, path, display, language)
                yield outcome
    except WorkerDied as exc:
        names = [item[1] for item in chunks[exc.chunk]] if exc.chunk is not None else []
        where = f" while scanning {name_list(names)}" if names else ""
        raise ToolError(
            f"A scan worker process died ({exc.cause}){where}; the scan was stopped and "
            "nothing was returned. Leave these files out with `path` or `glob` and try again."
        ) from exc
    finally:
        results.close()


def explain_nothing_found(
    patterns: Sequence[str],
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
    rules: Sequence[CompiledRule] = (),
) -> tuple[str | None, tuple[str, ...]]:
    """Why a search found nothing: ``(doubt, error_patterns)``.

    ``doubt`` is the error to report when a pattern probably matches nothing
    (see :attr:`~xcsh.structural.pattern.CompiledPattern.doubt`), else ``None``;
    ``error_patterns`` are the patterns whose tree holds an ERROR node, for a
    hint. Arguments are those of :func:`search`; no file is parsed.

    Raises:
        ToolError: as :func:`search`.
    """
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    query = compile_query(patterns, scope, selector, strictness, rules=rules)
    return doubt_of(query, scope), error_patterns_of(query)


def error_patterns(
    patterns: Sequence[str],
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
) -> tuple[str, ...]:
    """The patterns whose tree holds an ERROR node, for a "found nothing" hint.

    Raises:
        ToolError: as :func:`search`.
    """
    return explain_nothing_found(
        patterns,
        root=root,
        path=path,
        glob=glob,
        lang=lang,
        selector=selector,
        strictness=strictness,
    )[1]


def iter_matches(
    patterns: Sequence[str],
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    skipped: list[SkippedFile] | None = None,
    max_per_file: int | None = None,
    rules: Sequence[CompiledRule] = (),
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
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    query = compile_query(patterns, scope, selector, strictness, rules=rules)
    if max_per_file is not None:
        query = dataclasses.replace(query, max_matches=max_per_file)
    if skipped is not None:
        skipped.extend(scope.skipped)
    return _iter_matches(query, scope, progress, workers, skipped)


def _iter_matches(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
    skipped: list[SkippedFile] | None,
) -> Iterator[Match]:
    for outcome in _run(query, scope, progress, workers):
        if outcome is None:
            continue
        if outcome.skipped is not None and skipped is not None:
            skipped.append(outcome.skipped)
        yield from outcome.matches


def iter_records(
    patterns: Sequence[str],
    form: RecordFormat,
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    skipped: list[SkippedFile] | None = None,
    max_per_file: int | None = None,
    rules: Sequence[CompiledRule] = (),
) -> Iterator[str]:
    """Stream every match as the text ``form`` prints it, in the order of :func:`iter_matches`.

    The same search as :func:`iter_matches` (same arguments), but no
    :class:`~xcsh.structural.results.Match` is built: each matched node is
    rendered at once (one JSON line, or the text lines), in the worker that
    found it. Each string is one whole record, line break included.

    Raises:
        ToolError: as :func:`search`, before the first record is yielded.
    """
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    query = compile_query(patterns, scope, selector, strictness, rules=rules)
    query = dataclasses.replace(query, max_matches=max_per_file, records=form)
    if skipped is not None:
        skipped.extend(scope.skipped)
    return _iter_records(query, scope, progress, workers, skipped)


def _iter_records(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
    skipped: list[SkippedFile] | None,
) -> Iterator[str]:
    for outcome in _run(query, scope, progress, workers):
        if outcome is None:
            continue
        yield from outcome.records
        if outcome.skipped is not None and skipped is not None:
            skipped.append(outcome.skipped)  # after: a failure part-way sets it


def search(
    patterns: Sequence[str],
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
    limit: int | None = None,
    offset: int = 0,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    rules: Sequence[CompiledRule] = (),
) -> SearchResult:
    """Search files structurally, as ``ast-grep run -p`` does.

    Args:
        patterns: one or more ast-grep patterns; a file's matches are merged in source order.
        root: the workspace folder.
        path: file, folder or glob inside ``root`` (default: all of it).
        glob: extra gitwildmatch filters.
        lang: language; inferred from extensions when ``None``.
        selector: node kind to match inside a pattern that needs context (``sel``).
        strictness: ``cst``/``smart``/``ast``/``relaxed``/``signature``.
        limit: keep at most this many matches (``None``: all); every match is still counted.
        offset: skip this many matches before keeping any.
        progress: optional ``progress(files_done, files_total)``.
        workers: processes to use (default: up to 2); ``1`` forces in-process.
        rules: YAML rules (:mod:`xcsh.structural.rules`) to run instead of ``patterns``
            (which must then be empty); each rule runs on the files of its language.

    Returns:
        The kept matches, the total, and the files skipped (binary, not
        UTF-8, outside the workspace). Files with parse errors are searched.

    Raises:
        ToolError: bad arguments (see :func:`resolve_scope` and
            :func:`~xcsh.structural.pattern.compile_pattern`).
    """
    if limit is not None and limit <= 0:
        raise ToolError(f"`limit` must be a positive number of matches; got {limit}.")
    if offset < 0:
        raise ToolError(f"`offset` must be 0 or more; got {offset}.")
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    query = compile_query(patterns, scope, selector, strictness, rules=rules)
    skipped = list(scope.skipped)
    kept: list[Match] = []
    total = 0
    files_with_matches = 0
    last_file: Path | None = None
    if limit is not None:  # later matches of a file are never kept: count them only
        query = dataclasses.replace(query, max_matches=offset + limit)
    for outcome in _run(query, scope, progress, workers):
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
        raise ToolError(doubt)
    return SearchResult(
        matches=kept,
        total=total,
        files_scanned=len(scope.files),
        files_with_matches=files_with_matches,
        skipped=skipped,
        error_patterns=error_patterns_of(query),
    )


def preview_edit(
    ops: Sequence[EditOp],
    *,
    root: str | Path,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
    selector: str | None = None,
    strictness: str = "smart",
    limit: int | None = None,
    progress: ProgressCallback | None = None,
    workers: int | None = None,
    captures: bool = False,
    covered: set[str] | None = None,
    rules: Sequence[CompiledRule] = (),
    include_broken: bool = False,
    include_parse_errors: bool = False,
) -> EditPreview:
    """Compute a structural rewrite without touching disk (contract §4).

    All ops are matched against the file as it is on disk; within one op
    nested matches are left alone (only the outermost is rewritten, as the
    CLI does); two ops whose replacements overlap make the preview fail.

    Args:
        ops: ``EditOp(pat, out)`` list, non-empty.
        root, path, glob, lang, selector, strictness, progress, workers: as :func:`search`.
        limit: maximum number of replacements (positive); the scan stops there.
        captures: also record each match's metavariable captures (for output that
            mirrors ``ast-grep run -r --json``); off by default, it costs time.
        covered: real paths (``os.path.realpath``) of files already covered; files
            in it are left out and this call's files are added to it, so a front end
            previewing several overlapping paths reads each file once.
        include_broken: keep files whose rewritten text has parse errors the
            old text did not have (each rewritten file is parsed again; by
            default such files are left out and listed with the first error).
        include_parse_errors: rewrite files that already have parse errors
            (tree-sitter may mis-parse valid code; the ast-grep CLI rewrites
            them); by default they are skipped.

    Returns:
        Each changed file's new bytes (exactly what :func:`apply_preview`
        writes), its replacements, the content hash of what was read, and the
        skipped files (parse errors, binary, not UTF-8, outside the workspace).

    Raises:
        ToolError: empty ``ops``, non-positive ``limit``, a rewrite naming a
            metavariable its pattern does not bind, overlapping ops, or any
            error of :func:`resolve_scope` / ``compile_pattern``.
    """
    if not ops and not rules:
        raise ToolError("`ops` is empty. Give at least one {pat, out} rewrite.")
    if limit is not None and limit <= 0:
        raise ToolError(f"`limit` must be a positive number of replacements; got {limit}.")
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    if covered is not None:
        _leave_out_covered(scope, covered)
    query = compile_query(
        [op.pat for op in ops],
        scope,
        selector,
        strictness,
        templates=[op.out for op in ops],
        rules=rules,
        skip_parse_errors=not include_parse_errors,
        captures=captures,
        keep_broken=include_broken,
    )
    preview = EditPreview(
        root=scope.root, files=[], skipped=list(scope.skipped), files_scanned=len(scope.files)
    )
    count = 0
    outcomes = _run(query, scope, progress, workers)
    try:
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
            edit = outcome.edit
            if edit is None:
                continue
            identified = identify(edit)
            if identified is None:
                preview.skipped.append(
                    SkippedFile(path=edit.path, file=edit.file, reason="hard-linked")
                )
                continue
            edit = identified
            if limit is not None and count + len(edit.replacements) >= limit:
                edit = _truncate(edit, limit - count)
                preview.files.append(edit)
                preview.limit_reached = True
                break
            preview.files.append(edit)
            count += len(edit.replacements)
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    if not preview.files and not preview.identical and (doubt := doubt_of(query, scope)):
        raise ToolError(doubt)
    if scope.language is None:
        check_one_language(preview)
    return preview


# Languages one rewrite may serve together: their expressions are written the same way.
def _leave_out_covered(scope: Scope, covered: set[str]) -> None:
    """Drop from ``scope`` the files whose real path is in ``covered``; add the rest."""
    kept: list[tuple[Path, str, str]] = []
    sizes: list[int] = []
    known = len(scope.sizes) == len(scope.files)
    for index, (file, display, language) in enumerate(scope.files):
        real = os.path.realpath(file)
        if real not in covered:
            covered.add(real)
            kept.append((file, display, language))
            sizes.append(scope.sizes[index] if known else 0)
    scope.files = kept
    scope.sizes = sizes
    scope.total_bytes = sum(sizes)


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
        nested=tuple(
            r for r in edit.nested if r.match.span.start_byte < reps[-1].match.span.end_byte
        )
        if reps
        else (),
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
