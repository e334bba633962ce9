"""Confining paths to the workspace (real paths, symlinks resolved).

One home for the rule every tool follows: a path is inside when its *real*
path (every symlink resolved, dangling ones included) is the workspace root
or below it, or below a folder the user allowed. This check names the path
and its real location in messages; the writes themselves are confined again
at the moment they happen by :class:`xcsh.fs.confined.RootDir`, which never
follows a symlink on the way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from xcsh.core import ToolError


class OutsideWorkspaceError(ToolError):
    """A path whose real location is outside the workspace (and every allowed folder)."""


class Workspace:
    """The folder a session works in, plus the folders the user allowed.

    Args:
        root: the workspace folder; resolved to its real path.
        allow_outside: extra folders the user allowed (a setting or a flag).
    """

    def __init__(self, root: str | Path, allow_outside: Sequence[str | Path] = ()) -> None:
        self.root = Path(os.path.realpath(root))
        self.extra = tuple(Path(os.path.realpath(extra)) for extra in allow_outside)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The workspace root first, then the allowed folders."""
        return (self.root, *self.extra)

    def resolve(self, path: str | Path) -> Path:
        """Turn a user or model path into an absolute path inside an allowed root.

        Args:
            path: absolute, or relative to the root; ``~`` is expanded.

        Returns:
            The absolute, normalised path as given (symlinks kept, so callers
            can tell a link from its target); its real path is inside a root.

        Raises:
            OutsideWorkspaceError: the path is empty, or its real path is
                outside every root; the message names the path, the
                workspace and the fix.
            ToolError: the path holds a NUL character.
        """
        text = str(path)
        if not text.strip():
            raise OutsideWorkspaceError("The path is empty. Give a file or folder path.")
        if "\0" in text:
            raise ToolError(
                f"The path {text!r} contains a NUL character, which no file name can hold. "
                "Give the path without it."
            )
        given = Path(os.path.expanduser(text))
        absolute = Path(os.path.normpath(given if given.is_absolute() else self.root / given))
        if self.contains(absolute):
            return absolute
        real = os.path.realpath(absolute)
        via = f" (it resolves to {real})" if real != str(absolute) else ""
        extra = ""
        if self.extra:
            extra = " or the allowed folders " + ", ".join(str(root) for root in self.extra)
        raise OutsideWorkspaceError(
            f"Path '{path}' is outside the workspace {self.root}{extra}{via}. "
            "Use a path inside the workspace, or ask the user to allow access to that folder."
        )

    def contains(self, path: str | Path) -> bool:
        """True when the real path of ``path`` is inside the workspace or an allowed folder."""
        return self.locate(path) is not None

    def locate(self, path: str | Path) -> tuple[Path, str] | None:
        """The root holding the real path of ``path`` and the path below it.

        Returns:
            ``(root, relative)`` with ``/`` separators (``"."`` for a root
            itself), or ``None`` when the real path is outside every root (or
            cannot be resolved: a link on the way changed while it was read).
        """
        try:
            real = Path(os.path.realpath(path))
        except OSError:  # a symlink replaced between lstat and readlink
            return None
        for root in self.roots:
            if real == root:
                return root, "."
            if root in real.parents:
                return root, real.relative_to(root).as_posix()
        return None

    def relative(self, path: str | Path) -> str:
        """Show ``path`` relative to the root, with ``/`` separators.

        The real path's relative form when only that is below the root; ``path`` as given
        when neither is.
        """
        try:
            return Path(path).relative_to(self.root).as_posix() or "."
        except ValueError:
            real = Path(os.path.realpath(path))
            try:
                return real.relative_to(self.root).as_posix() or "."
            except ValueError:
                return str(path)

    def display(self, path: str | Path) -> str:
        """``path`` relative to the workspace root for messages, or absolute when outside."""
        absolute = Path(path)
        try:
            return absolute.relative_to(self.root).as_posix() or "."
        except ValueError:
            return str(absolute)
