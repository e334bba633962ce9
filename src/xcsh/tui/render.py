"""Drawing agent events on the terminal with rich (contract §6).

:class:`EventRenderer` is a session listener: the model's text streams as it
arrives, each tool call shows its name and arguments and then a collapsed
result (its first lines), a preview shows its label and coloured diff
(:func:`xcsh.ui.render_preview`), and a ``resolve`` outcome is the compact
block of :func:`xcsh.ui.render_resolution`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console, RenderableType
from rich.text import Text

from xcsh.agent import (
    AgentError,
    AgentEvent,
    Notice,
    PendingPushed,
    Resolved,
    RunEnd,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolProgress,
    ToolResult,
    TurnEnd,
)
from xcsh.core.wording import plural
from xcsh.ui import (
    TerminalStyle,
    format_arguments,
    render_preview,
    render_resolution,
    visible,
    visible_line,
)
from xcsh.ui.progress import ProgressGate

RESULT_LINES = 4
"""How many lines of a tool result are shown (the rest is counted, not shown)."""
ARGUMENTS_WIDTH = 160
"""Tool call arguments longer than this are cut with ``...``."""


def collapse(text: str, lines: int = RESULT_LINES) -> tuple[list[str], int]:
    """The first ``lines`` lines of ``text`` and how many more there are."""
    all_lines = text.splitlines()
    return all_lines[:lines], max(0, len(all_lines) - lines)


def resolution_block(event: Resolved, style: TerminalStyle) -> RenderableType:
    """The contract §6 block for a :class:`Resolved` event."""
    return render_resolution(
        event.outcome, is_error=event.is_error, message=event.text, style=style
    )


class EventRenderer:
    """Prints a session's events on ``console``.

    Args:
        console: where to draw (made by :func:`xcsh.ui.make_console`).
        style: colour and Unicode of the terminal.
        on_usage: called with each finished turn's assistant message (status line counts).
        on_progress: called with each new progress line of a running call (the status line).
    """

    def __init__(
        self,
        console: Console,
        style: TerminalStyle,
        on_usage: Callable[[TurnEnd], None] | None = None,
        on_progress: Callable[[str], None] | None = None,
    ) -> None:
        self.console = console
        self.style = style
        self.on_usage = on_usage
        self.on_progress = on_progress
        self._progress_gate = ProgressGate()
        self._streaming: str | None = None  # "text" / "thinking" while a line is open
        self._open_line = False
        self._errors: set[str] = set()  # AgentError texts shown during this run

    def __call__(self, event: AgentEvent) -> None:
        """Print one event: streamed text, a tool call, a result, a preview, an error..."""
        if isinstance(event, TextDelta):
            self._stream(event.text, "text")
        elif isinstance(event, ThinkingDelta):
            self._stream(event.text, "thinking")
        elif isinstance(event, ToolCallStart):
            self._end_stream()
            arrow = "→" if self.style.unicode else "->"
            line = Text(f"{arrow} ", style="cyan")
            line.append(event.name, style="bold cyan")
            line.append(" " + format_arguments(event.arguments, ARGUMENTS_WIDTH), style="dim")
            self.console.print(line)
        elif isinstance(event, ToolResult):
            self._result(event)
        elif isinstance(event, ToolProgress):
            self._progress(event)
        elif isinstance(event, PendingPushed):
            self._end_stream()
            self.console.print(
                render_preview(
                    event.label, event.preview, style=self.style, check=event.value.check
                )
            )
        elif isinstance(event, Resolved):
            self._end_stream()
            self.console.print(resolution_block(event, self.style))
        elif isinstance(event, TurnEnd):
            self._end_stream()
            if self.on_usage is not None:
                self.on_usage(event)
        elif isinstance(event, AgentError):
            self._end_stream()
            self.console.print(Text(f"error: {visible(event.message)}", style="bold red"))
            self._errors.add(event.message)
        elif isinstance(event, Notice):
            self._end_stream()
            self.console.print(Text(f"note: {event.message}", style="yellow"))
        elif isinstance(event, RunEnd):
            self._end_stream()
            if event.reason == "cancelled":
                self.console.print(Text("Cancelled.", style="yellow"))
            elif event.reason != "stop" and event.message and event.message not in self._errors:
                self.console.print(Text(visible(event.message), style="yellow"))
            self._errors.clear()

    def _progress(self, event: ToolProgress) -> None:
        """A call's progress under it, a flood thinned out (``ProgressGate``)."""
        if not self._progress_gate.show(event.tool_call_id, event.text):
            return
        if self.on_progress is not None:
            self.on_progress(f"{event.name}: {event.text}")
        self._end_stream()
        self.console.print(Text(f"  {visible(event.text)}", style="dim"))

    def _stream(self, text: str, kind: str) -> None:
        if self._streaming != kind:
            self._end_stream()
            self._streaming = kind
        style = "dim italic" if kind == "thinking" else ""
        self.console.print(Text(visible(text), style=style), end="")
        self._open_line = not text.endswith("\n")

    def _end_stream(self) -> None:
        if self._streaming is not None and self._open_line:
            self.console.print()
        self._streaming = None
        self._open_line = False

    def _result(self, event: ToolResult) -> None:
        self._end_stream()
        message = event.message
        if event.resolved:
            return  # the Resolved block that follows says it all
        shown, more = collapse(event.text or ("(error)" if message.is_error else "(no output)"))
        colour = "red" if message.is_error else "dim"
        bar = "│" if self.style.unicode else "|"
        if message.is_error and shown:
            # several calls of a batch may fail or be cancelled together: name each one
            shown[0] = f"{message.tool_name}: {shown[0]}"
        for line in shown:
            self.console.print(Text(f"  {bar} {visible_line(line)}", style=colour))
        if more:
            self.console.print(Text(f"  {bar} ... {plural(more, 'more line')}", style="dim"))
