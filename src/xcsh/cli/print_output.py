"""What print mode (``xcsh -p``) shows: progress on stderr, or every event as JSON.

:class:`TextPrinter` draws the run's progress for ``--mode text`` (contract
§6), :class:`JsonPrinter` writes one JSON object per event for ``--mode
json``; what opening the session did comes before them
(:mod:`xcsh.ui.opening`), the usage line after them (:func:`xcsh.ui.usage.usage_text`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from xcsh.cli import is_output_error, stdout_to_devnull

if TYPE_CHECKING:
    from rich.console import Console

    from xcsh.agent import AgentEvent
    from xcsh.journal import Journal


class JsonPrinter:
    """Prints every event as one JSON line (``--mode json``).

    When the reader of ``out`` goes away (``| head``), the printer stops
    printing, points standard output at /dev/null, sets :attr:`broken_pipe`
    and calls ``on_broken_pipe`` (the session's ``cancel``): nobody is left
    to read what the run would say. The same when ``out`` cannot be written
    (a full disk, an encoding that cannot carry the text), which it keeps in
    :attr:`write_error` for the caller to report.
    """

    def __init__(self, out: TextIO, *, on_broken_pipe: Callable[[], None] | None = None) -> None:
        self.out = out
        self.on_broken_pipe = on_broken_pipe
        self.broken_pipe = False
        self.write_error: BaseException | None = None

    def __call__(self, event: AgentEvent) -> None:
        """Print ``event`` as one JSON line (nothing once stdout is gone)."""
        from xcsh.agent import event_to_dict

        if self.broken_pipe or self.write_error is not None:
            return
        line = json.dumps(event_to_dict(event), ensure_ascii=False, default=str)
        try:
            print(line, file=self.out, flush=True)
        except BrokenPipeError:
            self.broken_pipe = True
            self._stop()
        except (OSError, UnicodeEncodeError) as exc:
            if not is_output_error(exc):
                raise
            self.write_error = exc
            self._stop()

    def _stop(self) -> None:
        if self.out is sys.stdout:
            stdout_to_devnull()
        if self.on_broken_pipe is not None:
            self.on_broken_pipe()


class TextPrinter:
    """Shows progress on the terminal (contract §6).

    Printed, in order: text the model writes alongside its tool calls, each
    tool call (``→ name {arguments}``), its progress (an MCP server's
    notifications, a flood thinned out), each failed call's whole error text
    (headed by the call it belongs to, since read-only calls run
    concurrently and their lines can interleave), previews, resolutions, and
    agent errors. :attr:`shown_errors` lets the caller skip repeating an
    error at the end of the run.
    """

    ARGUMENTS_WIDTH = 120

    def __init__(self, console: Console) -> None:
        from xcsh.ui import detect_style
        from xcsh.ui.progress import ProgressGate

        self.console = console
        self.style = detect_style(console.file)
        self.shown_errors: set[str] = set()
        self._text: list[str] = []
        self._calls: dict[str, str] = {}
        self._last_call: str | None = None
        self._progress = ProgressGate()

    def __call__(self, event: AgentEvent) -> None:
        """Show ``event`` on the console, if it is one print mode shows."""
        from xcsh.agent import (
            AgentError,
            Notice,
            PendingPushed,
            Resolved,
            TextDelta,
            ToolCallStart,
            ToolProgress,
            ToolResult,
            TurnStart,
        )
        from xcsh.ui import format_arguments, render_preview, render_resolution

        if isinstance(event, TurnStart):
            self._text.clear()
        elif isinstance(event, TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ToolCallStart):
            self._flush_text()
            call = f"{event.name} {format_arguments(event.arguments, self.ARGUMENTS_WIDTH)}"
            self._calls[event.id] = call
            self._last_call = event.id
            arrow = "→" if self.style.unicode else "->"
            self.console.print(f"{arrow} {call}", style="dim", markup=False)
        elif isinstance(event, ToolResult) and event.message.is_error:
            if not event.resolved:  # else the Resolved block shows it, with its error
                self._error(event.message.tool_call_id, event.message.tool_name, event.text)
        elif isinstance(event, PendingPushed):
            self.console.print(
                render_preview(
                    event.label, event.preview, style=self.style, check=event.value.check
                )
            )
        elif isinstance(event, Resolved):
            block = render_resolution(
                event.outcome, is_error=event.is_error, message=event.text, style=self.style
            )
            self.console.print(block)
        elif isinstance(event, ToolProgress):
            if self._progress.show(event.tool_call_id, event.text):  # a flood is thinned out
                self.console.print(f"  {event.name}: {event.text}", style="dim", markup=False)
        elif isinstance(event, Notice):
            self._flush_text()
            self.console.print(f"note: {event.message}", style="yellow", markup=False)
        elif isinstance(event, AgentError):
            self.shown_errors.add(event.message)
            self.console.print(f"error: {event.message}", style="bold red", markup=False)

    def _flush_text(self) -> None:
        text = "".join(self._text).strip()
        self._text.clear()
        if text:
            self.console.print(text, markup=False, highlight=False)

    def _error(self, call_id: str, tool_name: str, text: str) -> None:
        lines = text.splitlines() or ["failed"]
        # Another call's lines may have come in between: then name the whole call.
        where = tool_name if call_id == self._last_call else self._calls.get(call_id, tool_name)
        rest = ["    " + line for line in lines[1:]]
        body = "\n".join([f"  error in {where}: {lines[0]}", *rest])
        self.console.print(body, style="red", markup=False, highlight=False)


APPLIED_BEFORE_CANCEL = (
    "xcsh: the run was cancelled after applying {what}: an apply is never cut short, so "
    "every file it changes was written."
)
"""Said on stderr when a run is cancelled (Ctrl-C, SIGTERM, SIGHUP) in the turn whose
``resolve`` applied ``{what}`` (the quoted label, or ``3 of the 5 changes of 'label'``):
the files were written and the session says so."""
UNDO_HINT = " Undo it with: xcsh undo"
"""Follows :data:`APPLIED_BEFORE_CANCEL` for an apply the undo journal holds."""


class AppliedThisTurn:
    """Which previews the current turn's ``resolve`` calls applied (an event listener).

    A run cancelled while an apply writes lets the apply finish (it is never cut
    short); :meth:`note` is then what stderr says, so nobody reads the cancel as
    "nothing changed". A new turn forgets the previous turn's applies: the model
    was already told of them.

    Args:
        journal: the workspace's undo journal; an apply it holds (not undone yet)
            gets the undo hint. ``None``: no hint.
    """

    def __init__(self, journal: Journal | None) -> None:
        """Nothing applied yet."""
        self.journal = journal
        self.applied: list[tuple[str, str]] = []
        """(what was applied as the note words it, the action's label) for each apply."""

    def __call__(self, event: AgentEvent) -> None:
        """Remember an applied ``resolve``; forget them all when a turn starts."""
        from xcsh.agent import Resolved, TurnStart

        if isinstance(event, TurnStart):
            self.applied.clear()
        elif isinstance(event, Resolved) and event.outcome.status == "applied":
            what = f"'{event.label}'"
            if event.outcome.dropped:  # applied with `only`
                done = len(event.outcome.applied)
                whole = done + len(event.outcome.dropped)
                what = f"{done} of the {whole} changes of {what}"
            self.applied.append((what, event.label))

    def note(self) -> str | None:
        """The stderr lines for a cancelled run, or ``None`` when this turn applied nothing."""
        if not self.applied:
            return None
        recorded = self._undoable()
        lines = []
        for what, label in self.applied:
            # a partial apply is recorded as "LABEL (only c1, c2)"
            journaled = any(r == label or r.startswith(f"{label} (only ") for r in recorded)
            lines.append(APPLIED_BEFORE_CANCEL.format(what=what) + (UNDO_HINT if journaled else ""))
        return "\n".join(lines)

    def _undoable(self) -> set[str]:
        """The labels of the journal's applies not undone yet (none when it cannot be read)."""
        from xcsh.journal import JournalError, undoable

        if self.journal is None:
            return set()
        try:
            return {summary.label for summary in undoable(self.journal)}
        except (JournalError, OSError):
            return set()
