"""The flags every search command takes, as ``ast-grep`` spells them: scope, globs, rules, JSON."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from xcsh.core import UsageError
from xcsh.structural.base.strictness import STRICTNESS_LEVELS

STRICTNESS_CHOICES = STRICTNESS_LEVELS


def add_globs_argument(parser: argparse.ArgumentParser) -> None:
    """``--globs GLOB`` (repeatable, in order), as every search command takes it."""
    parser.add_argument(
        "--globs",
        metavar="GLOB",
        action="append",
        default=[],
        help="only files matching this glob (gitignore syntax; repeatable)",
    )


def add_scope_arguments(parser: argparse.ArgumentParser, *, counted: str = "matches") -> None:
    """The flags both commands share, named as in ``ast-grep run``.

    ``counted`` names what ``--limit`` counts (``replacements`` for ``ast-edit``).
    """
    parser.add_argument(
        "-l", "--lang", metavar="LANG", help="language (inferred from file extensions if omitted)"
    )
    parser.add_argument(
        "--selector",
        metavar="KIND",
        help="node kind inside the pattern to match, for patterns that need context",
    )
    parser.add_argument(
        "--strictness",
        choices=STRICTNESS_CHOICES,
        default="smart",
        help="how exactly the pattern must match (default: smart, as ast-grep)",
    )
    add_globs_argument(parser)
    parser.add_argument("--limit", metavar="N", type=int, help=f"stop after N {counted}")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per match (the fields of ast-grep run --json=stream); "
        "--json=pretty or --json=compact print them as one JSON array, as ast-grep does",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        default=[],
        help="files, folders or globs (default: the current folder); a PATH outside the "
        "current folder makes its repository, or its folder, the workspace",
    )


JSON_STYLES = ("pretty", "stream", "compact")
"""The forms of ``--json=STYLE``, as ``ast-grep``'s; a bare ``--json`` is ``stream``."""


def split_json_style(argv: Sequence[str]) -> tuple[list[str], str]:
    """Split ``--json=STYLE`` off ``argv``: the arguments with a bare ``--json``, and the style.

    The style is ``stream`` when none is given. As in ``ast-grep``, the style is
    attached with ``=``, so a PATH after a bare ``--json`` stays a PATH.

    Raises:
        UsageError: an unknown style.
    """
    out: list[str] = []
    style = "stream"
    for arg in argv:
        if arg == "--":
            out += argv[len(out) :]
            break
        if arg.startswith("--json="):
            style = arg.removeprefix("--json=")
            if style not in JSON_STYLES:
                raise UsageError(
                    f"--json takes {', '.join(JSON_STYLES)}; got {style!r}",
                    hint="--json alone prints JSON lines (stream)",
                )
            arg = "--json"
        out.append(arg)
    return out, style


def add_rule_argument(parser: argparse.ArgumentParser) -> None:
    """``--rule FILE``: YAML rules instead of a pattern, as ``ast-grep scan --rule``."""
    parser.add_argument(
        "--rule",
        metavar="FILE",
        help="a YAML rule file (one or more rules, as ast-grep scan --rule) instead of -p",
    )


def check_limit(limit: int | None) -> None:
    """Refuse a ``--limit`` below 1.

    Raises:
        UsageError: ``limit`` is zero or negative.
    """
    if limit is not None and limit <= 0:
        raise UsageError(
            f"--limit must be a positive number of matches; got {limit}.",
            hint="leave --limit out to see every match",
        )
