"""Undoing a recorded change, through the same journaled, confined writes as an apply.

Undo picks an applied entry (the newest not undone yet, or a given number),
checks every file (it must hold exactly what the apply wrote, or already
hold what was there before), and writes the before contents back with
:func:`~xcsh.journal.apply.apply_changes`, recorded as an entry of kind
``"undo"``. A refused undo changes nothing. An entry whose files all hold
their before content already (restored by ``git checkout``, say) is marked
undone instead of blocking every later undo. The folders a ``bash`` entry's
command created are removed after it when they are left empty
(:func:`remove_created_folders`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcsh.core import XcshError
from xcsh.core.wording import name_list
from xcsh.fs.confined import ConfinedError, RootDir
from xcsh.journal.apply import ApplyError, Change, apply_changes
from xcsh.journal.records import COMMITTED, EntryRecord, EntrySummary, FileRecord
from xcsh.journal.sides import Found, after_side, before_side, now
from xcsh.journal.store import Journal, JournalError
from xcsh.journal.unreadable import unreadable

UNDOABLE_KINDS = ("apply", "bash")
"""The kinds of entry ``xcsh undo`` reverts: an apply, and a ``bash`` command's changes."""


class UndoError(XcshError):
    """Undo could not run; nothing was restored. The message says why."""


class NothingToUndo(UndoError):
    """The journal holds no applied change that is not undone yet."""


class UndoRefused(UndoError):
    """A file changed since the apply wrote it (or cannot be reached safely).

    Attributes:
        files: the paths (relative to the workspace) that block the undo.
    """

    def __init__(self, message: str, *, files: list[str]) -> None:
        super().__init__(message)
        self.files = files


@dataclass(frozen=True, kw_only=True)
class UndoOutcome:
    """What an undo did.

    Args:
        entry: the entry undone.
        restored: the paths given their previous content back (or removed).
        already: every file held its previous content already; only the mark changed.
        warning: the files were restored but the journal could not record it.
        folders: the folders the entry's command created that were left empty and
            removed (deepest first).
    """

    entry: EntryRecord
    restored: list[str]
    already: bool = False
    warning: str | None = None
    folders: tuple[str, ...] = ()

    @property
    def unrecorded(self) -> tuple[str, ...]:
        """Files the entry names as changed without their earlier bytes: not put back.

        They are a ``bash`` command's files over the size cap, or not read yet.
        """
        note = self.entry.bash
        return () if note is None else (*note.not_kept, *note.not_recorded)

    @property
    def message(self) -> str:
        """``Undid '<label>': restored a.py, b.py.`` (or the already-undone wording).

        Files the entry could not record are named after it: ``Not put back (...): c.py.``
        """
        missing = self.unrecorded
        if self.already and missing and not self.entry.files:
            return (
                f"'{self.entry.label}' changed only files whose earlier bytes were not "
                f"recorded ({name_list(list(missing))}): nothing to put back. Marked it as "
                "undone."
            )
        if self.already:
            text = (
                f"'{self.entry.label}' was undone already: its files hold their content from "
                "before it. Marked it as undone."
            )
        else:
            text = f"Undid '{self.entry.label}': restored {name_list(self.restored)}."
        if self.folders:
            text += f" Removed the folders it created: {name_list(list(self.folders))}."
        if missing:
            text += (
                f" Not put back (the journal holds no earlier bytes of "
                f"{'it' if len(missing) == 1 else 'them'}): {name_list(list(missing))}."
            )
        return text if self.warning is None else f"{text} {self.warning}"


ApplyState = Literal["applied", "undone", "rolled back", "unfinished"]
"""Where an apply entry stands: its files hold its changes (``applied``), an
undo put them back (``undone``), it never finished (``rolled back`` by
recovery, or ``unfinished`` while its process may still run)."""


@dataclass(frozen=True)
class ApplyEntry:
    """An apply entry of the journal and where it stands.

    Args:
        summary: the entry's index line.
        state: see :data:`ApplyState`.
    """

    summary: EntrySummary
    state: ApplyState


def applies(journal: Journal) -> list[ApplyEntry]:
    """Every apply entry of ``journal`` with its state, oldest first (``xcsh undo --list``)."""
    return _applies(journal.summaries())


def _applies(summaries: list[EntrySummary]) -> list[ApplyEntry]:
    undone = {s.undoes for s in summaries if s.kind == "undo" and s.state == COMMITTED and s.undoes}
    undone.update(
        e for s in summaries if s.kind == "rewind" and s.state == COMMITTED for e in s.rewinds
    )
    entries: list[ApplyEntry] = []
    for s in summaries:
        if s.kind not in UNDOABLE_KINDS:
            continue
        state: ApplyState
        if s.state is None:
            state = "unfinished"
        elif s.state != COMMITTED:
            state = "rolled back"
        else:
            state = "undone" if s.seq in undone else "applied"
        entries.append(ApplyEntry(s, state))
    return entries


def undoable(journal: Journal) -> list[EntrySummary]:
    """Applied entries not undone yet, oldest first."""
    return [e.summary for e in applies(journal) if e.state == "applied"]


def undo(journal: Journal, seq: int | None = None) -> UndoOutcome:
    """Undo entry ``seq`` (default: the newest applied entry not undone yet).

    Raises:
        NothingToUndo: nothing left to undo.
        UndoError: ``seq`` is unknown, not applied, or undone already; the
            journal's copy is missing; the writes failed (rolled back); another
            undo running at the same time undid the same entry first (this one
            then changed nothing and says so).
        UndoRefused: a file changed since the apply; nothing was restored.
    """
    live = undoable(journal)
    if seq is None:
        if not live:
            raise NothingToUndo(
                f"Nothing to undo: no applied change is recorded for {journal.root}."
            )
        chosen = live[-1].seq
    else:
        chosen = seq
        if not any(s.seq == seq for s in live):
            raise UndoError(_why_not(journal, seq))
    record = journal.entry(chosen)
    if record is None:
        lost = unreadable(journal, chosen)
        why = f": {lost.why} ({lost.path}); the record is kept as it is" if lost else ""
        raise UndoError(f"Cannot read entry {chosen} of the undo journal {journal.folder}{why}.")
    restore, changed, already = _classify(journal, record)
    if changed:
        raise UndoRefused(
            f"Cannot undo '{record.label}': these files changed since it was applied: "
            f"{name_list(changed)}. Nothing was restored.",
            files=changed,
        )
    label = f"Undo: {record.label}"
    try:
        if not restore:
            with journal.locked():
                if chosen in journal.undone():  # another undo finished it meanwhile
                    raise UndoError(_raced(record))
                entry = journal.begin(
                    kind="undo", label=label, source_tool_name="undo", files=[], undoes=chosen
                )
                journal.finish(entry, COMMITTED)
            folders = remove_created_folders(journal.root, [record])
            return UndoOutcome(entry=record, restored=[], already=True, folders=folders)
        applied = apply_changes(
            journal.root,
            restore,
            journal=journal,
            label=label,
            source_tool_name="undo",
            kind="undo",
            undoes=chosen,
        )
    except (ApplyError, JournalError, OSError) as exc:
        if isinstance(exc, ApplyError) and _undone_meanwhile(journal, chosen):
            raise UndoError(_raced(record)) from exc
        raise UndoError(f"Cannot undo '{record.label}': {exc}") from exc
    return UndoOutcome(
        entry=record,
        restored=[c.path for c in restore] + already,
        warning=applied.warning,
        folders=remove_created_folders(journal.root, [record]),
    )


def _undone_meanwhile(journal: Journal, seq: int) -> bool:
    """True when another undo (or a rewind) committed the undo of ``seq`` since it was chosen."""
    try:
        with journal.locked():  # a write of it still under way finishes first
            return seq in journal.undone()
    except (JournalError, OSError):
        return False


def _raced(record: EntryRecord) -> str:
    """What an undo that lost the race to another ``xcsh undo`` of the same entry says."""
    return (
        f"Another undo took back '{record.label}' (entry {record.seq}) at the same time; "
        "this one changed nothing. Run xcsh undo again to undo the change before it."
    )


def remove_created_folders(root: Path, entries: Iterable[EntryRecord]) -> tuple[str, ...]:
    """Remove the folders ``entries``' commands created that are empty now, deepest first.

    Only folders a ``bash`` entry recorded as created (not there before its
    command) are candidates; one that holds anything stays, and a folder that was
    there before is never named, so never removed.

    Returns:
        The folders removed, relative to ``root``.
    """
    folders = {f for e in entries if e.bash is not None for f in e.bash.created_folders}
    removed: list[str] = []
    try:
        with RootDir(root) as rd:
            for folder in sorted(folders, key=lambda f: (-f.count("/"), f)):
                if rd.remove_empty_folder(folder):
                    removed.append(folder)
    except (OSError, ConfinedError):
        pass  # the workspace cannot be opened: the folders stay
    return tuple(removed)


def _classify(journal: Journal, record: EntryRecord) -> tuple[list[Change], list[str], list[str]]:
    """``(changes to write, files changed since, files already holding their before content)``."""
    restore: list[Change] = []
    changed: list[str] = []
    already: list[str] = []
    try:
        rd = RootDir(record.root)
    except ConfinedError as exc:
        raise UndoError(f"Cannot undo '{record.label}': {exc}") from exc
    with rd:
        for f in record.files:
            try:
                found = now(rd, f.path)
            except (ConfinedError, OSError):
                changed.append(f.path)
                continue
            if found.side.same(before_side(f)):
                already.append(f.path)
                continue
            if not found.side.same(after_side(f)):
                changed.append(f.path)
                continue
            try:
                before = None if f.before is None else journal.blobs.get(f.before)
            except (OSError, ValueError) as exc:
                raise UndoError(
                    f"Cannot undo '{record.label}': the journal's copy of {f.path} is missing "
                    f"or damaged ({exc}). Nothing was restored."
                ) from exc
            restore.append(going_back(f, found, before))
    return restore, changed, already


def going_back(f: FileRecord, found: Found, before: bytes | None) -> Change:
    """The change that puts ``f``'s earlier side back over what ``found`` holds now.

    Args:
        f: the file's record (its before side is what comes back: content or link
            target, file type and mode).
        found: the path as it is now.
        before: the earlier content (or link target) from the journal; ``None``:
            the file did not exist.
    """
    return Change(
        path=f.path,
        shown=f.path,
        before=found.data,
        after=before,
        mode=f.mode,
        link_before=found.side.link,
        link_after=f.link_before,
        before_mode=found.side.mode,
        after_mode=f.mode if before is not None and not f.link_before else None,
    )


def _why_not(journal: Journal, seq: int) -> str:
    summaries = journal.summaries()
    for entry in _applies(summaries):
        if entry.summary.seq != seq:
            continue
        label = entry.summary.label
        if entry.state in ("rolled back", "unfinished"):
            return f"Entry {seq} ('{label}') was rolled back; there is nothing to undo."
        return f"Entry {seq} ('{label}') was undone already."
    if any(s.seq == seq and s.kind == "rewind" for s in summaries):
        return (
            f"Entry {seq} is a rewind, not an applied change; `xcsh undo --list` shows the applies."
        )
    if any(s.seq == seq for s in summaries):
        return (
            f"Entry {seq} is an undo, not an applied change; `xcsh undo --list` shows the applies."
        )
    return f"No entry {seq} in the undo journal for {journal.root}; `xcsh undo --list` shows them."
