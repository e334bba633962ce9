"""What one path holds at one moment, as the journal compares it: nothing, a file, a symlink.

A :class:`Side` is a path's state reduced to what a record keeps of it: the
sha256 of a regular file's content (of a symlink's target), whether it is a
symlink, and a regular file's permission bits. Undo, rewind and recovery read
the path as it is now (:func:`now`) and compare it with a record's before or
after side (:meth:`Side.same`); a mode the record does not know is not compared,
so entries written before modes were recorded read as they always did.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

from xcsh.fs.confined import ConfinedError, FileId, RootDir, sha256_hex
from xcsh.journal.records import FileRecord


@dataclass(frozen=True, kw_only=True)
class Side:
    """One side of a path: absent (``digest`` ``None``), a regular file or a symlink.

    Args:
        digest: sha256 of the file's content or of the link's target; ``None``: absent.
        link: it is a symlink.
        mode: a regular file's permission bits (``None``: not known, or not a file).
    """

    digest: str | None
    link: bool = False
    mode: int | None = None

    def same(self, other: Side) -> bool:
        """True when both hold the same thing (modes compared only when both are known)."""
        if self.digest != other.digest or (self.digest is not None and self.link != other.link):
            return False
        if self.digest is None or self.link or self.mode is None or other.mode is None:
            return True
        return self.mode == other.mode


ABSENT = Side(digest=None)


def before_side(record: FileRecord) -> Side:
    """What ``record``'s file held before its change."""
    mode = record.mode if not record.link_before else None
    return Side(digest=record.before, link=record.link_before, mode=mode)


def after_side(record: FileRecord) -> Side:
    """What ``record``'s file holds after its change (its mode when the record knows it)."""
    mode = None if record.link_after else record.after_mode
    return Side(digest=record.after, link=record.link_after, mode=mode)


@dataclass(frozen=True, kw_only=True)
class Found:
    """A path as it is now.

    Args:
        data: the regular file's content, or the symlink's target (``None``: absent).
        side: what it holds, as a record compares it.
        ident: the file's device and inode (``None`` when absent).
    """

    data: bytes | None
    side: Side
    ident: FileId | None = None


def now(rd: RootDir, path: str) -> Found:
    """What ``path`` (relative to ``rd``) holds now, without following a symlink.

    Raises:
        ConfinedError: a symlink on the way, or something other than a regular file
            or a symlink (a folder, a device).
        OSError: it cannot be read.
    """
    entry = rd.read_entry(path)
    if entry is None:
        return Found(data=None, side=ABSENT)
    data, info, link = entry
    mode = None if link else stat.S_IMODE(info.st_mode)
    return Found(
        data=data,
        side=Side(digest=sha256_hex(data), link=link, mode=mode),
        ident=FileId.of(info),
    )


def now_or_none(rd: RootDir, path: str) -> Found | None:
    """:func:`now`, or ``None`` when the path cannot be read safely."""
    try:
        return now(rd, path)
    except (ConfinedError, OSError):
        return None


__all__ = ["ABSENT", "Found", "Side", "after_side", "before_side", "now", "now_or_none"]
