"""Reads and writes confined to one folder at the moment they happen.

A real-path check made before a write can be outrun: between the check and
the write, a folder on the way can be swapped for a symlink to somewhere
else. :class:`RootDir` closes that gap. It opens the workspace root once and
reaches every file from that handle one path component at a time, each
opened with ``O_NOFOLLOW`` (``openat`` through ``os.open(..., dir_fd=...)``),
so a symlink anywhere on the way makes the operation fail with
:class:`ConfinedError` instead of leaving the folder.

Writes replace a file by a temporary sibling renamed over it
(:meth:`RootDir.replace`): the temporary file gets the old file's mode,
owner and group (when the process may set them) and extended attributes
(POSIX ACLs included: they are the ``system.posix_acl_access`` attribute),
is fsynced, and just before the rename the target is checked once more
(same file type, same inode, same content hash), so a save that lands
during an apply is refused rather than overwritten. Temporary names are
``.<name>.<tag>.tmp``; a caller that knows the tag (the journal does) can
find and remove the ones a crash left behind (:meth:`RootDir.remove_sibling`).

The values it compares (:class:`FileId`, :class:`Expect`, the errors) live in
:mod:`xcsh.fs.file_state`, the reads and checks at a folder's handle in
:mod:`xcsh.fs.entry`; both are importable from here as before.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from xcsh.fs.entry import READ_FLAGS, check_entry, confined_error, entry_at, read_at
from xcsh.fs.file_state import (
    ChangedError,
    ConfinedError,
    Expect,
    FileId,
    sha256_hex,
    split_relative,
)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class RootDir:
    """An open handle on a folder; every operation stays below it.

    Use as a context manager (or call :meth:`close`). Safe to share between
    threads: the handle is only read.

    Args:
        root: the folder (its real path is opened; the root itself may be a symlink).

    Raises:
        ConfinedError: the root cannot be opened as a folder.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(os.path.realpath(root))
        try:
            self.fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise ConfinedError(
                f"Cannot open the folder {self.root}: {exc.strerror or exc}.", path="."
            ) from exc

    def __enter__(self) -> RootDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the handle (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    @contextlib.contextmanager
    def parent(self, rel: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
        """``(folder handle, leaf name)`` of ``rel``, every folder opened without following links.

        Args:
            rel: a path relative to the root.
            create: make missing folders on the way (mode ``0o777`` less the umask).

        Raises:
            ConfinedError: a component is a symlink or not a folder, or is missing.
        """
        parts = split_relative(rel)
        fd = os.dup(self.fd)
        try:
            for name in parts[:-1]:
                try:
                    nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o777, dir_fd=fd)
                    nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = nxt
        except OSError as exc:
            os.close(fd)
            raise confined_error(rel, exc) from exc
        try:
            yield fd, parts[-1]
        finally:
            os.close(fd)

    def lstat(self, rel: str) -> os.stat_result | None:
        """The file's own status (a symlink is not followed), ``None`` when missing.

        Raises:
            ConfinedError: a folder on the way is a symlink or missing.
        """
        try:
            with self.parent(rel) as (fd, name):
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except ConfinedError as exc:
            if isinstance(exc.__cause__, FileNotFoundError):
                return None
            raise

    def writable(self, rel: str) -> bool:
        """Tell whether this process may write the existing file ``rel``.

        Its permission bits, ACLs and capabilities decide, as ``access(2)`` says;
        ``False`` when the file cannot be reached.
        """
        try:
            with self.parent(rel) as (dirfd, name):
                return os.access(name, os.W_OK, dir_fd=dirfd)
        except (ConfinedError, OSError):
            return False

    def read(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        """A regular file's content and status, ``None`` when it does not exist.

        Raises:
            ConfinedError: a symlink on the way or at the end, or not a regular file.
            OSError: it exists but cannot be read.
        """
        try:
            with self.parent(rel) as (dirfd, name):
                return read_at(dirfd, name, rel)
        except ConfinedError as exc:
            if isinstance(exc.__cause__, FileNotFoundError):
                return None
            raise

    def read_entry(self, rel: str) -> tuple[bytes, os.stat_result, bool] | None:
        """A regular file's content, or a symlink's target; ``None`` when nothing is there.

        Returns:
            ``(bytes, status, is_link)``: for a symlink its target (as bytes) and its
            own status, the link not followed.

        Raises:
            ConfinedError: a symlink on the way, or neither a regular file nor a symlink.
            OSError: it exists but cannot be read.
        """
        try:
            with self.parent(rel) as (dirfd, name):
                return entry_at(dirfd, name, rel)
        except ConfinedError as exc:
            if isinstance(exc.__cause__, FileNotFoundError):
                return None
            raise

    def replace(
        self,
        rel: str,
        data: bytes,
        *,
        expect: Expect,
        tag: str,
        mode: int | None = None,
        keep: str | None = None,
        link: bool = False,
        chmod: int | None = None,
    ) -> FileId:
        """Replace (or create) ``rel`` with ``data`` through a temporary file and a rename.

        Args:
            rel: the file, relative to the root.
            data: its complete new content.
            expect: what the file must still be just before the rename.
            tag: part of the temporary name, ``.<name>.<tag>.tmp``.
            mode: permission bits for a new file (default ``0o666`` less the umask);
                an existing file keeps its own.
            keep: when given, the old file stays reachable as ``.<name>.<keep>``
                (a hard link made just before the rename), so it can be put back
                by a rename; the caller removes that name.
            link: make ``rel`` a symlink whose target is ``data`` (what was there,
                a file or a symlink, is replaced the same way).
            chmod: permission bits the new file gets whatever the old one had
                (``None``: an existing file's own, ``mode`` for a new one).

        Returns:
            The identity of the file now at ``rel``.

        Raises:
            ConfinedError: the path leaves the root or is not a regular file.
            ChangedError: the file is not what ``expect`` says (nothing written).
            OSError: the write failed (the file is unchanged, the temporary removed).
        """
        with self.parent(rel, create=expect.sha256 is None) as (dirfd, name):
            try:
                old: os.stat_result | None = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            except FileNotFoundError:
                old = None
            if old is not None and not (
                stat.S_ISREG(old.st_mode) or (expect.link and stat.S_ISLNK(old.st_mode))
            ):
                raise ChangedError(f"{rel} is not a regular file.", path=rel)
            temp = f".{name}.{tag}.tmp"
            kept = f".{name}.{keep}" if keep is not None and old is not None else None
            linked = False
            try:
                if link:
                    os.symlink(data, temp, dir_fd=dirfd)
                    ident = FileId.of(os.stat(temp, dir_fd=dirfd, follow_symlinks=False))
                else:
                    ident = _write_temp(dirfd, name, temp, data, old, mode, chmod)
                check_entry(dirfd, name, rel, expect)  # just before the rename
                if kept is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(kept, dir_fd=dirfd)
                    os.link(name, kept, src_dir_fd=dirfd, dst_dir_fd=dirfd, follow_symlinks=False)
                    linked = True
                os.rename(temp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dirfd)
                if linked and kept is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(kept, dir_fd=dirfd)
                raise
            return ident

    def remove(self, rel: str, *, expect: Expect, keep: str | None = None) -> None:
        """Remove ``rel`` if it is still what ``expect`` says (missing already is fine).

        Args:
            rel: the file, relative to the root.
            expect: what the file must still be just before it is removed.
            keep: rename it to ``.<name>.<keep>`` instead of unlinking it.

        Raises:
            ConfinedError, ChangedError, OSError: as :meth:`replace`.
        """
        try:
            with self.parent(rel) as (dirfd, name):
                try:
                    os.stat(name, dir_fd=dirfd, follow_symlinks=False)
                except FileNotFoundError:
                    return
                check_entry(dirfd, name, rel, expect)
                if keep is None:
                    os.unlink(name, dir_fd=dirfd)
                else:
                    os.rename(name, f".{name}.{keep}", src_dir_fd=dirfd, dst_dir_fd=dirfd)
        except ConfinedError as exc:
            if not isinstance(exc.__cause__, FileNotFoundError):
                raise

    def remove_empty_folder(self, rel: str) -> bool:
        """Remove the folder ``rel`` if it is empty (never the root); True when removed.

        A folder that holds anything, is missing, is a symlink or cannot be removed
        stays as it is.
        """
        if not split_relative(rel):
            return False
        try:
            with self.parent(rel) as (dirfd, name):
                os.rmdir(name, dir_fd=dirfd)
        except (OSError, ConfinedError):
            return False
        return True

    def sibling(self, rel: str, suffix: str) -> bool:
        """True when ``.<name>.<suffix>`` exists beside ``rel`` (not following links)."""
        try:
            with self.parent(rel) as (dirfd, name):
                os.stat(f".{name}.{suffix}", dir_fd=dirfd, follow_symlinks=False)
        except (OSError, ConfinedError):
            return False
        return True

    def remove_sibling(self, rel: str, suffix: str) -> bool:
        """Remove ``.<name>.<suffix>`` beside ``rel`` (a temporary or kept name); True if done."""
        try:
            with self.parent(rel) as (dirfd, name):
                os.unlink(f".{name}.{suffix}", dir_fd=dirfd)
        except (OSError, ConfinedError):
            return False
        return True

    def restore_sibling(self, rel: str, suffix: str) -> None:
        """Rename ``.<name>.<suffix>`` back to ``rel`` (putting a kept old file back).

        Raises:
            ConfinedError, OSError: it could not be renamed.
        """
        with self.parent(rel) as (dirfd, name):
            os.rename(f".{name}.{suffix}", name, src_dir_fd=dirfd, dst_dir_fd=dirfd)

    def sync_folder(self, rel_folder: str) -> None:
        """Flush a folder below the root to disk (``""`` for the root) with ``fsync``.

        Renames in the folder are durable once this returns.

        Raises:
            ConfinedError: the folder cannot be reached without following a link.
            OSError: the fsync failed.
        """
        if not rel_folder or rel_folder == ".":
            os.fsync(self.fd)
            return
        with self.parent(rel_folder + "/x") as (dirfd, _name):
            os.fsync(dirfd)


def _write_temp(
    dirfd: int,
    name: str,
    temp: str,
    data: bytes,
    old: os.stat_result | None,
    mode: int | None,
    chmod: int | None,
) -> FileId:
    """Write ``data`` to the new temporary file ``temp`` with the old file's metadata; fsynced.

    Returns:
        The identity of the temporary file (the file ``name`` becomes once renamed).
    """
    fd = os.open(temp, _TEMP_FLAGS, 0o600, dir_fd=dirfd)
    try:
        _write_all(fd, data)
        regular = old if old is not None and stat.S_ISREG(old.st_mode) else None
        _copy_metadata(fd, dirfd, name, regular, mode)
        if chmod is not None:
            os.fchmod(fd, chmod)
        os.fsync(fd)
        return FileId.of(os.fstat(fd))
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _copy_metadata(
    fd: int, dirfd: int, name: str, old: os.stat_result | None, mode: int | None
) -> None:
    """Give the temporary file the old file's owner, mode and extended attributes."""
    if old is None:
        os.fchmod(fd, mode if mode is not None else 0o666 & ~current_umask())
        return
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            with contextlib.suppress(OSError):
                os.fchown(fd, -1, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))
    try:
        src = os.open(name, READ_FLAGS, dir_fd=dirfd)
    except OSError:
        return
    try:
        names = os.listxattr(src)
    except OSError:
        names = []
    try:
        for attr in names:
            with contextlib.suppress(OSError):
                os.setxattr(fd, attr, os.getxattr(src, attr))
    finally:
        os.close(src)


def current_umask() -> int:
    """The process umask, read without changing it (``os.umask`` would race with threads)."""
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


__all__ = [
    "ChangedError",
    "ConfinedError",
    "Expect",
    "FileId",
    "RootDir",
    "current_umask",
    "sha256_hex",
    "split_relative",
]
