"""The records of a session file as types, and their one JSON adapter.

:mod:`xcsh.agent.record.persistence` writes and reads the file; this module says
what its lines hold. A history message is written as its dataclass fields
(:func:`message_to_dict`; the ``role`` field tags it, each block's ``type``
tags the block) and read back by one pydantic adapter straight into those
dataclasses, as their annotations describe them (:func:`message_from_dict`);
the header is read by :func:`read_header_record`, every other record (a
message, a checkpoint, a rewind, a compaction, a steering mode, a pending
snapshot) by :func:`read_record`. The reader is as
lenient as every earlier version's: keys it does not know are ignored, a
record type it does not know is skipped, a content block may be a plain
string, an image may spell ``mimeType``, and a missing optional field takes
its default.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
)

from xcsh.core import (
    AssistantMessage,
    JsonObject,
    JsonValue,
    Message,
    ToolDetails,
    ToolResultMessage,
    UserMessage,
)
from xcsh.tools.registry import builtin_details_types


@dataclass(frozen=True, kw_only=True)
class PendingRecord:
    """A pending action as saved: enough to rebuild it by re-running its tool.

    Args:
        tool_name, arguments: the call that pushed it (``None`` when unknown).
        label, source_tool_name: the action's.
        files: the files it touched (:meth:`xcsh.pending.Preview.file_labels`).
        digest: what it changes, fingerprinted (:func:`xcsh.pending.preview_digest`).
        tool_call_id: the id of the call that pushed it (``None`` when unknown).
    """

    tool_name: str | None
    arguments: JsonObject | None
    label: str
    source_tool_name: str
    files: list[str] | None = None
    digest: str | None = None
    tool_call_id: str | None = None


def message_to_dict(message: Message) -> dict[str, object]:
    """A message as JSON-ready data: its dataclass fields (``role`` tags it).

    A tool result's typed details are written as :meth:`~xcsh.core.ToolDetails.to_json`
    gives them.
    """
    data = dataclasses.asdict(message)
    if isinstance(message, ToolResultMessage) and isinstance(message.details, ToolDetails):
        data["details"] = message.details.to_json()
    return data


def message_from_dict(data: object) -> Message:
    """Rebuild a message written by :func:`message_to_dict` (by this or an earlier version).

    Args:
        data: the message's JSON object, as parsed from the session file.

    Returns:
        The message; a built-in tool's result carries its typed details
        (another tool's, or details of an older shape, stay as saved).

    Raises:
        ValueError: ``data`` is not a message: an unknown role or block type, a
            missing field, or a value of the wrong kind (pydantic's
            ``ValidationError``, which is a ``ValueError``, names it).
    """
    return _message_adapter().validate_python(data)


class _Saved(BaseModel):
    """A saved value: keys this version does not know are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def _typed_details(message: ToolResultMessage) -> ToolResultMessage:
    details = _details(message.tool_name, message.details)
    return message if details is message.details else replace(message, details=details)


SavedMessage = Annotated[
    UserMessage | AssistantMessage | Annotated[ToolResultMessage, AfterValidator(_typed_details)],
    Field(discriminator="role"),
]
"""A history message as saved, read straight into its dataclass (``role`` tags it)."""


@functools.cache
def _message_adapter() -> TypeAdapter[Message]:
    """The one adapter of a saved message (built on first use: it costs milliseconds)."""
    return TypeAdapter(SavedMessage)


def _details(tool_name: str, data: object) -> object:
    """A built-in tool's details as its typed value.

    Anything else (a custom tool's, a refused call's, an older version's dict)
    stays as it was saved.
    """
    kind = builtin_details_types().get(tool_name)
    typed = kind.from_json(data) if kind is not None and data is not None else None
    return typed if typed is not None else data


class SessionHeader(_Saved):
    """The first line of a session file.

    Attributes:
        version: the format version (an ``int`` in every file xcsh wrote; any
            JSON value is kept, so the reader can name what it found).
        id, cwd, provider, model, created: the session's (``None`` when missing).
    """

    type: Literal["session"]
    version: JsonValue = None
    id: str | None = None
    cwd: str | None = None
    provider: str | None = None
    model: str | None = None
    created: str | None = None


class MessageRecord(_Saved):
    """``{"type": "message", "message": {...}}``: a history message."""

    type: Literal["message"]
    message: SavedMessage


class CheckpointRecord(_Saved):
    """``{"type": "checkpoint", "journal", "time_ns"}``: before a message the user sends."""

    type: Literal["checkpoint"]
    journal: int
    time_ns: int | None = None


class RewindRecord(_Saved):
    """``{"type": "rewind", "message", "conversation", "journal"}``: the session was rewound."""

    type: Literal["rewind"]
    message: int
    conversation: bool | None = None
    journal: int | None = None


class CompactionRecord(_Saved):
    """``{"type": "compaction", "summary", "messages"}``: the whole history from then on."""

    type: Literal["compaction"]
    messages: list[SavedMessage]


class SteeringRecord(_Saved):
    """``{"type": "steering", "provider", "model", "mode"}``: how a model takes a forced choice."""

    type: Literal["steering"]
    provider: str
    model: str
    mode: str


class PendingSnapshot(_Saved):
    """``{"type": "pending", "stack": [...]}``: the whole store, bottom first."""

    type: Literal["pending"]
    stack: list[PendingRecord] = []


class OtherRecord(_Saved):
    """A record this reader has nothing to take from (``run_end``, ``notice``, a newer type)."""


SessionRecord = (
    MessageRecord
    | CheckpointRecord
    | RewindRecord
    | CompactionRecord
    | SteeringRecord
    | PendingSnapshot
    | OtherRecord
)
"""A line of a session file after the header, as :func:`read_record` reads it."""

_KINDS = frozenset({"message", "checkpoint", "rewind", "compaction", "steering", "pending"})
"""The record types this version reads; any other is an :class:`OtherRecord`."""


def _record_kind(value: object) -> str:
    kind = value.get("type") if isinstance(value, Mapping) else None
    return kind if isinstance(kind, str) and kind in _KINDS else "other"


_TaggedRecord = Annotated[
    Annotated[MessageRecord, Tag("message")]
    | Annotated[CheckpointRecord, Tag("checkpoint")]
    | Annotated[RewindRecord, Tag("rewind")]
    | Annotated[CompactionRecord, Tag("compaction")]
    | Annotated[SteeringRecord, Tag("steering")]
    | Annotated[PendingSnapshot, Tag("pending")]
    | Annotated[OtherRecord, Tag("other")],
    Discriminator(_record_kind),
]


@functools.cache
def _record_adapter() -> TypeAdapter[SessionRecord]:
    """The one adapter of a record (built on first use: it costs milliseconds)."""
    return TypeAdapter(_TaggedRecord)


def read_record(data: object) -> SessionRecord:
    """A session file's line (parsed JSON) as its record (an unknown type: :class:`OtherRecord`).

    Raises:
        ValueError: a record of a known type is malformed (pydantic's
            ``ValidationError`` names the field).
    """
    return _record_adapter().validate_python(data)


def read_record_line(line: str) -> SessionRecord | None:
    """A session file's line read straight from its JSON text (the quick way).

    Returns:
        The record; ``None`` when the line does not read so (not JSON this
        parser takes, not an object, or a malformed record): then parse it with
        :func:`json.loads` and call :func:`read_record`, whose error names the
        problem.
    """
    try:
        return _record_adapter().validate_json(line)
    except ValueError:
        return None


@functools.cache
def _header_adapter() -> TypeAdapter[SessionHeader]:
    return TypeAdapter(SessionHeader)


def read_header_record(data: object) -> SessionHeader | None:
    """A session file's first line (parsed JSON) as its header; ``None`` when it is not one."""
    try:
        return _header_adapter().validate_python(data)
    except ValueError:
        return None


__all__ = [
    "CheckpointRecord",
    "CompactionRecord",
    "MessageRecord",
    "OtherRecord",
    "PendingRecord",
    "PendingSnapshot",
    "RewindRecord",
    "SavedMessage",
    "SessionHeader",
    "SessionRecord",
    "SteeringRecord",
    "message_from_dict",
    "message_to_dict",
    "read_header_record",
    "read_record",
    "read_record_line",
]
