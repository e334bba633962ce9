"""``xcsh`` without a subcommand: the agent itself.

``xcsh -p "TASK"`` (print mode) runs one task to completion; ``xcsh -p -``
reads the task from standard input, and an empty task is refused. In ``--mode
text`` the final answer goes to stdout and progress (tool calls, previews,
resolutions, contract §6) to stderr; in ``--mode json`` stdout carries one JSON
object per line: first ``{"type": "session", "id", "path", "cwd", "resumed",
"load_errors"}``, then
every agent event (:func:`xcsh.agent.event_to_dict`), ending with
``run_end``. A session resumed with ``--session`` from another folder works
in the folder it was started in (stderr says so). Exit codes: 0 done, 1 the
run failed or stopped at the forced-turn cap, 2 bad usage, 130 cancelled
(Ctrl-C), 143 or 129 cancelled by SIGTERM or SIGHUP, 141 standard output
closed early.
"""

from __future__ import annotations

import argparse
import errno
import json
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TextIO

from xcsh.cli import stdout_to_devnull, subcommand_help

if TYPE_CHECKING:  # the agent stack is imported only when a task runs
    from xcsh.agent import (
        AgentEvent,
        Approval,
        ApprovalHook,
        Instructions,
        ToolApprovalHook,
        ToolQuestion,
    )
    from xcsh.app import SessionToolsFactory
    from xcsh.pending import PendingAction
    from xcsh.tui.status import UsageTotals

NO_TUI_MESSAGE = (
    "xcsh: the interactive session needs a terminal on stdin and stdout.\n"
    'Run a task with: xcsh -p "TASK"   (see xcsh --help)'
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xcsh",
        description="A coding agent whose destructive tools preview first.",
        epilog=subcommand_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="TASK",
        help="run one task and print the answer; - reads the task from standard input",
    )
    parser.add_argument(
        "--provider",
        help="anthropic, openai (also any OpenAI-compatible server), openai-responses, or scripted",
    )
    parser.add_argument("--model", help="model id (for --provider scripted: the steps JSON file)")
    parser.add_argument("--base-url", help="server URL, e.g. http://localhost:8080/v1")
    parser.add_argument(
        "--mode",
        choices=("text", "json"),
        default="text",
        help="text: the answer on stdout; json: every event as one JSON line",
    )
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="resume the latest session in this folder",
    )
    resume.add_argument(
        "--session",
        metavar="ID",
        help="resume the session with this id, in the folder it was started in",
    )
    parser.add_argument(
        "--approve",
        choices=("auto", "ask"),
        default="auto",
        help="ask: confirm on the terminal before the model applies a preview",
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="load this project's custom tools (.xcsh/tools/) without asking",
    )
    parser.add_argument(
        "--no-instructions",
        dest="instructions",
        action="store_false",
        help="do not read AGENTS.md files (project and $XCSH_HOME) into the system prompt",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.version:
        from xcsh import __version__

        print(f"xcsh {__version__}")
        return 0
    if args.prompt is None:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            print(NO_TUI_MESSAGE, file=sys.stderr)
            return 2
        import xcsh.tui

        return xcsh.tui.main(args)
    import asyncio  # the agent's imports wait until a task runs (xcsh --help stays quick)

    from xcsh.core import UsageError, XcshError

    try:
        args.prompt = task_text(args.prompt, sys.stdin)
        return asyncio.run(run_print_until_signal(args))
    except KeyboardInterrupt:
        print("xcsh: cancelled", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"xcsh: {exc}", file=sys.stderr)
        return 2
    except XcshError as exc:  # a provider refusing its configuration, for one
        print(f"xcsh: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # the dispatcher ends quietly when the reader went away
    except OSError as exc:  # a file or folder xcsh needs is unusable
        print(f"xcsh: {exc}", file=sys.stderr)
        return 1


EMPTY_TASK_HINT = 'give the task as text: xcsh -p "TASK", or pipe it in: echo TASK | xcsh -p -'


def task_text(prompt: str, stdin: TextIO) -> str:
    """The task of ``-p TASK``: ``TASK`` itself, or standard input when it is ``-``.

    Raises:
        UsageError: the task is empty or only whitespace (a model asked nothing
            would improvise), or standard input cannot be read as text.
    """
    from xcsh.core import UsageError

    where = "the task"
    if prompt == "-":
        where = "the task read from standard input"
        try:
            prompt = stdin.read()
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise UsageError(f"cannot read the task from standard input: {exc}") from exc
    if not prompt.strip():
        raise UsageError(f"{where} is empty", hint=EMPTY_TASK_HINT)
    return prompt


CANCEL_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals handled like Ctrl-C: the run is cancelled cleanly, then xcsh exits 128+signal."""


async def run_print_until_signal(args: argparse.Namespace) -> int:
    """:func:`run_print`, cancelled cleanly by SIGTERM or SIGHUP as Ctrl-C cancels it.

    On one of :data:`CANCEL_SIGNALS` the run is cancelled: every tool call in
    flight gets its cancelled result (a bash command's process group is
    killed), ``run_end`` is written to the session file and printed in json
    mode, and the exit code is 128 + the signal number (143 for SIGTERM,
    129 for SIGHUP), as a shell reports a process killed by that signal.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[signal.Signals] = []

    def on_signal(sig: signal.Signals) -> None:
        if not received:
            received.append(sig)
            task.cancel()

    installed = []
    for sig in CANCEL_SIGNALS:
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError, ValueError):  # no Unix signals here
            continue
        installed.append(sig)
    try:
        return await run_print(args)
    except asyncio.CancelledError:
        if not received:
            raise
        task.uncancel()
        print(f"xcsh: cancelled ({received[0].name})", file=sys.stderr)
        return 128 + int(received[0])
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def run_print(
    args: argparse.Namespace,
    *,
    stdout: TextIO | None = None,
    tools: SessionToolsFactory | None = None,
) -> int:
    """Run ``args.prompt`` in a new or resumed session; returns the exit code.

    Args:
        args: parsed by :func:`build_parser`.
        stdout: where the answer (text) or the events (json) go; default ``sys.stdout``.
        tools: the session's tools factory; default the built-in registry.
    """
    import dataclasses
    from pathlib import Path

    from xcsh.app import AppOptions, open_session
    from xcsh.core import UsageError
    from xcsh.ui import detect_style, make_console, render_preview

    out = stdout if stdout is not None else sys.stdout
    err_console = make_console(sys.stderr)
    if args.approve == "ask" and not _is_terminal(sys.stdin):
        raise UsageError(NO_TERMINAL_MESSAGE, hint=NO_TERMINAL_HINT)
    approval = terminal_approval(sys.stdin, sys.stderr) if args.approve == "ask" else None
    opened = await open_session(
        AppOptions(
            cwd=Path.cwd(),
            provider=args.provider,
            model=args.model,
            base_url=args.base_url,
            continue_latest=args.continue_latest,
            session_id=args.session,
            approval=approval,
            ask_tool=terminal_tool_approval(sys.stdin, sys.stderr)
            if _is_terminal(sys.stdin)
            else None,
            trust_project=args.trust_project,
            instructions=args.instructions,
        ),
        tools=tools,
    )
    for recovered in opened.journal.recovered:
        err_console.print(recovered.message, markup=False, highlight=False)
    if opened.journal.problem:
        err_console.print(f"undo journal: {opened.journal.problem}", markup=False, highlight=False)
    session = opened.session
    report = opened.resumed
    notice = opened.elsewhere_notice()
    if notice is not None:
        err_console.print(f"xcsh: {notice}", style="yellow", markup=False, highlight=False)
    for line in opened.notices:  # also in the JSON header
        err_console.print(f"xcsh: {line}", style="yellow", markup=False, highlight=False)
    printer: TextPrinter | None = None
    json_printer: JsonPrinter | None = None
    if args.mode == "json":
        header = {
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
        print(json.dumps(header, ensure_ascii=False), file=out, flush=True)
        json_printer = JsonPrinter(out, on_broken_pipe=session.cancel)
        session.subscribe(json_printer)
    else:
        for line, style in instructions_lines(opened.instructions):
            err_console.print(line, style=style, markup=False)
        for problem in opened.load_errors:
            style = "yellow" if problem.kind == "untrusted" else "red"
            text = f"custom tools: {problem.path}: {problem.error}"
            err_console.print(text, style=style, markup=False)
        if report is not None:
            term_style = detect_style(sys.stderr)
            for rebuilt in report.rebuilt:
                err_console.print(
                    f"resumed: re-previewed against the current files "
                    f"(was: {rebuilt.previous_label}):",
                    style="dim",
                    markup=False,
                )
                err_console.print(render_preview(rebuilt.label, rebuilt.preview, style=term_style))
                if rebuilt.changed:
                    err_console.print(rebuilt.note(), style="bold yellow", markup=False)
            for label in report.dropped:
                err_console.print(f"resumed: dropped {label}", style="yellow", markup=False)
        printer = TextPrinter(err_console)
        session.subscribe(printer)
    from xcsh.agent import TurnEnd
    from xcsh.tui.status import UsageTotals

    totals = [UsageTotals()]

    def count(event: AgentEvent) -> None:
        if isinstance(event, TurnEnd):
            totals[0] = totals[0].add(event.message.usage)

    session.subscribe(count)
    try:
        end = await session.prompt(args.prompt)
    finally:
        session.close()
    if json_printer is not None and json_printer.broken_pipe:
        # The reader went away: the run was cancelled; the dispatcher exits 141 quietly.
        raise BrokenPipeError(errno.EPIPE, "standard output was closed")
    if args.mode == "text":
        if end.final_text:
            from xcsh.ui import visible

            print(visible(end.final_text), file=out, flush=True)
        shown = printer.shown_errors if printer is not None else set()
        if end.reason != "stop" and end.message and end.message not in shown:
            err_console.print(f"xcsh: {end.message}", style="yellow", markup=False)
        err_console.print(
            f"session {session.id} (resume with --continue)"
            + usage_text(totals[0], unicode=detect_style(sys.stderr).unicode),
            style="dim",
            markup=False,
        )
    return {"stop": 0, "cancelled": 130}.get(end.reason, 1)


def usage_text(totals: UsageTotals, *, unicode: bool = True) -> str:
    """`` · 1.5k in / 64 out · $0.0012`` for a run whose provider reported usage
    (`` - `` between the parts in plain ASCII), else ""."""
    from xcsh.tui.status import separator, tokens

    if not (totals.input_tokens or totals.output_tokens):
        return ""
    sep = separator(unicode)
    counts = f"{tokens(totals.input_tokens)} in / {tokens(totals.output_tokens)} out"
    return f"{sep}{counts}{sep}${totals.cost_usd:.4f}"


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


class JsonPrinter:
    """Prints every event as one JSON line (``--mode json``).

    When the reader of ``out`` goes away (``| head``), the printer stops
    printing, points standard output at /dev/null, sets :attr:`broken_pipe`
    and calls ``on_broken_pipe`` (the session's ``cancel``): nobody is left
    to read what the run would say.
    """

    def __init__(self, out: TextIO, *, on_broken_pipe: Callable[[], None] | None = None) -> None:
        self.out = out
        self.on_broken_pipe = on_broken_pipe
        self.broken_pipe = False

    def __call__(self, event: AgentEvent) -> None:
        from xcsh.agent import event_to_dict

        if self.broken_pipe:
            return
        line = json.dumps(event_to_dict(event), ensure_ascii=False, default=str)
        try:
            print(line, file=self.out, flush=True)
        except BrokenPipeError:
            self.broken_pipe = True
            if self.out is sys.stdout:
                stdout_to_devnull()
            if self.on_broken_pipe is not None:
                self.on_broken_pipe()


class TextPrinter:
    """Shows progress on the terminal (contract §6).

    Printed, in order: text the model writes alongside its tool calls, each
    tool call (``→ name {arguments}``), each failed call's whole error text
    (headed by the call it belongs to, since read-only calls run
    concurrently and their lines can interleave), previews, resolutions, and
    agent errors. :attr:`shown_errors` lets the caller skip repeating an
    error at the end of the run.
    """

    ARGUMENTS_WIDTH = 120

    def __init__(self, console: Any) -> None:
        from xcsh.ui import detect_style

        self.console = console
        self.style = detect_style(console.file)
        self.shown_errors: set[str] = set()
        self._text: list[str] = []
        self._calls: dict[str, str] = {}
        self._last_call: str | None = None

    def __call__(self, event: AgentEvent) -> None:
        from xcsh.agent import (
            AgentError,
            Notice,
            PendingPushed,
            Resolved,
            TextDelta,
            ToolCallStart,
            ToolResult,
            TurnStart,
        )
        from xcsh.ui import render_preview, render_resolution

        if isinstance(event, TurnStart):
            self._text.clear()
        elif isinstance(event, TextDelta):
            self._text.append(event.text)
        elif isinstance(event, ToolCallStart):
            self._flush_text()
            call = f"{event.name} {self._arguments(event.arguments)}"
            self._calls[event.id] = call
            self._last_call = event.id
            arrow = "→" if self.style.unicode else "->"
            self.console.print(f"{arrow} {call}", style="dim", markup=False)
        elif isinstance(event, ToolResult) and event.message.is_error:
            if not _shown_as_resolution(event.message):
                self._error(event.message.tool_call_id, event.message.tool_name, event.text)
        elif isinstance(event, PendingPushed):
            self.console.print(render_preview(event.label, event.preview, style=self.style))
        elif isinstance(event, Resolved):
            block = render_resolution(
                event.outcome, is_error=event.is_error, message=event.text, style=self.style
            )
            self.console.print(block)
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

    def _arguments(self, arguments: Any) -> str:
        text = json.dumps(arguments, ensure_ascii=False)
        width = self.ARGUMENTS_WIDTH
        return text if len(text) <= width else text[: width - 3] + "..."

    def _error(self, call_id: str, tool_name: str, text: str) -> None:
        lines = text.splitlines() or ["failed"]
        # Another call's lines may have come in between: then name the whole call.
        where = tool_name if call_id == self._last_call else self._calls.get(call_id, tool_name)
        rest = ["    " + line for line in lines[1:]]
        body = "\n".join([f"  error in {where}: {lines[0]}", *rest])
        self.console.print(body, style="red", markup=False, highlight=False)


def _shown_as_resolution(message: Any) -> bool:
    """A ``resolve`` result that the :class:`Resolved` block already shows (with its error)."""
    from xcsh.pending import ResolveOutcome

    return message.tool_name == "resolve" and isinstance(message.details, ResolveOutcome)


NO_TERMINAL_MESSAGE = (
    "--approve ask needs a terminal on stdin to ask on before each apply, and stdin is "
    "not a terminal"
)
NO_TERMINAL_HINT = (
    "run xcsh from a terminal, or leave out --approve ask (then the model's resolve "
    "applies or discards as it says)"
)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced by something odd
        return False


INPUT_CLOSED_REASON = "input closed before an answer"


def terminal_approval(stdin: TextIO, prompt_out: TextIO) -> ApprovalHook:
    """An approval hook that asks on the terminal (``--approve ask``).

    ``stdin`` must be a terminal (:func:`run_print` refuses ``--approve ask``
    without one, at start-up). The question goes to ``prompt_out`` (stderr),
    so stdout keeps only the answer. Unclear answers are asked again
    (:func:`xcsh.tui.approval.ask_approval`); input closed declines. The line
    is read on a daemon thread so Ctrl-C is never stuck behind a blocked read.
    """
    from xcsh.tui.approval import ask_approval
    from xcsh.ui import make_console

    console = make_console(prompt_out)

    read = _prompt_reader(stdin, prompt_out)

    async def ask(action: PendingAction, reason: str) -> Approval:
        from xcsh.agent import Approval

        try:
            return await ask_approval(action, reason, read, console.print)
        except EOFError:
            return Approval(approved=False, reason=INPUT_CLOSED_REASON)

    return ask


def terminal_tool_approval(stdin: TextIO, prompt_out: TextIO) -> ToolApprovalHook:
    """A hook that asks on the terminal before a call an ``ask`` approval rule covers.

    Clear answers only (``y``, ``n`` or ``n REASON``); others are asked again.
    """

    from xcsh.tui.approval import ask_plain
    from xcsh.ui import make_console

    console = make_console(prompt_out)

    read = _prompt_reader(stdin, prompt_out)

    async def ask(question: ToolQuestion) -> Approval:
        from xcsh.agent import Approval

        try:
            return await ask_plain(question.prompt(), read, console.print)
        except EOFError:
            return Approval(approved=False, reason=INPUT_CLOSED_REASON)

    return ask


def _prompt_reader(stdin: TextIO, prompt_out: TextIO) -> Callable[[str], Awaitable[str]]:
    """``read(prompt)``: write ``prompt`` to ``prompt_out``, await one line of ``stdin``.

    Raises:
        EOFError: ``stdin`` was closed before a line came.
    """

    async def read(prompt: str) -> str:
        prompt_out.write(prompt)
        prompt_out.flush()
        line = await read_line(stdin)
        if not line:
            raise EOFError
        return line

    return read


async def read_line(stream: TextIO) -> str:
    """Read one line from ``stream`` without blocking the event loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(line: str) -> None:
        if not future.done():
            future.set_result(line)

    def worker() -> None:
        loop.call_soon_threadsafe(deliver, stream.readline())

    import threading

    threading.Thread(target=worker, name="xcsh-approval", daemon=True).start()
    return await future
