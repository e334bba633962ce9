"""Walking a folder the way ``ast-grep`` and ripgrep do, honouring ignore files.

Rules (kept close to the ``ast-grep`` CLI, which uses the ``ignore`` crate):

- ``.gitignore`` and ``.ignore`` files in every folder apply to that folder
  and below (gitwildmatch syntax, via pathspec), including those of the
  folders above the starting one up to the top of its git repository, and
  the repository's ``.git/info/exclude``. Unlike the CLI, a ``.gitignore``
  counts even outside a git repository: users expect it to.
- ``.git`` and ``node_modules`` are skipped (``node_modules`` unless
  ``skip_node_modules=False``, which the structural tools pass: the CLI walks
  it unless an ignore file lists it), and so are folders whose name starts
  with a dot, as the CLI does. Dot-files are walked unless
  ``hidden_files=False`` (the structural tools pass it: the CLI skips them,
  and ``.eslintrc.js`` is configuration, not code to rewrite); a hidden file
  named explicitly is always returned.
- Symlinks met during a walk are not followed, files or folders alike, as
  the CLI does: a linked file would otherwise be visited twice (once through
  the link, once as itself) and a change to it previewed twice.
- A file named explicitly (a symlink included) is returned even when an
  ignore file lists it, and so are the files of a folder named explicitly that
  the ignore files above it list (``build`` when ``.gitignore`` says ``build/``),
  as the CLI and ripgrep search them; ignore files inside it still apply.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.fs.text import read_regular_bytes

if TYPE_CHECKING:
    import pathspec

ALWAYS_SKIPPED_DIRS = frozenset({".git", "node_modules"})
IGNORE_FILES = (".gitignore", ".ignore")


@dataclass(frozen=True)
class IgnoreRules:
    """The rules of one ignore file: gitwildmatch patterns relative to ``base``."""

    base: Path
    spec: pathspec.GitIgnoreSpec


_Rules = IgnoreRules


def gitignore_spec(lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    """Compile gitignore-syntax ``lines`` into one matcher.

    A line that is no pattern (one ending with a lone backslash) is left out, as
    git leaves it out: an ignore file never stops a walk. pathspec is
    loaded on first use: a walk of a folder without ignore files or globs never
    needs it.
    """
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # one bad line: keep the others
        return pathspec.GitIgnoreSpec.from_lines(
            line for line in lines if glob_problem(line) is None
        )


def glob_problem(glob: str) -> str | None:
    """What makes ``glob`` (gitignore syntax) no glob, as ``ast-grep --globs`` sees it.

    Returns:
        ``"unclosed character class; missing ']'"``, ``"it ends with a lone
        backslash"``, pathspec's own reason, or ``None`` for a glob.
    """
    import pathspec

    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "\\":
            if index + 1 == len(glob):
                return "it ends with a lone backslash"
            index += 2
            continue
        if char == "[":
            body = index + 1
            body += glob[body : body + 1] in ("!", "^")
            body += glob[body : body + 1] == "]"  # a ] first in the class is literal
            close = glob.find("]", body)
            if close < 0:
                return "unclosed character class; missing ']'"
            index = close + 1
            continue
        index += 1
    try:
        pathspec.GitIgnoreSpec.from_lines([glob])
    except ValueError as exc:
        return str(exc)
    return None


def _load_rules(folder: Path) -> list[_Rules]:
    rules: list[_Rules] = []
    for name in IGNORE_FILES:
        candidate = folder / name
        try:
            lines = read_regular_bytes(candidate).decode("utf-8", errors="replace").splitlines()
        except OSError:
            continue
        spec = gitignore_spec(lines)
        if spec.patterns:
            rules.append(_Rules(folder, spec))
    return rules


def folder_rules(folder: Path) -> list[IgnoreRules]:
    """The rules of ``folder``'s own ``.gitignore`` and ``.ignore`` (those that have patterns)."""
    return _load_rules(folder)


def _ignored(path: Path, is_dir: bool, rules: Sequence[_Rules]) -> bool:
    for rule in rules:
        rel = path.relative_to(rule.base).as_posix()
        if rule.spec.match_file(rel + "/" if is_dir else rel):
            return True
    return False


def ignored_by(path: Path, rules: Sequence[IgnoreRules], *, is_dir: bool = False) -> bool:
    """Whether any of ``rules`` ignores ``path`` (which must be below each rule's base)."""
    return _ignored(path, is_dir, rules)


def inherited_rules(start: Path, root: Path | None = None) -> list[IgnoreRules]:
    """The ignore rules that apply below the folder ``start`` from the folders above it.

    They come from the top of the git repository holding ``start`` (its
    ``.git/info/exclude`` and every ``.gitignore``/``.ignore`` from there down to
    ``start``'s parent), or, outside a repository, from ``root`` down. Empty when
    those rules ignore ``start`` itself: a folder the user names explicitly is
    searched, as ripgrep and the ``ast-grep`` CLI do.
    """
    repo = repository_top(start)
    anchor = repo if repo is not None else root
    inherited: list[IgnoreRules] = _load_exclude(repo) if repo is not None else []
    if anchor is not None and anchor in start.parents:
        for folder in reversed(start.parents):
            if folder == anchor or anchor in folder.parents:
                inherited.extend(_load_rules(folder))
    if any(start != rule.base and _ignored(start, True, [rule]) for rule in inherited):
        return []
    return inherited


def iter_files(
    start: Path,
    *,
    globs: Sequence[str] = (),
    root: Path | None = None,
    hidden_files: bool = True,
    unreadable: list[tuple[Path, str]] | None = None,
    skip_node_modules: bool = True,
) -> Iterator[Path]:
    """Yield the files under ``start`` that a search should visit, sorted per folder.

    Args:
        start: a file (yielded as is when it matches ``globs``) or a folder.
        globs: gitwildmatch patterns (``*.py``, ``src/**/*.ts``) matched against
            the path relative to ``root``: a file is yielded only if one plain
            glob matches (when any is given) and no ``!``-prefixed glob does, as
            ast-grep's ``--globs``.
        root: the folder ``globs`` are relative to and whose ignore files
            (and those of folders between it and ``start``) apply; defaults
            to ``start``.
        hidden_files: walk files whose name starts with a dot (hidden folders
            are never walked).
        unreadable: when given, each folder that could not be listed is
            appended with why (``"Permission denied"``); else they are skipped.
        skip_node_modules: leave out folders named ``node_modules``.

    Yields:
        Absolute paths of regular files; symlinks inside walked folders are skipped.
    """
    base = root if root is not None else (start if start.is_dir() else start.parent)
    # As ast-grep's --globs: plain globs select files, `!glob` leaves files out.
    included = [g for g in globs if not g.startswith("!")]
    excluded = [g[1:] for g in globs if g.startswith("!")]
    include_spec = gitignore_spec(included) if included else None
    exclude_spec = gitignore_spec(excluded) if excluded else None

    def wanted(path: Path) -> bool:
        if include_spec is None and exclude_spec is None:
            return True
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            rel = path.name
        if exclude_spec is not None and exclude_spec.match_file(rel):
            return False
        return include_spec is None or include_spec.match_file(rel)

    if not start.is_dir():
        if start.is_file() and wanted(start):
            yield start
        return

    # Ignore files above ``start`` apply too: from the top of the git repository
    # holding it (as git and the CLI do), or else from ``root``; not when they
    # ignore ``start`` itself, which the caller named.
    inherited = inherited_rules(start, root)
    if not hidden_files:
        shown = wanted

        def wanted(path: Path) -> bool:
            return not path.name.startswith(".") and shown(path)

    skipped_dirs = ALWAYS_SKIPPED_DIRS if skip_node_modules else frozenset({".git"})
    yield from _walk(start, inherited, wanted, unreadable, skipped_dirs)


def repository_top(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding a ``.git`` (folder or file)."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def _load_exclude(repo: Path) -> list[_Rules]:
    """The repository's own ignore list, ``.git/info/exclude``, based at its top."""
    try:
        exclude = repo / ".git" / "info" / "exclude"
        lines = read_regular_bytes(exclude).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []
    spec = gitignore_spec(lines)
    return [_Rules(repo, spec)] if spec.patterns else []


def _walk(
    folder: Path,
    inherited: list[_Rules],
    wanted: Callable[[Path], bool],
    unreadable: list[tuple[Path, str]] | None,
    skipped_dirs: frozenset[str],
) -> Iterator[Path]:
    rules = inherited + _load_rules(folder)
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        if unreadable is not None:
            unreadable.append((folder, exc.strerror or str(exc)))
        return
    subfolders: list[Path] = []
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if entry.name in skipped_dirs or entry.name.startswith("."):
                continue
            if not _ignored(path, True, rules):
                subfolders.append(path)
        elif is_file and not _ignored(path, False, rules) and wanted(path):
            yield path
    for sub in subfolders:
        yield from _walk(sub, rules, wanted, unreadable, skipped_dirs)
