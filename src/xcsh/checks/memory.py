"""Private folders in memory for staged files, and the removal of ones left behind.

A staged change is written to a file system in memory when the machine has
one with room (``$XDG_RUNTIME_DIR``, else ``/dev/shm``): creating hundreds
of files there takes milliseconds, where a loaded disk takes a second.
Each folder is named after the xcsh process that made it
(``xcsh-stage-<pid>-<random>``), made readable by its owner only, and
removed when the check ends; one whose process is gone (xcsh was killed)
is removed by the next xcsh that stages in the same place.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from pathlib import Path

PREFIX = "xcsh-stage-"
"""How the folders made here are named: ``xcsh-stage-<pid>-<random>``."""


def memory_parents() -> list[Path]:
    """The places in memory staged files may go, the user's own first."""
    places = [os.environ.get("XDG_RUNTIME_DIR", ""), "/dev/shm"]
    return [Path(p) for p in places if p and os.path.isabs(p)]


def _room(parent: Path) -> int:
    """Free bytes in ``parent`` when it is a usable folder (writable, executable files
    allowed), else -1."""
    try:
        st = os.statvfs(parent)
    except OSError:
        return -1
    if st.f_flag & (os.ST_RDONLY | os.ST_NOEXEC) or not os.access(parent, os.W_OK | os.X_OK):
        return -1
    return st.f_bavail * st.f_frsize


def memory_folder(needed: int, parents: list[Path] | None = None) -> Path | None:
    """A new private folder in memory with ``needed`` bytes free, or ``None``.

    Folders that earlier xcsh processes left there (they were killed) are
    removed first.
    """
    for parent in memory_parents() if parents is None else parents:
        if _room(parent) < needed:
            continue
        remove_left_behind(parent)
        folder = parent / f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            folder.mkdir(mode=0o700)
        except OSError:
            continue
        return folder
    return None


def remove_left_behind(parent: Path) -> None:
    """Remove this user's staging folders in ``parent`` whose xcsh process has ended."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if not entry.name.startswith(PREFIX):
                continue
            pid = entry.name[len(PREFIX) :].split("-", 1)[0]
            with contextlib.suppress(OSError, ValueError):
                if entry.stat(follow_symlinks=False).st_uid != os.getuid() or _alive(int(pid)):
                    continue
                shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = ["PREFIX", "memory_folder", "memory_parents", "remove_left_behind"]
