"""The one-line error every command prints on stderr, and its wording of the engine's errors."""

from __future__ import annotations

import sys
from pathlib import Path

from xcsh.cli.say import say
from xcsh.fs.home import interrupted_in, xcsh_home
from xcsh.structural.base.errors import StructuralError, Wording

COMMAND_WORDING = Wording(
    pattern="-p/--pattern",
    pattern_short="-p",
    selector="--selector",
    selector_short="--selector",
    lang="-l/--lang",
    path="PATH",
    glob="--globs",
    limit="--limit",
)
"""How the commands name what the engine's errors talk about: their flags."""


def error(message: str | Exception) -> None:
    """Print ``xcsh: <message>`` on stderr; an engine error is worded with the flags.

    Control characters in it (from a file name) are made visible
    (:func:`xcsh.cli.say.say`); its own line breaks are kept.
    """
    if isinstance(message, StructuralError):
        message = message.worded(COMMAND_WORDING)
    say(f"xcsh: {message}", file=sys.stderr)


def warn_interrupted(root: str) -> None:
    """Say on stderr when an apply in the workspace ``root`` awaits ``xcsh recover``.

    For commands that must not write (searches, ``--dry-run``): an interrupted apply
    is reported, not settled.

    Settles nothing. Costs one folder listing when there is nothing to say.
    """
    home = xcsh_home()
    if not interrupted_in(home, Path(root)):
        return
    from xcsh.journal import Journal, interrupted

    note = interrupted(Journal.for_root(home, Path(root)))
    if note is not None:
        error(note)
