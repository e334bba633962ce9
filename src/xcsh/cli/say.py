"""Printing what a person reads, with every name from the workspace made safe first.

File names, labels, session messages and the journal's messages that name them
come from places xcsh does not control: a file named with an OSC sequence would
set the terminal's title or clear the screen, a newline in one would split a
listed line in two. The commands print such text through :func:`say`, which
passes it through the one sanitiser, :mod:`xcsh.core.safe` (control characters
in caret notation). JSON output never goes through here: it stays exact.
"""

from __future__ import annotations

import sys
from typing import TextIO

from xcsh.core.safe import visible, visible_line


def say(text: object, *, file: TextIO | None = None, one_line: bool = False) -> None:
    """Print ``text`` on ``file`` (standard output by default), made visible.

    Args:
        text: the message; ``str(text)`` for an exception.
        file: where to print it; ``None`` is ``sys.stdout`` as it is now.
        one_line: the text is one line by construction (a journal message, a listed
            entry), so a newline in it can only come from a name: shown as ``^J``.
            Otherwise newlines and tabs lay the text out and are kept.
    """
    shown = visible_line(str(text)) if one_line else visible(str(text))
    print(shown, file=sys.stdout if file is None else file)
