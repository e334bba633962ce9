"""The workspace's undo journal as a session opens it: interrupted applies settled first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xcsh.app.settings import load_settings
from xcsh.journal import Journal, JournalError, Recovered, Retention, recover


@dataclass(frozen=True, kw_only=True)
class OpenedJournal:
    """A workspace's journal, after recovery ran.

    Args:
        journal: the journal.
        recovered: what recovery did with interrupted applies (show each ``message``).
        problem: why recovery could not run (the journal is locked or unreadable), or ``None``.
    """

    journal: Journal
    recovered: list[Recovered]
    problem: str | None = None


def open_journal(home: Path, cwd: Path, settings: Mapping[str, Any] | None = None) -> OpenedJournal:
    """The undo journal of ``cwd``, with any interrupted apply settled first.

    Args:
        home: ``$XCSH_HOME``.
        cwd: the workspace.
        settings: ``settings.toml``'s values (default: read from ``home``).

    Raises:
        UsageError: bad settings.
    """
    values = load_settings(home) if settings is None else settings
    journal = Journal.for_root(
        home, cwd, retention=Retention.from_settings(values, home / "settings.toml")
    )
    try:
        return OpenedJournal(journal=journal, recovered=recover(journal))
    except (JournalError, OSError) as exc:
        return OpenedJournal(journal=journal, recovered=[], problem=str(exc))
