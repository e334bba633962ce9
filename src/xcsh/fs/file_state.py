"""What a file is, and what it must still be: the values confined reads and writes compare.

:class:`FileId` names which file a path held (device and inode), :class:`Expect`
what a file must still be just before it is replaced or removed (content hash,
identity, type, mode); :class:`ConfinedError` and :class:`ChangedError` are what
:class:`~xcsh.fs.confined.RootDir` raises when a path leaves the root or a file
is no longer the one expected.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from xcsh.core import XcshError


class ConfinedError(XcshError):
    """A path could not be reached without leaving the root, or is not a regular file.

    Attributes:
        path: the path relative to the root.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


class ChangedError(XcshError):
    """The file is not the one expected (type, inode or content changed).

    Attributes:
        path: the path relative to the root.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True, kw_only=True)
class FileId:
    """Which file a path named: device and inode (a rename over it changes them)."""

    dev: int
    ino: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileId:
        """The identity in a stat result."""
        return cls(dev=info.st_dev, ino=info.st_ino)


@dataclass(frozen=True, kw_only=True)
class Expect:
    """What a file must still be before it is replaced or removed.

    Args:
        sha256: hex sha256 of its content (of its target for a symlink); ``None``
            means the file must not exist.
        ident: its identity when known (a preview records it); ``None`` skips
            the inode comparison (content and type are still compared).
        link: it must be a symlink (whose target hashes to ``sha256``), not a
            regular file.
        mode: the permission bits it must have (``None``: not compared).
    """

    sha256: str | None
    ident: FileId | None = None
    link: bool = False
    mode: int | None = None


def sha256_hex(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    import hashlib  # here, not at the top: OpenSSL's import costs a search a few ms

    return hashlib.sha256(data).hexdigest()


def split_relative(rel: str) -> list[str]:
    """The components of a relative path; refuses absolute paths, ``..`` and empty names.

    Raises:
        ConfinedError: the path could leave the root.
    """
    parts = [p for p in rel.replace(os.sep, "/").split("/") if p not in ("", ".")]
    if not parts or rel.startswith("/") or any(p == ".." for p in parts):
        raise ConfinedError(f"{rel} is not a path below the workspace.", path=rel)
    return parts


__all__ = ["ChangedError", "ConfinedError", "Expect", "FileId", "sha256_hex", "split_relative"]
