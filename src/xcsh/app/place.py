"""Where a session works and what it saved there.

:func:`find_place` finds the session's folder and file (a resumed session keeps
the folder it started in), :func:`open_place_journal` opens that folder's undo
journal for the session (settling interrupted applies and a rewind a crash cut
short), and :func:`session_writer` opens the session file the conversation is
recorded in. :func:`session_folder` and :func:`learnt_mode` read what a saved
session recorded.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from xcsh.agent import (
    SavedSession,
    SteeringMode,
    latest_session_for,
    load_session,
    new_session_id,
    session_path,
    sessions_dir,
)
from xcsh.agent.record.rewind import CheckpointRecorder, reconcile
from xcsh.app.settings import Settings, load_settings
from xcsh.core import UsageError
from xcsh.journal import Journal, OpenedJournal, settled
from xcsh.providers import Provider


def open_journal(home: Path, cwd: Path, settings: Settings | None = None) -> OpenedJournal:
    """The undo journal of ``cwd``, with any interrupted apply settled first.

    Args:
        home: ``$XCSH_HOME``.
        cwd: the workspace.
        settings: the settings (default: read from ``home``).

    Raises:
        UsageError: bad settings.
    """
    retention = (load_settings(home) if settings is None else settings).retention
    return settled(Journal.for_root(home, cwd, retention=retention))


@dataclass(frozen=True, kw_only=True)
class SessionPlace:
    """Where a session works: its folder, its file and what was saved there.

    Args:
        cwd: the folder the session works in (a resumed session's own).
        path: the session file to resume, or ``None`` for a new session.
        saved: the resumed session as saved, or ``None``.
        session_id: the session's id (a new one for a new session).
        elsewhere: for a session resumed from another folder, the folder xcsh
            was started in.
    """

    cwd: Path
    path: Path | None
    saved: SavedSession | None
    session_id: str
    elsewhere: Path | None = None


def find_place(
    home: Path, cwd: Path, *, session_id: str | None, continue_latest: bool
) -> SessionPlace:
    """Find the session's folder and file, and the saved session when resuming.

    A resumed session keeps the folder it started in (its previews are rebuilt, and
    applied, there and nowhere else).
    """
    cwd = cwd.resolve()
    path = _resume_path(home, cwd, session_id, continue_latest)
    saved = load_session(path) if path is not None else None
    if saved is None:
        return SessionPlace(cwd=cwd, path=path, saved=None, session_id=new_session_id())
    own = session_folder(saved)
    elsewhere = cwd if own != cwd else None
    return SessionPlace(cwd=own, path=path, saved=saved, session_id=saved.id, elsewhere=elsewhere)


def open_place_journal(
    home: Path, place: SessionPlace, settings: Settings
) -> tuple[SessionPlace, OpenedJournal]:
    """Open the workspace's journal for this session, finishing a rewind a crash cut short.

    Every change the returned journal writes names the session: that is what a rewind
    takes back. When finishing a rewind changed the session file, the place holds the
    session as reloaded.
    """
    opened = open_journal(home, place.cwd, settings)
    saved = place.saved
    if saved is not None and place.path is not None and reconcile(opened.journal, home, saved.id):
        # a rewind a crash cut short now holds for the conversation too
        place = dataclasses.replace(place, saved=load_session(place.path))
    journal = opened.journal.for_session(place.session_id)
    return place, dataclasses.replace(opened, journal=journal)


def session_writer(
    home: Path, place: SessionPlace, provider: Provider, journal: Journal
) -> tuple[Path, CheckpointRecorder]:
    """The session file (a new one names the session, its folder and its model) and its writer.

    Raises:
        UsageError: the file cannot be written.
    """
    path = place.path
    header: dict[str, str] | None = None
    if path is None:
        path = sessions_dir(home) / f"{place.session_id}.jsonl"
        header = {
            "id": place.session_id,
            "cwd": str(place.cwd),
            "provider": provider.name,
            "model": provider.model,
        }
    try:
        return path, CheckpointRecorder(path, header=header, journal=journal)
    except OSError as exc:
        raise UsageError(
            f"cannot write the session file {path}: {exc.strerror or exc}",
            hint=f"check that {sessions_dir(home)} is a folder you can write to",
        ) from exc


def session_folder(saved: SavedSession) -> Path:
    """The working folder a saved session started in, which a resumed run works in.

    Raises:
        UsageError: the session file records no folder, or the folder is gone
            (then nothing is rebuilt or applied anywhere else).
    """
    if not saved.cwd:
        raise UsageError(
            f"session {saved.id} does not record the folder it ran in, so xcsh cannot "
            "tell where its pending previews belong",
            hint='start a new session with xcsh -p "TASK"',
        )
    folder = Path(saved.cwd)
    if not folder.is_dir():
        raise UsageError(
            f"session {saved.id} ran in {folder}, which is no longer a folder",
            hint="restore that folder to resume the session there, or start a new session",
        )
    return folder.resolve()


def learnt_mode(saved: SavedSession | None, provider: Provider) -> SteeringMode | None:
    """The steering mode a resumed session learnt for this same provider and model."""
    if saved is None or saved.steering is None:
        return None
    name, model, mode = saved.steering
    if (name, model) != (provider.name, provider.model) or mode not in (
        "named",
        "required",
        "auto",
    ):
        return None
    return cast(SteeringMode, mode)


def _resume_path(
    home: Path, cwd: Path, session_id: str | None, continue_latest: bool
) -> Path | None:
    if session_id:
        return session_path(home, session_id)
    if continue_latest:
        latest = latest_session_for(home, cwd)
        if latest is None:
            raise UsageError(
                f"no saved session for {cwd}",
                hint='start one with xcsh -p "TASK", or pick one with --session ID',
            )
        return latest
    return None


__all__ = [
    "SessionPlace",
    "find_place",
    "learnt_mode",
    "open_journal",
    "open_place_journal",
    "session_folder",
    "session_writer",
]
