"""What the terminal says when a session opens.

That is the recap of a resumed session, its rebuilt previews, load errors, the
journal's recovery and other notices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from xcsh.ui import TerminalStyle

if TYPE_CHECKING:
    from collections.abc import Sequence

    from xcsh.agent import RebuiltPreview
    from xcsh.app import OpenedSession
    from xcsh.core import Message


def greet(console: Console, style: TerminalStyle, opened: OpenedSession) -> None:
    """Print what the terminal says once the session is open.

    That is a resumed session's recap and rebuilt previews, custom tools that failed to
    load, the journal's recovery, and notices.
    """
    from xcsh.core.wording import plural

    session = opened.session
    dim = "dim"
    notice = opened.elsewhere_notice()
    if notice is not None:
        console.print(Text(notice[0].upper() + notice[1:] + ".", style="yellow"))
    if opened.resumed is not None:
        shown = sum(1 for m in session.messages if not getattr(m, "hidden", False))
        console.print(
            Text(f"Resumed session {session.id} ({plural(shown, 'message')}).", style=dim)
        )
        for line in recap(session.messages):
            console.print(line, style=dim, markup=False)
        for rebuilt in opened.resumed.rebuilt:
            show_rebuilt(console, style, rebuilt)
        for label in opened.resumed.dropped:
            console.print(f"dropped: {label}", style="yellow", markup=False)
    for problem in opened.load_errors:
        console.print(
            f"custom tools: {problem.path}: {problem.error}",
            style="yellow" if problem.kind == "untrusted" else "red",
            markup=False,
        )
    journal = getattr(opened, "journal", None)
    for recovered in journal.recovered if journal is not None else []:
        console.print(Text(recovered.message, style="yellow"))
    if journal is not None and journal.problem:
        console.print(Text(f"undo journal: {journal.problem}", style="yellow"))
    if opened.instructions.note:
        console.print(Text(opened.instructions.note, style="yellow"))
    for notice in getattr(opened, "notices", ()) or ():
        console.print(Text(notice, style="yellow"))


def show_rebuilt(console: Console, style: TerminalStyle, rebuilt: RebuiltPreview) -> None:
    """A preview rebuilt on resume: its label and diff (contract §6), and whether it changed."""
    from xcsh.ui import render_preview

    console.print(
        Text(
            f"re-previewed against the current files (was: {rebuilt.previous_label}):",
            style="dim",
        )
    )
    console.print(render_preview(rebuilt.label, rebuilt.preview, style=style))
    if rebuilt.changed:
        console.print(Text(rebuilt.note(), style="bold yellow"))


def recap(messages: Sequence[Message], count: int = 4) -> list[str]:
    """The last ``count`` visible turns of a resumed history, one short line each."""
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
