"""The shadow: what every recorded file of a workspace held when last seen.

A command run by ``bash`` writes the workspace directly; to record what it
changed, its earlier bytes must already be kept somewhere. The shadow keeps
them: ``$XCSH_HOME/journal/<workspace>/shadow/`` holds

- ``blobs/<sha256>``: each distinct content (or symlink target) once, named by
  its hash. A blob is written through a temporary file and a rename; it is not
  fsynced (the shadow is a cache), so every read checks the bytes against the
  name and a damaged blob reads as missing;
- ``manifest.json``: each recorded path with its fingerprint and hash, so a
  later session re-reads only the files whose fingerprint changed.

Sessions of one workspace share it: each holds a shared ``flock`` on
``shadow/lock`` while it runs, and blobs no manifest names are removed only by a
session that finds itself alone (an exclusive lock taken without waiting).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.fs.confined import sha256_hex

MANIFEST_VERSION = 1
RACY_NS = 100_000_000
"""A file changed within this many nanoseconds of being read may change again without
its times changing (one timestamp tick): it is read again next time."""


@dataclass(frozen=True, kw_only=True)
class Known:
    """What a recorded path held when last seen.

    Args:
        size: its size in bytes (a symlink: its target's length).
        mtime_ns, ctime_ns, ino: its fingerprint beside the size (nanoseconds).
        digest: sha256 of its content (of its target for a symlink); ``None`` when
            it is over the size cap and its content is not kept.
        link: it is a symlink.
        mode: a regular file's permission bits (0 for a symlink).
        racy: it was changed too close to the moment it was read for its times to
            prove it unchanged later: it is read again next time.
    """

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    digest: str | None
    link: bool = False
    mode: int = 0
    racy: bool = False

    def same_stat(self, info: os.stat_result) -> bool:
        """True when ``info`` has this fingerprint (size, times in ns, inode, mode)."""
        return (
            not self.racy
            and info.st_size == self.size
            and info.st_mtime_ns == self.mtime_ns
            and info.st_ctime_ns == self.ctime_ns
            and info.st_ino == self.ino
            and (self.link or (info.st_mode & 0o7777) == self.mode)
        )


class Shadow:
    """The shadow folder of one workspace.

    Args:
        folder: ``<journal folder>/shadow`` (created on first use).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blobs = folder / "blobs"
        self.manifest = folder / "manifest.json"
        self._lock_fd = -1

    def open(self) -> None:
        """Make the folders and take the shared lock; alone, remove blobs no manifest names.

        Raises:
            OSError: the folder cannot be made.
        """
        self.blobs.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._lock_fd = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fcntl.flock(fd, fcntl.LOCK_SH)
            return
        try:
            keep = {k.digest for k in self.load().values() if k.digest}
            for name in os.listdir(self.blobs):
                if name not in keep:
                    with contextlib.suppress(OSError):
                        os.unlink(self.blobs / name)
        finally:
            fcntl.flock(fd, fcntl.LOCK_SH)

    def close(self) -> None:
        """Release the lock (idempotent)."""
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    def has(self, digest: str) -> bool:
        """True when a blob of that name is there (its bytes are checked on :meth:`get`)."""
        return os.path.exists(self.blobs / digest)

    def put(self, data: bytes) -> str:
        """Keep ``data`` (once per content); returns its sha256.

        Raises:
            OSError: it could not be written.
        """
        digest = sha256_hex(data)
        path = self.blobs / digest
        if os.path.exists(path):
            return digest
        temp = self.blobs / f".{digest}.{os.getpid()}.tmp"
        with open(temp, "wb") as out:
            out.write(data)
        os.replace(temp, path)
        return digest

    def get(self, digest: str) -> bytes | None:
        """The bytes kept under ``digest``, ``None`` when missing or damaged."""
        try:
            data = (self.blobs / digest).read_bytes()
        except OSError:
            return None
        return data if sha256_hex(data) == digest else None

    def load(self) -> dict[str, Known]:
        """The paths the manifest names (empty when missing, unreadable or of another version)."""
        try:
            data = json.loads(self.manifest.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, Mapping) or data.get("version") != MANIFEST_VERSION:
            return {}
        out: dict[str, Known] = {}
        files = data.get("files")
        if not isinstance(files, Mapping):
            return {}
        for path, row in files.items():
            try:
                size, mtime, ctime, ino, digest, link, mode, racy = row
                out[str(path)] = Known(
                    size=int(size),
                    mtime_ns=int(mtime),
                    ctime_ns=int(ctime),
                    ino=int(ino),
                    digest=str(digest) if digest else None,
                    link=bool(link),
                    mode=int(mode),
                    racy=bool(racy),
                )
            except (TypeError, ValueError):
                continue
        return out

    def save(self, files: Mapping[str, Known]) -> None:
        """Write the manifest (through a temporary file and a rename); failures are ignored."""
        rows = {
            path: [
                k.size,
                k.mtime_ns,
                k.ctime_ns,
                k.ino,
                k.digest,
                int(k.link),
                k.mode,
                int(k.racy),
            ]
            for path, k in files.items()
        }
        text = json.dumps({"version": MANIFEST_VERSION, "files": rows}, separators=(",", ":"))
        temp = self.manifest.with_name(f".manifest.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):
            temp.write_text(text, encoding="utf-8")
            os.replace(temp, self.manifest)


__all__ = ["Known", "Shadow"]
