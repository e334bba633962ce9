"""Sessions saved as JSON Lines under ``$XCSH_HOME/sessions/`` (contract §5a).

One file per session, ``<id>.jsonl``, appended to as the session runs. The
first line is the header and carries the schema version::

    {"type": "session", "version": 1, "id": "...", "cwd": "...", "created": "...",
     "provider": "...", "model": "..."}

then one record per line, in order:

- ``{"type": "message", "message": {...}}``: a history message (user,
  assistant with its tool calls, or tool result), as its dataclass fields;
- ``{"type": "pending_pushed", "tool_call_id", "tool_name", "arguments", "label",
  "source_tool_name"}``: a tool staged a preview;
- ``{"type": "resolved", "tool_call_id", "action", "reason", "label", "is_error"}``;
- ``{"type": "pending", "stack": [{"tool_name", "arguments", "label",
  "source_tool_name", "files", "digest"}, ...]}``: the whole store, bottom
  first; the last one wins on load (``files`` and ``digest`` describe the
  preview, so a resumed session can tell whether its rebuild differs; both
  may be missing or ``null``);
- ``{"type": "run_end", "reason", "message"}``;
- ``{"type": "notice", "kind", "message"}``: the session changed how it works;
- ``{"type": "model", "provider", "model"}``: the model was switched (``/model``);
- ``{"type": "steering", "provider", "model", "mode"}``: how that model takes a
  forced tool choice (``named``, ``required`` or ``auto``), learnt this session;
- ``{"type": "compaction", "summary", "messages": [...]}``: older turns were
  replaced by a summary; ``messages`` is the whole history from then on
  (messages recorded after it follow it);
- ``{"type": "checkpoint", "journal", "time_ns"}`` right before each message
  the user sends, and ``{"type": "rewind", "message", "conversation",
  "files", "journal"}`` when the session was rewound
  (:mod:`xcsh.agent.record.checkpoints`).

Unknown record types and unknown fields of a pending record are skipped, so
older readers survive additions; a header with a newer ``version`` is refused.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TextIO

from pydantic import ValidationError

from xcsh.agent.record.checkpoints import Checkpoint, CheckpointReplay
from xcsh.agent.record.records import (
    CheckpointRecord,
    CompactionRecord,
    MessageRecord,
    OtherRecord,
    PendingRecord,
    PendingSnapshot,
    RewindRecord,
    SessionHeader,
    SessionRecord,
    SteeringRecord,
    message_from_dict,
    message_to_dict,
    read_header_record,
    read_record,
    read_record_line,
)
from xcsh.core import Message, UsageError
from xcsh.core.json_read import JsonTooDeep
from xcsh.core.json_read import loads as bounded_json
from xcsh.core.validation import problems
from xcsh.fs import not_utf8_at

SCHEMA_VERSION = 1


@dataclass(frozen=True, kw_only=True)
class SavedSession:
    """A session file read back.

    Args:
        id: the session id.
        path: the file.
        cwd: the working folder it ran in.
        messages: the history, in order (not yet repaired; the loop repairs).
        pending: the pending actions at the last snapshot, bottom first.
        steering: the last steering mode learnt, as ``(provider, model,
            mode)``, or ``None``; a resumed session with the same model starts
            in it, so a provider that refused a forced tool choice is not sent
            one again.
        checkpoints: the user messages of the conversation, oldest first, each
            with where the session stood before it (:mod:`xcsh.agent.record.checkpoints`).
        rewinds: the journal entries of the rewinds the file records.
    """

    id: str
    path: Path
    cwd: str
    messages: list[Message]
    pending: list[PendingRecord]
    steering: tuple[str, str, str] | None = None
    checkpoints: tuple[Checkpoint, ...] = ()
    rewinds: tuple[int, ...] = ()


def sessions_dir(home: Path) -> Path:
    """``$XCSH_HOME/sessions``."""
    return home / "sessions"


def new_session_id() -> str:
    """A sortable, unique id: ``YYYYMMDD-HHMMSS-xxxxxx``."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


class SessionRecorder:
    """Appends records to one session file; each record is one line, flushed as written.

    Args:
        path: the ``.jsonl`` file (its folder is created).
        header: the header fields for a new file (``id``, ``cwd``, ``provider``,
            ``model``); ``None`` to append to an existing session.

    Appending to an existing file whose last line was cut short (a crash
    mid-write) first drops that torn line, which :func:`load_session` already
    ignores, so new records start on a line of their own.
    """

    def __init__(self, path: Path, *, header: Mapping[str, str] | None = None) -> None:
        self.path = path
        self._fh: TextIO | None = None
        path.parent.mkdir(parents=True, exist_ok=True)
        if header is None:
            drop_torn_tail(path)
        else:
            created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            self.write({"type": "session", "version": SCHEMA_VERSION, "created": created, **header})

    def write(self, record: Mapping[str, object]) -> None:
        """Append one record as a JSON line (values JSON cannot hold become strings)."""
        line = json.dumps(record, ensure_ascii=False, default=str)
        if self._fh is None or self._fh.closed:
            self._fh = self.path.open("a", encoding="utf-8", buffering=1)  # line-buffered
        self._fh.write(line + "\n")

    def close(self) -> None:
        """Close the file (a later write reopens it)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def message(self, message: Message) -> None:
        """Record a history message."""
        self.write({"type": "message", "message": message_to_dict(message)})

    def pending(self, stack: list[PendingRecord]) -> None:
        """Record the whole store, bottom first."""
        self.write({"type": "pending", "stack": [dataclasses.asdict(r) for r in stack]})


def drop_torn_tail(path: Path) -> int:
    r"""Make the file end with a line break before more records are appended.

    Every record is written as one line ending in ``\n``. Bytes after the last
    line break are either a whole record that lost only its line break (it is
    kept and the break added) or the start of a record a crash cut short (it
    is cut: :func:`load_session` ignores it anyway).

    Returns:
        How many bytes were cut (0 when the file ends cleanly, lacked only its
        last line break, or does not exist).
    """
    try:
        with path.open("rb+") as fh:
            size = fh.seek(0, 2)
            if size == 0:
                return 0
            fh.seek(-1, 2)
            if fh.read(1) == b"\n":
                return 0
            keep = _end_of_last_line(fh, size)
            fh.seek(keep)
            tail = fh.read()
            if _is_record(tail):
                fh.write(b"\n")
                return 0
            fh.truncate(keep)
            return size - keep
    except FileNotFoundError:
        return 0


def _is_record(raw: bytes) -> bool:
    try:
        return isinstance(bounded_json(raw), dict)
    except ValueError:  # not JSON, or not UTF-8
        return False


def _end_of_last_line(fh: BinaryIO, size: int) -> int:
    r"""The offset just after the last ``\n`` in ``fh`` (0 when there is none)."""
    block = 64 * 1024
    end = size
    while end > 0:
        start = max(0, end - block)
        fh.seek(start)
        chunk = fh.read(end - start)
        index = chunk.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        end = start
    return 0


def load_session(path: Path) -> SavedSession:
    """Read a session file.

    Raises:
        UsageError: the file is missing or unreadable, has no valid header, has a line
            that is not JSON, not UTF-8 or a malformed record (named ``FILE:LINE``, with a
            hint; a last line a crash cut short is ignored, whatever bytes it holds), or was
            written by a newer xcsh (its ``version`` is higher than :data:`SCHEMA_VERSION`).
    """
    lines = _read_lines(path)
    first = lines[0] if lines else None
    if isinstance(first, UsageError):
        raise first
    header = read_header_record(_parse_line(path, 1, first)) if first is not None else None
    if header is None:
        raise UsageError(f"{path} is not an xcsh session file (no header line)")
    version = header.version
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise UsageError(
            f"{path} has session format version {version!r}; this xcsh reads up to "
            f"{SCHEMA_VERSION}",
            hint="upgrade xcsh to resume it",
        )
    loaded = _Loaded()
    for number, line in enumerate(lines[1:], start=2):
        if isinstance(line, UsageError):
            if isinstance(line, _TornLine):
                break  # a last line cut short by a crash inside a character
            raise line
        if not line.strip():
            continue
        record = read_record_line(line)
        if record is None:  # read it again the slow way, for the error that names why
            try:
                record = _record(path, number, line)
            except _TornLine:
                if number == len(lines):
                    break  # a last line cut short by a crash: keep everything before it
                raise
        try:
            loaded.read(record)
        except (KeyError, TypeError, ValueError) as exc:
            kind = None if isinstance(record, OtherRecord) else record.type
            raise _malformed(path, number, kind, exc) from exc
    return SavedSession(
        id=header.id if header.id is not None else path.stem,
        path=path,
        cwd=header.cwd or "",
        messages=loaded.messages,
        pending=loaded.pending,
        steering=loaded.steering,
        checkpoints=tuple(loaded.replay.done),
        rewinds=tuple(loaded.rewinds),
    )


def _read_lines(path: Path) -> list[str | UsageError]:
    r"""The lines of a session file as text (UTF-8), without their line breaks.

    Lines are split at ``\n`` alone, the only break xcsh writes (a message may
    hold other line separators, such as U+2028, raw). When the file is not all
    UTF-8, a line that is not stands as the error that names it: a
    :class:`_TornLine` when it is the last line and no line break ends it (a
    crash cut it inside a character), else a plain :class:`UsageError`.

    Raises:
        UsageError: the file is missing or cannot be read.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError as exc:
        raise UsageError(f"session file not found: {path}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read the session file {path}: {exc.strerror or exc}") from exc
    try:
        lines: list[str | UsageError] = list(raw.decode("utf-8").split("\n"))
    except UnicodeDecodeError:  # find the line, the slow way
        pieces = raw.split(b"\n")
        lines = [_decoded(path, n, piece, UsageError) for n, piece in enumerate(pieces, start=1)]
        lines[-1] = _decoded(path, len(pieces), pieces[-1], _TornLine)
    if lines[-1] == "":  # the file ends with a line break (or is empty)
        lines.pop()
    return lines


def _decoded(path: Path, number: int, line: bytes, error: type[UsageError]) -> str | UsageError:
    """Line ``number`` as text, or an ``error`` naming its first byte that is not UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        _, column = not_utf8_at(line, exc)
        return error(
            f"{path}:{number}: not valid UTF-8 (byte 0x{line[exc.start]:02x} at column {column})",
            hint=BROKEN_LINE_HINT,
        )


@dataclass
class _Loaded:
    """What the records of a session file read so far say."""

    messages: list[Message] = dataclasses.field(default_factory=list)
    pending: list[PendingRecord] = dataclasses.field(default_factory=list)
    steering: tuple[str, str, str] | None = None
    replay: CheckpointReplay = dataclasses.field(default_factory=CheckpointReplay)
    rewinds: list[int] = dataclasses.field(default_factory=list)

    def read(self, record: SessionRecord) -> None:
        """Take one record into account (an :class:`OtherRecord` is skipped).

        Raises:
            ValueError: a rewind names a message the history does not have.
        """
        if isinstance(record, MessageRecord):
            self.messages.append(record.message)
            self.replay.message(self.messages[-1])
        elif isinstance(record, CheckpointRecord):
            self.replay.checkpoint(record.journal, record.time_ns, self.messages)
        elif isinstance(record, RewindRecord):
            conversation = bool(record.conversation)
            history = self.replay.rewind(record.message, conversation=conversation)
            self.messages = self.messages if history is None else history
            if record.journal is not None:
                self.rewinds.append(record.journal)
        elif isinstance(record, CompactionRecord):
            self.messages = list(record.messages)
        elif isinstance(record, SteeringRecord):
            self.steering = (record.provider, record.model, record.mode)
        elif isinstance(record, PendingSnapshot):
            self.pending = list(record.stack)


BROKEN_LINE_HINT = (
    "xcsh writes each line of a session file whole, so something else changed this one: "
    "correct or delete that line, or leave out --continue and --session to start a new session."
)
"""How to get past a session file line xcsh cannot read."""


def _malformed(path: Path, number: int, kind: object, exc: Exception) -> UsageError:
    """The error for a record of a known type that does not have its shape.

    A pydantic ``ValidationError`` is worded as its first problem alone (the field's
    place, then what is wrong), not as pydantic's whole report.
    """
    why = str(exc)
    if isinstance(exc, ValidationError) and exc.errors():
        why = problems(exc)[0].worded()
    return UsageError(f"{path}:{number}: malformed {kind} record: {why}", hint=BROKEN_LINE_HINT)


class _TornLine(UsageError):
    """A line that is not a JSON object (a crash may have cut it short)."""


def _record(path: Path, number: int, line: str) -> SessionRecord:
    """The record of a line the quick reader refused.

    Raises:
        _TornLine: the line is not a JSON object.
        UsageError: the record is malformed; the message names its line and type.
    """
    data = _parse_line(path, number, line)
    try:
        return read_record(data)
    except ValueError as exc:
        raise _malformed(path, number, data.get("type"), exc) from exc


def _parse_line(path: Path, number: int, line: str) -> dict[str, object]:
    try:
        data = bounded_json(line)
    except JsonTooDeep as exc:  # whole JSON, never a line a crash cut short
        raise UsageError(f"{path}:{number}: {exc.msg}", hint=BROKEN_LINE_HINT) from exc
    except json.JSONDecodeError as exc:
        raise _TornLine(
            f"{path}:{number}: not valid JSON ({exc.msg})", hint=BROKEN_LINE_HINT
        ) from exc
    if not isinstance(data, dict):
        raise _TornLine(f"{path}:{number}: expected a JSON object", hint=BROKEN_LINE_HINT)
    return data


def read_header(path: Path) -> SessionHeader | None:
    """The header of a session file, or ``None`` when it has none."""
    try:
        with path.open("rb") as fh:
            first = fh.readline()  # bytes: a later line that is not UTF-8 is no concern here
        data = bounded_json(first)
    except (OSError, ValueError):  # not JSON, or not UTF-8
        return None
    return read_header_record(data)


def latest_session_for(home: Path, cwd: Path) -> Path | None:
    """The most recently written session whose working folder is ``cwd``, if any."""
    folder = sessions_dir(home)
    if not folder.is_dir():
        return None
    want = str(cwd.resolve())
    candidates = []
    for path in folder.glob("*.jsonl"):
        header = read_header(path)
        if header is not None and header.cwd == want:
            candidates.append((path.stat().st_mtime_ns, path.name, path))
    return max(candidates)[2] if candidates else None


def session_path(home: Path, session_id: str) -> Path:
    """The file of session ``session_id``.

    Raises:
        UsageError: no such session; the hint says where sessions live.
    """
    path = sessions_dir(home) / f"{session_id}.jsonl"
    if "/" in session_id or not path.is_file():
        raise UsageError(
            f"no session with id {session_id!r}",
            hint=f"session files are in {sessions_dir(home)} (the id is the file name "
            "without .jsonl); use --continue for the latest one in this folder",
        )
    return path


__all__ = [
    "SCHEMA_VERSION",
    "PendingRecord",
    "SavedSession",
    "SessionRecorder",
    "drop_torn_tail",
    "latest_session_for",
    "load_session",
    "message_from_dict",
    "message_to_dict",
    "new_session_id",
    "read_header",
    "session_path",
    "sessions_dir",
]
