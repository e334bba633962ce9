"""What opening a session did, said once for every front end.

Opening a session may settle the journal's interrupted applies (or fail to),
resume a session started in another folder, rebuild or drop its pending
previews, skip custom tools, cut the instructions and leave notices (bash
unconfined, for one). The terminal greets with all of it
(:func:`show_greeting`); print mode says it on stderr ahead of the run's
progress, each line worded to read among other commands' output
(:func:`show_print_opening`), and ``--mode json`` starts with
:func:`opening_header`.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rich.text import Text

from xcsh.core.safe import visible

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rich.console import Console, RenderableType

    from xcsh.agent import Instructions, RebuiltPreview, ResumeReport
    from xcsh.app import OpenedSession
    from xcsh.core import Message
    from xcsh.ui.style import TerminalStyle


def show_greeting(console: Console, style: TerminalStyle, opened: OpenedSession) -> None:
    """Print what the terminal says once the session is open (:func:`greeting`)."""
    for line in greeting(opened, style):
        console.print(line)


def show_print_opening(
    console: Console, style: TerminalStyle, opened: OpenedSession, *, progress: bool
) -> None:
    """Print on stderr what print mode says once the session is open (:func:`print_opening`)."""
    for line in print_opening(opened, style, progress=progress):
        console.print(line)


def greeting(opened: OpenedSession, style: TerminalStyle) -> list[RenderableType]:
    """The terminal's greeting: what opening ``opened`` did, in the order it is shown.

    That is a session that works in another folder, a resumed session's recap and
    rebuilt previews, custom tools that failed to load, the journal's recovery, the
    instructions' cut and the notices. ``style`` draws the previews.
    """
    from xcsh.core.wording import plural

    lines: list[RenderableType] = []
    notice = opened.elsewhere_notice()
    if notice is not None:
        lines.append(Text(notice[0].upper() + notice[1:] + ".", style="yellow"))
    session = opened.session
    if opened.resumed is not None:
        shown = sum(1 for m in session.messages if not getattr(m, "hidden", False))
        lines.append(
            Text(f"Resumed session {session.id} ({plural(shown, 'message')}).", style="dim")
        )
        lines.extend(_said(line, "dim") for line in recap(session.messages))
        lines.extend(_resumed(opened.resumed, style, lead="", dropped="dropped: ", line=Text))
    lines.extend(_load_errors(opened))
    journal = opened.journal
    lines.extend(Text(recovered.message, style="yellow") for recovered in journal.recovered)
    if journal.problem:
        lines.append(Text(f"undo journal: {journal.problem}", style="yellow"))
    if opened.instructions.note:
        lines.append(Text(opened.instructions.note, style="yellow"))
    lines.extend(Text(notice, style="yellow") for notice in opened.notices)
    return lines


def print_opening(
    opened: OpenedSession, style: TerminalStyle, *, progress: bool
) -> list[RenderableType]:
    """What print mode says on stderr once ``opened`` is open, in the order it is shown.

    Always the journal's recovery, a session that works in another folder and the
    notices (``xcsh:`` lines); with ``progress`` (``--mode text``) also the instructions
    read, custom tools that failed to load and what resuming did to the pending
    previews, which ``--mode json`` has in its header (:func:`opening_header`).
    ``style`` draws the previews.
    """
    lines: list[RenderableType] = [_said(r.message) for r in opened.journal.recovered]
    if opened.journal.problem:
        lines.append(_said(f"undo journal: {opened.journal.problem}"))
    notice = opened.elsewhere_notice()
    if notice is not None:
        lines.append(_said(f"xcsh: {notice}", "yellow"))
    lines.extend(_said(f"xcsh: {line}", "yellow") for line in opened.notices)
    if not progress:
        return lines
    lines.extend(
        _said(text, line_style) for text, line_style in instructions_lines(opened.instructions)
    )
    lines.extend(_load_errors(opened))
    if opened.resumed is not None:
        lines.extend(
            _resumed(
                opened.resumed, style, lead="resumed: ", dropped="resumed: dropped ", line=_said
            )
        )
    return lines


def opening_header(opened: OpenedSession) -> dict[str, object]:
    """The first line ``--mode json`` prints: the session and how it was opened.

    ``{"type": "session", "id", "path", "cwd", "resumed", "load_errors",
    "instructions", "notices"}``; ``resumed`` is ``None`` for a new session, else
    ``{"repreviewed", "dropped", "rebuilt"}`` (each rebuilt preview's fields).
    """
    session = opened.session
    report = opened.resumed
    return {
        "type": "session",
        "id": session.id,
        "path": str(opened.path),
        "cwd": str(session.cwd),
        "resumed": None
        if report is None
        else {
            "repreviewed": report.repreviewed,
            "dropped": report.dropped,
            "rebuilt": [dataclasses.asdict(r) for r in report.rebuilt],
        },
        "load_errors": [e.to_dict() for e in opened.load_errors],
        "instructions": [str(f.path) for f in opened.instructions.files],
        "notices": list(opened.notices),
    }


def instructions_lines(instructions: Instructions) -> list[tuple[str, str]]:
    """What print mode says about the ``AGENTS.md`` files read: ``(text, style)`` lines."""
    lines: list[tuple[str, str]] = []
    if instructions.files:
        names = ", ".join(str(f.path) for f in instructions.files)
        lines.append((f"instructions: {names}", "dim"))
    if instructions.note:
        lines.append((f"xcsh: {instructions.note}", "yellow"))
    lines.extend((f"instructions: cannot read {u}", "yellow") for u in instructions.unreadable)
    return lines


def recap(messages: Sequence[Message], count: int = 4) -> list[str]:
    """The last ``count`` visible turns of a resumed history, one line each.

    A line is cut to its first line and to 100 characters (``...`` ends a cut one).
    """
    from xcsh.core import AssistantMessage, ToolResultMessage, UserMessage

    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage) and not message.hidden:
            lines.append(f"  you: {message.text}")
        elif isinstance(message, AssistantMessage):
            calls = ", ".join(c.name for c in message.tool_calls)
            text = message.text or (f"(called {calls})" if calls else "")
            if text:
                lines.append(f"  model: {text}")
        elif isinstance(message, ToolResultMessage) and message.is_error:
            lines.append(f"  {message.tool_name}: failed or cancelled")
    shown = [line if len(line) <= 100 else line[:97] + "..." for line in lines[-count:]]
    return [line.splitlines()[0] if line else line for line in shown]


def _said(text: str, style: str = "") -> Text:
    """``text`` as one line in ``style``, every control character made visible."""
    return Text(visible(text), style=style)


def _load_errors(opened: OpenedSession) -> list[RenderableType]:
    """Custom tools that failed to load (red), or were skipped as untrusted (yellow)."""
    return [
        _said(
            f"custom tools: {problem.path}: {problem.error}",
            "yellow" if problem.kind == "untrusted" else "red",
        )
        for problem in opened.load_errors
    ]


def _resumed(
    report: ResumeReport,
    style: TerminalStyle,
    *,
    lead: str,
    dropped: str,
    line: Callable[[str, str], Text],
) -> list[RenderableType]:
    """The previews resuming rebuilt (contract §6), then the ones it dropped.

    ``lead`` starts the line above each rebuilt preview, ``dropped`` each dropped
    one's; ``line`` makes the rebuilt previews' lines of text (:class:`~rich.text.Text`
    drops a bell or a carriage return, :func:`_said` shows it).
    """
    lines: list[RenderableType] = []
    for rebuilt in report.rebuilt:
        lines.extend(_rebuilt(rebuilt, style, lead, line))
    lines.extend(_said(f"{dropped}{label}", "yellow") for label in report.dropped)
    return lines


def _rebuilt(
    rebuilt: RebuiltPreview, style: TerminalStyle, lead: str, line: Callable[[str, str], Text]
) -> list[RenderableType]:
    """A preview rebuilt on resume: its label and diff, and whether it changed."""
    from xcsh.ui.render import render_preview

    lines: list[RenderableType] = [
        line(
            f"{lead}re-previewed against the current files (was: {rebuilt.previous_label}):", "dim"
        ),
        render_preview(rebuilt.label, rebuilt.preview, style=style),
    ]
    if rebuilt.changed:
        lines.append(line(rebuilt.note(), "bold yellow"))
    return lines


__all__ = [
    "greeting",
    "instructions_lines",
    "opening_header",
    "print_opening",
    "recap",
    "show_greeting",
    "show_print_opening",
]
