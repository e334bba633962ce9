"""Writing the journal's own files so that a crash leaves the old file or the new one.

Every file goes through a temporary name and a rename; a durable write fsyncs
the file and then its folder. Intent records, outcome records and stored
copies are written durably; the index is a cache and skips the fsync.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_durably(
    path: Path, data: bytes, *, exclusive: bool = False, durable: bool = True
) -> None:
    """Write ``path`` through a fsynced temporary file, then fsync its folder.

    Args:
        path: the file to write.
        data: its complete content.
        exclusive: fail with :class:`FileExistsError` when ``path`` exists
            (published with ``link``, which never replaces a file).
        durable: fsync at all (the index, a cache rebuilt when behind, skips it).

    Raises:
        OSError: the write failed; ``path`` is unchanged.
    """
    write_file(path, data, exclusive=exclusive, durable=durable)
    if durable:
        sync_folder(path.parent)


def write_file(path: Path, data: bytes, *, exclusive: bool = False, durable: bool = True) -> None:
    """Write ``path`` through a temporary file (fsynced when ``durable``) and a rename.

    The folder is not fsynced: a caller writing many files syncs it once
    (:func:`sync_folder`). Arguments and errors as :func:`write_durably`.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            os.link(temp, path)
            os.unlink(temp)
        else:
            os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def sync_folder(folder: Path) -> None:
    """Flush ``folder`` to disk with ``fsync``, so names renamed or linked into it survive a crash.

    Raises:
        OSError: the folder could not be opened or flushed.
    """
    dirfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dirfd)
    finally:
        os.close(dirfd)
