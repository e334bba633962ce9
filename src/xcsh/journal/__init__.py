"""The undo journal: the bytes before and after of each file an apply wrote.

Used by the interactive terminal (``/undo``) and by ``xcsh ast-edit`` /
``xcsh undo``. Typical use::

    from xcsh.journal import Journal, record_applies, command_journal_dir

    journal = Journal(command_journal_dir(home))
    record_applies(store, journal, root)        # every apply on this store is journaled
    ...
    outcome = journal.undo_last(root=root)     # UndoRefused names changed files

Entries are JSON files with a schema version (see :mod:`xcsh.journal.store`).
"""

from pathlib import Path

from xcsh.journal.store import (
    SCHEMA_VERSION,
    FileChange,
    Journal,
    JournalEntry,
    NothingToUndo,
    UndoError,
    UndoOutcome,
    UndoRefused,
    snapshot,
)
from xcsh.journal.watch import journal_action, record_applies


def session_journal_dir(home: Path, session_id: str) -> Path:
    """``$XCSH_HOME/sessions/<id>/journal``: an interactive session's journal."""
    return home / "sessions" / session_id / "journal"


def command_journal_dir(home: Path) -> Path:
    """``$XCSH_HOME/journal/ast-edit``: the journal of ``xcsh ast-edit`` (``xcsh undo``)."""
    return home / "journal" / "ast-edit"


__all__ = [
    "SCHEMA_VERSION",
    "FileChange",
    "Journal",
    "JournalEntry",
    "NothingToUndo",
    "UndoError",
    "UndoOutcome",
    "UndoRefused",
    "command_journal_dir",
    "journal_action",
    "record_applies",
    "session_journal_dir",
    "snapshot",
]
