"""Copy the running interpreter's standard library: real code for the demo and the benchmark.

Only ``*.py`` files are copied, folder layout kept, ``site-packages`` (third
party code) and ``__pycache__`` left out. No network is involved.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

_SKIPPED_DIRS = frozenset({"site-packages", "dist-packages", "__pycache__"})


@dataclass(frozen=True)
class CopiedTree:
    """What :func:`copy_stdlib` copied.

    Attributes:
        root: the destination folder.
        files: number of ``.py`` files copied.
        bytes: their total size in bytes.
    """

    root: Path
    files: int
    bytes: int


def stdlib_dir() -> Path:
    """The running interpreter's standard-library folder (``sysconfig`` ``stdlib`` path)."""
    return Path(sysconfig.get_paths()["stdlib"])


def copy_stdlib(dest: Path, *, source: Path | None = None) -> CopiedTree:
    """Copy every ``.py`` file of the standard library into ``dest``.

    Args:
        dest: destination folder; created when missing. Existing files with the
            same names are overwritten.
        source: the folder to copy (default :func:`stdlib_dir`).

    Returns:
        The destination and the number and total size of the copied files.

    Raises:
        OSError: the source cannot be read or the destination written.
    """
    src = source if source is not None else stdlib_dir()
    files = 0
    total = 0
    for folder, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_DIRS)
        rel = Path(folder).relative_to(src)
        made = False
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            if not made:
                (dest / rel).mkdir(parents=True, exist_ok=True)
                made = True
            target = dest / rel / name
            shutil.copyfile(Path(folder) / name, target)
            files += 1
            total += target.stat().st_size
    return CopiedTree(root=dest, files=files, bytes=total)
