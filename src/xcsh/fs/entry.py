"""One entry of a folder, reached through the folder's handle: read it, compare it.

The helpers :class:`~xcsh.fs.confined.RootDir` reads and checks files with,
once it holds the handle of the file's folder: :func:`read_at` (a regular file,
never through a symlink), :func:`entry_at` (a regular file's content or a
symlink's target), :func:`check_entry` (the file is still what an
:class:`~xcsh.fs.file_state.Expect` says, just before a write).
"""

from __future__ import annotations

import errno
import os
import stat

from xcsh.fs.file_state import ChangedError, ConfinedError, Expect, FileId, sha256_hex

READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_CHUNK = 1 << 20


def confined_error(rel: str, exc: OSError) -> ConfinedError:
    """The :class:`ConfinedError` saying why ``rel`` could not be reached (``exc``)."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        text = f"{rel}: a folder on its path is a symlink or not a folder; refusing to follow it."
    else:
        text = f"{rel}: {exc.strerror or exc}."
    return ConfinedError(text, path=rel)


def read_at(dirfd: int, name: str, rel: str) -> tuple[bytes, os.stat_result] | None:
    """The content and status of the regular file ``name`` in ``dirfd``; ``None``: none.

    Raises:
        ConfinedError: it is a symlink or not a regular file.
        OSError: it cannot be read.
    """
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dirfd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfinedError(f"{rel} is a symlink; refusing to follow it.", path=rel) from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfinedError(f"{rel} is not a regular file.", path=rel)
        chunks = []
        while chunk := os.read(fd, _CHUNK):
            chunks.append(chunk)
        return b"".join(chunks), info
    finally:
        os.close(fd)


def check_entry(dirfd: int, name: str, rel: str, expect: Expect) -> os.stat_result | None:
    """The current file's status if it is what ``expect`` says; else :class:`ChangedError`."""
    try:
        found = entry_at(dirfd, name, rel)
    except ConfinedError as exc:
        raise ChangedError(f"{rel} changed: {exc}", path=rel) from exc
    if found is None:
        if expect.sha256 is None:
            return None
        raise ChangedError(f"{rel} was removed.", path=rel)
    data, info, is_link = found
    if expect.sha256 is None:
        raise ChangedError(f"{rel} exists now.", path=rel)
    if is_link != expect.link:
        kind = "a symlink" if is_link else "a regular file"
        raise ChangedError(f"{rel} is {kind} now.", path=rel)
    if expect.mode is not None and not is_link and stat.S_IMODE(info.st_mode) != expect.mode:
        raise ChangedError(f"{rel} has new permissions.", path=rel)
    if expect.ident is not None and FileId.of(info) != expect.ident:
        raise ChangedError(f"{rel} was replaced by another file.", path=rel)
    if sha256_hex(data) != expect.sha256:
        raise ChangedError(f"{rel} has new content.", path=rel)
    return info


def entry_at(dirfd: int, name: str, rel: str) -> tuple[bytes, os.stat_result, bool] | None:
    """A regular file's content or a symlink's target at ``name`` in ``dirfd``; ``None``: none.

    Raises:
        ConfinedError: neither a regular file nor a symlink.
        OSError: it cannot be read.
    """
    try:
        info = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            return os.fsencode(os.readlink(name, dir_fd=dirfd)), info, True
        except FileNotFoundError:
            return None
    found = read_at(dirfd, name, rel)
    return None if found is None else (found[0], found[1], False)


__all__ = ["READ_FLAGS", "check_entry", "confined_error", "entry_at", "read_at"]
