"""Checkpoints: where a session stood at each user message, as its session file says.

Right before each message the user sends, the session file gets a
``checkpoint`` record::

    {"type": "checkpoint", "journal": 12, "time_ns": 1764680000000000000}

``journal`` is the workspace journal's newest entry number at that moment
(no copy of any file: the journal holds the earlier content of every change
after it) and ``time_ns`` the wall clock, so a rewind can also name files
changed since by programs the journal never saw. A rewind adds::

    {"type": "rewind", "message": 3, "conversation": true, "files": true, "journal": 15}

(back to just before user message 3; ``journal`` is the ``rewind`` entry
that put the files back, or ``null``). With ``conversation`` the history is
what it was before message 3 and the next message the user sends is message
3 again. :class:`CheckpointReplay` reads both kinds while a session file is
loaded (:func:`xcsh.agent.persistence.load_session`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xcsh.core import JsonObject, Message, TextContent, ToolCall, UserMessage


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """One user message of a session and where the session stood just before it.

    Args:
        number: which user message (1 = the first of the conversation).
        journal: the journal's newest entry number when it was sent.
        time_ns: when it was sent (nanoseconds since the epoch), ``None`` if unknown.
        text: what the user wrote.
        history: the conversation before it (what a rewind to it keeps).
    """

    number: int
    journal: int
    time_ns: int | None
    text: str
    history: tuple[Message, ...]

    def call_ids(self) -> set[str]:
        """The ids of the tool calls made before this message."""
        return {
            block.id
            for message in self.history
            for block in getattr(message, "content", ())
            if isinstance(block, ToolCall)
        }


def user_text(message: UserMessage) -> str:
    """The text a user message carries (its text blocks, joined)."""
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def is_user_turn(message: Message) -> bool:
    """True for a message the user typed (not a hidden reminder or outcome note)."""
    return isinstance(message, UserMessage) and not message.hidden


class CheckpointReplay:
    """Follows ``checkpoint`` and ``rewind`` records while a session file is read.

    Call :meth:`checkpoint` for each checkpoint record, :meth:`message` for each
    history message recorded after it, and :meth:`rewind` for each rewind
    record; :attr:`done` holds the checkpoints of the current conversation.
    """

    def __init__(self) -> None:
        self.done: list[Checkpoint] = []
        self._open: tuple[int, int | None, tuple[Message, ...]] | None = None

    def checkpoint(self, journal: int, time_ns: int | None, history: Sequence[Message]) -> None:
        """A checkpoint record (its journal entry and time), with the history as loaded so far."""
        self._open = (journal, time_ns, tuple(history))

    def message(self, message: Message) -> None:
        """A history message; the user's next message completes the open checkpoint."""
        if self._open is None or not is_user_turn(message):
            return
        assert isinstance(message, UserMessage)
        journal, stamp, history = self._open
        self._open = None
        self.done.append(
            Checkpoint(
                number=len(self.done) + 1,
                journal=journal,
                time_ns=stamp,
                text=user_text(message),
                history=history,
            )
        )

    def rewind(self, number: int, *, conversation: bool) -> list[Message] | None:
        """Replay a rewind record to user message ``number``; the history to continue from.

        ``None`` when the rewind keeps the conversation (``conversation`` false).

        Raises:
            ValueError: the record names no checkpoint.
        """
        if not conversation:
            return None
        if not 1 <= number <= len(self.done):
            raise ValueError(f"no user message {number} to rewind to")
        history = list(self.done[number - 1].history)
        del self.done[number - 1 :]
        self._open = None
        return history


def rewind_record(
    number: int, *, conversation: bool, files: bool, journal: int | None
) -> JsonObject:
    """The session file's ``rewind`` record."""
    return {
        "type": "rewind",
        "message": number,
        "conversation": conversation,
        "files": files,
        "journal": journal,
    }


__all__ = [
    "Checkpoint",
    "CheckpointReplay",
    "is_user_turn",
    "rewind_record",
    "user_text",
]
