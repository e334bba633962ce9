"""Rewinding a session: its files, its conversation, or both, to before one of its messages.

A session's file holds a checkpoint before each user message
(:mod:`xcsh.agent.record.checkpoints`; :class:`CheckpointRecorder` writes them).
:func:`rewind_points` lists them with what the session changed since;
:func:`rewind` goes back to one:

1. the files (unless ``conversation`` only): the session's journal entries
   after the checkpoint are put back, newest first in effect, as one
   crash-safe ``rewind`` entry of the journal
   (:mod:`xcsh.journal.rewind`: files changed since by someone else are left
   alone and named, files ``bash`` or other programs changed are named);
2. then the session file gets its ``rewind`` record (the conversation, unless
   ``files`` only, is cut to before the message).

The record is written only once the files are on disk, so the session file
never describes files that are not there. A process killed between the two
leaves a committed ``rewind`` entry whose record is missing: :func:`reconcile`
(run by ``xcsh recover``, ``xcsh rewind`` and every resume) writes it.
Pending previews newer than the checkpoint are the caller's to discard first
(:func:`newer_previews`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcsh.agent.record.checkpoints import Checkpoint, is_user_turn, rewind_record
from xcsh.agent.record.persistence import (
    PendingRecord,
    SavedSession,
    SessionRecorder,
    load_session,
    sessions_dir,
)
from xcsh.core import JsonObject, Message, UsageError, XcshError
from xcsh.core.safe import visible_line
from xcsh.core.wording import name_list, plural
from xcsh.journal import ApplyError, Journal
from xcsh.journal.records import COMMITTED, EntryRecord
from xcsh.journal.rewind import RewindPlan, SessionChanges, plan_rewind, rewind_files
from xcsh.journal.rewind import session_changes as journal_changes

RewindMode = Literal["both", "files", "conversation"]
"""What a rewind takes back: files and conversation, the files only, the conversation only."""

MODE_WORDS: dict[RewindMode, str] = {
    "both": "files and conversation",
    "files": "files only",
    "conversation": "conversation only",
}


class RewindError(XcshError):
    """The rewind did not happen; nothing was changed. The message says why."""


class CheckpointRecorder(SessionRecorder):
    """A session file that gets a checkpoint record right before each user message.

    While it is open it holds a shared ``flock`` on the file, which tells
    ``xcsh rewind`` that a running xcsh has the session open (:func:`session_closed`).

    Args:
        path, header: as :class:`~xcsh.agent.persistence.SessionRecorder`.
        journal: the workspace's journal, whose position each checkpoint records.
    """

    def __init__(
        self, path: Path, *, header: Mapping[str, str] | None = None, journal: Journal
    ) -> None:
        super().__init__(path, header=header)
        self.journal = journal
        self._lock = -1
        with contextlib.suppress(OSError):
            self._lock = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            fcntl.flock(self._lock, fcntl.LOCK_SH | fcntl.LOCK_NB)

    def close(self) -> None:
        """Close the file and let go of the session (a rewind may take it now)."""
        super().close()
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1

    def message(self, message: Message) -> None:
        """Record a history message, after a checkpoint when the user sent it."""
        if is_user_turn(message):
            self.write(
                {
                    "type": "checkpoint",
                    "journal": self.journal.position(),
                    "time_ns": time.time_ns(),
                }
            )
        super().message(message)


@contextlib.contextmanager
def session_closed(path: Path, session: str) -> Iterator[None]:
    """Hold session file ``path`` for a rewind from outside the session (``xcsh rewind``).

    Raises:
        RewindError: a running xcsh has the session open (rewinding under it would
            split its conversation from its file); nothing was changed.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise RewindError(f"Cannot open the session file {path}: {exc.strerror or exc}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RewindError(
                f"Session {session} is open in a running xcsh. Rewind it there with /rewind, "
                "or leave it first, then run this again. Nothing was changed."
            ) from None
        yield
    finally:
        os.close(fd)


@dataclass(frozen=True, kw_only=True)
class RewindPoint:
    """A user message a rewind can go back to, with what the session changed since.

    Args:
        checkpoint: the message and where the session stood before it.
        changes: the session's journal entries since (applies, ``write``/``edit``, undos).
    """

    checkpoint: Checkpoint
    changes: SessionChanges

    def line(self) -> str:
        """``  3. "rename foo to bar"  since: 2 changes (#7, #9): a.py, b.py`` (safe to print)."""
        first = self.checkpoint.text.strip().splitlines()[0] if self.checkpoint.text.strip() else ""
        if len(first) > 60:
            first = first[:57] + "..."
        text = visible_line(first)
        return f'{self.checkpoint.number:>3}. "{text}"  since: {self.summary()}'

    def summary(self) -> str:
        """``2 changes (#7, #9): a.py, b.py`` or ``no recorded changes``."""
        entries = self.changes.entries
        if not entries:
            return "no recorded changes"
        ids = ", ".join(f"#{e.seq}" for e in entries)
        paths = visible_line(name_list(self.changes.paths, 6))
        return f"{plural(len(entries), 'change')} ({ids}): {paths}"


def rewind_points(saved: SavedSession, journal: Journal) -> list[RewindPoint]:
    """The session's user messages, oldest first, each with the changes made since."""
    if not saved.checkpoints:
        return []
    first = min(cp.journal for cp in saved.checkpoints)
    every = journal_changes(journal, saved.id, first)
    return [RewindPoint(checkpoint=cp, changes=every.after(cp.journal)) for cp in saved.checkpoints]


def newer_previews(checkpoint: Checkpoint, call_ids: Sequence[str | None]) -> list[bool]:
    """Tell, for each pending preview, whether it is newer than the checkpoint.

    A preview (named by the id of the call that pushed it, ``None`` when unknown) is newer
    when the conversation before the checkpoint does not hold that call. One flag per id,
    in order.
    """
    before = checkpoint.call_ids()
    return [call_id is None or call_id not in before for call_id in call_ids]


@dataclass(frozen=True, kw_only=True)
class RewindOutcome:
    """What a rewind did.

    Args:
        checkpoint: the message it went back to (just before it).
        mode: what it took back.
        plan: the files' part (``None`` for a conversation-only rewind).
        entry: the journal's ``rewind`` entry, ``None`` when no file was written.
        discarded: labels of the pending previews discarded (newer than the checkpoint).
        warning: the files landed but the journal could not record the end.
    """

    checkpoint: Checkpoint
    mode: RewindMode
    plan: RewindPlan | None
    entry: int | None
    discarded: tuple[str, ...] = ()
    warning: str | None = None

    def lines(self) -> list[str]:
        """What to tell the person, one sentence a line."""
        number = self.checkpoint.number
        out = [f"Rewound to before message {number} ({MODE_WORDS[self.mode]})."]
        plan = self.plan
        if plan is not None:
            if plan.restored:
                entry = f" (journal entry #{self.entry})" if self.entry is not None else ""
                out.append(f"Files put back{entry}: {name_list(plan.restored)}.")
            else:
                out.append("No file needed putting back.")
            if plan.changed:
                out.append(
                    "Left alone, changed since by someone else (not what xcsh wrote): "
                    f"{name_list(plan.changed)}."
                )
            if plan.lost:
                out.append(
                    "Left alone, the undo journal no longer keeps their earlier content: "
                    f"{name_list(plan.lost)}."
                )
            if plan.untracked:
                out.append(
                    "Not rewound, changed since message "
                    f"{number} outside the undo journal (bash commands or other programs): "
                    f"{name_list(plan.untracked)}."
                )
            if plan.pruned:
                pruned = plural(len(plan.pruned), "entry", "entries")
                out.append(
                    f"The undo journal no longer keeps {pruned} made since then "
                    "(journal_max_entries); changes they recorded stay."
                )
        if self.mode == "conversation":
            out.append("The files keep every change made since.")
        if self.discarded:
            out.append(f"Discarded pending previews: {name_list(list(self.discarded))}.")
        if self.warning:
            out.append(self.warning)
        return out


def checkpoint_of(saved: SavedSession, number: int) -> Checkpoint:
    """User message ``number`` of ``saved`` (1 = the first).

    Raises:
        UsageError: there is no such message.
    """
    count = len(saved.checkpoints)
    if not 1 <= number <= count:
        what = plural(count, "user message")
        raise UsageError(
            f"session {saved.id} has {what}; there is no message {number} to rewind to",
            hint="`xcsh rewind --list` shows them (1 = the first)",
        )
    return saved.checkpoints[number - 1]


def rewind(
    journal: Journal,
    saved: SavedSession,
    number: int,
    mode: RewindMode,
    *,
    write: Callable[[JsonObject], None],
    discarded: Sequence[str] = (),
) -> RewindOutcome:
    """Rewind session ``saved`` to just before its user message ``number``.

    Args:
        journal: the workspace's journal, as the session writes it
            (:meth:`~xcsh.journal.Journal.for_session`).
        saved: the session as its file says now.
        number: the user message to go back before (1 is the first).
        mode: what to take back: files and conversation, the files only, or the
            conversation only.
        write: appends a record to the session file (the ``rewind`` record).
        discarded: labels of the previews the caller discarded, for the outcome.

    Returns:
        What the rewind did: the checkpoint, the files' plan and the journal entry.

    Raises:
        UsageError: no message ``number``.
        RewindError: the files could not be put back (nothing was; the message says why).
    """
    checkpoint = checkpoint_of(saved, number)
    plan: RewindPlan | None = None
    entry: int | None = None
    warning: str | None = None
    if mode != "conversation":
        changes = journal_changes(journal, saved.id, checkpoint.journal)
        plan = plan_rewind(journal, changes, since_ns=checkpoint.time_ns)
        try:
            applied = rewind_files(
                journal,
                plan,
                message=number,
                conversation=mode == "both",
                label=f"Rewind to before message {number}",
            )
        except ApplyError as exc:
            raise RewindError(f"Cannot rewind the files: {exc}") from exc
        entry, warning = applied.seq, applied.warning
    write(
        rewind_record(
            number, conversation=mode != "files", files=mode != "conversation", journal=entry
        )
    )
    return RewindOutcome(
        checkpoint=checkpoint,
        mode=mode,
        plan=plan,
        entry=entry,
        discarded=tuple(discarded),
        warning=warning,
    )


def kept_pending(saved: SavedSession, checkpoint: Checkpoint) -> list[PendingRecord]:
    """The saved stack without the previews newer than ``checkpoint``."""
    newer = newer_previews(checkpoint, [r.tool_call_id for r in saved.pending])
    return [r for r, new in zip(saved.pending, newer, strict=True) if not new]


def reconcile(journal: Journal, home: Path, session: str | None = None) -> list[str]:
    """Write the ``rewind`` records a crash cut off after their files were put back.

    For each committed ``rewind`` entry of ``journal`` that rewound a
    conversation (of ``session``, or of any session) and whose session file
    does not name it, the record is appended, so the conversation matches the
    files again.

    Returns:
        One line per session file completed.
    """
    done: list[str] = []
    by_session: dict[str, list[EntryRecord]] = {}
    for summary in journal.summaries():
        if summary.kind != "rewind" or summary.state != COMMITTED or summary.session is None:
            continue
        if session is not None and summary.session != session:
            continue
        record = journal.entry(summary.seq)
        if record is not None and record.rewind is not None and record.rewind.conversation:
            by_session.setdefault(summary.session, []).append(record)
    for sid, records in by_session.items():
        path = sessions_dir(home) / f"{sid}.jsonl"
        try:
            saved = load_session(path)
        except UsageError:
            continue
        missing = [r for r in records if r.seq not in saved.rewinds]
        if not missing:
            continue
        recorder = SessionRecorder(path)
        try:
            for record in missing:
                assert record.rewind is not None
                recorder.write(
                    rewind_record(
                        record.rewind.message, conversation=True, files=True, journal=record.seq
                    )
                )
                done.append(
                    f"Completed the interrupted rewind of session {sid}: its conversation is "
                    f"back to before message {record.rewind.message}, as its files are "
                    f"(journal entry #{record.seq})."
                )
        finally:
            recorder.close()
    return done


__all__ = [
    "MODE_WORDS",
    "CheckpointRecorder",
    "RewindError",
    "RewindMode",
    "RewindOutcome",
    "RewindPoint",
    "checkpoint_of",
    "kept_pending",
    "newer_previews",
    "reconcile",
    "rewind",
    "rewind_points",
    "session_closed",
]
