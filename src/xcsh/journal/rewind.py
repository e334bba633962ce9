"""Putting an agent session's files back to how they were at one of its checkpoints.

A session records, at each user message, the journal's position then
(:meth:`~xcsh.journal.store.Journal.position`); every entry written for the
session names it (``"session"``). Rewinding the files to a checkpoint takes
the session's committed entries after that position (applies, undos, earlier
rewinds), follows each file through them oldest first, and writes back the
content it had before the first of them, as one journal entry of kind
``"rewind"`` through :func:`~xcsh.journal.apply.apply_changes`: all or
nothing, crash-safe, settled by recovery like any apply.

What a rewind does not touch, and says so (:class:`RewindPlan`):

- a file whose content is not what the session's last change wrote, or that
  changed between two of the session's changes (someone else edited it: a
  ``bash`` command, an editor, another session): left alone, named;
- a file whose earlier content the journal no longer keeps (pruned): left
  alone, named;
- files modified since the checkpoint that the journal never saw (``bash``
  commands, other programs), found by their modification time under the
  workspace (the walk that searches use, ignore files honoured): named, not
  reverted.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from xcsh.fs.confined import ConfinedError, RootDir
from xcsh.fs.walk import iter_files
from xcsh.journal.apply import Applied, Change, apply_changes
from xcsh.journal.records import COMMITTED, EntryRecord, FileRecord, RewindNote
from xcsh.journal.sides import after_side, before_side, now
from xcsh.journal.store import Journal
from xcsh.journal.undo import going_back, remove_created_folders


@dataclass(frozen=True, kw_only=True)
class SessionChanges:
    """A session's committed journal entries after a position, oldest first.

    Args:
        entries: the entries (applies, undos and rewinds written for the session).
        pruned: entry numbers after the position the journal no longer keeps
            (retention); changes they made cannot be put back.
    """

    entries: tuple[EntryRecord, ...]
    pruned: tuple[int, ...] = ()

    def after(self, position: int) -> SessionChanges:
        """The entries after ``position`` (a later checkpoint's share)."""
        return SessionChanges(
            entries=tuple(e for e in self.entries if e.seq > position),
            pruned=tuple(p for p in self.pruned if p > position),
        )

    @property
    def paths(self) -> list[str]:
        """The files the entries changed, in the order they were first changed."""
        return list(dict.fromkeys(f.path for e in self.entries for f in e.files))


def session_changes(journal: Journal, session: str, position: int) -> SessionChanges:
    """The committed entries ``journal`` holds for ``session`` after ``position``.

    Reads each entry after ``position`` once (a checkpoint's share of the journal).
    """
    entries: list[EntryRecord] = []
    pruned: list[int] = []
    for seq in range(position + 1, journal.position() + 1):
        record = journal.entry(seq)
        if record is None:
            pruned.append(seq)
        elif record.session == session and record.state == COMMITTED:
            entries.append(record)
    return SessionChanges(entries=tuple(entries), pruned=tuple(pruned))


@dataclass(frozen=True, kw_only=True)
class RewindPlan:
    """What rewinding a session's files to a checkpoint would do.

    Args:
        changes: the files to write back (current content as ``before``, the
            checkpoint's as ``after``; ``None`` = absent).
        rewound: the entries gone back over (the folders their commands created are
            removed when the rewind leaves them empty).
        entries: the entries whose every file ends up as before them (they count as undone).
        changed: files left alone: their content is not what the session's changes
            wrote (edited since by someone else, or between two of its changes).
        lost: files left alone because the journal no longer keeps their earlier content.
        untracked: files modified since the checkpoint that the journal never
            saw (``bash`` commands, other programs): not reverted.
        pruned: entries after the checkpoint the journal no longer keeps.
    """

    changes: tuple[Change, ...] = ()
    rewound: tuple[EntryRecord, ...] = ()
    entries: tuple[int, ...] = ()
    changed: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    untracked: tuple[str, ...] = ()
    pruned: tuple[int, ...] = ()

    @property
    def restored(self) -> list[str]:
        """The files the rewind writes back."""
        return [c.path for c in self.changes]


def plan_rewind(
    journal: Journal, changes: SessionChanges, *, since_ns: int | None = None
) -> RewindPlan:
    """Work out, file by file, what rewinding ``changes`` would write (reads only).

    Args:
        journal: the workspace's journal.
        changes: the session's entries after the checkpoint (:func:`session_changes`).
        since_ns: the checkpoint's time (nanoseconds since the epoch); files under the
            workspace modified after it and not among ``changes`` are listed as
            ``untracked``. ``None`` skips that walk.
    """
    chains: dict[str, list[FileRecord]] = {}
    for entry in changes.entries:
        for f in entry.files:
            chains.setdefault(f.path, []).append(f)
    todo: list[Change] = []
    changed: list[str] = []
    lost: list[str] = []
    back: set[str] = set()  # files that end up as before the checkpoint
    with RootDir(journal.root) as rd:
        for path, chain in chains.items():
            try:
                found = now(rd, path)
            except (ConfinedError, OSError):
                changed.append(path)
                continue
            first = chain[0]
            if found.side.same(before_side(first)):
                back.add(path)
                continue
            linked = all(after_side(a).same(before_side(b)) for a, b in pairwise(chain))
            if not linked or not found.side.same(after_side(chain[-1])):
                changed.append(path)
                continue
            try:
                content = None if first.before is None else journal.blobs.get(first.before)
            except (OSError, ValueError):
                lost.append(path)
                continue
            todo.append(going_back(first, found, content))
            back.add(path)
    entries = tuple(e.seq for e in changes.entries if all(f.path in back for f in e.files))
    untracked = () if since_ns is None else _untracked(journal.root, since_ns, set(chains))
    return RewindPlan(
        changes=tuple(todo),
        rewound=changes.entries,
        entries=entries,
        changed=tuple(changed),
        lost=tuple(lost),
        untracked=untracked,
        pruned=changes.pruned,
    )


def _untracked(root: Path, since_ns: int, known: set[str]) -> tuple[str, ...]:
    """Files under ``root`` modified after ``since_ns`` that are not in ``known``."""
    found: list[str] = []
    for path in iter_files(root):
        try:
            if path.stat(follow_symlinks=False).st_mtime_ns <= since_ns:
                continue
        except OSError:
            continue
        rel = path.relative_to(root).as_posix()
        if rel not in known:
            found.append(rel)
    return tuple(sorted(found))


def rewind_files(
    journal: Journal,
    plan: RewindPlan,
    *,
    message: int,
    conversation: bool,
    label: str,
) -> Applied:
    """Write ``plan``'s files back, as one ``rewind`` entry of ``journal`` (all or nothing).

    Then the folders the rewound commands created are removed where left empty.
    Nothing to write and no entry is not an error: ``Applied(seq=None)``.

    Raises:
        ApplyError: a file changed since the plan was made, or a write failed
            (rolled back; the message says what holds new content if that failed too).
    """
    applied = apply_changes(
        journal.root,
        plan.changes,
        journal=journal,
        label=label,
        source_tool_name="rewind",
        kind="rewind",
        rewind=RewindNote(message=message, conversation=conversation, entries=plan.entries),
    )
    remove_created_folders(journal.root, plan.rewound)
    return applied


def committed_rewinds(journal: Journal, session: str, after: int = 0) -> list[EntryRecord]:
    """The committed ``rewind`` entries of ``session`` after entry ``after``, oldest first."""
    out: list[EntryRecord] = []
    for summary in journal.summaries():
        if summary.seq <= after or summary.kind != "rewind" or summary.state != COMMITTED:
            continue
        record = journal.entry(summary.seq)
        if record is not None and record.session == session and record.rewind is not None:
            out.append(record)
    return out
