"""Writing a set of file changes all or nothing, with one commit point.

:func:`apply_changes` is the one way xcsh writes the files of an approved
change (``ast_edit``'s apply, ``write``, ``edit``, undo). Under the
journal's lock and with SIGTERM/SIGHUP/SIGINT held:

1. every file is checked: still a regular file below the root with no
   symlink on the way, the same inode the preview read, the same content
   hash, not hard-linked, and writable by this process (``access(2)``;
   nothing is written if one fails);
2. the before and after contents go to the blob store and the intent
   record naming every file with both hashes is fsynced: the journal now
   knows how to undo whatever follows;
3. each file is replaced through a temporary sibling (metadata copied, hash
   re-checked just before the rename); the old file is kept under a second
   name (``.<name>.xcsh-<seq>.orig``, a hard link) until the end, so a roll
   back is a rename that needs no disk space and restores the very inode;
4. the folders are fsynced, the kept old names removed, and the outcome
   record written: the commit point.

A failure in step 3 rolls back what was written. If the roll back fails too,
the error names exactly the files that hold new content and the entry stays
incomplete, so recovery (:mod:`xcsh.journal.recover`) finishes it later.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from xcsh.core.protected import protected_reason
from xcsh.core.wording import name_list
from xcsh.fs.confined import (
    ChangedError,
    ConfinedError,
    Expect,
    FileId,
    RootDir,
    sha256_hex,
)
from xcsh.journal.records import COMMITTED, ROLLED_BACK, FileRecord, Kind, RewindNote
from xcsh.journal.settle import SERIAL, THREADS, roll_back, settle
from xcsh.journal.signals import held_signals
from xcsh.journal.store import Journal, JournalError, OpenEntry
from xcsh.pending.action import ApplyFailedError


@dataclass(frozen=True, kw_only=True)
class Change:
    """One file of a change.

    Args:
        path: relative to the root, ``/`` separators, the file's real location.
        shown: how messages name it (the path the user or model gave).
        before: its expected current content, ``None`` when it must not exist.
        after: its new content, ``None`` to remove it.
        ident: the file the preview read (device and inode); ``None`` skips that comparison.
        mode: permission bits when the file is created (``before`` is ``None``);
            ``None`` for the default (``0o666`` less the umask). An existing
            file keeps its own unless ``after_mode`` says otherwise.
        link_before: ``before`` is the target of the symlink expected there now.
        link_after: ``after`` is the target of a symlink to make there.
        before_mode: the permission bits the file must have now (``None``: not compared).
        after_mode: the permission bits it ends with, new or existing (``None``:
            an existing file keeps its own, a new one gets ``mode``).
    """

    path: str
    shown: str
    before: bytes | None
    after: bytes | None
    ident: FileId | None = None
    mode: int | None = None
    link_before: bool = False
    link_after: bool = False
    before_mode: int | None = None
    after_mode: int | None = None

    @property
    def differs(self) -> bool:
        """True when writing it changes something: content, file type or mode."""
        if self.before != self.after:
            return True
        if self.before is None:
            return False
        if self.link_before != self.link_after:
            return True
        return (
            not self.link_after
            and self.after_mode is not None
            and self.after_mode != self.before_mode
        )


@dataclass(frozen=True, kw_only=True)
class Applied:
    """What :func:`apply_changes` did.

    Args:
        seq: the journal entry recorded, ``None`` without a journal (or nothing to write).
        warning: set when the files landed but the journal could not record the
            commit; show it beside the success.
    """

    seq: int | None
    warning: str | None = None


class ApplyError(ApplyFailedError):
    """Nothing was applied, or the files named in ``new_content`` could not be put back.

    Attributes:
        new_content: display paths of files that now hold new content (empty
            when the workspace is as it was before).
        stale: the files refused because they changed since the preview.
    """


def apply_changes(
    root: str | Path,
    changes: Sequence[Change],
    *,
    journal: Journal | None,
    label: str,
    source_tool_name: str,
    kind: Kind = "apply",
    undoes: int | None = None,
    rewind: RewindNote | None = None,
) -> Applied:
    """Write ``changes`` below ``root`` all or nothing, recorded in ``journal``.

    Args:
        root: the folder the paths are relative to.
        changes: the files, in order; files whose before equals after are left out.
        journal: where the entry goes; ``None`` writes the same safe way unrecorded.
        label: the pending action's label, recorded with the entry.
        source_tool_name: the tool that produced the changes, recorded with the entry.
        kind: ``"apply"``, ``"undo"`` for an undo, ``"rewind"`` for a rewind.
        undoes: for an undo, the entry it undoes.
        rewind: for a ``"rewind"`` entry, what it does (recorded with it).

    Returns:
        The entry number and a warning when the journal failed after the files landed.

    Raises:
        ApplyError: a file changed since the preview, left the workspace, is
            hard-linked or read-only for this process, lies in a protected folder
            (:func:`xcsh.core.protected.protected_reason`; a new change only), or
            the journal cannot be written (nothing written);
            or a write failed (rolled back; if that failed too, the message
            lists the files holding new content).
    """
    todo = [c for c in changes if c.differs]
    if not todo:
        return Applied(seq=None)
    if kind == "apply":
        # an undo or a rewind puts back what the files held; a new change never lands
        # where another program would run it unasked
        for change in todo:
            refusal = protected_reason(change.path, change.shown)
            if refusal is not None:
                raise ApplyError(refusal)
    with RootDir(root) as rd:
        lock = journal.locked() if journal is not None else contextlib.nullcontext()
        try:
            with lock, held_signals():
                return _transaction(
                    rd, todo, journal, label, source_tool_name, kind, undoes, rewind
                )
        except JournalError as exc:
            raise ApplyError(str(exc)) from exc


def _transaction(
    rd: RootDir,
    todo: list[Change],
    journal: Journal | None,
    label: str,
    source_tool_name: str,
    kind: Kind,
    undoes: int | None,
    rewind: RewindNote | None = None,
) -> Applied:
    modes = _preflight(rd, todo)
    entry: OpenEntry | None = None
    if journal is not None:
        records = [
            (
                FileRecord(
                    path=c.path,
                    before=None if c.before is None else sha256_hex(c.before),
                    after=None if c.after is None else sha256_hex(c.after),
                    mode=modes.get(c.path),
                    after_mode=None if c.after is None or c.link_after else c.after_mode,
                    link_before=c.before is not None and c.link_before,
                    link_after=c.after is not None and c.link_after,
                ),
                c.before,
                c.after,
            )
            for c in todo
        ]
        try:
            entry = journal.begin(
                kind=kind,
                label=label,
                source_tool_name=source_tool_name,
                files=records,
                undoes=undoes,
                rewind=rewind,
            )
        except OSError as exc:
            raise ApplyError(_journal_refused(journal, exc, kind)) from exc
    tag = entry.tag if entry is not None else f"xcsh-{os.getpid()}-{secrets.token_hex(3)}"
    written, failure = _write_all(rd, todo, tag)
    if failure is not None:
        change, error = failure
        left = roll_back(rd, written, tag)
        if entry is not None and journal is not None:
            if left:
                journal.release(entry)  # incomplete: recovery finishes the roll back
            else:
                with contextlib.suppress(OSError):
                    journal.finish(entry, ROLLED_BACK)
        text = _failure_text(change, error, left, alone=len(todo) == 1)
        raise ApplyError(text, new_content=left) from error
    settled = settle(rd, written, tag)
    notes = []
    if settled.unsynced:
        notes.append(
            f"Warning: the folders of {', '.join(settled.unsynced)} could not be synced to "
            "disk; the change is applied but a power loss now could lose it."
        )
    if settled.kept:
        notes.append(
            f"Warning: the change is applied, but the old copies {', '.join(settled.kept)} "
            "could not be removed (their folder was being moved); delete them by hand."
        )
    warning = " ".join(notes) or None
    if entry is not None and journal is not None:
        try:
            journal.finish(entry, COMMITTED)
        except OSError as exc:
            note = (
                f"Warning: the change is applied, but the undo journal {journal.folder} could "
                f"not record its end ({exc.strerror or exc}). xcsh completes the record the "
                "next time it opens this folder with a writable journal; until then undo may "
                "not offer this change."
            )
            warning = note if warning is None else f"{warning} {note}"
        return Applied(seq=entry.record.seq, warning=warning)
    return Applied(seq=None, warning=warning)


def _preflight(rd: RootDir, todo: list[Change]) -> dict[str, int]:
    """Check every file before anything is written; returns the modes of existing files."""
    stale: list[str] = []
    linked: list[str] = []
    readonly: list[str] = []
    modes: dict[str, int] = {}
    for change in todo:
        try:
            found = rd.read_entry(change.path)
        except (ConfinedError, OSError):
            stale.append(change.shown)
            continue
        if found is None:
            if change.before is not None:
                stale.append(change.shown)
            continue
        data, info, is_link = found
        mode = info.st_mode & 0o7777
        if (
            change.before is None
            or is_link != change.link_before
            or sha256_hex(data) != sha256_hex(change.before)
            or (change.ident is not None and FileId.of(info) != change.ident)
            or (change.before_mode is not None and not is_link and mode != change.before_mode)
        ):
            stale.append(change.shown)
        elif is_link:
            continue  # a symlink is replaced by a rename in its folder, as any file
        elif info.st_nlink > 1:
            linked.append(change.shown)
        elif not rd.writable(change.path):
            readonly.append(change.shown)
        modes[change.path] = mode
    if stale:
        raise ApplyError(
            f"These files changed since the preview: {name_list(stale)}. Nothing was written; "
            "discard this preview and preview the edit again.",
            stale=stale,
        )
    if linked:
        raise ApplyError(
            f"These files have other hard links: {name_list(linked)}. xcsh replaces a file by "
            "renaming a new copy over it, which would split it from its other names. Nothing "
            "was written; edit them another way, or copy them (`cp f f.tmp && mv f.tmp f`) "
            "so they stand alone, then preview again."
        )
    if readonly:
        raise ApplyError(
            f"You may not write {name_list(readonly)} (read-only for you). Nothing was written; "
            "make them writable (`chmod u+w FILE`) or leave them out, then preview again."
        )
    return modes


def _write_one(rd: RootDir, change: Change, tag: str) -> FileId | None:
    """Write one file, keeping the old one as ``.<name>.<tag>.orig``; returns the new identity."""
    before = None if change.before is None else sha256_hex(change.before)
    expect = Expect(
        sha256=before,
        ident=change.ident,
        link=change.link_before and change.before is not None,
        mode=change.before_mode if not change.link_before else None,
    )
    if change.after is None:
        rd.remove(change.path, expect=expect, keep=f"{tag}.orig")
        return None
    fresh = change.before is None or change.link_before
    return rd.replace(
        change.path,
        change.after,
        expect=expect,
        tag=tag,
        keep=f"{tag}.orig",
        mode=(change.mode if change.after_mode is None else change.after_mode) if fresh else None,
        link=change.link_after,
        chmod=None if change.link_after else change.after_mode,
    )


def _write_all(
    rd: RootDir, todo: list[Change], tag: str
) -> tuple[list[tuple[Change, FileId | None]], tuple[Change, Exception] | None]:
    """Write every change (a few threads: each write waits on fsync, which frees the GIL).

    Returns the changes written with their new identity, and the first failure.
    """
    stop = threading.Event()  # after a failure, files not started yet are not written

    def run(change: Change) -> tuple[FileId | None, Exception | None] | None:
        if stop.is_set():
            return None
        try:
            return _write_one(rd, change, tag), None
        except (OSError, ConfinedError, ChangedError) as exc:
            stop.set()
            return None, exc

    outcomes: list[tuple[FileId | None, Exception | None] | None] = []
    if len(todo) <= SERIAL:
        outcomes = [run(change) for change in todo]
    else:
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            outcomes = list(pool.map(run, todo))
    written = [(c, o[0]) for c, o in zip(todo, outcomes, strict=True) if o and o[1] is None]
    failures = [(c, o[1]) for c, o in zip(todo, outcomes, strict=True) if o and o[1] is not None]
    return written, (failures[0] if failures else None)


def _failure_text(change: Change, exc: Exception, left: list[str], *, alone: bool) -> str:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if alone and isinstance(exc, OSError):
        hint = " Check the folder's permissions." if isinstance(exc, PermissionError) else ""
        return f"Cannot write {change.shown}: {reason.rstrip('.')}. The file was not changed.{hint}"
    if isinstance(exc, ChangedError):
        head = f"{change.shown} changed while the change was being applied ({reason.rstrip('.')})."
    elif isinstance(exc, ConfinedError):
        head = f"Refusing to write {change.shown}: {reason.rstrip('.')}."
    else:
        head = f"Writing {change.shown} failed: {reason.rstrip('.')}."
    if not left:
        return f"{head} The files written before it were restored; nothing changed."
    return (
        f"{head} Putting the earlier files back failed too: these files hold the new content: "
        f"{', '.join(left)}. The undo journal keeps their previous content; run `xcsh recover` "
        "in this folder once the disk accepts writes again to put them back."
    )


_AGAIN: dict[Kind, str] = {"apply": "apply again", "undo": "undo again", "rewind": "rewind again"}
"""The step to take again once the journal can be written, by what was refused."""


def _journal_refused(journal: Journal, exc: OSError, kind: Kind) -> str:
    reason = exc.strerror or str(exc)
    return (
        f"Cannot record this change in the undo journal {journal.folder}: {reason}. Nothing "
        "was written. Free space there or make it writable (it lives under XCSH_HOME), then "
        f"{_AGAIN.get(kind, 'try again')}."
    )
