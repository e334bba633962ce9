"""``xcsh undo``: put back the files of a change xcsh applied in this folder.

Every change xcsh writes to a folder is recorded in that folder's undo
journal (``$XCSH_HOME/journal/<name>-<hash>/``, :mod:`xcsh.journal`),
whichever front end made it: the terminal, ``xcsh -p``, ``xcsh mcp``,
``xcsh ast-edit``, the ``write`` and ``edit`` tools and custom tools'
applies, and each ``bash`` command's changes. ``xcsh undo`` takes the newest
change not undone yet (or entry N) and restores its files, but only if each
still holds exactly what the apply wrote; otherwise it refuses, names the
files that changed and touches nothing. A change whose files already hold
their earlier content is marked undone. ``--list`` shows the entries. An
entry whose record cannot be read is named on stderr (it cannot be listed or
undone), never passed over in silence.

Exit codes: 0 undone (or listed), 1 nothing to undo or refused, 2 bad usage.
Ctrl-C, SIGTERM or SIGHUP while the files are put back does not stop the
undo: it finishes, the exit code is 0 and stderr says the signal came too late
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

if TYPE_CHECKING:
    from xcsh.journal import ApplyEntry, Journal, SignalHold


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh undo`` argument parser."""
    parser = Parser(
        prog="xcsh undo",
        description=(
            "Restore the files of the last change xcsh applied in this folder (or of entry N), "
            "if they are unchanged since. Each bash command's changes are one entry."
        ),
        epilog="exit codes: 0 undone, 1 nothing to undo or refused (files changed since), 2 usage",
    )
    parser.add_argument(
        "entry", nargs="?", type=int, metavar="N", help="the entry to undo (see --list)"
    )
    parser.add_argument(
        "--list", action="store_true", help="list the recorded changes for this folder"
    )
    return parser


def main(argv: list[str], *, owns_process: bool = False) -> int:
    """Run ``xcsh undo``; returns the exit code.

    Ctrl-C, SIGTERM and SIGHUP are held from the undo's start until what it did is
    said; with ``owns_process`` (the ``xcsh`` command itself) the process then ends
    at once (:func:`~xcsh.cli.stdout.end_process`), so no signal can turn a finished
    undo into exit 130, 143 or 129.
    """
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal, SignalHold, applies
    from xcsh.journal.unreadable import unlisted

    args = build_parser().parse_args(argv)
    home = xcsh_home()
    here = Path.cwd().resolve()
    journal = Journal.for_root(home, here, retention=lenient_retention(home, "xcsh undo"))
    if not settle_or_report(journal, "xcsh undo"):
        return 1
    for lost in unlisted(journal):  # the interrupted ones were said by recovery
        if lost.finished:
            say(f"xcsh undo: {lost.message}", file=sys.stderr, one_line=True)
    if args.list:
        entries = applies(journal)
        if not entries:
            say(f"No changes are recorded for {here}.", one_line=True)
            return 0
        for line in listing(entries):
            print(line)  # each field made visible on one line by listing()
        return 0
    held = SignalHold()  # an undo is never cut short: no signal may say it was
    held.hold()
    try:
        code = _undo_and_say(journal, args.entry, held)
        if owns_process:  # ended here, signals still held: no 130 after the files changed
            with contextlib.suppress(OSError):
                end_process(code)
        return code
    finally:
        held.release(raise_again=False)


UNDONE_DESPITE_SIGNAL = (
    "xcsh undo: {signal} came while the files were being put back: an undo is never cut "
    "short, so it was finished (the files are as the line above says)."
)
"""Said on stderr after the outcome when Ctrl-C (or SIGTERM, SIGHUP: ``{signal}``) came
during a successful undo."""


def _undo_and_say(journal: Journal, entry: int | None, held: SignalHold) -> int:
    """Undo ``entry`` (the newest when None) and say what happened; returns the exit code."""
    from xcsh.journal import UndoError, undo

    try:
        outcome = undo(journal, entry)
    except UndoError as exc:
        say(f"xcsh undo: {exc}", file=sys.stderr, one_line=True)
        return 1
    say(outcome.message, one_line=True)
    if held.first is not None:
        print(UNDONE_DESPITE_SIGNAL.format(signal=signal_name(held.first)), file=sys.stderr)
    return 0


def listing(entries: list[ApplyEntry]) -> list[str]:
    """The lines of ``xcsh undo --list``: number, time, state, then label and files.

    Each column is as wide as its widest cell, so every row's label starts
    in the same column whatever the states and numbers are. Labels and file
    names are made visible on one line (:func:`xcsh.core.safe.visible_line`):
    the lines are safe to print, one entry each.
    """
    from xcsh.core.safe import visible_line

    rows = []
    for entry in entries:
        s = entry.summary
        files = ", ".join(visible_line(path) for path in s.paths)
        if s.count > len(s.paths):
            files += f" and {s.count - len(s.paths)} more"
        rows.append((str(s.seq), s.created, entry.state, f"{visible_line(s.label)}: {files}"))
    seq_width = max(len(row[0]) for row in rows)
    time_width = max(len(row[1]) for row in rows)
    state_width = max(len(row[2]) for row in rows)
    return [
        f"{seq.rjust(seq_width)}  {created.ljust(time_width)}  {state.ljust(state_width)}  {what}"
        for seq, created, state, what in rows
    ]
