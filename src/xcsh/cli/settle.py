"""Opening a folder's journal for a command that writes: retention read, interrupted settled."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.journal import Journal, Retention


def settle_or_report(journal: Journal, prog: str) -> bool:
    """Settle ``journal``'s interrupted applies, saying on stderr what recovery did.

    Each line starts with ``prog: `` (``xcsh undo: Recovered an interrupted apply ...``),
    the names in it made visible (:func:`xcsh.cli.say.say`).

    Returns:
        False when recovery could not run (the journal is locked or unreadable);
        the problem was said, and the command should stop with exit code 1.
    """
    from xcsh.cli.say import say
    from xcsh.journal import settled

    opened = settled(journal)
    for recovered in opened.recovered:
        say(f"{prog}: {recovered.message}", file=sys.stderr, one_line=True)
    if opened.problem:
        say(f"{prog}: {opened.problem}", file=sys.stderr, one_line=True)
        return False
    return True


def lenient_retention(home: Path, prog: str) -> Retention:
    """The undo journal's retention for ``xcsh undo`` and ``xcsh rewind``, never refused.

    A bad ``journal_max_entries`` or ``journal_max_bytes`` is said on stderr (led by
    ``prog``: the file, the key, the fix) and its default used: a broken setting never
    stands between a user and their files.
    """
    from xcsh.app import read_settings
    from xcsh.cli.say import say

    retention, problems = read_settings(home).lenient_retention()
    for problem in problems:
        say(f"{prog}: {problem.args[0]}; the default is used.", file=sys.stderr)
        if problem.hint:
            say(f"Hint: {problem.hint}", file=sys.stderr)
    return retention
