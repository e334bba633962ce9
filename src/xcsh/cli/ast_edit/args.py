"""``xcsh ast-edit``'s command line: its options, their help and the exit codes."""

from __future__ import annotations

import argparse

from xcsh.cli.argparser import Parser
from xcsh.cli.search_flags import add_rule_argument, add_scope_arguments


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh ast-edit`` argument parser."""
    parser = Parser(
        prog="xcsh ast-edit",
        description=(
            "Structural rewrite with ast-grep patterns: preview the diff, then apply or "
            "discard it with a reason."
        ),
        epilog=(
            "exit codes: 0 done (applied, discarded or previewed), 1 no replacement, "
            "2 bad input, 3 applying failed (nothing written), 4 --yes refused because the "
            "check newly fails (apply_requires_checks), 130 Ctrl-C before applying (discarded; "
            "once applying, Ctrl-C does not stop it), "
            "141 output closed early and nothing applied"
        ),
    )
    parser.add_argument("-p", "--pattern", help="the ast-grep pattern to match")
    parser.add_argument(
        "-r",
        "--rewrite",
        help="the replacement; may use the pattern's metavariables; empty deletes the match",
    )
    add_rule_argument(parser)
    add_scope_arguments(parser, counted="replacements")
    decide = parser.add_mutually_exclusive_group()
    decide.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    decide.add_argument(
        "--dry-run", action="store_true", help="only preview; change nothing and do not ask"
    )
    parser.add_argument(
        "--no-pager",
        action="store_true",
        help="never page a long preview (by default one taller than the terminal goes "
        "through $XCSH_PAGER, $PAGER or less)",
    )
    decide.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="go through the changes one by one (y/n/a/d/q as in git add -p); the kept ones "
        "are written at the end, all or nothing; Ctrl-C writes nothing",
    )
    parser.add_argument(
        "--include-broken",
        action="store_true",
        help="also rewrite files whose new text would not parse (left out by default)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="run the project's check (the `check` setting) on the preview staged over the "
        "workspace, and show whether it passes, newly fails or timed out",
    )
    parser.add_argument(
        "--include-parse-errors",
        action="store_true",
        help="also rewrite files that already have parse errors, as ast-grep does "
        "(for valid files the parser gets wrong)",
    )
    return parser


__all__ = ["build_parser"]
