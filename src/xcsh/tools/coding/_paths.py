"""Which paths the coding tools may touch: the workspace, plus roots the user allowed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from xcsh.fs import OutsideWorkspaceError, Workspace


class PathPolicy:
    """Resolve model-given paths and refuse those outside the allowed roots.

    A path is allowed when its *real* path (every symlink resolved, dangling
    ones included; SPEC §4) is the workspace root or below it, or below one of
    the extra roots the user allowed.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed (a setting or a flag).
    """

    def __init__(self, cwd: str | Path, allow_outside: Sequence[str | Path] = ()) -> None:
        self.workspace = Workspace(cwd)
        self.extra = tuple(Workspace(root) for root in allow_outside)

    @property
    def root(self) -> Path:
        """The workspace's real path."""
        return self.workspace.root

    def allowed(self, path: str | Path) -> bool:
        """True when the real path of ``path`` is inside the workspace or an allowed root."""
        return self.workspace.contains(path) or any(ws.contains(path) for ws in self.extra)

    def resolve(self, path: str | Path) -> Path:
        """Turn a model-given path into an absolute path the tools may use.

        Args:
            path: absolute, or relative to the workspace root; ``~`` is expanded.

        Returns:
            The absolute, normalised path (symlinks kept, so a link stays a link).

        Raises:
            OutsideWorkspaceError: the real path is outside every allowed root;
                the message names the path, the workspace and the fix.
        """
        text = str(path)
        if not text.strip():
            raise OutsideWorkspaceError("The path is empty. Give a file or folder path.")
        given = Path(os.path.expanduser(text))
        absolute = Path(os.path.normpath(given if given.is_absolute() else self.root / given))
        if self.allowed(absolute):
            return absolute
        real = os.path.realpath(absolute)
        via = f" (it resolves to {real})" if real != str(absolute) else ""
        extra = ""
        if self.extra:
            extra = " or the allowed folders " + ", ".join(str(ws.root) for ws in self.extra)
        raise OutsideWorkspaceError(
            f"Path '{path}' is outside the workspace {self.root}{extra}{via}. "
            "Use a path inside the workspace, or ask the user to allow access to that folder."
        )

    def display(self, path: str | Path) -> str:
        """``path`` relative to the workspace root for messages, or absolute when outside."""
        absolute = Path(path)
        try:
            return absolute.relative_to(self.root).as_posix() or "."
        except ValueError:
            return str(absolute)


def human_size(size: int) -> str:
    """A byte count for people: ``512 bytes``, ``3.4 KiB``, ``12.0 MiB``."""
    if size < 1024:
        return f"{size} byte" + ("" if size == 1 else "s")
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 line``, ``3 lines``."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def capped_listing(lines: list[str], total: int, limit: int, of: str, hint: str) -> str:
    """``lines`` one per line, at most ``limit`` of them.

    When ``total`` exceeds ``limit``, a blank line and ``[Showing LIMIT of OF.
    HINT]`` follow, ``of`` being the counted whole (``plural(total, "file")``).
    """
    if total > limit:
        lines = [*lines[:limit], "", f"[Showing {limit} of {of}. {hint}]"]
    return "\n".join(lines)
