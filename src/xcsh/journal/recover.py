"""Settling entries a crash left incomplete (intent record, no outcome record).

:func:`recover` runs whenever an xcsh command opens a workspace (the agent,
``xcsh -p``, ``xcsh mcp``, ``xcsh ast-edit``, ``xcsh undo``) and as
``xcsh recover``. For each incomplete entry whose process is gone:

- if every file already holds its *after* content, the apply had finished
  writing and only its outcome record was missing: it is **completed**
  (recorded as committed, so it can be undone);
- a ``bash`` entry is always **completed**: the command wrote its files
  itself, before the record began, so the record is finished as it was
  meant (rolling back would take back the command's own work);
- otherwise it is **rolled back**: each file holding its after content gets
  its before content again (the kept old file is renamed back when the crash
  left it, else the copy in the blob store is written); files holding their
  before content are left alone; a file holding neither (edited since the
  crash) is left as it is and named.

Either way the tree is never left mixed by xcsh, and the temporary and kept
names the apply made (``.<name>.xcsh-<seq>.tmp`` / ``.orig``) are removed.
A custom tool's apply, whose after content was not known in advance, is
rolled back: every file that differs from its before content gets it back.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from xcsh.core.wording import name_list
from xcsh.fs.confined import ChangedError, ConfinedError, Expect, RootDir, sha256_hex
from xcsh.journal.records import COMMITTED, ROLLED_BACK, EntryRecord, FileRecord
from xcsh.journal.sides import Side, after_side, before_side, now_or_none
from xcsh.journal.store import Journal, JournalError
from xcsh.journal.unreadable import UnreadableEntry, unreadable


@dataclass(frozen=True, kw_only=True)
class OpenedJournal:
    """A workspace's journal, after recovery ran (:func:`settled`).

    Args:
        journal: the journal.
        recovered: what recovery did with interrupted applies (show each ``message``).
        problem: why recovery could not run (the journal is locked or unreadable), or ``None``.
    """

    journal: Journal
    recovered: list[Recovered]
    problem: str | None = None


def settled(journal: Journal) -> OpenedJournal:
    """``journal`` after :func:`recover` settled its interrupted applies; never raises.

    Every front end that opens a workspace calls this and shows the messages
    its own way. When recovery cannot run (the lock cannot be taken, the
    journal cannot be read), nothing is recovered and ``problem`` says why.
    """
    try:
        return OpenedJournal(journal=journal, recovered=recover(journal))
    except (JournalError, OSError) as exc:
        return OpenedJournal(journal=journal, recovered=[], problem=str(exc))


UNREADABLE = "unreadable"
"""The outcome of an interrupted apply whose intent record cannot be read."""


@dataclass(kw_only=True)
class Recovered:
    """What recovery did with one entry.

    Attributes:
        seq, label: the entry.
        outcome: ``"completed"`` or ``"rolled back"``; ``"unfinished"`` when
            some files could not be put back (``still_new`` names them);
            ``"unreadable"`` when its intent record cannot be read, so nothing
            was done (``unreadable`` says why and what can be done).
        restored: files given their before content again.
        conflicts: files holding neither side, left as they are.
        still_new: files still holding new content (putting them back failed).
        unwritten: files of the apply that still held their before content (the apply
            had not reached them), left alone.
        temps: temporary and kept names removed.
        unreadable: the entry, when its intent record cannot be read.
    """

    seq: int
    label: str
    outcome: str
    restored: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    still_new: list[str] = field(default_factory=list)
    unwritten: int = 0
    temps: int = 0
    unreadable: UnreadableEntry | None = None
    kind: str = "apply"

    @property
    def message(self) -> str:
        """One paragraph for people, naming the files."""
        if self.unreadable is not None:
            return self.unreadable.message
        if self.outcome == "completed" and self.kind == "bash":
            text = (
                f"Recovered the interrupted record of the command '{self.label}': its changes "
                "were all on disk; recorded them (undo can revert them)."
            )
        elif self.outcome == "completed":
            text = (
                f"Recovered an interrupted apply '{self.label}': it had finished writing; "
                "recorded it (undo can revert it)."
            )
        elif self.outcome == "rolled back":
            names = name_list(self.restored) if self.restored else "no file had changed"
            text = f"Recovered an interrupted apply '{self.label}': rolled back ({names})."
            if self.restored and self.unwritten:
                others = "file" if self.unwritten == 1 else "files"
                text += f" Its {self.unwritten} other {others} had not been written yet."
        else:
            text = (
                f"Could not finish rolling back the interrupted apply '{self.label}': these "
                f"files still hold its new content: {name_list(self.still_new)}. Run "
                "`xcsh recover` again once they can be written."
            )
        if self.conflicts:
            text += f" Left as they are (changed since): {name_list(self.conflicts)}."
        return text


def interrupted(journal: Journal) -> str | None:
    """Word a note on the interrupted applies waiting in ``journal``, for read-only commands.

    Read-only commands are ``--dry-run`` and searches; they must not finish the applies.
    An apply is interrupted when its process is gone; ``None`` when there is none.

    Reads only: takes no lock, settles nothing, never raises.
    """
    try:
        seqs = [seq for seq in journal.incomplete() if not journal.is_live(seq)]
        records = [(seq, journal.entry(seq)) for seq in seqs]
        labels = [
            f"'{r.label}'" if r is not None else f"entry {seq}, whose record cannot be read"
            for seq, r in records
        ]
    except (JournalError, OSError, ValueError):
        return None
    if not labels:
        return None
    what = "An apply" if len(labels) == 1 else f"{len(labels)} applies"
    was = "was" if len(labels) == 1 else "were"
    return (
        f"{what} in this folder {was} interrupted ({name_list(labels, 3)}); some files may "
        "hold part of it. This command changes nothing: run `xcsh recover` here to roll it "
        "back (or complete it)."
    )


def recover(journal: Journal) -> list[Recovered]:
    """Settle every incomplete entry of ``journal`` whose process is gone.

    Cheap when there is nothing to do (one folder listing, no lock). Once an entry
    was settled, the stored contents no record refers to (what a kill left while an
    apply was storing them) are removed (:meth:`Journal.sweep`).

    Raises:
        JournalError: the journal's lock cannot be taken.
    """
    if not journal.incomplete():
        return []
    done: list[Recovered] = []
    with journal.locked():
        for seq in journal.incomplete():
            if journal.is_live(seq):
                continue
            record = journal.entry(seq)
            if record is None:  # said, with what can still be done; the record is kept
                lost = unreadable(journal, seq)
                if lost is not None:
                    done.append(Recovered(seq=seq, label="", outcome=UNREADABLE, unreadable=lost))
                continue
            done.append(_settle_one(journal, record))
    if done:
        with contextlib.suppress(JournalError, OSError):
            journal.sweep()
    return done


def _settle_one(journal: Journal, record: EntryRecord) -> Recovered:
    tag = f"xcsh-{record.name}"
    report = Recovered(seq=record.seq, label=record.label, outcome="rolled back", kind=record.kind)
    with RootDir(record.root) as rd:
        current = {f.path: _current(rd, f.path) for f in record.files}
        if record.kind == "bash" or (
            record.after_known and all(_holds(current[f.path], after_side(f)) for f in record.files)
        ):
            report.outcome = "completed"
        else:
            for f in record.files:
                _put_back(journal, rd, record, f, current[f.path], tag, report)
        for f in record.files:
            for suffix in (f"{tag}.tmp", f"{tag}.orig"):
                if rd.remove_sibling(f.path, suffix):
                    report.temps += 1
    if report.still_new:
        report.outcome = "unfinished"
        return report
    state = COMMITTED if report.outcome == "completed" else ROLLED_BACK
    with contextlib.suppress(OSError):
        journal.settle(record, state)
    return report


def _current(rd: RootDir, path: str) -> Side | None:
    """What ``path`` holds now, or ``None`` when it cannot be read safely."""
    found = now_or_none(rd, path)
    return None if found is None else found.side


def _holds(now: Side | None, side: Side) -> bool:
    return now is not None and now.same(side)


def _put_back(
    journal: Journal,
    rd: RootDir,
    record: EntryRecord,
    f: FileRecord,
    now: Side | None,
    tag: str,
    report: Recovered,
) -> None:
    if _holds(now, before_side(f)):
        report.unwritten += 1
        return
    if now is None:
        report.conflicts.append(f.path)
        return
    if record.after_known and not now.same(after_side(f)):
        report.conflicts.append(f.path)
        return
    expect = Expect(sha256=now.digest, link=now.link)
    try:
        if f.before is None:
            rd.remove(f.path, expect=expect)
        elif _kept_is_before(rd, f, tag):
            rd.restore_sibling(f.path, f"{tag}.orig")
        else:
            rd.replace(
                f.path,
                journal.blobs.get(f.before),
                expect=expect,
                tag=tag,
                mode=f.mode,
                link=f.link_before,
                chmod=None if f.link_before else f.mode,
            )
    except ChangedError:
        report.conflicts.append(f.path)
        return
    except (OSError, ConfinedError, ValueError):
        report.still_new.append(f.path)
        return
    report.restored.append(f.path)


def _kept_is_before(rd: RootDir, f: FileRecord, tag: str) -> bool:
    """True when the apply's kept old file is there and holds the before content."""
    if not rd.sibling(f.path, f"{tag}.orig"):
        return False
    parent, _, name = f.path.rpartition("/")
    kept = f"{parent}/.{name}.{tag}.orig" if parent else f".{name}.{tag}.orig"
    try:
        found = rd.read_entry(kept)
    except (ConfinedError, OSError):
        return False
    return found is not None and found[2] == f.link_before and sha256_hex(found[0]) == f.before
