"""The journal's content-addressed store: each distinct content once, named by its sha256.

``blobs/<sha256 hex>`` holds the bytes (one flat folder, so making a set of
blobs durable costs one folder fsync); however many entries refer to a
content, it is stored once. A blob is written to a
temporary file, fsynced and renamed into place, so a present blob is always
complete. A write that fails removes what it stored (:meth:`BlobStore.put_many`);
unreferenced blobs are removed by :meth:`BlobStore.prune`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from xcsh.fs.confined import sha256_hex
from xcsh.journal.durable import sync_folder, write_file

_THREADS = 8


class BlobStore:
    """Blobs under ``folder``.

    Args:
        folder: the ``blobs`` folder (created on the first write).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, digest: str) -> Path:
        """Where the blob of ``digest`` lives."""
        return self.folder / digest

    def has(self, digest: str) -> bool:
        """True when the blob is stored."""
        return self.path(digest).is_file()

    def get(self, digest: str) -> bytes:
        """The bytes of a stored blob.

        Raises:
            OSError: it is missing or unreadable.
            ValueError: its bytes do not match its name (damaged).
        """
        data = self.path(digest).read_bytes()
        if sha256_hex(data) != digest:
            raise ValueError(f"the journal's copy {self.path(digest)} is damaged")
        return data

    def put_many(self, contents: Iterable[bytes]) -> tuple[frozenset[str], int]:
        """Store each content not stored yet, durably (fsynced, folders too).

        The journal's lock must be held: a blob this call adds is one no record
        refers to until the caller's record is written.

        Returns:
            ``(added, new_bytes)``: the digests this call stored (the contents not
            stored before), and their bytes.

        Raises:
            OSError: a blob could not be written; the blobs this call had stored
                are removed again (the store is as it was).
        """
        wanted: dict[str, bytes] = {}
        for data in contents:
            wanted.setdefault(sha256_hex(data), data)
        missing = {d: data for d, data in wanted.items() if not self.has(d)}
        if not missing:
            return frozenset(), 0
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            items = list(missing.items())
            if len(items) <= 2:
                for digest, data in items:
                    self._write(digest, data)
            else:
                with ThreadPoolExecutor(max_workers=_THREADS) as pool:
                    list(pool.map(lambda item: self._write(*item), items))
            sync_folder(self.folder)
        except BaseException:
            self.drop(missing)
            raise
        return frozenset(missing), sum(len(v) for v in missing.values())

    def drop(self, digests: Iterable[str]) -> int:
        """Remove the blobs of ``digests`` (those present); returns the bytes freed.

        For blobs no record refers to: those a failed write or record just stored.
        """
        freed = 0
        for digest in digests:
            with contextlib.suppress(OSError):
                path = self.path(digest)
                size = path.stat().st_size
                path.unlink()
                freed += size
        return freed

    def _write(self, digest: str, data: bytes) -> None:
        write_file(self.path(digest), data)

    def put_kept(self, kept: Mapping[str, Path | bytes]) -> tuple[frozenset[str], int]:
        """Store contents whose digests are known already, durably (fsynced, the folder once).

        The journal's lock must be held, as for :meth:`put_many`.

        Args:
            kept: each digest with its content: a file holding exactly it (hard-linked
                here, so it is not written again; its bytes are copied where a link
                cannot be made) or the bytes.

        Returns:
            ``(added, new_bytes)`` as :meth:`put_many` returns them.

        Raises:
            OSError: a blob could not be stored; the blobs this call had stored are
                removed again.
        """
        missing = {d: src for d, src in kept.items() if not self.has(d)}
        if not missing:
            return frozenset(), 0
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            items = list(missing.items())
            if len(items) <= 2:
                added = sum(self._keep(digest, src) for digest, src in items)
            else:
                with ThreadPoolExecutor(max_workers=_THREADS) as pool:
                    added = sum(pool.map(lambda item: self._keep(*item), items))
            sync_folder(self.folder)
        except BaseException:
            self.drop(missing)
            raise
        return frozenset(missing), added

    def _keep(self, digest: str, src: Path | bytes) -> int:
        """Store one content (:meth:`put_kept`); the bytes it added."""
        target = self.path(digest)
        if isinstance(src, bytes):
            self._write(digest, src)
            return len(src)
        try:
            os.link(src, target)
        except FileExistsError:
            return 0
        except OSError:  # another file system, or no hard links there: copy it
            data = src.read_bytes()
            if sha256_hex(data) != digest:
                raise OSError(f"the copy {src} is damaged") from None
            self._write(digest, data)
            return len(data)
        fd = os.open(target, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
            return os.fstat(fd).st_size
        finally:
            os.close(fd)

    def prune(self, keep: set[str], *, temporaries: bool = False) -> int:
        """Remove every blob whose digest is not in ``keep``; returns the bytes freed.

        With ``temporaries`` (the journal's lock held, so no write is under way) the
        temporary files a killed write left (``.<digest>.<pid>.tmp``) go too.
        """
        freed = 0
        if not self.folder.is_dir():
            return 0
        for blob in self.folder.iterdir():
            if blob.name in keep or (blob.name.startswith(".") and not temporaries):
                continue
            with contextlib.suppress(OSError):
                size = blob.stat().st_size
                blob.unlink()
                freed += size
        return freed

    def total_bytes(self) -> int:
        """The bytes every stored blob takes."""
        total = 0
        if not self.folder.is_dir():
            return 0
        for blob in self.folder.iterdir():
            with contextlib.suppress(OSError):
                total += blob.stat().st_size
        return total
