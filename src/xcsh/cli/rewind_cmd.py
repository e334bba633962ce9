"""``xcsh rewind``: take a session's files and conversation back to before one of its messages.

Every agent session records a checkpoint before each message the user sends
(the undo journal's position then). ``xcsh rewind --list`` shows the user
messages of the latest session in this folder (``--session ID`` for another),
newest first, each with the changes made since; ``xcsh rewind N`` goes back
to just before message N (1 = the first): the files the session changed
since are put back through the undo journal (crash-safe, all or nothing per
file; files changed since by someone else are left alone and named; files
``bash`` changed are named, not reverted), and the conversation is cut to
before message N, which a later ``xcsh --continue`` resumes.
``--files-only`` and ``--conversation-only`` take back one of the two.

Exit codes: 0 rewound (or listed), 1 refused (nothing changed), 2 bad usage.
Ctrl-C, SIGTERM or SIGHUP while going back does not stop the rewind: it
finishes, the exit code is its own and stderr says the signal came too late
(:mod:`xcsh.cli.interrupts`).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.cli.argparser import Parser
from xcsh.cli.interrupts import signal_name
from xcsh.cli.say import say
from xcsh.cli.settle import lenient_retention, settle_or_report
from xcsh.cli.stdout import end_process

if TYPE_CHECKING:  # the agent and the journal are imported only when the command runs
    from xcsh.agent.record.checkpoints import Checkpoint
    from xcsh.agent.record.persistence import SavedSession
    from xcsh.journal import Journal


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh rewind`` argument parser."""
    parser = Parser(
        prog="xcsh rewind",
        description=(
            "Take an agent session back to just before its user message N: the files it "
            "changed since (through the undo journal) and its conversation. Changes made by "
            "bash commands or other programs are named, not reverted."
        ),
        epilog="exit codes: 0 rewound or listed, 1 refused (nothing changed), 2 usage",
    )
    parser.add_argument(
        "message",
        nargs="?",
        type=int,
        metavar="N",
        help="the user message to go back before (1 = the first; see --list)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the session's user messages, newest first"
    )
    parser.add_argument(
        "--session",
        metavar="ID",
        help="the session (default: the latest one started in this folder)",
    )
    only = parser.add_mutually_exclusive_group()
    only.add_argument(
        "--files-only", action="store_true", help="put the files back; keep the conversation"
    )
    only.add_argument(
        "--conversation-only",
        action="store_true",
        help="cut the conversation; keep the files as they are",
    )
    return parser


def main(argv: list[str], *, owns_process: bool = False) -> int:
    """Run ``xcsh rewind``; returns the exit code.

    ``owns_process``: the ``xcsh`` command itself, which the rewind may end once it
    said what it did (see :func:`_rewind`).
    """
    from xcsh.agent.record.persistence import load_session
    from xcsh.agent.record.rewind import checkpoint_of, reconcile
    from xcsh.core import UsageError
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal

    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.list and args.message is None:
        parser.error("give N (the user message to go back before) or --list")
    home = xcsh_home()
    here = Path.cwd().resolve()
    try:
        path = _session_file(home, here, args.session)
        saved = load_session(path)
        root = Path(saved.cwd) if saved.cwd else here
        journal = Journal.for_root(home, root, retention=lenient_retention(home, "xcsh rewind"))
    except UsageError as exc:
        say(f"xcsh rewind: {exc}", file=sys.stderr)
        return 2
    if not settle_or_report(journal, "xcsh rewind"):
        return 1
    if reconcile(journal, home, saved.id):
        saved = load_session(path)
    journal = journal.for_session(saved.id)
    if args.list:
        return _list(saved, journal, root)
    try:
        checkpoint = checkpoint_of(saved, args.message)
    except UsageError as exc:
        say(f"xcsh rewind: {exc}", file=sys.stderr)
        return 2
    return _rewind(args, path, saved, journal, checkpoint, owns_process=owns_process)


def _session_file(home: Path, here: Path, session: str | None) -> Path:
    """The session file ``--session ID`` names, else the latest one of ``here``.

    Raises:
        UsageError: no such session, or none saved for ``here``.
    """
    from xcsh.agent.record.persistence import latest_session_for, session_path
    from xcsh.core import UsageError

    if session:
        try:
            return session_path(home, session)
        except UsageError as exc:
            raise UsageError(
                exc.args[0],
                hint=f"session files are in {home / 'sessions'} (the id is the file name "
                "without .jsonl); leave --session out for the latest one in this folder",
            ) from exc
    found = latest_session_for(home, here)
    if found is None:
        raise UsageError(
            f"no saved session for {here}",
            hint="run xcsh here first, or name one with --session ID",
        )
    return found


def _list(saved: SavedSession, journal: Journal, root: Path) -> int:
    """``--list``: the points the session can go back to, newest first."""
    from xcsh.agent.record.rewind import rewind_points

    points = rewind_points(saved, journal)
    if not points:
        say(f"Session {saved.id} has no user message to rewind to.", one_line=True)
        return 0
    say(
        f"Session {saved.id} in {root}, newest first (xcsh rewind N goes back before N):",
        one_line=True,
    )
    for point in reversed(points):
        print(point.line())  # made visible on one line by line()
    return 0


def _rewind(
    args: argparse.Namespace,
    path: Path,
    saved: SavedSession,
    journal: Journal,
    checkpoint: Checkpoint,
    *,
    owns_process: bool = False,
) -> int:
    """Go back before user message ``args.message``: the files, the conversation or both.

    Ctrl-C, SIGTERM and SIGHUP are held from the start until what was done is said;
    with ``owns_process`` the process then ends at once, so no signal can turn a
    finished rewind into 130, 143 or 129.
    """
    from xcsh.agent.record.persistence import SessionRecorder
    from xcsh.agent.record.rewind import (
        RewindError,
        RewindMode,
        kept_pending,
        rewind,
        session_closed,
    )
    from xcsh.journal import SignalHold

    mode: RewindMode = (
        "files" if args.files_only else "conversation" if args.conversation_only else "both"
    )
    kept = kept_pending(saved, checkpoint)
    dropped = [r.label for r in saved.pending if r not in kept]
    held = SignalHold()  # a rewind is never cut short: no signal may say it was
    held.hold()
    try:
        try:
            with session_closed(path, saved.id):
                recorder = SessionRecorder(path)
                try:
                    outcome = rewind(
                        journal, saved, args.message, mode, write=recorder.write, discarded=dropped
                    )
                    if dropped:
                        recorder.pending(kept)
                finally:
                    recorder.close()
        except RewindError as exc:
            say(f"xcsh rewind: {exc}", file=sys.stderr, one_line=True)
            return _end(1, owns_process=owns_process)
        for line in outcome.lines():
            say(line, one_line=True)
        if mode != "files":
            say(f"Message {args.message} was: {checkpoint.text}")
        if held.first is not None:
            print(REWOUND_DESPITE_SIGNAL.format(signal=signal_name(held.first)), file=sys.stderr)
        return _end(0, owns_process=owns_process)
    finally:
        held.release(raise_again=False)


REWOUND_DESPITE_SIGNAL = (
    "xcsh rewind: {signal} came while going back: a rewind is never cut short, so it was "
    "finished (as the lines above say)."
)
"""Said on stderr after the outcome when Ctrl-C (or SIGTERM, SIGHUP: ``{signal}``) came
during a rewind."""


def _end(code: int, *, owns_process: bool) -> int:
    """``code``; with ``owns_process`` the process ends here with it, Ctrl-C still held."""
    if owns_process:
        with contextlib.suppress(OSError):
            end_process(code)
    return code
