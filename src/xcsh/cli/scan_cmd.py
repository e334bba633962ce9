"""``xcsh scan``: run a project's YAML rules, like ``ast-grep scan``.

The rules come from the nearest ``sgconfig.yml`` at or above the current
folder (its ``ruleDirs``, with the utility rules of its ``utilDirs``), from
``-c CONFIG``, or from ``--rule FILE``. Without ``--fix`` every match is
printed as ``ast-grep scan --color never`` prints it: a framed diagnostic
with its labels and the rule's note, or the diff of the rule's fix
(``--json``: the objects of ``ast-grep scan --json=stream``). With ``--fix``
the fixes of the rules are previewed as one edit and applied or discarded as ``xcsh ast-edit`` does
(``--yes``, ``--dry-run``, ``-i`` to go through the fixes one by one, the
question on a terminal, ``xcsh undo``; ``--include-broken`` and
``--include-parse-errors`` to fix, as ``ast-grep scan -U`` does, the files
left out by default).

Exit codes: those of ``ast-grep scan``: 1 when a rule of severity ``error``
matched, else 0 (matches of other severities, or none), 2 bad input; with
``--fix`` those of ``xcsh ast-edit``, except that nothing to fix is no failure,
as with ``ast-grep scan -U``: the rules without a fix still report, and the exit
code is theirs (0, or 1 when one of severity ``error`` matched). A key
``ast-grep`` ignores inside a rule (a misspelt ``stopby``) and two rules of one
``--rule`` file sharing an id are run as ``ast-grep`` runs them, with a warning
on stderr naming the YAML path (a project's rules, as ``ast-grep scan``, need
ids of their own); ``--strict-rules`` (or ``strict_rules = true`` in
settings.toml) refuses them.
"""

from __future__ import annotations

import argparse
import os
import signal
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from xcsh.cli import ast_grep_cmd
from xcsh.cli.argparser import Parser
from xcsh.cli.ast_edit import command as ast_edit_cmd
from xcsh.cli.errors import error
from xcsh.cli.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NO_MATCH
from xcsh.cli.options import EditOptions, SearchOptions
from xcsh.cli.search_flags import add_globs_argument, split_json_style
from xcsh.core import ToolError, UsageError
from xcsh.structural.rules.compile import load_rule_file
from xcsh.structural.rules.project import find_config, load_project
from xcsh.structural.rules.schema import RuleWarning

REPORT_INTERRUPTED_NOTE = (
    "interrupted while reporting the rules without a fix: the fixes above were applied "
    "before it; xcsh undo reverts them."
)
"""Said on stderr when Ctrl-C (exit 130), SIGTERM (143) or SIGHUP (129) stops the report
that follows an applied ``--fix``."""


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh scan`` argument parser."""
    parser = Parser(
        prog="xcsh scan",
        description="Run YAML rules (a project's sgconfig.yml, or --rule FILE) like ast-grep scan.",
        epilog="exit codes: 1 a rule of severity error matched, 0 otherwise, 2 bad input "
        "(with --fix: those of xcsh ast-edit, but nothing to fix is no failure)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "-c", "--config", metavar="CONFIG", help="the project configuration (default: sgconfig.yml)"
    )
    source.add_argument("--rule", metavar="FILE", help="one YAML rule file instead of the project")
    parser.add_argument(
        "--strict-rules",
        action="store_true",
        help="refuse rule files with keys ast-grep ignores (a misspelt `stopby`) or two rules "
        "sharing an id, instead of warning (also: strict_rules = true in settings.toml)",
    )
    add_globs_argument(parser)
    parser.add_argument("--limit", metavar="N", type=int, help="stop after N matches")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON lines (ast-grep scan --json=stream); --json=pretty or --json=compact "
        "print one JSON array, as ast-grep does",
    )
    parser.add_argument(
        "--fix", action="store_true", help="preview the rules' fixes as one edit, then decide"
    )
    decide = parser.add_mutually_exclusive_group()
    decide.add_argument("--yes", "-y", action="store_true", help="with --fix: apply without asking")
    decide.add_argument(
        "--dry-run", action="store_true", help="with --fix: only preview; change nothing"
    )
    decide.add_argument(
        "-i",
        "--interactive",
        action="store_true",
        help="with --fix: go through the fixes one by one (y/n/a/d/q as in git add -p); the "
        "kept ones are written at the end, all or nothing; Ctrl-C writes nothing",
    )
    parser.add_argument(
        "--include-broken",
        action="store_true",
        help="with --fix: also fix files whose new text would not parse (left out by default)",
    )
    parser.add_argument(
        "--include-parse-errors",
        action="store_true",
        help="with --fix: also fix files that already have parse errors, as ast-grep scan -U "
        "does (for valid files the parser gets wrong)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="with --fix: run the project's check (the `check` setting) on the fixes staged "
        "over the workspace, and show whether it passes, newly fails or timed out",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", default=[], help="files, folders or globs to scan"
    )
    return parser


def _strict_setting() -> bool:
    """``strict_rules`` of settings.toml.

    Raises:
        UsageError: settings.toml is unreadable or holds a bad value.
    """
    from xcsh.app.settings import load_settings
    from xcsh.fs import xcsh_home

    return load_settings(xcsh_home()).strict_rules


def main(argv: list[str], *, owns_process: bool = False) -> int:
    """Run ``xcsh scan``; returns the exit code.

    ``owns_process``: as for :func:`xcsh.cli.ast_grep_cmd.main`.
    """
    parser = build_parser()
    try:
        argv, style = split_json_style(argv)
    except UsageError as exc:
        parser.error(str(exc))
    args = parser.parse_args(argv)
    if (args.yes or args.dry_run or args.interactive) and not args.fix:
        parser.error("--yes, --dry-run and -i go with --fix")
    if (args.include_broken or args.include_parse_errors or args.check) and not args.fix:
        parser.error("--include-broken, --include-parse-errors and --check go with --fix")
    warnings: list[RuleWarning] = []
    try:
        strict = args.strict_rules or _strict_setting()
        if args.rule:
            rules = load_rule_file(
                Path(args.rule), display=args.rule, strict=strict, warnings=warnings
            )
        else:
            config = Path(args.config) if args.config else find_config(Path.cwd())
            if config is None:
                raise ToolError(
                    "No sgconfig.yml in this folder or above. Create one with "
                    "`ruleDirs: [rules]`, pass -c CONFIG, or give --rule FILE."
                )
            rules = load_project(config, strict=strict, warnings=warnings).rules
    except (ToolError, UsageError) as exc:
        error(exc)
        return EXIT_BAD_INPUT
    for warning in warnings:
        error(f"warning: {warning}")
    rules = [rule for rule in rules if rule.severity != "off"]
    if not rules:  # as ast-grep scan: nothing to report is not a failure
        error("note: no rule to run (every rule is `severity: off`, or no rule file was found).")
        return 0
    paths = tuple(args.paths) or (os.curdir,)
    search = SearchOptions(
        rule=args.rule,
        rules=tuple(rules),
        globs=tuple(args.globs),
        limit=args.limit,
        json=args.json,
        json_style=style,
        paths=paths,
        report=not args.json,
        scan_exit=True,
    )
    fixable = tuple(rule for rule in rules if rule.fix is not None)
    if not args.fix or not fixable:
        # without a fix to write, `--fix` is the report, as `ast-grep scan -U` is
        return ast_grep_cmd.run(search, owns_process=owns_process)
    edit = ast_edit_cmd.run_edit(  # a long preview on a terminal is paged, as ast-edit's
        EditOptions.of_search(
            replace(search, rules=fixable),
            yes=args.yes,
            dry_run=args.dry_run,
            interactive=args.interactive,
            include_broken=args.include_broken,
            include_parse_errors=args.include_parse_errors,
            check=args.check,
        ),
        # nothing follows the preview unless rules without a fix still report
        owns_process=owns_process and (args.json or len(fixable) == len(rules)),
    )
    reported = tuple(rule for rule in rules if rule.fix is None)
    if edit.code == EXIT_NO_MATCH:  # nothing to fix is no failure, as with `ast-grep scan -U`
        if not reported or args.json:
            return 0
    elif edit.code != 0 or not reported or args.json or edit.interrupted:
        return edit.code  # Ctrl-C during the apply: it was finished, the report is not run
    # the rules without a fix still report, and an `error` among them sets the exit
    # status, as with `ast-grep scan -U`
    return _report_after_fix(
        replace(search, rules=reported), applied=edit.applied, owns_process=owns_process
    )


def _report_after_fix(search: SearchOptions, *, applied: bool, owns_process: bool) -> int:
    """Report the rules without a fix after ``--fix``; returns the exit code.

    Ctrl-C, SIGTERM and SIGHUP stop the report alike (exit 130, 143, 129); when the
    fixes were ``applied`` before it, stderr says so.
    """
    came: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    stops = (signal.SIGTERM, signal.SIGHUP)
    main_thread = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, stop) for sig in stops} if main_thread else {}
    try:
        code = ast_grep_cmd.run(search, owns_process=owns_process)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if came:
        code = 128 + came[0]
    if code in (EXIT_INTERRUPTED, *(128 + sig for sig in stops)) and applied:
        error(REPORT_INTERRUPTED_NOTE)
    return code
