"""The structural engine: scope resolution, parallel scans, previews and apply.

Front ends (the tools, ``xcsh ast-grep``/``xcsh ast-edit``, benchmarks) call
:func:`search`, :func:`iter_matches`, :func:`preview_edit` and
:func:`apply_preview`. See the package docstring for the whole picture.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.core import ToolError
from xcsh.fs import Workspace, iter_files
from xcsh.fs.confined import FileId
from xcsh.fs.walk import gitignore_spec
from xcsh.structural.languages import Language, language_for_path, resolve_language
from xcsh.structural.pattern import CompiledPattern, bound_metavariables, compile_pattern
from xcsh.structural.results import EditPreview, FileEdit, Match, SearchResult, SkippedFile
from xcsh.structural.rewrite import Template, parse_template
from xcsh.structural.scan import (
    LanguageQuery,
    Outcome,
    Query,
    restore_edit,
    scan_chunk,
    scan_file_safely,
    splice,
)

if TYPE_CHECKING:
    import multiprocessing.context

    import pathspec

    from xcsh.journal import Journal

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
_GLOB_CHARS = frozenset("*?[")
_HOSTED_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "css"})
"""Languages ast-grep also searches inside HTML files (``<script>``, ``<style>``)."""


@dataclass(frozen=True, kw_only=True)
class EditOp:
    """One rewrite: ``pat`` becomes ``out`` (empty ``out`` deletes the match)."""

    pat: str
    out: str


@dataclass(kw_only=True)
class Scope:
    """The files a call covers, each with its language.

    Attributes:
        root: the workspace folder (real path).
        files: ``(path, display path, language name)`` in walk order.
        languages: the languages of ``files`` by name.
        language: the language asked for (``lang``), or ``None`` when each file is
            searched in its own language.
        given: the path as given, for messages.
        skipped: files left out (outside the workspace).
        total_bytes: the size of ``files`` together.
        sizes: size in bytes of each of ``files`` (0 when unknown), to share work evenly.
    """

    root: Path
    files: list[tuple[Path, str, str]]
    languages: dict[str, Language] = field(default_factory=dict)
    language: Language | None = None
    given: str = "."
    skipped: list[SkippedFile] = field(default_factory=list)
    total_bytes: int = 0
    sizes: list[int] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How many files of each language, most first."""
        counts: dict[str, int] = {}
        for _, _, name in self.files:
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


@dataclass(frozen=True, kw_only=True)
class AppliedEdit:
    """What :func:`apply_preview` wrote: files and replacement counts."""

    files: tuple[str, ...]
    replacements: int
    seq: int | None = None
    """The undo journal's entry, ``None`` when not journaled."""
    warning: str | None = None
    """Set when the files landed but something after (the journal) failed; show it."""


def _workspace(root: str | Path) -> Workspace:
    return Workspace(root)


def resolve_scope(
    root: str | Path,
    *,
    path: str | None = None,
    glob: Sequence[str] = (),
    lang: str | None = None,
) -> Scope:
    """Find the files a search or edit covers, as ``ast-grep run`` does (SPEC §4).

    Without ``lang`` every file of a known language is in scope, in its own
    language. With ``lang`` only files of that language are, plus HTML files,
    whose ``<script>``/``<style>`` code is searched when ``lang`` is JavaScript,
    TypeScript or CSS; a file named explicitly is read as ``lang`` whatever its
    extension.

    Args:
        root: the workspace folder; nothing outside its real path is read.
        path: a file, a folder or a glob (relative to ``root``); default ``root``.
        glob: extra gitwildmatch filters, relative to ``root`` (any may match).
        lang: language name or alias; inferred per file when ``None``.

    Returns:
        The files in walk order with their display paths and languages, and the
        ones skipped because their real path is outside the workspace (symlinks).

    Raises:
        ToolError: unknown language (listing the supported ones), a path outside
            the workspace or missing, or no source file in scope.
    """
    ws = _workspace(root)
    language = resolve_language(lang) if lang else None
    given = (path or ".").strip() or "."
    start, path_filter, explicit_file = _start_of(ws, given)
    scope = Scope(root=ws.root, files=[], language=language, given=given)
    for file, display, info in _walk_scope(ws, start, tuple(glob), path_filter, scope.skipped):
        found = _file_language(file, language, explicit_file)
        if found is None:
            continue
        scope.languages[found.name] = found
        scope.files.append((file, display, found.name))
        size = info.st_size if info is not None else 0
        scope.sizes.append(size)
        scope.total_bytes += size
    if not scope.files and language is None:
        raise ToolError(
            f"No source file of a supported language in '{given}'. "
            "Check `path` and `glob`, or pass `lang` for files with unusual extensions."
        )
    return scope


def _start_of(ws: Workspace, given: str) -> tuple[Path, pathspec.GitIgnoreSpec | None, bool]:
    """Where the walk starts, the glob ``given`` stands for (if it is one), and whether
    ``given`` names one file."""
    candidate = Path(os.path.expanduser(given))
    absolute = candidate if candidate.is_absolute() else ws.root / candidate
    if _GLOB_CHARS & set(given) and not os.path.lexists(absolute):
        return ws.root, gitignore_spec([given]), False
    start = ws.resolve(given)
    if not os.path.exists(start):
        raise ToolError(
            f"Path '{given}' does not exist in the workspace {ws.root}. "
            "Give an existing file, folder or a glob such as 'src/**/*.py'."
        )
    return start, None, not start.is_dir()


def _walk_scope(
    ws: Workspace,
    start: Path,
    globs: tuple[str, ...],
    path_filter: pathspec.GitIgnoreSpec | None,
    skipped: list[SkippedFile],
) -> Iterator[tuple[Path, str, os.stat_result | None]]:
    """The files under ``start`` with their display paths and stat, confined to ``ws``.

    A symlinked file whose real path leaves the workspace is added to ``skipped``.
    """
    prefix = os.path.join(str(ws.root), "")
    for file in iter_files(start, globs=globs, root=ws.root, hidden_files=False):
        name = str(file)
        # The common case, a walked file under the root, without pathlib's relative_to.
        display = (
            name[len(prefix) :].replace(os.sep, "/")
            if name.startswith(prefix) and os.sep + ".." + os.sep not in name
            else ws.relative(file)
        )
        if path_filter is not None and not path_filter.match_file(display):
            continue
        try:
            info: os.stat_result | None = os.lstat(name)
        except OSError:
            info = None
        # Walked folders are real folders under a confined start, so only a symlinked
        # file can lead outside; checking just those keeps the walk fast.
        if info is not None and stat.S_ISLNK(info.st_mode):
            if not ws.contains(file):
                skipped.append(SkippedFile(path=file, file=display, reason="outside the workspace"))
                continue
            try:
                info = os.stat(name)
            except OSError:
                info = None
        yield file, display, info


def _file_language(file: Path, language: Language | None, explicit_file: bool) -> Language | None:
    """The language a file is searched in, or ``None`` to leave it out."""
    found = language_for_path(file)
    if language is None or found == language:
        return found
    if found is not None and found.name == "html" and language.name in _HOSTED_LANGUAGES:
        return found  # searched for the code embedded in it
    return language if explicit_file else None


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
    query = _compile_query(patterns, scope, selector, strictness)
    return _doubt(query, scope), _error_patterns(query)


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


def _error_patterns(query: Query) -> tuple[str, ...]:
    out: list[str] = []
    for unit in query.languages.values():
        for pattern in unit.patterns:
            if pattern is not None and pattern.has_error and pattern.source not in out:
                out.append(pattern.source)
    return tuple(out)


def _doubt(query: Query, scope: Scope) -> str | None:
    """The doubt to raise when nothing was found: a pattern doubtful in every language
    it compiled in (the language with the most files speaks), else ``None``."""
    order = {name: i for i, name in enumerate(scope.counts())}
    units = sorted(query.languages.values(), key=lambda u: order.get(u.name, len(order)))
    count = max((len(u.patterns) for u in units), default=0)
    for index in range(count):
        compiled = [u.patterns[index] for u in units if u.patterns[index] is not None]
        if compiled and all(c.doubt for c in compiled if c is not None):
            return compiled[0].doubt if compiled[0] is not None else None
    return None


def _compile_query(
    patterns: Sequence[str],
    scope: Scope,
    selector: str | None,
    strictness: str,
    templates: Sequence[str] | None = None,
    **flags: bool,
) -> Query:
    """Compile every pattern for every language of ``scope`` (and the languages HTML
    files embed). A pattern that does not compile in a language is left out there,
    as the CLI leaves it out; when ``lang`` was given, or no language accepts a
    pattern, its error is raised.
    """
    if not patterns:
        raise ToolError("`pat` is empty. Give at least one ast-grep pattern.")
    names = list(scope.counts())
    if scope.language is not None:
        names = [scope.language.name]
    elif "html" in names:
        names += [name for name in ("javascript", "typescript", "css") if name not in names]
    languages: dict[str, LanguageQuery] = {}
    errors: dict[int, ToolError] = {}
    for name in names:
        language = scope.languages.get(name) or resolve_language(name)
        compiled: list[CompiledPattern | None] = []
        for index, pattern in enumerate(patterns):
            try:
                compiled.append(
                    compile_pattern(pattern, language, selector=selector, strictness=strictness)
                )
            except ToolError as exc:
                if scope.language is not None:
                    raise
                errors.setdefault(index, exc)
                compiled.append(None)
        if any(c is not None for c in compiled):
            languages[name] = LanguageQuery(
                name=name, display=language.display, patterns=tuple(compiled)
            )
    for index in range(len(patterns)):
        if index in errors and not any(u.patterns[index] is not None for u in languages.values()):
            raise errors[index]
    parsed: tuple[Template, ...] = ()
    if templates is not None:
        parsed = tuple(
            parse_template(out, single=single, multi=multi, pattern=pattern)
            for pattern, out in zip(patterns, templates, strict=True)
            for single, multi in [bound_metavariables(pattern)]
        )
    return Query(languages=languages, templates=parsed, **flags)


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
) -> Iterator[Match]:
    """Stream every match, file by file in walk order (for ``--json`` output).

    Arguments are those of :func:`search` (no window); files that could not
    be searched are appended to ``skipped`` when a list is given. Memory
    stays flat: matches are yielded as each batch of files completes.

    Raises:
        ToolError: as :func:`search`, before the first match is yielded.
    """
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    query = _compile_query(patterns, scope, selector, strictness)
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
    query = _compile_query(patterns, scope, selector, strictness)
    skipped = list(scope.skipped)
    kept: list[Match] = []
    total = 0
    files_with_matches = 0
    last_file: Path | None = None
    for match in _iter_matches(query, scope, progress, workers, skipped):
        if match.path != last_file:
            files_with_matches += 1
            last_file = match.path
        if total >= offset and (limit is None or len(kept) < limit):
            kept.append(match)
        total += 1
    if total == 0 and (doubt := _doubt(query, scope)) is not None:
        raise ToolError(doubt)
    return SearchResult(
        matches=kept,
        total=total,
        files_scanned=len(scope.files),
        files_with_matches=files_with_matches,
        skipped=skipped,
        error_patterns=_error_patterns(query),
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
    include_broken: bool = False,
    include_parse_errors: bool = False,
) -> EditPreview:
    """Compute a structural rewrite without touching disk (SPEC §4).

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
    if not ops:
        raise ToolError("`ops` is empty. Give at least one {pat, out} rewrite.")
    if limit is not None and limit <= 0:
        raise ToolError(f"`limit` must be a positive number of replacements; got {limit}.")
    scope = resolve_scope(root, path=path, glob=glob, lang=lang)
    if covered is not None:
        _leave_out_covered(scope, covered)
    query = _compile_query(
        [op.pat for op in ops],
        scope,
        selector,
        strictness,
        templates=[op.out for op in ops],
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
    if not preview.files and not preview.identical and (doubt := _doubt(query, scope)):
        raise ToolError(doubt)
    if scope.language is None:
        check_one_language(preview)
    return preview


# Languages one rewrite may serve together: their expressions are written the same way.
_FAMILIES = {"JavaScript": "JavaScript", "TypeScript": "JavaScript", "Tsx": "JavaScript"}


def check_one_language(preview: EditPreview) -> None:
    """One rewrite is written for one language (SPEC §4): without ``lang``, refuse a
    preview that would change files of several (JavaScript, TypeScript and TSX count
    as one), so a rewrite meant for one never lands in another. Files left out
    because the rewrite would break them count too: the rewrite matched there.

    Raises:
        ToolError: naming each language with its changed files, and the fix.
    """
    by_language: dict[str, list[str]] = {}
    for edit in preview.files:
        by_language.setdefault(edit.language, []).append(edit.file)
    for skipped in preview.skipped:
        if skipped.language:
            by_language.setdefault(skipped.language, []).append(skipped.file)
    if len({_FAMILIES.get(name, name) for name in by_language}) <= 1:
        return
    listed = "; ".join(
        f"{name.lower()}: {name_list(files, 3)}" for name, files in sorted(by_language.items())
    )
    raise ToolError(
        f"The rewrite would change files of several languages ({listed}). A rewrite is "
        "written for one language: pass `lang` to pick it, or narrow `path`/`glob`."
    )


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


def name_list(names: Sequence[str], shown: int = 20) -> str:
    """``a, b, c`` — at most ``shown`` names, then ``and N more``."""
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"


def stale_files(preview: EditPreview) -> list[str]:
    """Display paths of previewed files whose bytes changed since the preview (sha256)."""
    stale: list[str] = []
    for edit in preview.files:
        try:
            current = hashlib.sha256(edit.path.read_bytes()).hexdigest()
        except OSError:
            current = ""
        if current != edit.old_sha256:
            stale.append(edit.file)
    return stale


def apply_preview(
    preview: EditPreview,
    *,
    journal: Journal | None = None,
    label: str | None = None,
    source_tool_name: str = "ast_edit",
) -> AppliedEdit:
    """Write exactly the bytes a preview showed: all or nothing, recorded in ``journal``.

    The one apply entry point for previews (a partial apply passes a preview
    holding the chosen files). Each file's real path must still be inside
    the workspace; the write itself goes through
    :func:`xcsh.journal.apply_changes`, which checks every file (same inode,
    same content as previewed, not hard-linked) before writing any, reaches
    it without following a symlink, re-checks it just before its rename, and
    rolls back on failure. A symlinked file is written through: its target
    (inside the workspace) is replaced and the link stays a link.

    Args:
        preview: the preview (or a subset of its files).
        journal: the workspace's undo journal; ``None`` writes unrecorded.
        label: the entry's label (default ``AST Edit: <R> replacement(s) in <F> file(s)``).
        source_tool_name: recorded with the entry.

    Returns:
        The files written, the number of replacements, the journal entry and
        any warning to show beside the success.

    Raises:
        StalePreviewError: a file's content changed since the preview (naming
            the files; nothing written), so the caller may preview it again.
        ToolError: a file left the workspace, changed since the preview, or
            a write failed (:class:`xcsh.journal.ApplyError`: the message says
            what was restored and names any file left holding new content).
    """
    ws = Workspace(preview.root)
    outside: list[str] = []
    from xcsh.journal import Change, apply_changes  # a search never loads the writer

    changes: list[Change] = []
    for edit in preview.files:
        located = ws.locate(edit.path)
        if located is None or located[0] != ws.root or located[1] == ".":
            outside.append(edit.file)
            continue
        changes.append(
            Change(
                path=located[1],
                shown=edit.file,
                before=edit.old_bytes,
                after=edit.new_bytes,
                ident=edit.ident,
            )
        )
    if outside:
        raise ToolError(
            f"Refusing to write outside the workspace: {name_list(outside)}. Nothing was written."
        )
    stale = stale_files(preview)
    if stale:
        from xcsh.pending import StalePreviewError  # only an apply needs it

        raise StalePreviewError(
            f"These files changed since the preview: {name_list(stale)}. Nothing was written; "
            "discard this preview and preview the edit again.",
            files=tuple(stale),
        )
    files = len(preview.files)
    applied = apply_changes(
        ws.root,
        changes,
        journal=journal,
        label=label
        or f"AST Edit: {_count(preview.total, 'replacement')} in {_count(files, 'file')}",
        source_tool_name=source_tool_name,
    )
    return AppliedEdit(
        files=tuple(e.file for e in preview.files),
        replacements=preview.total,
        seq=applied.seq,
        warning=applied.warning,
    )


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def identify(edit: FileEdit) -> FileEdit | None:
    """``edit`` with the identity (device, inode) of the file it read, or ``None`` when the
    file has other hard links (an apply would split them; such files are left out)."""
    try:
        info = os.stat(edit.path)
    except OSError:
        return edit
    if info.st_nlink > 1:
        return None
    return dataclasses.replace(edit, ident=FileId.of(info))
