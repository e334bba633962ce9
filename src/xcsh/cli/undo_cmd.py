"""``xcsh undo``: put back the files of the last change ``xcsh ast-edit`` applied here.

``xcsh ast-edit`` records each apply in the undo journal
(``$XCSH_HOME/journal/ast-edit/``, :mod:`xcsh.journal`): the bytes of every
file before and after. ``xcsh undo`` takes the newest entry recorded for the
current folder that is not undone yet and restores the files, but only if
each still holds exactly what the apply wrote; otherwise it refuses, names
the files that changed and touches nothing. Run it again to undo the apply
before that one. ``--list`` shows the entries instead.

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
            "Restore the files of the last change xcsh ast-edit applied in this folder, "
            "if they are unchanged since."
        ),
        epilog="exit codes: 0 undone, 1 nothing to undo or refused (files changed since)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the recorded applies for this folder"
    )
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh undo``; returns the exit code."""
    from xcsh.app import xcsh_home
    from xcsh.journal import Journal, UndoError, command_journal_dir

    args = build_parser().parse_args(argv)
    journal = Journal(command_journal_dir(xcsh_home()))
    here = Path.cwd().resolve()
    if args.list:
        entries = [e for e in journal.entries() if e.root == here]
        if not entries:
            print(f"No xcsh ast-edit applies are recorded for {here}.")
        for entry in entries:
            state = "undone" if entry.undone else "applied"
            files = ", ".join(c.path for c in entry.files)
            print(f"{entry.seq:>4}  {entry.created}  {state:<7}  {entry.label}: {files}")
        return 0
    try:
        outcome = journal.undo_last(root=here)
    except UndoError as exc:
        print(f"xcsh undo: {exc}", file=sys.stderr)
        return 1
    print(outcome.message)
    return 0
