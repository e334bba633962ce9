"""Atomic file writes that keep the file's mode and never replace a symlink."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from xcsh.core import ToolError


class FileWriteError(ToolError):
    """A write failed; the file on disk is unchanged."""


def _current_umask() -> int:
    # Read it without os.umask(), which changes process state and races with threads.
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def atomic_write(path: Path, data: bytes) -> None:
    """Replace the content of ``path`` with ``data`` atomically.

    The bytes go to a temporary file in the same folder, which takes the
    target's permission bits (or ``0o666 & ~umask`` for a new file) before it
    is renamed over the target, so readers see the old or the new content,
    never half of it. A symlink is written *through*: its target is replaced
    and the link stays a link.

    Args:
        path: the file to write; its folder must exist.
        data: the complete new content.

    Raises:
        FileWriteError: the write failed (permissions, disk full, missing
            folder); the original file is untouched and no temporary file is left.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_current_umask()
    except OSError as exc:
        raise FileWriteError(f"Cannot write {path}: {exc.strerror or exc}.") from exc
    tmp_name: str | None = None
    try:
        import tempfile  # only writers need it

        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
        tmp_name = None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise FileWriteError(
            f"Cannot write {path}: {reason}. The file was not changed."
            + (" Check the folder's permissions." if isinstance(exc, PermissionError) else "")
        ) from exc
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
