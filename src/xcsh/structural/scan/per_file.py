"""Per-file work: read, pre-filter, parse, match; rewrites go to :mod:`..edit.scan_edit`.

Runs in worker processes. Everything here takes and returns picklable values
(:mod:`xcsh.structural.matches.matching`), so the same function serves the
in-process path (small scans) and the process pool (large ones).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

from xcsh.fs import NotRegularFileError, NotTextError, decode_text, read_regular_bytes
from xcsh.fs.confined import sha256_hex
from xcsh.structural.base.results import SkippedFile
from xcsh.structural.edit.pattern_records import PatternRecords
from xcsh.structural.edit.scan_edit import edit_file, splice
from xcsh.structural.matches.matching import LanguageQuery, Outcome, Query, find_nodes, make_match
from xcsh.structural.matches.records import Offsets, render
from xcsh.structural.scan.embedded import HOSTED, embedded_sources, hosts


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


ParseFn = Callable[[str, str], SgNode]
"""``parse(source, language) -> root node``: how a scan gets a syntax tree (a warm
session's index hands out the trees it keeps)."""


@dataclass(frozen=True)
class Source:
    """One file read for a scan: its bytes, and its text.

    The text keeps the BOM, as the CLI's offsets count it.
    """

    raw: bytes
    text: str


def _parse(source: str, language: str) -> SgNode:
    return SgRoot(source, language).root()


def read_source(path: Path, file: str) -> Source | Outcome | None:
    """Read the bytes and text of ``path`` (shown as ``file``) for a scan.

    Returns an outcome saying why the file is skipped when it cannot be searched, and
    ``None`` for an empty file.
    """
    try:
        raw = read_regular_bytes(path)
    except NotRegularFileError:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="not a regular file"))
    except OSError:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason="unreadable"))
    return decode_source(raw, path, file)


def decode_source(raw: bytes, path: Path, file: str) -> Source | Outcome | None:
    """:func:`read_source` for bytes already read."""
    if not raw:
        return None  # an empty file holds no node to match, as for the CLI
    try:
        body, bom = decode_text(raw, name=file)
    except NotTextError as exc:
        return Outcome(skipped=SkippedFile(path=path, file=file, reason=exc.reason))
    return Source(raw=raw, text="\ufeff" + body if bom else body)


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
    source = read_source(path, file)
    if not isinstance(source, Source):
        return source
    return scan_source(query, source, path, file, language)


def scan_source(
    query: Query,
    source: Source,
    path: Path,
    file: str,
    language: str,
    parse: ParseFn = _parse,
) -> Outcome | None:
    """:func:`scan_file` for a file already read; its trees come from ``parse``."""
    raw, text = source.raw, source.text
    own = query.languages.get(language)
    if own is not None and not hosts(language) and not _active(own, raw, path, file):
        return None
    offsets = Offsets(text)
    found: list[tuple[LanguageQuery, SgNode, list[int]]] = []
    for unit, unit_source in _units(query, language, text):
        active = _active(unit, raw, path, file)
        if active:
            found.append((unit, parse(unit_source, unit.name), active))
    if not found:
        return None
    if not query.is_edit:
        return _search(query, found, text, offsets, path, file)
    return edit_file(query, found, text, raw, offsets, path, file, language)


def _active(unit: LanguageQuery, raw: bytes, path: Path, file: str) -> list[int]:
    """Pick the patterns of ``unit`` whose fixed tokens all occur in ``raw``, by number.

    For rules, the text they need must be in ``raw``, and their ``files``/``ignores`` must
    take the file.
    """
    return [
        i
        for i, pat in enumerate(unit.patterns)
        if pat is not None and pat.may_match(raw, file, path)
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
        found_nodes = [
            (node, pattern, query.rule(i), unit.display) for node, unit, pattern, i in nodes[:keep]
        ]
        outcome = Outcome(unbuilt=len(nodes) - min(keep, len(nodes)), trees=(found, found_nodes))
        outcome.records = _guarded(
            outcome, path, file, render(query.records, found_nodes, text, offsets, file)
        )
        return outcome
    matches = [
        make_match(node, text, offsets, pattern, i, path, file, unit.display, extras=query.rule(i))
        for node, unit, pattern, i in nodes[:keep]
    ]
    return Outcome(matches=matches, unbuilt=len(nodes) - len(matches))


def _guarded(outcome: Outcome, path: Path, file: str, records: Iterator[str]) -> Iterator[str]:
    """Yield ``records``, ending at a failure inside ast-grep.

    Such a failure marks the file as skipped in ``outcome``, as :func:`scan_file_safely`
    does for a failure before the first match.
    """
    try:
        yield from records
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a panic in ast-grep-py for this one file
        outcome.skipped = SkippedFile(path=path, file=file, reason=_failure(exc))


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
    ``new_bytes`` empty; ``old_sha256`` kept) nor its text (its JSON lines are cut
    from the bytes when printed): sending whole files back through the pool's
    pipes costs more than reading them again, and a worker blocked on a full pipe
    does no work. :func:`restore_edit` puts the bytes back.
    """
    outcomes = [scan_file_safely(query, path, file, lang) for path, file, lang in items]
    for outcome in outcomes:
        if outcome is not None and query.records is not None:
            outcome.records = list(outcome.records)  # a generator does not cross processes
            outcome.trees = None  # nor does a syntax tree
        if outcome is not None and outcome.edit is not None:
            outcome.edit = dataclasses.replace(outcome.edit, old_bytes=b"", new_bytes=b"")
            if isinstance(outcome.edit.records, PatternRecords):
                outcome.edit.records.detach()  # nor its text: lines are cut from the bytes
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
    if sha256_hex(raw) != edit.old_sha256:
        return scan_file_safely(query, path, file, language)
    outcome.edit = dataclasses.replace(
        edit, old_bytes=raw, new_bytes=splice(raw, edit.replacements)
    )
    return outcome
