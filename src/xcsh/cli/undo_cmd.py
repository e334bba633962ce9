"""``xcsh undo``: put back the files of a change xcsh applied in this folder.

Every change xcsh writes to a folder is recorded in that folder's undo
journal (``$XCSH_HOME/journal/<name>-<hash>/``, :mod:`xcsh.journal`),
whichever front end made it: the terminal, ``xcsh -p``, ``xcsh mcp``,
``xcsh ast-edit``, the ``write`` and ``edit`` tools and custom tools'
applies. ``bash`` commands are not recorded. ``xcsh undo`` takes the newest
change not undone yet (or entry N) and restores its files, but only if each
still holds exactly what the apply wrote; otherwise it refuses, names the
files that changed and touches nothing. A change whose files already hold
their earlier content is marked undone. ``--list`` shows the entries.

Exit codes: 0 undone (or listed), 1 nothing to undo or refused, 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh undo`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="xcsh undo",
        description=(
            "Restore the files of the last change xcsh applied in this folder (or of entry N), "
            "if they are unchanged since. Changes made by bash commands are not recorded."
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


def main(argv: list[str]) -> int:
    """Run ``xcsh undo``; returns the exit code."""
    from xcsh.core import UsageError
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal, JournalError, Retention, UndoError, recover, undo, undoable

    args = build_parser().parse_args(argv)
    home = xcsh_home()
    here = Path.cwd().resolve()
    try:
        journal = Journal.for_root(home, here, retention=Retention.of_home(home))
    except UsageError as exc:
        print(f"xcsh undo: {exc}", file=sys.stderr)
        return 2
    try:
        for recovered in recover(journal):
            print(f"xcsh undo: {recovered.message}", file=sys.stderr)
    except (JournalError, OSError) as exc:
        print(f"xcsh undo: {exc}", file=sys.stderr)
        return 1
    if args.list:
        summaries = [s for s in journal.summaries() if s.kind == "apply"]
        if not summaries:
            print(f"No changes are recorded for {here}.")
            return 0
        live = {s.seq for s in undoable(journal)}
        for s in summaries:
            if s.state is None:
                state = "unfinished"
            elif s.state != "committed":
                state = "rolled back"
            else:
                state = "applied" if s.seq in live else "undone"
            files = ", ".join(s.paths)
            if s.count > len(s.paths):
                files += f" and {s.count - len(s.paths)} more"
            print(f"{s.seq:>4}  {s.created}  {state:<7}  {s.label}: {files}")
        return 0
    try:
        outcome = undo(journal, args.entry)
    except UndoError as exc:
        print(f"xcsh undo: {exc}", file=sys.stderr)
        return 1
    print(outcome.message)
    return 0
