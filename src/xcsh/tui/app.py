"""The interactive session: the prompt, the run, and the questions asked during it.

The prompt is drawn first; the session (provider SDK, custom tools, a
resumed session's previews) opens in the background, so start-up never waits
for a model SDK import or a workspace scan. While the model runs there is no
prompt: events are drawn as they arrive and Ctrl-C (SIGINT) cancels the run
(:meth:`xcsh.agent.AgentSession.cancel`; every tool call still gets a result).
With ``--approve ask`` each model ``apply`` asks y / n / n REASON here.
The slash commands are :mod:`xcsh.tui.slash`, the opening lines
:mod:`xcsh.ui.opening` (print mode's too).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import signal
import sys
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app, run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import ColorDepth
from rich.console import Console
from rich.text import Text

from xcsh.core import XcshError
from xcsh.providers import ProviderFlags
from xcsh.tui import commands
from xcsh.tui.approval import ask_approval, ask_plain
from xcsh.tui.options import InteractiveOptions
from xcsh.tui.slash import SlashCommands
from xcsh.tui.status import short_model, status_line
from xcsh.ui import TerminalStyle, detect_style, make_console
from xcsh.ui.opening import show_greeting
from xcsh.ui.usage import UsageTotals

if TYPE_CHECKING:
    from xcsh.agent import AgentSession, Approval, ToolQuestion, TurnEnd
    from xcsh.app import OpenedSession
    from xcsh.journal import Journal
    from xcsh.pending import PendingAction

HISTORY_FILE = "prompt-history"
"""Prompt history across sessions: ``$XCSH_HOME/prompt-history``."""


class _OpenFailed(Exception):
    """The session could not be opened; the prompt is closed."""


class _Terminated(Exception):
    """SIGTERM or SIGHUP arrived while the prompt was waiting; the prompt is closed."""


CANCEL_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Handled like Ctrl-C during a run (the run is cancelled cleanly), then xcsh
exits with 128 + the signal number."""


class InteractiveApp(SlashCommands):
    """One interactive run of ``xcsh``.

    Args:
        options: the command line's choices.
        console: where output goes (default: stdout, honouring ``NO_COLOR``).
        style: the terminal's colour and Unicode (default: detected on stdout).
    """

    def __init__(
        self,
        options: InteractiveOptions,
        *,
        console: Console | None = None,
        style: TerminalStyle | None = None,
    ) -> None:
        from xcsh.fs import xcsh_home

        self.options = options
        self.style = style or detect_style(sys.stdout)
        self.console = console or make_console(sys.stdout, self.style)
        self.home = options.home or xcsh_home()
        self.session: AgentSession | None = None
        self.opened: OpenedSession | None = None
        self.journal: Journal | None = None
        self.usage = UsageTotals()
        self.error: str | None = None
        self._opening: asyncio.Task[None] | None = None
        self._armed = False  # one Ctrl-C on an empty prompt: the next one exits
        self._running = False
        self._notes: list[str] = []  # told to the model with the next prompt (/undo)
        self._prefill = ""  # the next prompt's text (a rewound message, for editing)
        self._prompt: PromptSession[str] | None = None
        self._question: PromptSession[str] | None = None
        self._signal: signal.Signals | None = None  # SIGTERM/SIGHUP received
        self._progress = ""  # the running call's last progress (an MCP server's)

    # -- status --------------------------------------------------------------

    def status(self) -> str:
        """The status line's text (see :func:`xcsh.tui.status.status_line`)."""
        session = self.session
        if session is None:
            return "starting..." if self.error is None else f"error: {self.error}"
        store = session.store
        top = store.peek() if store is not None else None
        text = status_line(
            model=short_model(session.provider.name, session.provider.model),
            usage=self.usage,
            pending=store.count if store is not None else 0,
            top_label=top.label if top is not None else None,
            unicode=self.style.unicode,
            state=self._progress if self._running else "",
        )
        if self._armed:
            text += "   (press Ctrl-C again to exit)"
        return text

    def _toolbar(self) -> FormattedText:
        return FormattedText([("class:bottom-toolbar", " " + self.status())])

    # -- start-up ------------------------------------------------------------

    def _make_prompt(self) -> PromptSession[str]:
        self.home.mkdir(parents=True, exist_ok=True)
        keys = KeyBindings()

        @keys.add("enter")
        def _submit(event: KeyPressEvent) -> None:
            event.current_buffer.validate_and_handle()

        @keys.add("escape", "enter")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @keys.add("escape", "escape", filter=Condition(lambda: not get_app().current_buffer.text))
        def _rewind(event: KeyPressEvent) -> None:
            event.app.exit(result="/rewind")

        @keys.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.text:
                buffer.reset()
                self._armed = False
            elif self._armed:
                event.app.exit(exception=EOFError())
            else:
                self._armed = True
            event.app.invalidate()

        session: PromptSession[str] = PromptSession(
            history=FileHistory(str(self.home / HISTORY_FILE)),
            completer=commands.SlashCompleter(),
            complete_while_typing=True,
            multiline=True,
            key_bindings=keys,
            bottom_toolbar=self._toolbar,
            color_depth=None if self.style.color else ColorDepth.MONOCHROME,
            prompt_continuation=lambda width, line, wrap: "." * (width - 1) + " ",
        )
        session.default_buffer.on_text_changed += self._disarm
        return session

    def _disarm(self, _buffer: Buffer) -> None:
        self._armed = False

    async def open(self) -> None:
        """Open the session (provider, tools, resume); :meth:`run` starts it in the background.

        A failure is kept in :attr:`error` and closes the prompt.
        """
        from xcsh.app import AppOptions, open_session

        options = self.options
        flags = ProviderFlags(
            provider=options.provider, model=options.model, base_url=options.base_url
        )
        await asyncio.to_thread(_warm_provider, flags, self.home)
        try:
            opened = await open_session(
                AppOptions(
                    cwd=options.cwd,
                    provider=options.provider,
                    model=options.model,
                    base_url=options.base_url,
                    continue_latest=options.continue_latest,
                    session_id=options.session_id,
                    approval=self.ask_approval if options.approve_ask else None,
                    ask_tool=self.ask_tool,
                    trust_project=options.trust_project,
                    instructions=options.instructions,
                    home=self.home,
                )
            )
        except XcshError as exc:
            self.error = str(exc)
            if self._prompt is not None and self._prompt.app.is_running:
                self._prompt.app.exit(exception=_OpenFailed())
            return
        self._attach(opened)
        if self._prompt is not None and self._prompt.app.is_running:
            await run_in_terminal(lambda: show_greeting(self.console, self.style, opened))
            self._prompt.app.invalidate()
        else:
            show_greeting(self.console, self.style, opened)

    def _attach(self, opened: OpenedSession) -> None:
        from xcsh.tui.render import EventRenderer

        session = opened.session
        self.opened = opened
        self.session = session
        self.usage = UsageTotals.of(session.messages)
        # the session was composed with the workspace's journal (every apply is recorded)
        self.journal = opened.journal.journal
        renderer = EventRenderer(
            self.console, self.style, on_usage=self._count, on_progress=self._on_progress
        )
        session.subscribe(renderer)

    def _on_progress(self, text: str) -> None:
        self._progress = text

    def _count(self, event: TurnEnd) -> None:
        self.usage = self.usage.add(event.message.usage)

    # -- the loop ------------------------------------------------------------

    async def ask_trust(self) -> None:
        """Ask once whether this run loads the project's custom tools.

        Asked only when ``.xcsh/tools/`` holds tools and the folder is not
        trusted at their current fingerprint (never trusted, or the tools
        changed since); "yes" is remembered for that fingerprint, "once" is
        for this run only. The answer becomes this run's ``trust_project``.
        """
        from xcsh.core import UsageError
        from xcsh.plugins import aask_trust
        from xcsh.ui import visible

        if self.options.trust_project:
            return
        question: PromptSession[str] = PromptSession()

        async def prompt(text: str) -> str:
            self.console.print(visible(text), style="bold yellow", markup=False)
            return await question.prompt_async("> ")

        try:
            trusted = await aask_trust(self.options.cwd, prompt, home=self.home)
        except UsageError as exc:
            self.console.print(f"xcsh: {exc}", style="red", markup=False)
            return
        if trusted:
            self.options = dataclasses.replace(self.options, trust_project=True)

    async def run(self) -> int:
        """Prompt, run, repeat until the user leaves; returns the exit code."""
        await self.ask_trust()
        self._prompt = self._make_prompt()
        self.console.print(
            Text(f"xcsh in {self.options.cwd}  (/help for commands, Ctrl-D to leave)", style="dim")
        )
        self._opening = asyncio.create_task(self.open())
        installed = self._catch_signals()
        try:
            while True:
                if self._signal is not None:
                    return 128 + int(self._signal)
                try:
                    prefill, self._prefill = self._prefill, ""
                    text = await self._prompt.prompt_async(self._prompt_text(), default=prefill)
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    return 0
                except _OpenFailed:
                    break
                except _Terminated:
                    continue  # returns at the top of the loop
                self._armed = False
                if not text.strip():
                    continue
                parsed = commands.parse(text)
                if parsed is not None:
                    if await self.command(*parsed) == "exit":
                        return 0
                else:
                    await self.run_prompt(text)
                if self.session is None and self.error is not None:
                    break  # the session could not open while we waited for it
        finally:
            loop = asyncio.get_running_loop()
            for sig in installed:
                loop.remove_signal_handler(sig)
            if self._opening is not None and not self._opening.done():
                self._opening.cancel()
            await self._end_session()
        await self._wait_open()
        self.console.print(Text(f"xcsh: {self.error}", style="bold red"))
        return 2

    async def _end_session(self) -> None:
        """End the open session: previews that die with the process, its file, its servers."""
        session = self.session
        if session is None:
            return
        if not session.running:  # custom tools' previews die with the process
            await session.pending.end()
        session.close()
        if self.opened is not None:
            await self.opened.aclose()  # the MCP servers' processes end here
        self.console.print(Text(f"session {session.id} saved (resume with xcsh --continue)", "dim"))

    def _catch_signals(self) -> list[signal.Signals]:
        """Handle :data:`CANCEL_SIGNALS`; returns those installed (none without Unix signals)."""
        loop = asyncio.get_running_loop()
        installed = []
        for sig in CANCEL_SIGNALS:
            try:
                loop.add_signal_handler(sig, self._on_terminate, sig)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            installed.append(sig)
        return installed

    def _on_terminate(self, sig: signal.Signals) -> None:
        """Cancel a run in progress (every call gets its result), or leave the prompt."""
        if self._signal is None:
            self._signal = sig
        if self.session is not None and self.session.running:
            self.session.cancel()  # also cancels an approval question; run() returns after
        elif self._prompt is not None and self._prompt.app.is_running:
            self._prompt.app.exit(exception=_Terminated())

    def _prompt_text(self) -> FormattedText:
        return FormattedText([("bold", "> ")])

    async def _wait_open(self) -> AgentSession | None:
        if self._opening is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._opening
        if self.session is None and self.opened is None and self.error is None:
            self.error = "the session did not open"
        return self.session

    async def run_prompt(self, text: str) -> None:
        """Send ``text`` to the model; Ctrl-C cancels the run."""
        session = await self._wait_open()
        if session is None:
            return  # self.error says why; run() reports it
        notes, self._notes = self._notes, []  # told to the model beside the message
        loop = asyncio.get_running_loop()
        self._running = True
        loop.add_signal_handler(signal.SIGINT, self._on_sigint)
        try:
            with _quiet_terminal():
                await session.prompt(text, notes=notes)
        except XcshError as exc:
            self.console.print(Text(f"xcsh: {exc}", style="bold red"))
        except Exception:  # already shown as an AgentError event; the session goes on
            pass
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            self._running = False
            self._progress = ""

    def _on_sigint(self) -> None:
        if self.session is not None and self.session.running:
            self.console.print(Text("cancelling...", style="yellow"))
            self.session.cancel()
            self._armed = True

    async def ask_approval(
        self, action: PendingAction, reason: str, only: tuple[str, ...] | None
    ) -> Approval:
        """The ``--approve ask`` hook: ``[a]pply / [d]iscard / [r]eview``, clear answers only."""
        return await self._answer(
            ask_approval(action, reason, self._ask_line, self.console.print, only)
        )

    async def _ask_line(self, prompt: str) -> str:
        """One line from a plain second prompt (approval questions, ``/review`` keys)."""
        if self._question is None:
            self._question = PromptSession(
                color_depth=None if self.style.color else ColorDepth.MONOCHROME
            )
        return await self._question.prompt_async(prompt, handle_sigint=False)

    async def ask_tool(self, question: ToolQuestion) -> Approval:
        """Asked before a tool call an ``ask`` approval rule covers (clear answers only)."""
        return await self._answer(ask_plain(question.prompt(), self._ask_line, self.console.print))

    async def _answer(self, question: Awaitable[Approval]) -> Approval:
        """The person's answer to ``question``; Ctrl-C there declines and cancels the run."""
        from xcsh.agent import Approval

        try:
            return await question
        except (KeyboardInterrupt, EOFError):
            if self.session is not None:
                self._armed = True
                self.session.cancel()
            await asyncio.sleep(0)  # the cancellation lands here
            return Approval(approved=False, reason="the user pressed Ctrl-C")


@contextlib.contextmanager
def _quiet_terminal() -> Iterator[None]:
    """While the model runs: no echo of typed keys or of ``^C`` over the output.

    Keys typed meanwhile stay buffered and show up in the next prompt.
    """
    try:
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError, io.UnsupportedOperation):
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)
    try:
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
        yield
    finally:
        with contextlib.suppress(OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def _warm_provider(flags: ProviderFlags, home: Path) -> None:
    """Import the provider's SDK on a worker thread so the prompt never waits for it."""
    from xcsh.app import build_provider, load_settings

    with contextlib.suppress(Exception):  # open_session reports the real error
        build_provider(flags, load_settings(home).provider)


def run(options: InteractiveOptions) -> int:
    """Run the interactive session to the end; returns the exit code."""
    try:
        return asyncio.run(InteractiveApp(options).run())
    except KeyboardInterrupt:  # Ctrl-C while no prompt and no run was listening
        print("xcsh: cancelled", file=sys.stderr)
        return 130
