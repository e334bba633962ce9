"""What recording one ``bash`` command did, and the lines its tool result gets from that.

:class:`Recorded` is what :class:`~xcsh.journal.commands.recorder.CommandRecorder`
returns; :func:`recorded_note` and :func:`background_note` word it for the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from xcsh.core.wording import name_list, plural


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """What recording one command (or its background processes) did.

    Args:
        seq: the journal entry written, ``None`` when nothing was recorded.
        files: the files recorded (created, changed or deleted).
        ignored: ignored paths it touched (not recorded).
        not_recorded: files it changed that could not be recorded (over the size cap).
        not_kept: files it changed or deleted whose earlier bytes were not kept yet
            (the first look had not read them): named in the entry, not put back.
        problem: why nothing could be recorded (the journal could not be written).
        protected: ``.git``, ``.hg`` or ``.xcsh`` folders it created: never recorded
            (``xcsh undo`` leaves them, and what is in them, as they are).
    """

    seq: int | None = None
    files: tuple[str, ...] = ()
    ignored: int = 0
    not_recorded: tuple[str, ...] = ()
    not_kept: tuple[str, ...] = ()
    problem: str = ""
    protected: tuple[str, ...] = ()


def recorded_note(recorded: Recorded, max_bytes: int, *, what: str = "This command") -> str:
    """The line a ``bash`` result ends with when something could not be recorded (else ``""``).

    ``what`` names what was recorded (``This call`` for a direct MCP tool call).
    """
    parts: list[str] = []
    if recorded.problem:
        parts.append(
            f"[undo] {what}'s changes are not recorded: {recorded.problem}; "
            "xcsh undo cannot revert them."
        )
        return "\n".join(parts)
    if recorded.protected:
        folders = recorded.protected
        parts.append(
            f"[undo] Not recorded: {name_list(list(folders), 10)} "
            f"({'a folder' if len(folders) == 1 else 'folders'} named .git, .hg or .xcsh, "
            "whose contents xcsh never records); xcsh undo and xcsh rewind leave "
            f"{'it' if len(folders) == 1 else 'them'} and what "
            f"{'it holds' if len(folders) == 1 else 'they hold'} as they are."
        )
    if recorded.not_kept:
        parts.append(
            "[undo] Not recorded (xcsh had not read their earlier bytes yet; it reads the "
            f"workspace once when a session opens): {name_list(list(recorded.not_kept), 10)}; "
            f"xcsh undo cannot put {'it' if len(recorded.not_kept) == 1 else 'them'} back."
        )
    if recorded.not_recorded:
        cap = (
            f"{max_bytes // (1024 * 1024)} MiB"
            if max_bytes >= 1024 * 1024
            else f"{max_bytes} bytes"
        )
        parts.append(
            f"[undo] Not recorded (over the {cap} size cap, bash_record_max_bytes): "
            f"{name_list(list(recorded.not_recorded), 10)}; xcsh undo cannot revert "
            f"{'it' if len(recorded.not_recorded) == 1 else 'them'}."
        )
    return "\n".join(parts)


def background_note(recorded: Recorded) -> str:
    """The line saying what a background process changed before this command (else ``""``)."""
    if recorded.seq is None:
        return ""
    return (
        f"[undo] Processes the last command left running changed "
        f"{plural(len(recorded.files), 'file')} since ({name_list(list(recorded.files), 5)}): "
        f"recorded as undo journal entry #{recorded.seq}."
    )


__all__ = ["Recorded", "background_note", "recorded_note"]
