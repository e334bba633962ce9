"""Where a preview's files land in the workspace, and laying them down there.

:func:`place_files` decides, before anything is written, where each staged
file goes: where writing it in the workspace would put it, through the
workspace's symlinked folders, over a symlink at the file itself, with the
mode of the file it replaces. A path that leads out of the workspace, names
a folder, or runs through a file is refused. :func:`write_files` then writes
them into a copied tree; :func:`tar_archive` packs them for ``tar`` to lay
down inside an overlay's namespace.
"""

from __future__ import annotations

import os
import stat
import tarfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from xcsh.core import ToolError

NEW_FILE_MODE = 0o644
"""The mode a staged file gets in an archive where the workspace has no file (the
umask applies)."""


@dataclass(frozen=True)
class PlacedFile:
    """One staged file and where it lands.

    Args:
        path: its real path relative to the workspace (no symlinked folder in it).
        data: its new bytes.
        mode: the permission bits of the regular file it replaces; ``None`` for a
            new file (or one that replaces a symlink), made as any new file is.
    """

    path: str
    data: bytes
    mode: int | None


def checked_relpath(rel: str) -> PurePosixPath:
    """``rel`` as a path inside the workspace, or :class:`ToolError` naming it."""
    path = PurePosixPath(rel)
    if not rel or path.is_absolute() or ".." in path.parts or path.parts[:1] == (".",):
        raise ToolError(
            f"Cannot stage {rel!r}: staged files must be paths relative to the workspace, "
            "without '..'."
        )
    return path


def place_files(
    files: Mapping[str, bytes], workspace: Path, modes: Mapping[str, int] | None = None
) -> list[PlacedFile]:
    """Where each of ``files`` (relative path → bytes) lands in ``workspace``.

    A file keeps the permission bits it has in the workspace, or those ``modes`` gives
    it (a previewed ``chmod``).

    Raises:
        ToolError: a path leads out of the workspace, is a folder there, or
            runs through a file.
    """
    real_ws = os.path.realpath(workspace)
    folders: dict[tuple[str, ...], str] = {}  # a folder as given → its real relative path
    placed = []
    for rel, data in files.items():
        parts = checked_relpath(rel).parts
        where = folders.get(parts[:-1])
        if where is None:
            where = folders[parts[:-1]] = _real_folder(rel, parts[:-1], real_ws)
        path = os.path.normpath(os.path.join(where, parts[-1]))
        try:
            mode = os.lstat(os.path.join(real_ws, path)).st_mode
        except FileNotFoundError:
            mode = 0
        if stat.S_ISDIR(mode):
            raise ToolError(f"Cannot stage {rel!r}: it is a folder in the workspace.")
        kept = stat.S_IMODE(mode) if stat.S_ISREG(mode) else None
        if modes is not None and rel in modes:
            kept = modes[rel]
        placed.append(PlacedFile(path=path, data=data, mode=kept))
    return placed


def _real_folder(rel: str, folder: tuple[str, ...], real_ws: str) -> str:
    real = os.path.realpath(os.path.join(real_ws, *folder))
    if real != real_ws and not real.startswith(real_ws + os.sep):
        raise ToolError(f"Cannot stage {rel!r}: its folder leads out of the workspace.")
    if os.path.lexists(real) and not os.path.isdir(real):
        shown = os.path.relpath(real, real_ws)
        raise ToolError(f"Cannot stage {rel!r}: {shown!r} is a file in the workspace.")
    return os.path.relpath(real, real_ws)


def write_files(placed: Iterable[PlacedFile], into: Path) -> None:
    """Write ``placed`` files into ``into`` (a copy of the workspace), replacing what is there."""
    for item in placed:
        dest = os.path.join(into, item.path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(dest, flags, 0o666)
        except FileExistsError:  # a symlink, or a copied file that may be read-only
            os.unlink(dest)
            fd = os.open(dest, flags, 0o666)
        try:
            view = memoryview(item.data)
            while view:
                view = view[os.write(fd, view) :]
            if item.mode is not None:
                os.fchmod(fd, item.mode)
        finally:
            os.close(fd)


def tar_archive(placed: Iterable[PlacedFile]) -> bytes:
    """``placed`` as a tar archive (ustar; pax headers for names ustar cannot hold)."""
    uid, gid = os.getuid(), os.getgid()
    parts: list[bytes] = []
    for item in placed:
        parts.append(_header(item, uid, gid))
        parts.append(item.data)
        parts.append(b"\0" * (-len(item.data) % tarfile.BLOCKSIZE))
    parts.append(b"\0" * (2 * tarfile.BLOCKSIZE))
    return b"".join(parts)


def _header(item: PlacedFile, uid: int, gid: int) -> bytes:
    """The ustar header of ``item`` (mtime 0: tar is told to stamp each file as it writes it)."""
    name = item.path.encode("utf-8", "surrogateescape")
    mode = NEW_FILE_MODE if item.mode is None else item.mode
    size = len(item.data)
    if len(name) > 100 or not item.path.isascii() or size >= 8**11 or max(uid, gid) >= 8**7:
        info = tarfile.TarInfo(item.path)
        info.size, info.mode, info.uid, info.gid = size, mode, uid, gid
        return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")
    head = (
        name.ljust(100, b"\0")
        + b"%07o\0%07o\0%07o\0%011o\0%011o\0" % (mode, uid, gid, size, 0)
        + b"        0"  # the checksum counts as spaces; "0": a regular file
        + b"\0" * 100
        + b"ustar\x0000"
    ).ljust(tarfile.BLOCKSIZE, b"\0")
    checksum = b"%06o\0 " % sum(head)
    return head[:148] + checksum + head[156:]


__all__ = [
    "NEW_FILE_MODE",
    "PlacedFile",
    "checked_relpath",
    "place_files",
    "tar_archive",
    "write_files",
]
