"""Opening a folder's journal for a command that writes: interrupted applies settled first."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.journal import Journal


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
