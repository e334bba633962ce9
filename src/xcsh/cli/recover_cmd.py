"""``xcsh recover``: settle the applies a crash (or a failing disk) left unfinished.

Every xcsh command that opens a folder does this for that folder already;
``xcsh recover`` does it on demand, for this folder or (``--all``) for every
folder with a journal under ``$XCSH_HOME``. An interrupted apply whose files
all hold their new content is completed (and can be undone); any other is
rolled back, and the temporary files it left are removed. A rewind that put
a session's files back but was killed before its session file said so gets
that record now, so the conversation matches the files. Stored copies no
journal entry refers to (an apply killed while it stored them) are removed.

Exit codes: 0 nothing left unfinished, 1 some files could not be put back, or
an interrupted apply's record cannot be read (the message names it and says
what can still be done; the record is kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.cli.argparser import Parser

if TYPE_CHECKING:
    from xcsh.journal import Journal


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh recover`` argument parser."""
    parser = Parser(
        prog="xcsh recover",
        description="Roll back (or complete) applies that a crash interrupted, and remove the "
        "temporary files and stored copies they left.",
        epilog="exit codes: 0 done, 1 some files could not be put back, or an interrupted "
        "apply's record cannot be read (the message names them)",
    )
    parser.add_argument(
        "--all", action="store_true", help="every folder with a journal, not only this one"
    )
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh recover``; returns the exit code."""
    from xcsh.cli.say import say
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal, settled

    args = build_parser().parse_args(argv)
    home = xcsh_home()
    journals = [Journal.for_root(home, Path.cwd())]
    if args.all:
        journals = []
        for folder in sorted((home / "journal").glob("*/entries")):
            root = _root_of(folder)
            if root is not None:
                journals.append(Journal(folder.parent, root, home=home))
    code = 0
    count = 0
    for journal in journals:
        opened = settled(journal)
        if opened.problem:
            say(f"xcsh recover: {opened.problem}", file=sys.stderr, one_line=True)
            code = 1
            continue
        for report in opened.recovered:
            count += 1
            say(f"{journal.root}: {report.message}", one_line=True)
            if report.still_new or report.unreadable is not None:
                code = 1
        for line in _rewinds(journal, home):
            count += 1
            say(f"{journal.root}: {line}", one_line=True)
        freed = _sweep(journal)
        if freed:
            count += 1
            say(f"{journal.root}: {freed}", one_line=True)
    if not count and code == 0:
        print("Nothing to recover: no apply was interrupted.")
    return code


def _sweep(journal: Journal) -> str:
    """Remove the stored copies no record refers to (a killed apply's); what to say, or "".

    A failure to do so is said and is no error: recovery itself is done.
    """
    from xcsh.journal import JournalError

    try:
        freed = journal.sweep()
    except (JournalError, OSError) as exc:
        return f"could not check the journal's stored copies: {exc}"
    if not freed:
        return ""
    return f"Removed stored copies no journal entry refers to ({_size(freed)} freed)."


def _size(count: int) -> str:
    """``count`` bytes for people: ``512 bytes``, ``14 KiB``, ``3.2 MiB``."""
    if count < 1024:
        return f"{count} bytes"
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"


def _rewinds(journal: Journal, home: Path) -> list[str]:
    """Session files completed after a rewind whose record a crash cut off."""
    if not any(s.kind == "rewind" for s in journal.summaries()):
        return []  # the agent's modules are loaded only when there is a rewind to check
    from xcsh.agent.record.rewind import reconcile

    return reconcile(journal, home)


def _root_of(entries: Path) -> Path | None:
    """The workspace a journal belongs to, read from one of its intent records.

    A record this version cannot read (or not JSON) is passed over; ``None``
    when no record names the workspace.
    """
    from xcsh.core.json_read import loads as bounded_json
    from xcsh.journal.records import parse_intent

    for record in sorted(entries.glob("*.json")):
        try:
            intent = parse_intent(bounded_json(record.read_bytes()))
        except (OSError, ValueError):
            continue
        if intent is not None:
            return intent.root
    return None
