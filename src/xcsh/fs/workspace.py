"""Confining paths to the workspace (SPEC §4: real paths, symlinks resolved)."""

from __future__ import annotations

import os
from pathlib import Path

from xcsh.core import ToolError


class OutsideWorkspaceError(ToolError):
    """A path whose real location is outside the workspace."""


class Workspace:
    """The folder a session works in.

    A path is inside only if its *real* path (every symlink resolved,
    dangling ones included) is the root or below it.

    Args:
        root: the workspace folder; resolved to its real path.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(os.path.realpath(root))

    def resolve(self, path: str | Path) -> Path:
        """Turn a user or model path into an absolute path inside the workspace.

        Args:
            path: absolute, or relative to the root; ``~`` is expanded.

        Returns:
            The absolute, normalised path as given (symlinks kept, so callers
            can tell a link from its target); its real path is inside the root.

        Raises:
            OutsideWorkspaceError: the real path is outside the root.
        """
        given = Path(os.path.expanduser(str(path)))
        absolute = Path(os.path.normpath(given if given.is_absolute() else self.root / given))
        if not self.contains(absolute):
            raise OutsideWorkspaceError(
                f"Path '{path}' is outside the workspace {self.root} "
                f"(it resolves to {os.path.realpath(absolute)}). "
                "Use a path inside the workspace."
            )
        return absolute

    def contains(self, path: str | Path) -> bool:
        """True when the real path of ``path`` is the root or below it."""
        real = Path(os.path.realpath(path))
        return real == self.root or self.root in real.parents

    def relative(self, path: str | Path) -> str:
        """``path`` relative to the root, with ``/`` separators, for display."""
        try:
            return Path(path).relative_to(self.root).as_posix() or "."
        except ValueError:
            real = Path(os.path.realpath(path))
            try:
                return real.relative_to(self.root).as_posix() or "."
            except ValueError:
                return str(path)
