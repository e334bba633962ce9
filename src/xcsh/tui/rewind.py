"""``/rewind`` (and Esc Esc on an empty prompt): back to before one of the session's messages.

Lists the user messages of the session, newest first, each with the changes
made since (journal entry ids and files), asks which one and what to take
back (files and conversation, files only, conversation only), discards the
pending previews newer than that message (their ``reject`` runs), then
rewinds through :func:`xcsh.agent.rewind.rewind`. A rewound conversation
puts the message back in the prompt for editing.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from xcsh.core import XcshError
from xcsh.core.safe import visible_line

if TYPE_CHECKING:
    from xcsh.agent import AgentSession, SavedSession
    from xcsh.agent.record.rewind import RewindMode, RewindOutcome
    from xcsh.app import OpenedSession
    from xcsh.journal import Journal

DISCARD_REASON = "the user rewound the session to before the message that led to this preview"
"""The reason handed to ``reject`` for a preview a rewind discards."""

MODES: dict[str, RewindMode] = {
    "1": "both",
    "b": "both",
    "both": "both",
    "2": "files",
    "f": "files",
    "files": "files",
    "3": "conversation",
    "c": "conversation",
    "conversation": "conversation",
}


class RewindCommand:
    """``/rewind`` (mixed into the terminal's slash commands)."""

    console: Console
    opened: OpenedSession | None
    journal: Journal | None
    _notes: list[str]
    _prefill: str

    if TYPE_CHECKING:

        async def _ask_line(self, prompt: str) -> str: ...

    async def rewind(self, session: AgentSession, rest: str) -> None:
        """Ask which message and what to take back, then rewind; ``rest`` may name the message."""
        from xcsh.agent.record.persistence import load_session
        from xcsh.agent.record.rewind import rewind_points

        if self.opened is None or self.journal is None:
            return
        try:
            saved = await asyncio.to_thread(load_session, self.opened.path)
            points = await asyncio.to_thread(rewind_points, saved, self.journal)
        except XcshError as exc:
            self.console.print(Text(f"xcsh: {exc}", style="bold red"))
            return
        if not points:
            self.console.print(Text("Nothing to rewind to: no message sent yet.", style="dim"))
            return
        self.console.print("Messages of this session, newest first:", markup=False)
        for point in reversed(points):
            self.console.print(point.line(), markup=False)
        answer = (
            rest.strip()
            or (
                await self._ask_line("Rewind to before which message? (number, Enter cancels) ")
            ).strip()
        )
        if not answer:
            self.console.print(Text("Nothing was rewound.", style="dim"))
            return
        if not answer.isdigit() or not 1 <= int(answer) <= len(points):
            self.console.print(
                Text(f"No message {answer}: give a number from 1 to {len(points)}.", "yellow")
            )
            return
        number = int(answer)
        choice = (
            await self._ask_line(
                "Take back: [1] files and conversation, [2] files only, [3] conversation only? "
                "(Enter cancels) "
            )
        ).strip()
        mode = MODES.get(choice.lower())
        if mode is None:
            self.console.print(Text("Nothing was rewound.", style="dim"))
            return
        await self._rewind_to(session, saved, number, mode)

    async def _rewind_to(
        self, session: AgentSession, saved: SavedSession, number: int, mode: RewindMode
    ) -> None:
        """Discard the newer previews, rewind, and put the message back in the prompt."""
        from xcsh.agent.record.rewind import RewindError, newer_previews, rewind

        assert self.journal is not None
        checkpoint = saved.checkpoints[number - 1]
        discarded: list[str] = []
        store = session.store
        while store is not None and (top := store.peek()) is not None:
            origin = top.origin.tool_call_id if top.origin is not None else None
            if not newer_previews(checkpoint, [origin])[0]:
                break
            await session.pending.resolve_top("discard", DISCARD_REASON)
            discarded.append(top.label)
        recorder = session.recorder
        try:
            # on this (the main) thread, as /undo: the journal holds SIGTERM, SIGHUP and
            # Ctrl-C until the files are all written or all rolled back
            outcome = rewind(
                self.journal,
                saved,
                number,
                mode,
                write=recorder.write if recorder is not None else lambda record: None,
                discarded=discarded,
            )
        except XcshError as exc:
            style = "bold red" if isinstance(exc, RewindError) else "yellow"
            self.console.print(Text(f"xcsh: {exc}", style=style))
            return
        if mode != "files":
            session.rewind_history(checkpoint.history)
            self._prefill = checkpoint.text
        self._show(outcome)
        note = _note_for_model(outcome)
        if note is not None:
            self._notes.append(note)

    def _show(self, outcome: RewindOutcome) -> None:
        lines = [visible_line(line) for line in outcome.lines()]  # a name stays on its line
        self.console.print(Text(lines[0], style="green"))
        for line in lines[1:]:
            self.console.print(line, markup=False)
        if outcome.mode != "files":
            self.console.print(
                Text("The message is back in the prompt: edit it and press Enter.", "dim")
            )


def _note_for_model(outcome: RewindOutcome) -> str | None:
    """What the model is told with the next message (only when the conversation stays)."""
    number = outcome.checkpoint.number
    if outcome.mode == "files":
        return (
            f"[xcsh: the user rewound the files to how they were before their message {number}. "
            + " ".join(outcome.lines()[1:])
            + "]"
        )
    if outcome.mode == "conversation":
        return (
            "[xcsh: the user rewound the conversation to before this message; the files keep "
            "every change made since, so read them again before relying on what you expect.]"
        )
    return None
