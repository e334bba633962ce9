"""One workspace's journal folder: records, blobs, index, lock and retention.

Layout of ``$XCSH_HOME/journal/<folder name>-<hash of its path>/``::

    lock            flock()ed by a process while it allocates, writes or commits
    entries/        <seq>.json intent records and <seq>.state outcome records
    blobs/          content-addressed copies of every file before and after
    index.json      one summary per entry, for fast listings

Every xcsh process that writes to the workspace takes the lock for the whole
write, so concurrent processes serialise and entry numbers never collide
(intent records are also published with ``link``, which never replaces a
file). A custom tool's apply holds only a lock on its own intent record,
which tells recovery that its process is alive.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import XcshError
from xcsh.core.json_read import loads as bounded_json
from xcsh.fs.home import journal_folder
from xcsh.journal.blobs import BlobStore
from xcsh.journal.durable import write_durably
from xcsh.journal.records import (
    COMMITTED,
    BashNote,
    EntryRecord,
    EntrySummary,
    FileRecord,
    Kind,
    RewindNote,
    dump_index,
    load_index,
    parse_intent,
    parse_outcome,
)
from xcsh.journal.retention import Retention, plan_prune

LOCK_TIMEOUT = 60.0
"""Seconds to wait for another xcsh process to finish writing to the same workspace."""


class JournalError(XcshError):
    """The journal could not be read or written; the message names the folder and the cause."""


@dataclass
class OpenEntry:
    """An intent record written by this process and not finished yet.

    Args:
        record: the intent record.
        added_bytes: bytes its new blobs added to the store.
        lock_fd: an open, flock()ed handle on the intent record (liveness).
    """

    record: EntryRecord
    added_bytes: int
    lock_fd: int

    @property
    def tag(self) -> str:
        """Part of the temporary names in the workspace: ``xcsh-<seq>``."""
        return f"xcsh-{self.record.name}"


class Journal:
    """The journal of one workspace.

    Args:
        folder: its folder (created on the first write).
        root: the workspace (real path) its entries' paths are relative to.
        retention: what to keep.
        home: the ``XCSH_HOME`` it lives in (lets :meth:`for_other` find siblings).
        session: the agent session whose changes go through this handle; every
            entry it writes names it (so a rewind finds that session's changes).
    """

    def __init__(
        self,
        folder: Path,
        root: Path,
        *,
        retention: Retention | None = None,
        home: Path | None = None,
        session: str | None = None,
    ) -> None:
        self.folder = folder
        self.home = home
        self.session = session
        self.root = Path(os.path.realpath(root))
        self.retention = retention or Retention()
        self.entries_dir = folder / "entries"
        self.blobs = BlobStore(folder / "blobs")
        self.index_path = folder / "index.json"

    @classmethod
    def for_root(cls, home: Path, root: Path, *, retention: Retention | None = None) -> Journal:
        """The journal of ``root`` under ``home``."""
        return cls(journal_folder(home, root), root, retention=retention, home=home)

    def for_session(self, session: str) -> Journal:
        """The same journal, writing entries that name agent session ``session``."""
        return Journal(
            self.folder, self.root, retention=self.retention, home=self.home, session=session
        )

    def position(self) -> int:
        """The number of the newest entry (0 for an empty journal): a session's checkpoint."""
        return self._next_seq() - 1

    def for_other(self, root: Path) -> Journal | None:
        """The journal of another folder under the same home (``None`` without a home)."""
        if self.home is None:
            return None
        return Journal.for_root(self.home, root, retention=self.retention)

    # -- locking -----------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
        """Hold the journal's lock (waits for another process, up to ``timeout`` seconds).

        Raises:
            JournalError: the folder cannot be made, or the lock was not released in time.
        """
        try:
            self.entries_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise JournalError(_cannot(self.folder, exc)) from exc
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise JournalError(
                            f"Another xcsh process has been writing to {self.root} for "
                            f"{timeout:.0f} s (its journal {self.folder} is locked). Wait for it "
                            "to finish, then try again."
                        ) from None
                    time.sleep(0.02)
            yield
        finally:
            os.close(fd)

    # -- writing (lock held) -----------------------------------------------------

    def begin(
        self,
        *,
        kind: Kind,
        label: str,
        source_tool_name: str,
        files: Sequence[tuple[FileRecord, bytes | None, bytes | None]],
        undoes: int | None = None,
        after_known: bool = True,
        rewind: RewindNote | None = None,
        bash: BashNote | None = None,
        kept: Mapping[str, Path | bytes] | None = None,
    ) -> OpenEntry:
        """Store the before contents, then write and fsync the intent record (lock held).

        Only the before contents are stored: undo and roll back write them;
        the after content is recognised by its hash in the record (it is in
        the files themselves, and is the next change's before content).

        Args:
            kind: ``"apply"``, ``"undo"``, ``"rewind"`` or ``"bash"``.
            label: the pending action's label (or ``"Undo: <label>"``).
            source_tool_name: the tool that produced the change.
            files: each file's record with its before and after contents
                (``None`` for a side where it does not exist or is not known).
            undoes: for an undo, the entry it undoes.
            after_known: the ``after`` hashes are known before the writes (false for a
                custom tool's apply, whose result is only hashed once it is done).
            rewind: for a ``"rewind"`` entry, what it does.
            bash: for a ``"bash"`` entry, what it says beside its files.
            kept: before contents given by digest rather than in ``files`` (a file
                holding exactly that content is hard-linked into the blobs, see
                :meth:`BlobStore.put_kept`).

        Returns:
            The open entry, whose outcome the caller records once the files are written.

        Raises:
            OSError: a blob or the record could not be written (what was stored
                for it is removed again; the workspace is untouched).
        """
        contents = [before for _, before, _ in files if before is not None]
        stored, added = self.blobs.put_many(contents)
        try:
            if kept:
                linked, more = self.blobs.put_kept(kept)
                stored, added = stored | linked, added + more
            record, path = self._write_intent(
                kind, label, source_tool_name, files, undoes, after_known, rewind, bash
            )
        except BaseException:  # no record refers to the copies just stored
            self.blobs.drop(stored)
            raise
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return OpenEntry(record=record, added_bytes=added, lock_fd=fd)

    def _write_intent(
        self,
        kind: Kind,
        label: str,
        source_tool_name: str,
        files: Sequence[tuple[FileRecord, bytes | None, bytes | None]],
        undoes: int | None,
        after_known: bool,
        rewind: RewindNote | None,
        bash: BashNote | None,
    ) -> tuple[EntryRecord, Path]:
        """Write and fsync the intent record under the next free number (see :meth:`begin`)."""
        seq = self._next_seq()
        while True:
            record = EntryRecord(
                seq=seq,
                kind=kind,
                undoes=undoes,
                root=self.root,
                label=label,
                source_tool_name=source_tool_name,
                created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                pid=os.getpid(),
                after_known=after_known,
                files=tuple(f for f, _, _ in files),
                session=self.session,
                rewind=rewind,
                bash=bash,
            )
            path = self.entries_dir / f"{record.name}.json"
            try:
                write_durably(path, _json(record.intent_json()), exclusive=True)
                return record, path
            except FileExistsError:
                seq += 1

    def finish(
        self,
        entry: OpenEntry,
        state: str,
        *,
        after: dict[str, str | None] | None = None,
        durable: bool = True,
    ) -> EntryRecord:
        """Write the outcome record (the commit point), update the index, prune.

        ``durable=False`` skips its fsyncs: for an entry recovery settles the same
        way when the outcome is lost (a ``bash`` entry is always completed).

        Raises:
            OSError: the outcome record could not be written (the entry stays
                incomplete; recovery settles it from the files' content).
        """
        try:
            done = self.settle(
                entry.record, state, after=after, added_bytes=entry.added_bytes, durable=durable
            )
        finally:
            self.release(entry)
        return done

    def settle(
        self,
        record: EntryRecord,
        state: str,
        *,
        after: dict[str, str | None] | None = None,
        added_bytes: int | None = None,
        durable: bool = True,
    ) -> EntryRecord:
        """Write the outcome record of ``record`` (the lock must be held), then index it.

        Raises:
            OSError: the outcome record could not be written.
        """
        outcome: dict[str, object] = {"state": state}
        if after is not None:
            outcome["after"] = after
        write_durably(self.entries_dir / f"{record.name}.state", _json(outcome), durable=durable)
        done = record.with_outcome(state, after)
        self.note(done, added_bytes)
        return done

    def release(self, entry: OpenEntry) -> None:
        """Drop this process's lock on an entry left incomplete (recovery will settle it)."""
        if entry.lock_fd >= 0:
            os.close(entry.lock_fd)
            entry.lock_fd = -1

    def note(self, entry: EntryRecord, added_bytes: int | None = None) -> None:
        """Put ``entry``'s summary in the index, then prune past the retention limits.

        Index and pruning failures are not errors: the index is rebuilt when
        behind, and pruning happens on a later write.
        """
        with contextlib.suppress(OSError):
            summaries = {s.seq: s for s in self.summaries()}
            old = summaries.get(entry.seq)
            size = added_bytes if added_bytes is not None else (old.bytes if old else 0)
            summaries[entry.seq] = EntrySummary.of(entry, size)
            ordered = [summaries[k] for k in sorted(summaries)]
            ordered = self._prune(ordered)
            write_durably(self.index_path, dump_index(ordered), durable=False)

    # -- reading -----------------------------------------------------------------

    def summaries(self) -> list[EntrySummary]:
        """Every entry's summary, oldest first (from the index, rebuilt when behind)."""
        names = self._names()
        on_disk = {int(n[:6]) for n in names if n.endswith(".json") and n[:6].isdigit()}
        settled = {int(n[:6]) for n in names if n.endswith(".state") and n[:6].isdigit()}
        index = load_index(self.index_path)
        if index is not None:
            known = {s.seq: s for s in index if s.seq in on_disk}
            stale = [
                s
                for s in on_disk
                if s not in known or (known[s].state is None) != (s not in settled)
            ]
            if not stale:
                return [known[k] for k in sorted(known)]
            for seq in stale:
                record = self.entry(seq)
                if record is not None:
                    known[seq] = EntrySummary.of(record, known[seq].bytes if seq in known else 0)
            return [known[k] for k in sorted(known)]
        out = []
        for seq in sorted(on_disk):
            record = self.entry(seq)
            if record is not None:
                out.append(EntrySummary.of(record, 0))
        return out

    def entry(self, seq: int) -> EntryRecord | None:
        """The entry ``seq`` with its outcome, ``None`` when missing or unreadable."""
        base = self.entries_dir / f"{seq:06d}"
        try:
            record = parse_intent(bounded_json(base.with_suffix(".json").read_bytes()))
        except (OSError, ValueError):
            return None
        if record is None:
            return None
        try:
            outcome = parse_outcome(bounded_json(base.with_suffix(".state").read_bytes()))
        except (OSError, ValueError):
            outcome = None
        if outcome is None:
            return record
        return record.with_outcome(*outcome)

    def incomplete(self) -> list[int]:
        """Entries with an intent record and no outcome record, oldest first."""
        names = set(self._names())
        return sorted(
            int(n[:6])
            for n in names
            if n.endswith(".json") and n[:6].isdigit() and f"{n[:6]}.state" not in names
        )

    def is_live(self, seq: int) -> bool:
        """True when a running process still holds entry ``seq`` (it is being written)."""
        try:
            fd = os.open(self.entries_dir / f"{seq:06d}.json", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def undone(self) -> set[int]:
        """Entries a committed undo undid, and those a committed rewind put back whole."""
        out: set[int] = set()
        for s in self.summaries():
            if s.state != COMMITTED:
                continue
            if s.kind == "undo" and s.undoes is not None:
                out.add(s.undoes)
            elif s.kind == "rewind":
                out.update(s.rewinds)
        return out

    # -- internals ---------------------------------------------------------------

    def _names(self) -> list[str]:
        try:
            return os.listdir(self.entries_dir)
        except OSError:
            return []

    def _next_seq(self) -> int:
        seqs = [int(n[:6]) for n in self._names() if n[:6].isdigit()]
        return max(seqs, default=0) + 1

    def _prune(self, ordered: list[EntrySummary]) -> list[EntrySummary]:
        """Drop the oldest settled entries past the retention limits; returns the rest.

        An entry whose intent record cannot be read is never dropped, and while one is
        on disk no stored content is removed: only that record says which contents are
        its files' (:mod:`xcsh.journal.unreadable`).
        """
        limit = self.retention
        if len(ordered) <= limit.max_entries and sum(s.bytes for s in ordered) <= limit.max_bytes:
            return ordered
        found = {s.seq: self._digests(s.seq) for s in ordered}
        digests = {seq: d or [] for seq, d in found.items()}
        on_disk = {int(n[:6]) for n in self._names() if n.endswith(".json") and n[:6].isdigit()}
        sound = None not in found.values() and on_disk <= set(found)
        sizes: dict[str, int] = {}
        for each in digests.values():
            for digest in each:
                if digest not in sizes:
                    with contextlib.suppress(OSError):
                        sizes[digest] = self.blobs.path(digest).stat().st_size
        kept = plan_prune(ordered, limit, digests, sizes)
        seqs = {s.seq for s in kept}
        dropped = [s for s in ordered if s.seq not in seqs and found[s.seq] is not None]
        for summary in dropped:
            for suffix in (".state", ".json"):
                with contextlib.suppress(OSError):
                    (self.entries_dir / f"{summary.seq:06d}{suffix}").unlink()
        if dropped and sound:
            self.blobs.prune({d for s in kept for d in digests[s.seq]})
        return kept

    def sweep(self) -> int:
        """Remove the stored contents no record refers to (a killed apply's); returns the bytes.

        Takes the journal's lock, so no apply is storing contents meanwhile. Removes
        nothing while a record cannot be read: only it says which contents are its
        files' (:mod:`xcsh.journal.unreadable`).

        Raises:
            JournalError: the lock cannot be taken.
        """
        if not self.blobs.folder.is_dir():
            return 0
        with self.locked():
            keep: set[str] = set()
            for name in self._names():
                if name.endswith(".json") and name[:6].isdigit():
                    digests = self._digests(int(name[:6]))
                    if digests is None:
                        return 0
                    keep.update(digests)
            return self.blobs.prune(keep, temporaries=True)

    def _digests(self, seq: int) -> list[str] | None:
        """The before contents entry ``seq`` stored; None when its record cannot be read."""
        record = self.entry(seq)
        if record is None:
            return None
        return [f.before for f in record.files if f.before is not None]


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=1) + "\n").encode("utf-8")


def _cannot(folder: Path, exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        fix = "free some space"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        fix = "make it writable (or point XCSH_HOME at a writable folder)"
    else:
        fix = "check that folder (or point XCSH_HOME at another one)"
    return (
        f"Cannot write the undo journal {folder}: {reason}. Nothing was written; {fix}, "
        "then try again."
    )
