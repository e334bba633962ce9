"""What print mode (``xcsh -p``) shows: progress on stderr, or every event as JSON.

:class:`TextPrinter` draws the run's progress for ``--mode text`` (contract
§6), :class:`JsonPrinter` writes one JSON object per event for ``--mode
json``; what opening the session did comes before them
(:mod:`xcsh.ui.opening`), the usage line after them (:func:`xcsh.ui.usage.usage_text`).
:class:`RunSummary` says, after the run, what it applied and left pending, from
the journal and the store rather than from the model's answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from xcsh.cli import is_output_error, stdout_to_devnull
from xcsh.core.safe import visible_line
from xcsh.core.wording import plural

if TYPE_CHECKING:
    from rich.console import Console

    from xcsh.agent import AgentEvent
    from xcsh.journal import EntrySummary, Journal
    from xcsh.pending import PendingAction


class JsonPrinter:
    """Prints every event as one JSON line (``--mode json``).

    With ``before_end``, the line it gives (the run's summary) comes just before
    ``run_end``, which stays the last line of a run.

    When the reader of ``out`` goes away (``| head``), the printer stops
    printing, points standard output at /dev/null, sets :attr:`broken_pipe`
    and calls ``on_broken_pipe`` (the session's ``cancel``): nobody is left
    to read what the run would say. The same when ``out`` cannot be written
    (a full disk, an encoding that cannot carry the text), which it keeps in
    :attr:`write_error` for the caller to report.
    """

    def __init__(
        self,
        out: TextIO,
        *,
        on_broken_pipe: Callable[[], None] | None = None,
        before_end: Callable[[], dict[str, object]] | None = None,
    ) -> None:
        self.out = out
        self.on_broken_pipe = on_broken_pipe
        self.before_end = before_end
        """Called when ``run_end`` comes: its value is printed as one JSON line first."""
        self.broken_pipe = False
        self.write_error: BaseException | None = None

    def __call__(self, event: AgentEvent) -> None:
        """Print ``event`` as one JSON line (nothing once stdout is gone)."""
        from xcsh.agent import RunEnd, event_to_dict

        if self.before_end is not None and isinstance(event, RunEnd):
            self._print(json.dumps(self.before_end(), ensure_ascii=False, default=str))
        self._print(json.dumps(event_to_dict(event), ensure_ascii=False, default=str))

    def _print(self, line: str) -> None:
        if self.broken_pipe or self.write_error is not None:
            return
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


class RunSummary:
    """What a print-mode run applied (from the undo journal) and what it left pending.

    Made before the run (it notes where the journal stands); :meth:`event` and
    :meth:`text` after it. A user reads what happened here, not in the model's answer.

    Args:
        journal: the workspace's undo journal (``None``: nothing is recorded, and
            nothing is reported applied).
    """

    def __init__(self, journal: Journal | None) -> None:
        """Note the journal's newest entry: entries after it are this run's."""
        self.journal = journal
        self.since = max((s.seq for s in self._summaries()), default=0)

    def _summaries(self) -> list[EntrySummary]:
        from xcsh.journal import JournalError, applies

        if self.journal is None:
            return []
        try:
            return [e.summary for e in applies(self.journal) if e.state == "applied"]
        except (JournalError, OSError):
            return []

    def applied(self) -> list[EntrySummary]:
        """The changes this run's session wrote since this summary was made, oldest first.

        Another process applying in the same workspace meanwhile (another session, an
        ``xcsh ast-edit``) writes entries that name another session, or none: not this
        run's.
        """
        session = self.journal.session if self.journal is not None else None
        return [
            s
            for s in self._summaries()
            if s.seq > self.since and (session is None or s.session == session)
        ]

    def _files(self, applied: Sequence[EntrySummary]) -> int:
        """How many files ``applied`` changed, each counted once (however many entries)."""
        files: set[str] = set()
        for s in applied:
            record = self.journal.entry(s.seq) if self.journal is not None else None
            files.update(s.paths if record is None else (f.path for f in record.files))
        return len(files)

    def event(self, pending: Sequence[PendingAction]) -> dict[str, object]:
        """The ``run_summary`` JSON event: ``applied`` and ``pending``, each a list."""
        return {
            "type": "run_summary",
            "applied": [
                {
                    "seq": s.seq,
                    "label": s.label,
                    "source_tool_name": s.source_tool_name,
                    "files": list(s.paths),
                    "file_count": s.count,
                }
                for s in self.applied()
            ],
            "pending": [{"id": a.id, "label": a.label} for a in pending],
        }

    def text(self, pending: Sequence[PendingAction]) -> str:
        """One or two lines for stderr: what was applied, and what is pending.

        Labels and file names are shown on one line with control characters made
        visible (:func:`xcsh.core.safe.visible_line`); a file changed by several
        entries counts once in the total.
        """
        applied = self.applied()
        done = [f"'{visible_line(s.label)}' ({_some_files(s.paths, s.count)})" for s in applied]
        first = (
            f"xcsh: this run applied {plural(len(done), 'change')} to "
            f"{plural(self._files(applied), 'file')}: {'; '.join(done)}."
            if done
            else "xcsh: this run applied no change."
        )
        if not pending:
            return f"{first} Nothing is left to apply."
        waiting = "; ".join(f"{a.id} '{visible_line(a.label)}'" for a in pending)
        return f"{first}\nxcsh: pending: {waiting} (apply or discard it with --continue)."


def _some_files(paths: Sequence[str], count: int, shown: int = 3) -> str:
    """``a.py, b.py, c.py and 7 more``: the first ``shown`` of an entry's ``count`` files.

    ``paths`` holds the entry's first few files (its summary keeps a handful), so
    the rest are counted from ``count``, not from ``paths``.
    """
    head = ", ".join(visible_line(p) for p in paths[:shown])
    rest = count - min(len(paths), shown)
    return f"{head} and {rest} more" if rest > 0 else head
