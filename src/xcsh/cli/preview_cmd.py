"""``xcsh preview -- COMMAND [ARGS...]``: what a command would change, before it does.

The command runs on a staged overlay of the current folder (the workspace is
not written): what it would create, change or delete is printed as a diff on
stdout (the command's own output goes to stderr), then, on a terminal, xcsh
asks whether to apply it; the apply goes through the undo journal (``xcsh
undo`` reverts it). Without a terminal and without ``--yes`` nothing is
applied. A command that fails is reported with its exit status and nothing
is applied unless ``--apply-on-failure``.

Exit codes: 0 applied, nothing to apply, or previewed only (no terminal, no
``--yes``); 1 declined, the command failed, or the apply refused (a file
changed since the preview); 2 bad usage; 130, 143 or 129 stopped by Ctrl-C,
SIGTERM or SIGHUP before the apply began (the command is ended, its staged
tree removed, nothing applied, one line on stderr). Once the apply has begun
it is never cut short: a signal then is named after the outcome.

File names in the change list are shown on one line with control characters
made visible (:func:`xcsh.core.safe.visible_line`, as ``xcsh undo --list``
shows them); the diff quotes them the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shlex
import signal
import sys
from pathlib import Path
from types import FrameType

from xcsh.cli.argparser import Parser
from xcsh.cli.interrupts import signal_name

STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a preview before its apply (exit 128 + the signal)."""


def _seconds(text: str) -> float:
    """``--timeout``'s value: a number of seconds above 0, or a clear error."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds above 0; give one, as in --timeout 60"
        )
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh preview`` argument parser."""
    parser = Parser(
        prog="xcsh preview",
        description=(
            "Run COMMAND on a staged copy of this folder, show what it would create, change "
            "or delete, then apply that through the undo journal if you say so."
        ),
        epilog="exit codes: 0 applied or nothing to apply, 1 declined or not applied, 2 usage",
    )
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--json", action="store_true", help="print the preview as JSON")
    parser.add_argument(
        "--check", action="store_true", help="run the project's check on the staged change"
    )
    parser.add_argument(
        "--apply-on-failure",
        action="store_true",
        help="offer to apply even when the command exits with a failure",
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=600.0, help="seconds above 0 (default 600)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh preview``; returns the exit code."""
    parser = build_parser()
    options = parser.parse_args(argv)
    words = list(options.command)
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        parser.print_usage(sys.stderr)
        print(
            "xcsh preview: name the command after --: xcsh preview -- ruff format .",
            file=sys.stderr,
        )
        return 2
    return asyncio.run(_run_stoppable(options, shlex.join(words)))


class _Stops:
    """Ctrl-C, SIGTERM and SIGHUP: they stop the preview until the apply begins, then are held.

    While the command runs and the preview is built, the first one cancels the
    task (the command's processes are ended, its staged tree removed). While
    the user is asked, it ends the question. From the apply on, it is only
    remembered: an apply is never cut short.
    """

    def __init__(self) -> None:
        self.came: list[int] = []
        self.holding = False
        self._task: asyncio.Task[object] | None = None
        self._installed: list[int] = []

    def install(self) -> None:
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        for sig in STOPS:
            try:
                loop.add_signal_handler(sig, self._on_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                continue
            self._installed.append(sig)

    def remove(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed = []

    def _on_signal(self, sig: int) -> None:
        first = not self.came
        self.came.append(sig)
        if first and not self.holding and self._task is not None:
            self._task.cancel()

    def ask(self, prompt: str) -> str:
        """Ask on the terminal; a signal ends the question (the answer is then ``""``)."""

        def stop(signum: int, frame: FrameType | None) -> None:
            self.came.append(signum)
            raise KeyboardInterrupt

        previous = {sig: signal.signal(sig, stop) for sig in self._installed}
        try:
            return _ask(prompt)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def stopped(self) -> int:
        """Say what stopped the preview; the exit code (128 + the signal)."""
        sig = self.came[0]
        print(f"xcsh preview: stopped by {signal_name(sig)}; nothing applied.", file=sys.stderr)
        return 128 + sig


async def _run_stoppable(options: argparse.Namespace, command: str) -> int:
    stops = _Stops()
    stops.install()
    try:
        return await _run(options, command, stops)
    except asyncio.CancelledError:
        if not stops.came:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        return stops.stopped()
    finally:
        stops.remove()


async def _run(options: argparse.Namespace, command: str, stops: _Stops) -> int:
    from xcsh.app.checks import open_checker
    from xcsh.app.settings import load_settings
    from xcsh.cli.settle import settle_or_report
    from xcsh.core.safe import visible_line
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal
    from xcsh.pending import PendingActionStore
    from xcsh.sandbox import ProcessSupervisor
    from xcsh.tools.coding._bash_previewing import Previewer

    root = Path(os.path.realpath(Path.cwd()))
    home = xcsh_home()
    settings = load_settings(home)
    journal = Journal.for_root(home, root, retention=settings.retention)
    if not settle_or_report(journal, "xcsh preview"):
        return 1
    supervisor = ProcessSupervisor()
    checker = open_checker(root, home, settings)
    store = PendingActionStore()
    previewer = Previewer(
        root=root,
        home=home,
        store=store,
        journal=journal,
        checker=checker,
        supervisor=supervisor,
        network=settings.sandbox.network,
    )
    err = sys.stderr.buffer

    def echo(chunk: bytes) -> None:
        err.write(chunk)
        err.flush()

    try:
        found, action = await previewer.run(
            command,
            env=dict(os.environ),
            timeout=options.timeout,
            on_output=echo,
            check=options.check,
        )
    finally:
        supervisor.close()
        checker.close()
    code = found.outcome.exit_code
    failed = found.outcome.how != "exited" or code != 0
    if options.json:
        print(json.dumps(_as_json(command, found, action)))
    elif action is not None:
        sys.stdout.write(action.preview.diff)
        for change in action.preview.changes:
            print(f"{change.id} {visible_line(change.file)}: {change.summary}", file=sys.stderr)
        if action.preview.check is not None:
            print(action.preview.check.summary(), file=sys.stderr)
    sys.stdout.flush()
    status = "timed out" if found.outcome.how == "timeout" else f"exit status {code}"
    if failed and not options.apply_on_failure:
        print(
            f"xcsh preview: the command failed ({status}); nothing applied "
            "(--apply-on-failure applies what it changed anyway).",
            file=sys.stderr,
        )
        return 1
    if action is None:
        print(
            "xcsh preview: the command would change no file here; nothing to apply.",
            file=sys.stderr,
        )
        return 0
    if not options.yes:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            print(
                "xcsh preview: not a terminal and no --yes: previewed only, nothing changed.",
                file=sys.stderr,
            )
            return 0
        answer = stops.ask(f"Apply these {len(action.preview.changes)} changes? [y/N] ")
        if stops.came:
            return stops.stopped()
        if answer not in ("y", "yes"):
            print("xcsh preview: declined; nothing applied.", file=sys.stderr)
            return 1
    from xcsh.pending import ApplyFailedError

    await asyncio.sleep(0)  # a signal that came while the preview was printed stops it here
    stops.holding = True  # from here on the apply is never cut short
    try:
        report = await action.effect.apply("applied with xcsh preview")
    except ApplyFailedError as exc:
        print(f"xcsh preview: {exc}", file=sys.stderr)
        return 1
    finally:
        late = [signal_name(sig) for sig in stops.came[:1]]
    entry = (
        f" (undo journal entry #{report.journal_entry}; xcsh undo reverts it)"
        if report.journal_entry
        else ""
    )
    print(f"xcsh preview: applied {len(report.files)} files{entry}.", file=sys.stderr)
    if late:
        print(
            f"xcsh preview: {late[0]} came while the change was applied; the apply finished.",
            file=sys.stderr,
        )
    return 0


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip().lower()
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        return ""


def _as_json(command: str, found: object, action: object) -> dict[str, object]:
    from xcsh.pending import PendingAction
    from xcsh.tools.coding.bash_preview import CommandPreview

    assert isinstance(found, CommandPreview)
    out: dict[str, object] = {
        "command": command,
        "exit_code": found.outcome.exit_code,
        "staging": found.staging,
        "ignored": found.ignored,
        "changes": [],
    }
    if isinstance(action, PendingAction):
        out["changes"] = [
            {"id": c.id, "file": c.file, "summary": c.summary, "diff": f.diff}
            for c, f in zip(action.preview.changes, action.preview.files, strict=True)
        ]
        if action.preview.check is not None:
            out["check"] = action.preview.check.contract()
    return out
