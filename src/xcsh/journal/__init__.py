"""The undo journal: a write-ahead log of every change xcsh writes to a workspace.

Each workspace has one journal, ``$XCSH_HOME/journal/<name>-<hash>/``
(:func:`journal_folder`), shared by every front end: the terminal, ``xcsh
-p``, ``xcsh mcp``, ``xcsh ast-edit`` and ``xcsh undo``. Changes are written
by :func:`apply_changes` (one commit point: intent record, writes, outcome
record); :func:`recover` settles what a crash left (:func:`settled` for
front ends: it reports a journal it cannot settle instead of raising); :func:`undo` reverts an
entry. A previewed set of file changes is a :class:`FileChangesEffect`, which
writes through :func:`apply_changes`; :class:`JournaledEffect` records any
other effect's apply. Typical use::

    from xcsh.journal import Journal, apply_changes, settled, undo

    journal = Journal.for_root(home, root)
    opened = settled(journal)                      # interrupted applies settled (recover)
    apply_changes(root, changes, journal=journal, label=..., source_tool_name=...)
    outcome = undo(journal)                        # UndoRefused names changed files

See :mod:`xcsh.journal.records` for the files on disk.
"""

from xcsh.fs.home import journal_folder
from xcsh.journal.apply import Applied, ApplyError, Change, apply_changes
from xcsh.journal.effects import (
    FileChangesEffect,
    by_file,
    file_changes_action,
    proposed_changes,
)
from xcsh.journal.records import (
    COMMITTED,
    ROLLED_BACK,
    SCHEMA_VERSION,
    EntryRecord,
    EntrySummary,
    FileRecord,
)
from xcsh.journal.recover import OpenedJournal, Recovered, interrupted, recover, settled
from xcsh.journal.retention import Retention
from xcsh.journal.signals import SignalHold, finish_in_thread, held_signals
from xcsh.journal.store import Journal, JournalError
from xcsh.journal.undo import (
    ApplyEntry,
    ApplyState,
    NothingToUndo,
    UndoError,
    UndoOutcome,
    UndoRefused,
    applies,
    undo,
    undoable,
)
from xcsh.journal.watch import JournaledEffect, journal_action, journaled, record_applies

__all__ = [
    "COMMITTED",
    "ROLLED_BACK",
    "SCHEMA_VERSION",
    "Applied",
    "ApplyEntry",
    "ApplyError",
    "ApplyState",
    "Change",
    "EntryRecord",
    "EntrySummary",
    "FileChangesEffect",
    "FileRecord",
    "Journal",
    "JournalError",
    "JournaledEffect",
    "NothingToUndo",
    "OpenedJournal",
    "Recovered",
    "Retention",
    "SignalHold",
    "UndoError",
    "UndoOutcome",
    "UndoRefused",
    "applies",
    "apply_changes",
    "by_file",
    "file_changes_action",
    "finish_in_thread",
    "held_signals",
    "interrupted",
    "journal_action",
    "journal_folder",
    "journaled",
    "proposed_changes",
    "record_applies",
    "recover",
    "settled",
    "undo",
    "undoable",
]
