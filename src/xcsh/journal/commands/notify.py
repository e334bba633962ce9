"""Which paths of the workspace were touched, from the kernel (inotify), so a look is cheap.

:class:`Watch` puts an inotify watch on every recorded folder and turns the
events into the set of touched paths (relative to the workspace) that
:meth:`~xcsh.journal.commands.tree.Tree.sync` looks at. A command that
changes nothing then costs one non-blocking read of the event queue, and one
that changes N files costs about N looks. When the kernel dropped events
(queue overflow) or a folder could not be watched (the per-user watch limit),
:meth:`Watch.touched` answers ``None``: look at the whole tree. Where inotify
does not exist, :func:`open_watch` returns ``None`` and every look walks.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

_MASK_NAMES = (
    "CREATE",
    "DELETE",
    "MODIFY",
    "ATTRIB",
    "MOVED_FROM",
    "MOVED_TO",
    "CLOSE_WRITE",
    "DONT_FOLLOW",
    "ONLYDIR",
    "EXCL_UNLINK",
)


class Watch:
    """Inotify watches on the recorded folders of one workspace.

    Args:
        root: the workspace (a real path).
    """

    def __init__(self, root: Path) -> None:
        from inotify_simple import INotify, flags

        self.root = root
        self._inotify = INotify(nonblocking=True)
        self._flags = flags
        mask = 0
        for name in _MASK_NAMES:
            mask |= int(getattr(flags, name))
        self._mask = mask
        self._folders: dict[int, str] = {}
        self._touched: set[str] = set()
        self.lost = False
        """Events were dropped, or a folder could not be watched: look at the whole tree."""

    def add(self, folders: Iterable[str]) -> None:
        """Watch these folders (relative; ``""`` is the root); a failure marks the watch lost."""
        for folder in folders:
            try:
                wd = self._inotify.add_watch(
                    str(self.root / folder) if folder else str(self.root), self._mask
                )
            except OSError:
                self.lost = True
                continue
            self._folders[wd] = folder

    def drop(self, folders: Iterable[str]) -> None:
        """Stop watching these folders (gone or no longer recorded)."""
        gone = set(folders)
        for wd, folder in list(self._folders.items()):
            if folder in gone:
                del self._folders[wd]
                with contextlib.suppress(OSError):
                    self._inotify.rm_watch(wd)

    @property
    def folders(self) -> set[str]:
        """The folders watched."""
        return set(self._folders.values())

    def touched(self) -> set[str] | None:
        """The paths touched since the last call (relative), ``None`` after a loss."""
        self._drain()
        touched, self._touched = self._touched, set()
        if self.lost:
            self.lost = False
            return None
        return touched

    def _drain(self) -> None:
        flags = self._flags
        while True:
            try:
                events = self._inotify.read(timeout=0)
            except BlockingIOError:
                return
            if not events:
                return
            for event in events:
                if event.mask & flags.Q_OVERFLOW:
                    self.lost = True
                    continue
                if event.mask & flags.IGNORED:
                    self._folders.pop(event.wd, None)
                    continue
                folder = self._folders.get(event.wd)
                if folder is None or not event.name:
                    continue
                self._touched.add(f"{folder}/{event.name}" if folder else event.name)

    def close(self) -> None:
        """Release the inotify instance (idempotent)."""
        with contextlib.suppress(OSError):
            self._inotify.close()


def open_watch(root: Path) -> tuple[Watch | None, str]:
    """A watch on ``root``, or ``None`` and why not (no inotify on this system)."""
    try:
        return Watch(root), ""
    except (ImportError, OSError, AttributeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return None, reason


__all__ = ["Watch", "open_watch"]
