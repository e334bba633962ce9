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
from typing import TYPE_CHECKING, TextIO

from xcsh.cli import SUBCOMMANDS, is_output_error, subcommand_help
from xcsh.cli.argparser import Parser

if TYPE_CHECKING:  # the agent stack is imported only when a task runs
    from rich.console import Console

    from xcsh.agent import AgentEvent, RunEnd
    from xcsh.app import AppOptions, SessionToolsFactory
    from xcsh.cli.print_output import AppliedThisTurn
    from xcsh.ui.usage import UsageTotals

NO_TUI_MESSAGE = (
    "xcsh: the interactive session needs a terminal on stdin and stdout.\n"
    'Run a task with: xcsh -p "TASK"   (see xcsh --help)'
)


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh`` argument parser: the agent's options, the subcommands listed in the help."""
    parser = Parser(
        prog="xcsh",
        description="A coding agent whose destructive tools preview first.",
        epilog=subcommand_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        commands=list(SUBCOMMANDS),
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
    """Run ``xcsh`` with the arguments ``argv`` (without the program name).

    Prints the version, opens the terminal UI when no prompt is given, or runs the
    agent once on the prompt.

    Returns:
        The process exit code: 0 on success, 1 when xcsh refused to run (a provider's
        configuration, for one), 2 for a usage error, 130 when cancelled; the message
        is on stderr.
    """
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

    from xcsh.cli.say import say
    from xcsh.core import UsageError, XcshError

    try:
        args.prompt = task_text(args.prompt, sys.stdin)
        return asyncio.run(run_print_until_signal(args))
    except KeyboardInterrupt:
        print("xcsh: cancelled", file=sys.stderr)
        return 130
    except UsageError as exc:
        say(f"xcsh: {exc}", file=sys.stderr)
        return 2
    except XcshError as exc:  # a provider refusing its configuration, for one
        say(f"xcsh: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # the dispatcher ends quietly when the reader went away
    except OSError as exc:  # a file or folder xcsh needs is unusable
        if is_output_error(exc):
            raise  # standard output cannot be written: the dispatcher says so (exit 74)
        say(f"xcsh: {exc}", file=sys.stderr)
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
    import asyncio

    from xcsh.agent import TurnEnd
    from xcsh.app import open_session
    from xcsh.cli.print_output import AppliedThisTurn, JsonPrinter, TextPrinter
    from xcsh.ui import detect_style, make_console
    from xcsh.ui.opening import opening_header, show_print_opening
    from xcsh.ui.usage import UsageTotals

    out = stdout if stdout is not None else sys.stdout
    err_console = make_console(sys.stderr)
    opened = await open_session(_app_options(args), tools=tools)
    progress = args.mode != "json"  # json mode's header says the rest
    show_print_opening(err_console, detect_style(sys.stderr), opened, progress=progress)
    session = opened.session
    printer: TextPrinter | None = None
    json_printer: JsonPrinter | None = None
    if args.mode == "json":
        print(json.dumps(opening_header(opened), ensure_ascii=False), file=out, flush=True)
        json_printer = JsonPrinter(out, on_broken_pipe=session.cancel)
        session.subscribe(json_printer)
    else:
        printer = TextPrinter(err_console)
        session.subscribe(printer)
    totals = [UsageTotals()]

    def count(event: AgentEvent) -> None:
        if isinstance(event, TurnEnd):
            totals[0] = totals[0].add(event.message.usage)

    session.subscribe(count)
    applied = AppliedThisTurn(opened.journal.journal)
    session.subscribe(applied)
    try:
        end = await session.prompt(args.prompt, last=True)
    except asyncio.CancelledError:  # Ctrl-C, SIGTERM, SIGHUP
        _say_applied(applied)
        raise
    finally:
        session.close()
        await opened.aclose()  # the MCP servers' processes end with the run
    if end.reason == "cancelled":
        _say_applied(applied)
    if json_printer is not None and json_printer.broken_pipe:
        # The reader went away: the run was cancelled; the dispatcher exits 141 quietly.
        raise BrokenPipeError(errno.EPIPE, "standard output was closed")
    if json_printer is not None and json_printer.write_error is not None:
        raise json_printer.write_error  # the run was cancelled; the dispatcher says why
    if args.mode == "text":
        shown = printer.shown_errors if printer is not None else set()
        _finish_text(end, session.id, totals[0], shown, out, err_console)
    return {"stop": 0, "cancelled": 130}.get(end.reason, 1)


def _say_applied(applied: AppliedThisTurn) -> None:
    """On stderr, what the cancelled turn applied before the cancel took effect, if anything."""
    from xcsh.cli.say import say

    note = applied.note()
    if note is not None:
        say(note, file=sys.stderr)
        sys.stderr.flush()


def _app_options(args: argparse.Namespace) -> AppOptions:
    """The session the command line asks for (``--approve ask`` needs a terminal).

    Raises:
        UsageError: ``--approve ask`` without a terminal on stdin.
    """
    from pathlib import Path

    from xcsh.app import AppOptions
    from xcsh.cli.terminal_ask import (
        NO_TERMINAL_HINT,
        NO_TERMINAL_MESSAGE,
        is_terminal,
        terminal_approval,
        terminal_tool_approval,
    )
    from xcsh.core import UsageError

    if args.approve == "ask" and not is_terminal(sys.stdin):
        raise UsageError(NO_TERMINAL_MESSAGE, hint=NO_TERMINAL_HINT)
    approval = terminal_approval(sys.stdin, sys.stderr) if args.approve == "ask" else None
    return AppOptions(
        cwd=Path.cwd(),
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        continue_latest=args.continue_latest,
        session_id=args.session,
        approval=approval,
        ask_tool=terminal_tool_approval(sys.stdin, sys.stderr) if is_terminal(sys.stdin) else None,
        trust_project=args.trust_project,
        instructions=args.instructions,
    )


def _finish_text(
    end: RunEnd,
    session_id: str,
    totals: UsageTotals,
    shown: set[str],
    out: TextIO,
    err_console: Console,
) -> None:
    """In text mode, report how the run ended.

    The answer goes on stdout; then why the run stopped (unless already shown) and the
    session's id and usage go on stderr.
    """
    from xcsh.ui import detect_style, visible
    from xcsh.ui.usage import usage_text

    if end.final_text:
        print(visible(end.final_text), file=out, flush=True)
    if end.reason != "stop" and end.message and end.message not in shown:
        err_console.print(f"xcsh: {end.message}", style="yellow", markup=False)
    err_console.print(
        f"session {session_id} (resume with --continue)"
        + usage_text(totals, unicode=detect_style(sys.stderr).unicode),
        style="dim",
        markup=False,
    )
