"""An apply's end: the folders flushed and the old copies removed, or the old files put back.

Once every file of a change is written (:mod:`xcsh.journal.apply`), :func:`settle`
fsyncs each folder written to and removes the kept old names
(``.<name>.<tag>.orig``), a few at a time in threads (each waits on the disk:
an unlink frees the old file's blocks); a failed apply instead renames the kept
names back (:func:`roll_back`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xcsh.fs.confined import ChangedError, ConfinedError, Expect, FileId, RootDir, sha256_hex

if TYPE_CHECKING:
    from xcsh.journal.apply import Change

SERIAL = 8
"""Up to this many files are written, flushed or removed one after the other."""
THREADS = 8
"""Threads writing, flushing or removing more files than :data:`SERIAL`."""


def roll_back(rd: RootDir, written: list[tuple[Change, FileId | None]], tag: str) -> list[str]:
    """Put the old files back (renaming the kept names); returns files still holding new content."""
    left: list[str] = []
    for change, _ident in reversed(written):
        try:
            if change.before is None:
                made = Expect(sha256=sha256_hex(change.after or b""), link=change.link_after)
                rd.remove(change.path, expect=made)
            else:
                rd.restore_sibling(change.path, f"{tag}.orig")
        except (OSError, ConfinedError, ChangedError):
            left.append(change.shown)
    return left


_KEPT_TRIES = 20
"""Attempts at removing a kept old name whose folder could not be reached (moved, or
briefly a symlink while another program renames it), a millisecond apart."""


@dataclass(frozen=True, kw_only=True)
class Settled:
    """What :func:`settle` could not do (the change is applied either way)."""

    unsynced: list[str]
    """Folders whose fsync failed."""
    kept: list[str]
    """Kept old names (``.<name>.<tag>.orig``) still on disk, workspace-relative."""


def _drop_kept(rd: RootDir, rel: str, suffix: str) -> bool:
    """Remove the kept old name ``.<name>.<suffix>`` beside ``rel``.

    Returns True once it is gone (or was never there), False when its folder could not
    be reached or the removal failed.
    """
    try:
        with rd.parent(rel) as (dirfd, name):
            os.unlink(f".{name}.{suffix}", dir_fd=dirfd)
    except FileNotFoundError:
        return True
    except (OSError, ConfinedError):
        return False
    return True


def settle(rd: RootDir, written: list[tuple[Change, FileId | None]], tag: str) -> Settled:
    """Flush each folder written to with ``fsync``, then drop the kept old names.

    A kept name whose folder cannot be reached right now (another program is
    renaming it) is tried again for a few milliseconds; what is still there is
    returned, so the result can name it.
    """
    folders = sorted({c.path.rpartition("/")[0] for c, _ in written})

    def synced(folder: str) -> bool:
        try:
            rd.sync_folder(folder)
        except (OSError, ConfinedError):
            return False
        return True

    unsynced = [f or "." for f, ok in zip(folders, _each(synced, folders), strict=True) if not ok]
    pending = [c.path for c, _ in written if c.before is not None]
    for attempt in range(_KEPT_TRIES):
        dropped = _each(lambda path: _drop_kept(rd, path, f"{tag}.orig"), pending)
        pending = [path for path, gone in zip(pending, dropped, strict=True) if not gone]
        if not pending:
            break
        if attempt + 1 < _KEPT_TRIES:
            time.sleep(0.001)
    kept = []
    for path in pending:
        folder, _, name = path.rpartition("/")
        kept.append(f"{folder}/.{name}.{tag}.orig" if folder else f".{name}.{tag}.orig")
    return Settled(unsynced=unsynced, kept=kept)


def _each(work: Callable[[str], bool], items: list[str]) -> list[bool]:
    """``work(item)`` for each item, in a few threads when there are many.

    Each call waits on the disk (an unlink frees the old file's blocks, an fsync
    flushes), which frees the GIL.
    """
    if len(items) <= SERIAL:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        return list(pool.map(work, items))


__all__ = ["SERIAL", "THREADS", "Settled", "roll_back", "settle"]
