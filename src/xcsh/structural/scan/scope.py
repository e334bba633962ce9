"""Which files a structural search or edit covers, as ``ast-grep run`` decides it.

:func:`resolve_scope` walks the workspace (``xcsh.fs``'s ignore-aware walk),
keeps the files a symlink does not lead out of it, and gives each its
language; the engine compiles the patterns for those languages.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.fs import Workspace, iter_files
from xcsh.fs.walk import gitignore_spec, glob_problem
from xcsh.structural.base.errors import BadGlob, EmptyScope, MissingPath, NotRegularFile
from xcsh.structural.base.languages import Language, language_for_path, resolve_language
from xcsh.structural.base.results import SkippedFile
from xcsh.structural.scan.spec import ScopeSpec

if TYPE_CHECKING:
    import pathspec

_GLOB_CHARS = frozenset("*?[")
HOSTED_LANGUAGES = frozenset({"javascript", "typescript", "tsx", "css"})
"""Languages ast-grep also searches inside HTML files (``<script>``, ``<style>``)."""


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
        stats: the ``stat`` of each of ``files`` taken by the walk (``None`` when it
            failed), which a warm session's index reads fingerprints from; empty
            unless asked for.
    """

    root: Path
    files: list[tuple[Path, str, str]]
    languages: dict[str, Language] = field(default_factory=dict)
    language: Language | None = None
    given: str = "."
    skipped: list[SkippedFile] = field(default_factory=list)
    total_bytes: int = 0
    sizes: list[int] = field(default_factory=list)
    stats: list[os.stat_result | None] = field(default_factory=list)

    def without(self, leave_out: Callable[[Path, str], bool]) -> None:
        """Drop the files for which ``leave_out(path, language name)`` is true.

        Their sizes and stats go with them, and :attr:`total_bytes` is summed again.
        """
        known = len(self.sizes) == len(self.files)
        stated = len(self.stats) == len(self.files)
        kept = [i for i, (file, _, name) in enumerate(self.files) if not leave_out(file, name)]
        self.files = [self.files[i] for i in kept]
        self.sizes = [self.sizes[i] if known else 0 for i in kept]
        self.stats = [self.stats[i] if stated else None for i in kept]
        self.total_bytes = sum(self.sizes)

    def counts(self) -> dict[str, int]:
        """How many files of each language, most first."""
        counts: dict[str, int] = {}
        for _, _, name in self.files:
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def resolve_scope(where: ScopeSpec, *, rules: bool = False, stats: bool = False) -> Scope:
    """Find the files a search or edit covers, as ``ast-grep run`` does (contract §4).

    Without ``lang`` every file of a known language is in scope, in its own
    language. With ``lang`` only files of that language are, plus HTML files,
    whose ``<script>``/``<style>`` code is searched when ``lang`` is JavaScript,
    TypeScript or CSS; a file named explicitly is read as ``lang`` whatever its
    extension. Hidden folders are never walked; hidden files (``src/.f.py``)
    are when the walk goes by language, as the CLI's does: with ``lang``, or
    for YAML ``rules`` (``ast-grep scan``).

    Args:
        where: the workspace folder (nothing outside its real path is read), a
            file, folder or glob relative to it (default: all of it), extra
            gitwildmatch filters (any may match), and the language name or
            alias (inferred per file when ``None``).
        rules: the scope is for YAML rules.
        stats: keep each file's ``stat`` in :attr:`Scope.stats` (a warm index reads
            fingerprints from them; a cold search does not keep them).

    Returns:
        The files in walk order with their display paths and languages, and the
        ones skipped because their real path is outside the workspace (symlinks).

    Raises:
        BadGlob: a glob filter is no glob (an unclosed ``[``, a lone backslash).
        EmptyScope: no source file of a known language in scope (without ``lang``).
        MissingPath: ``path`` names nothing in the workspace (and is no glob).
        NotRegularFile: ``path`` is a named pipe, socket or device.
        ToolError: unknown language (listing the supported ones), a path
            outside the workspace (:meth:`xcsh.fs.Workspace.resolve`).
    """
    ws = Workspace(where.root)
    language = resolve_language(where.lang) if where.lang else None
    for glob in where.globs:
        why = glob_problem(glob.removeprefix("!"))
        if why is not None:
            raise BadGlob(glob, why)
    given = (where.path or ".").strip() or "."
    start, path_filter, explicit_file = _start_of(ws, given)
    scope = Scope(root=ws.root, files=[], language=language, given=given)
    hidden = language is not None or rules
    walked = _walk_scope(ws, start, where.globs, path_filter, scope.skipped, hidden=hidden)
    for file, display, info in walked:
        found = _file_language(file, language, explicit_file)
        if found is None:
            continue
        scope.languages[found.name] = found
        scope.files.append((file, display, found.name))
        size = info.st_size if info is not None else 0
        scope.sizes.append(size)
        if stats:
            scope.stats.append(info)
        scope.total_bytes += size
    if not scope.files and language is None:
        raise EmptyScope(given)
    return scope


def _start_of(ws: Workspace, given: str) -> tuple[Path, pathspec.GitIgnoreSpec | None, bool]:
    """Find where the walk for ``given`` starts.

    Returns the start, the glob ``given`` stands for (if it is one), and whether ``given``
    names one file.

    Raises:
        MissingPath: ``given`` is neither a glob nor an existing path.
        NotRegularFile: ``given`` is neither a folder nor a regular file.
    """
    candidate = Path(os.path.expanduser(given))
    absolute = candidate if candidate.is_absolute() else ws.root / candidate
    if _GLOB_CHARS & set(given) and not os.path.lexists(absolute):
        return ws.root, gitignore_spec([given]), False
    start = ws.resolve(given)
    if not os.path.exists(start):
        raise MissingPath(given, str(ws.root))
    info = start.stat()
    if not stat.S_ISDIR(info.st_mode) and not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(given, _KINDS.get(stat.S_IFMT(info.st_mode), "not a file"))
    return start, None, not stat.S_ISDIR(info.st_mode)


_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def _walk_scope(
    ws: Workspace,
    start: Path,
    globs: tuple[str, ...],
    path_filter: pathspec.GitIgnoreSpec | None,
    skipped: list[SkippedFile],
    *,
    hidden: bool,
) -> Iterator[tuple[Path, str, os.stat_result | None]]:
    """Walk the files under ``start`` with their display paths and stat, confined to ``ws``.

    With ``hidden``, dot-files too. As the CLI, ``node_modules`` is walked unless an
    ignore file leaves it out.

    A symlinked file whose real path leaves the workspace is added to ``skipped``, and
    so is each folder that could not be listed (reason: why, ``"Permission denied"``).
    """
    prefix = os.path.join(str(ws.root), "")
    unreadable: list[tuple[Path, str]] = []
    for file in iter_files(
        start,
        globs=globs,
        root=ws.root,
        hidden_files=hidden,
        unreadable=unreadable,
        skip_node_modules=False,
    ):
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
    for folder, why in unreadable:  # as ast-grep: "Permission denied" rather than silence
        skipped.append(SkippedFile(path=folder, file=f"{ws.relative(folder)}/", reason=why))


def _file_language(file: Path, language: Language | None, explicit_file: bool) -> Language | None:
    """The language a file is searched in, or ``None`` to leave it out."""
    found = language_for_path(file)
    if language is None or found == language:
        return found
    if found is not None and found.name == "html" and language.name in HOSTED_LANGUAGES:
        return found  # searched for the code embedded in it
    return language if explicit_file else None
