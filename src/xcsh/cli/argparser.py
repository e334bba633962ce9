"""The argument parser every ``xcsh`` command builds: ``argparse`` plus suggestions.

A close match is offered for a mistyped flag (``--limt`` -> ``did you mean
--limit?``) or, where the parser is given its commands, a mistyped command
(``ast-gerp`` -> ``ast-grep``).

Standard library only, so that ``xcsh --help`` stays light.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from typing import NoReturn

_UNRECOGNIZED = "unrecognized arguments: "
_CUTOFF = 0.75
"""How alike (``difflib`` ratio) a flag must be to be offered: one typo in a short flag."""


class Parser(argparse.ArgumentParser):
    """:class:`argparse.ArgumentParser` that suggests what a mistyped argument meant.

    Its "unrecognized arguments" error names the closest flags the command has
    (``difflib``), as ``git`` and ``ast-grep`` do, and the closest of ``commands``
    for a word that is not a flag.
    """

    def __init__(
        self,
        *,
        prog: str | None = None,
        description: str | None = None,
        epilog: str | None = None,
        formatter_class: type[argparse.HelpFormatter] = argparse.HelpFormatter,
        add_help: bool = True,
        commands: Sequence[str] = (),
    ) -> None:
        """A parser with ``argparse``'s own meaning of each argument.

        Args:
            prog: the command's name in usage and messages.
            description: the text before the options in ``--help``.
            epilog: the text after them.
            formatter_class: how ``--help`` lays the text out.
            add_help: give the parser ``-h``/``--help``.
            commands: the words a positional argument may be (offered for a typo).
        """
        super().__init__(
            prog=prog,
            description=description,
            epilog=epilog,
            formatter_class=formatter_class,
            add_help=add_help,
        )
        self.commands = tuple(commands)

    def error(self, message: str) -> NoReturn:
        """Print usage and ``message`` (with suggestions) on stderr, exit 2."""
        if message.startswith(_UNRECOGNIZED):
            given = message.removeprefix(_UNRECOGNIZED).split()
            message += suggest(given, self.flags(), self.commands)
        super().error(message)

    def flags(self) -> list[str]:
        """Every long flag of this parser (``--limit``...)."""
        return [flag for flag in self._option_string_actions if flag.startswith("--")]


def suggest(given: list[str], flags: list[str], commands: Sequence[str] = ()) -> str:
    """`` (did you mean --limit?)`` for the mistyped flags and commands in ``given``.

    ``""`` when none is close to a known one.

    Args:
        given: the arguments the parser did not recognise (``--limt=5`` is looked up
            as ``--limt``).
        flags: the flags the command has.
        commands: the commands a word that is not a flag may have meant (``ast-gerp``).
    """
    found: list[tuple[str, str]] = []
    for arg in given:
        if arg.startswith("--"):
            name, known = arg.split("=", 1)[0], flags
        elif not arg.startswith("-") and commands:
            name, known = arg, list(commands)
        else:
            continue
        # the closest first; equally plausible ones too (--modle: --mode or --model)
        close = difflib.get_close_matches(name, known, n=3, cutoff=_CUTOFF)
        if close:
            found.append((name, " or ".join(close)))
    if not found:
        return ""
    if len(found) == 1:
        return f" (did you mean {found[0][1]}?)"
    return " (did you mean " + ", ".join(f"{flag} for {name}" for name, flag in found) + "?)"
