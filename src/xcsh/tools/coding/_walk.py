"""Glob filters and ignore-aware file listing shared by ``grep`` and ``find``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pathspec

from xcsh.core import ToolError
from xcsh.fs import Workspace, iter_files

_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """Expand ``{a,b}`` alternatives (nesting allowed): ``*.{ts,tsx}`` → ``*.ts``, ``*.tsx``."""
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    expanded: list[str] = []
    for choice in match.group(1).split(","):
        expanded.extend(expand_braces(pattern[: match.start()] + choice + pattern[match.end() :]))
    return expanded


class GlobFilter:
    """A glob that selects files, in gitignore syntax plus ``{a,b}`` alternatives.

    A glob without ``/`` is matched against the file name (``*.py`` finds
    Python files at any depth); one with ``/`` against the path relative to the
    searched folder (``src/**/*.ts``, ``**/test_*.py``).

    Args:
        pattern: the glob.

    Raises:
        ToolError: the pattern is empty or not a valid glob.
    """

    def __init__(self, pattern: str) -> None:
        text = pattern.strip()
        if not text:
            raise ToolError("The glob is empty. Give a pattern such as '*.py' or 'src/**/*.ts'.")
        self.pattern = text
        self.alternatives = expand_braces(text.removeprefix("./"))
        self.name_only = all("/" not in alt for alt in self.alternatives)
        try:
            self._spec = pathspec.GitIgnoreSpec.from_lines(
                alt if self.name_only else alt.lstrip("/") for alt in self.alternatives
            )
        except (ValueError, TypeError) as exc:
            raise ToolError(f"Invalid glob {pattern!r}: {exc}.") from exc

    def matches(self, relative: str) -> bool:
        """Whether a file (path relative to the searched folder, ``/``-separated) is selected."""
        target = relative.rsplit("/", 1)[-1] if self.name_only else relative
        return bool(self._spec.match_file(target))


def walk(
    start: Path, policy: Workspace, glob: GlobFilter | None = None
) -> Iterator[tuple[Path, str]]:
    """Files under ``start`` a search visits, as ``(absolute path, path relative to start)``.

    Follows :func:`xcsh.fs.iter_files` (ignore files, skipped folders, the
    rules of the folders above ``start`` up to the workspace or repository,
    unless they ignore ``start`` itself). Files whose real path lies outside
    the allowed roots (symlinks out of the workspace) are left out.
    """
    base = start if start.is_dir() else start.parent
    for path in iter_files(start, root=policy.root):
        relative = path.relative_to(base).as_posix()
        if glob is not None and not glob.matches(relative):
            continue
        if path.is_symlink() and not policy.contains(path):
            continue
        yield path, relative


def sort_key(relative: str) -> tuple[str, ...]:
    """Order paths the way a sorted tree walk meets them (by components)."""
    return tuple(relative.split("/"))
