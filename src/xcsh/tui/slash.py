"""The terminal's slash commands.

They are ``/apply``, ``/discard``, ``/review``, ``/pending``, ``/undo``, ``/rewind``
(:mod:`xcsh.tui.rewind`), ``/model``, ``/session``, ``/instructions``, ``/compact``,
``/tools``.

:class:`SlashCommands` is a part of :class:`~xcsh.tui.app.InteractiveApp`; the
names and the completion live in :mod:`xcsh.tui.commands`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from rich.console import Console
from rich.text import Text

from xcsh.core import XcshError
from xcsh.core.safe import visible_line
from xcsh.tui import commands
from xcsh.tui.rewind import RewindCommand

if TYPE_CHECKING:
    from xcsh.agent import AgentSession
    from xcsh.app import OpenedSession
    from xcsh.journal import Journal
    from xcsh.tui.options import InteractiveOptions

DEFAULT_APPLY_REASON = "applied by the user"
DEFAULT_DISCARD_REASON = "discarded by the user"
DEFAULT_REVIEW_REASON = "the changes the user kept in /review"


class SlashCommands(RewindCommand):
    """The slash commands of an interactive run (mixed into ``InteractiveApp``)."""

    options: InteractiveOptions
    console: Console
    home: Path
    session: AgentSession | None
    opened: OpenedSession | None
    journal: Journal | None
    error: str | None
    _notes: list[str]

    if TYPE_CHECKING:

        async def _wait_open(self) -> AgentSession | None: ...

        async def _ask_line(self, prompt: str) -> str: ...

    async def command(self, name: str, rest: str) -> str | None:
        """Run ``/name rest``; returns ``"exit"`` when the user leaves."""
        name = commands.complete_name(name) or name
        if name == "exit":
            return "exit"
        if name == "help":
            for line in commands.help_lines():
                self.console.print(line, markup=False)
            return None
        if name not in commands.NAMES:
            self.console.print(
                Text(f"Unknown command /{name}. Type /help for the list.", style="yellow")
            )
            return None
        session = await self._wait_open()
        if session is None:
            return None  # self.error says why; run() reports it
        await self._session_command(session, name, rest)
        return None

    async def _session_command(self, session: AgentSession, name: str, rest: str) -> None:
        """Run ``/name rest``, a command that needs the open session."""
        if name in ("apply", "discard"):
            await self.resolve("apply" if name == "apply" else "discard", rest)
        elif name == "review":
            await self.review(session, rest)
        elif name == "pending":
            self.show_pending(session)
        elif name == "undo":
            self.undo()
        elif name == "rewind":
            await self.rewind(session, rest)
        elif name == "model":
            await (self.switch_model(session, rest) if rest else self._show_model(session))
        elif name == "session":
            self.show_session(session)
        elif name == "instructions":
            self.show_instructions()
        elif name == "compact":
            await session.compact()  # its Notice says what happened
        elif name == "tools":
            self._show_tools(session)

    async def _show_model(self, session: AgentSession) -> None:
        """``/model``: the provider and model in use."""
        provider = session.provider
        self.console.print(f"provider: {provider.name}", markup=False)
        self.console.print(f"model: {provider.model}", markup=False)
        self.console.print(Text("(/model NAME switches to another model)", style="dim"))

    def _show_tools(self, session: AgentSession) -> None:
        """``/tools``: the tools the model is offered."""
        width = max((len(tool.name) for tool in session.tools.values()), default=0)
        for tool in session.tools.values():
            hidden = "  (hidden: resolves previews)" if tool.hidden else ""
            line = f"  {tool.name.ljust(width)}  {tool.label}{hidden}"
            self.console.print(line, markup=False)

    async def resolve(self, action: Literal["apply", "discard"], reason: str) -> None:
        """``/apply`` and ``/discard``: the top action, through the session's ``resolve``."""
        session = self.session
        assert session is not None
        why = reason or (DEFAULT_APPLY_REASON if action == "apply" else DEFAULT_DISCARD_REASON)
        try:
            result = await session.pending.resolve_top(action, why)
        except XcshError as exc:
            self.console.print(Text(f"xcsh: {exc}", style="bold red"))
            return
        if result.outcome is None:  # nothing pending, or refused: no Resolved event
            text = "\n".join(getattr(b, "text", "") for b in result.content)
            self.console.print(Text(text, style="yellow"))

    async def review(self, session: AgentSession, reason: str) -> None:
        """``/review``: walk the top preview change by change, then apply the kept ones at once."""
        from xcsh.tui.approval import review_top

        try:
            await review_top(
                session, reason or DEFAULT_REVIEW_REASON, self._ask_line, self.console.print
            )
        except XcshError as exc:
            self.console.print(Text(f"xcsh: {exc}", style="bold red"))

    async def switch_model(self, session: AgentSession, spec: str) -> None:
        """``/model NAME``: the next turn goes to another model (and provider)."""
        from xcsh.app import switch_provider

        try:
            provider = await asyncio.to_thread(
                switch_provider, spec, session.provider, home=self.home
            )
            session.set_provider(provider)  # its Notice says which model is in use
        except XcshError as exc:
            self.console.print(Text(f"xcsh: {exc}", style="bold red"))

    def show_instructions(self) -> None:
        """``/instructions``: the ``AGENTS.md`` files in the system prompt, in order."""
        instructions = self.opened.instructions if self.opened is not None else None
        if instructions is None or not instructions.files:
            off = not self.options.instructions
            why = " (--no-instructions)" if off else ""
            self.console.print(Text(f"No AGENTS.md instructions were read{why}.", style="dim"))
            return
        for number, item in enumerate(instructions.files, start=1):
            size = f"{item.chars:,} characters" + (f" of {item.total:,} (cut)" if item.cut else "")
            self.console.print(f"  {number}. {item.path}  ({size})", markup=False)
        for problem in instructions.unreadable:
            self.console.print(Text(f"  cannot read {problem}", style="yellow"))

    def show_pending(self, session: AgentSession) -> None:
        """``/pending``: the stack, top first."""
        actions = session.store.snapshot() if session.store is not None else []
        if not actions:
            self.console.print(Text("No pending previews.", style="dim"))
            return
        for number, action in enumerate(actions, start=1):
            mark = "  <- top" if number == 1 else ""
            label, source = visible_line(action.label), visible_line(action.source_label)
            self.console.print(f"  {number}. {action.id}  {label}  [{source}]{mark}", markup=False)
            files = [visible_line(name) for name in action.preview.file_labels()]
            if files:
                self.console.print(f"     files: {', '.join(files)}", markup=False)

    def show_session(self, session: AgentSession) -> None:
        """``/session``: id, file, folder, journal."""
        path = self.opened.path if self.opened is not None else None
        lines = [
            f"session: {session.id}",
            f"file: {path}",
            f"folder: {session.cwd}",
            f"messages: {len(session.messages)}",
            f"undo journal: {self.journal.folder if self.journal else '-'}",
        ]
        for line in lines:
            self.console.print(line, markup=False)

    def undo(self) -> None:
        """``/undo``: restore the last applied action's files if they are as it left them."""
        from xcsh.journal import UndoError, undo

        assert self.journal is not None
        try:
            outcome = undo(self.journal)
        except UndoError as exc:
            self.console.print(Text(visible_line(str(exc)), style="red"))
            return
        self.console.print(Text(visible_line(outcome.message), style="green"))
        self._notes.append(
            f"[xcsh: the user ran /undo. {outcome.message} Those files hold their content "
            "from before that apply again.]"
        )
