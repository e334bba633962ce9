"""The shadow: what every recorded file of a workspace held when last seen.

A command run by ``bash`` writes the workspace directly; to record what it
changed, its earlier bytes must already be kept somewhere. The shadow keeps
them: ``$XCSH_HOME/journal/<workspace>/shadow/`` holds

- ``packs/<name>.pack``: the contents read by a session's first look, appended
  one after the other to one file per session (writing 50,000 small files one
  by one costs about ten times as much as appending them to one file);
- ``blobs/<sha256>``: a content kept after a command changed it, one file per
  content, so that the next change of that file can hard-link it into the
  journal's blobs instead of writing it again;
- ``manifest.json``: each recorded path with its fingerprint and hash, and where
  each packed content lies, so a later session re-reads only the files whose
  fingerprint changed.

Nothing here is fsynced: the shadow is a cache that a lost write only makes
smaller (the files are read again). Every read checks the bytes against their
name, and a damaged content reads as missing.

Sessions of one workspace share it: each holds a shared ``flock`` on
``shadow/lock`` while it runs, and contents no manifest names are removed only
by a session that found itself alone when it opened (an exclusive lock taken
without waiting), and only those older than that; a pack mostly made of
contents no longer named is removed then too (the files still holding them are
read again).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.fs.confined import sha256_hex

MANIFEST_VERSION = 2
RACY_NS = 100_000_000
"""A file changed within this many nanoseconds of being read may change again without
its times changing (one timestamp tick): it is read again next time."""
PACK_LIVE_SHARE = 0.5
"""A pack whose named contents take less than this share of it is dropped when alone."""


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


@dataclass(frozen=True)
class _Packed:
    pack: str
    offset: int
    size: int


class Shadow:
    """The shadow folder of one workspace.

    Safe to use from several threads (the first look's reader and a command's record).

    Args:
        folder: ``<journal folder>/shadow`` (created on first use).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blobs = folder / "blobs"
        self.packs = folder / "packs"
        self.manifest = folder / "manifest.json"
        self._lock_fd = -1
        self._alone = False
        self._opened_ns = 0
        self._mutex = threading.Lock()
        self._packed: dict[str, _Packed] = {}
        self._writer: int = -1
        self._writer_name = ""
        self._writer_end = 0
        self._readers: dict[str, int] = {}

    def open(self) -> None:
        """Make the folders and take the shared lock (quick: nothing is read).

        Raises:
            OSError: the folder cannot be made.
        """
        self.blobs.mkdir(parents=True, exist_ok=True)
        self.packs.mkdir(exist_ok=True)
        self._opened_ns = time.time_ns()
        fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._lock_fd = fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._alone = False
        else:
            self._alone = True
        fcntl.flock(fd, fcntl.LOCK_SH)

    def load(self) -> dict[str, Known]:
        """Read the manifest; when this session opened alone, first remove what it does not name.

        Only contents older than :meth:`open` are removed (this session's own are kept),
        and packs mostly made of contents no longer named.

        Returns:
            The paths the manifest names whose content is still kept.
        """
        files, packed = self._load()
        if self._alone:
            packed = self._prune(files, packed)
        with self._mutex:
            self._packed.update(packed)
        return {p: k for p, k in files.items() if k.digest is None or self.has(k.digest)}

    def _prune(self, files: Mapping[str, Known], packed: dict[str, _Packed]) -> dict[str, _Packed]:
        """Remove the old contents no manifest names (this session opened alone).

        Returns:
            The packed contents left.
        """
        keep = {k.digest for k in files.values() if k.digest}
        live: dict[str, int] = {}
        for digest in keep:
            where = packed.get(digest)
            if where is not None:
                live[where.pack] = live.get(where.pack, 0) + where.size
        dropped: set[str] = set()
        for name in os.listdir(self.packs):
            if name == self._writer_name:
                continue
            with contextlib.suppress(OSError):
                size = os.stat(self.packs / name).st_size
                if live.get(name, 0) < size * PACK_LIVE_SHARE:
                    dropped.add(name)
                    os.unlink(self.packs / name)
        for name in os.listdir(self.blobs):
            if name not in keep:
                with contextlib.suppress(OSError):
                    if os.stat(self.blobs / name).st_mtime_ns < self._opened_ns:
                        os.unlink(self.blobs / name)
        return {d: w for d, w in packed.items() if d in keep and w.pack not in dropped}

    def close(self) -> None:
        """Close the packs and release the lock (idempotent)."""
        with self._mutex:
            for fd in [self._writer, *self._readers.values()]:
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._writer = -1
            self._readers.clear()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    # -- contents ------------------------------------------------------------------

    def has(self, digest: str) -> bool:
        """True when that content is kept (its bytes are checked on :meth:`get`)."""
        with self._mutex:
            if digest in self._packed:
                return True
        return os.path.exists(self.blobs / digest)

    def blob(self, digest: str) -> Path | None:
        """The file holding that content alone (to hard-link), ``None`` when packed or missing."""
        path = self.blobs / digest
        return path if os.path.exists(path) else None

    def put(self, data: bytes) -> str:
        """Keep ``data`` in a file of its own (once per content); returns its sha256.

        Raises:
            OSError: it could not be written.
        """
        digest = sha256_hex(data)
        path = self.blobs / digest
        if os.path.exists(path):
            return digest
        temp = self.blobs / f".{digest}.{os.getpid()}.{threading.get_ident()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with open(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
        return digest

    def pack(self, data: bytes) -> str:
        """Keep ``data`` in this session's pack (once per content); returns its sha256.

        Raises:
            OSError: it could not be written.
        """
        digest = sha256_hex(data)
        with self._mutex:
            if digest in self._packed:
                return digest
            if self._writer < 0:
                self._writer_name = f"{os.getpid()}-{secrets.token_hex(4)}.pack"
                self._writer = os.open(
                    self.packs / self._writer_name,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                    0o600,
                )
                self._writer_end = 0
            view = memoryview(data)
            offset = self._writer_end
            while view:
                view = view[os.pwrite(self._writer, view, offset + len(data) - len(view)) :]
            self._writer_end += len(data)
            self._packed[digest] = _Packed(self._writer_name, offset, len(data))
        return digest

    def get(self, digest: str) -> bytes | None:
        """The bytes kept under ``digest``, ``None`` when missing or damaged."""
        with self._mutex:
            where = self._packed.get(digest)
            if where is not None:
                data = self._read_packed(where)
                if data is not None and sha256_hex(data) == digest:
                    return data
        try:
            data = (self.blobs / digest).read_bytes()
        except OSError:
            return None
        return data if sha256_hex(data) == digest else None

    def _read_packed(self, where: _Packed) -> bytes | None:
        """The bytes at ``where`` (the mutex is held), ``None`` when unreadable."""
        try:
            fd = self._readers.get(where.pack, -1)
            if fd < 0:
                fd = os.open(self.packs / where.pack, os.O_RDONLY | os.O_CLOEXEC)
                self._readers[where.pack] = fd
            return os.pread(fd, where.size, where.offset)
        except OSError:
            return None

    # -- the manifest --------------------------------------------------------------

    def _load(self) -> tuple[dict[str, Known], dict[str, _Packed]]:
        """The manifest's paths and packed contents (empty when missing, unreadable or old)."""
        try:
            data = json.loads(self.manifest.read_bytes())
        except (OSError, ValueError):
            return {}, {}
        if not isinstance(data, Mapping) or data.get("version") != MANIFEST_VERSION:
            return {}, {}
        files, packs = data.get("files"), data.get("packed")
        if not isinstance(files, Mapping) or not isinstance(packs, Mapping):
            return {}, {}
        out: dict[str, Known] = {}
        for path, row in files.items():
            with contextlib.suppress(TypeError, ValueError):
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
        packed: dict[str, _Packed] = {}
        for digest, row in packs.items():
            with contextlib.suppress(TypeError, ValueError):
                pack, offset, size = row
                packed[str(digest)] = _Packed(str(pack), int(offset), int(size))
        return out, packed

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
        with self._mutex:
            packs = {
                k.digest: [w.pack, w.offset, w.size]
                for k in files.values()
                if k.digest and (w := self._packed.get(k.digest)) is not None
            }
        text = json.dumps(
            {"version": MANIFEST_VERSION, "files": rows, "packed": packs}, separators=(",", ":")
        )
        temp = self.manifest.with_name(f".manifest.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):
            temp.write_text(text, encoding="utf-8")
            os.replace(temp, self.manifest)


__all__ = ["Known", "Shadow"]
