"""``xcsh ast-grep``: structural search from the command line, like ``ast-grep run -p``.

Output (stdout):

- text: one block per match. The first line is ``path:LINE:COL:<source line>``
  (1-based line and column, column in characters), further lines of a
  multi-line match are ``path:LINE-<source line>`` (grep's context marker).
  On a terminal the path, position and matched text are coloured; with
  ``NO_COLOR`` or through a pipe the text is plain.
- ``--heading always|never|auto``: the lines of ``ast-grep run --heading``,
  colour off (:func:`xcsh.structural.matches.report.run_text`).
- ``--json``: JSON Lines, one object per match, with the fields of
  ``ast-grep run --json=stream`` (``text``, ``range`` with ``byteOffset`` and
  0-based ``start``/``end`` ``line``/``column``, ``file``, ``lines``,
  ``charCount``, ``language``, ``metaVariables``).

Every match is printed unless ``--limit N`` is given. Files that could not be
searched (binary, not UTF-8) are listed on stderr. Exit codes: 0 matches
found, 1 no match, 2 bad input (message on stderr), including a scope with no
file left to search, with or without ``-l``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from xcsh.cli.argparser import Parser
from xcsh.cli.errors import COMMAND_WORDING, error, warn_interrupted
from xcsh.cli.exits import EXIT_BAD_INPUT, EXIT_NO_MATCH, EXIT_OK
from xcsh.cli.options import SearchOptions
from xcsh.cli.progress import scan_progress
from xcsh.cli.rule_files import load_rules
from xcsh.cli.scope import empty_scope_message, workspace_for
from xcsh.cli.search_flags import (
    add_rule_argument,
    add_scope_arguments,
    check_limit,
    split_json_style,
)
from xcsh.cli.stdout import BlockWriter, JsonArray, end_process
from xcsh.core import ToolError, UsageError
from xcsh.core.wording import plural
from xcsh.structural import (
    Match,
    MatchSpec,
    RecordFormat,
    ScopeSpec,
    SkippedFile,
    explain_nothing_found,
    iter_matches,
    iter_records,
    skipped_note,
)
from xcsh.structural.base.errors import error_pattern_note
from xcsh.structural.matches.records import is_error_record
from xcsh.ui import detect_style

if TYPE_CHECKING:  # rich loads only when the output is coloured
    from rich.console import Console

    from xcsh.cli.progress import ScanProgress
    from xcsh.structural.rules.compile import CompiledRule

T = TypeVar("T")


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh ast-grep`` argument parser."""
    parser = Parser(
        prog="xcsh ast-grep",
        description="Structural search with ast-grep patterns ($A one node, $$$A many, $_ any).",
        epilog="exit codes: 0 matches found, 1 no match, 2 bad input",
    )
    parser.add_argument("-p", "--pattern", help="the ast-grep pattern")
    add_rule_argument(parser)
    add_scope_arguments(parser)
    parser.add_argument(
        "--heading",
        choices=("auto", "always", "never"),
        help="print the text as ast-grep run does: the file name above its matches (always), "
        "before each line (never), or above them on a terminal only (auto)",
    )
    return parser


def format_match_lines(match: Match) -> list[tuple[str, str, int, int]]:
    """Split a match into printable lines.

    Returns:
        ``(position, line, highlight_start, highlight_end)`` per source line:
        ``position`` is ``:LINE:COL:`` on the first line and ``:LINE-`` on the
        others (the path goes before it), ``line`` is the source line without
        its line break, and the bounds give the matched part of ``line``.
    """
    source_lines = match.lines.split("\n")
    end_of_last = len(source_lines[-1]) - match.trailing
    out: list[tuple[str, str, int, int]] = []
    first_line = match.span.start.line + 1
    last = len(source_lines) - 1
    for index, raw in enumerate(source_lines):
        line = raw.removesuffix("\r")
        number = first_line + index
        column = match.span.start.column + 1
        position = f":{number}:{column}:" if index == 0 else f":{number}-"
        lo = match.leading if index == 0 else 0
        hi = min(end_of_last if index == last else len(line), len(line))
        out.append((position, line, lo, max(lo, hi)))
    return out


def _report_skipped(skipped: list[SkippedFile]) -> None:
    note = skipped_note(((s.file, s.reason) for s in skipped), shown=10)
    if note:
        error(note)


REWRITE_FLAGS = ("-r", "--rewrite")


def main(argv: list[str], *, owns_process: bool = False) -> int:
    """Run ``xcsh ast-grep``; returns the exit code (0 found, 1 none, 2 bad input).

    With ``owns_process`` (the ``xcsh`` command itself), a search that printed
    matches may end the process once its output is flushed
    (:func:`~xcsh.cli.stdout.end_process`) instead of returning.
    """
    parser = build_parser()
    if any(arg in REWRITE_FLAGS or arg.startswith("--rewrite=") for arg in argv):
        # `ast-grep run -r` rewrites; here rewriting is its own command, previewed first.
        error(
            "xcsh ast-grep only searches; to rewrite, run the same command as "
            "xcsh ast-edit -p PATTERN -r REWRITE [PATH...] (it previews the change first)"
        )
        return EXIT_BAD_INPUT
    try:
        argv, style = split_json_style(argv)
    except UsageError as exc:
        parser.error(str(exc))
    args = parser.parse_args(argv)
    if (args.pattern is None) == (args.rule is None):
        parser.error("give one of -p/--pattern or --rule FILE")
    if args.heading is not None and args.rule is not None:
        parser.error(
            "--heading goes with -p (as in ast-grep run); a rule's matches print as "
            "xcsh scan --rule FILE prints them"
        )
    options = dataclasses.replace(
        SearchOptions.from_args(args), json_style=style, heading=args.heading
    )
    return run(options, owns_process=owns_process)


def run(options: SearchOptions, *, owns_process: bool = False) -> int:
    """Search as ``options`` say; returns the exit code.

    ``options`` hold a pattern, or rules (``--rule`` or ``xcsh scan``'s);
    ``owns_process`` as for :func:`main`.
    """
    try:
        check_limit(options.limit)
        return _search(options, owns_process=owns_process)
    except (ToolError, UsageError) as exc:
        error(exc)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


@dataclasses.dataclass
class _Tally:
    """What a search found so far, over its paths."""

    found: int = 0
    errors: int = 0
    scanned: int = 0
    more: bool = False


@dataclasses.dataclass(frozen=True)
class _Output:
    """Where a search prints: coloured matches on ``console``, else records on ``out``.

    ``trees`` keeps the last file's syntax trees, to be dropped with the process
    (see :func:`~xcsh.cli.stdout.end_process`); ``None`` when the process goes on.
    """

    console: Console | None
    out: BlockWriter | JsonArray
    skipped: list[SkippedFile]
    trees: list[object] | None


def _search(options: SearchOptions, *, owns_process: bool) -> int:
    style = detect_style(sys.stdout)
    layout = _layout(options)
    # file=None: the console writes to whatever sys.stdout is when it prints, so a
    # progress bar on the same terminal can put matches above itself.
    console = None
    if style.color and not options.json and layout == "lines":
        from xcsh.ui import make_console

        console = make_console(None, style)
    paths = list(options.paths)
    root, given = workspace_for(paths)
    warn_interrupted(root)
    elsewhere = root != os.path.realpath(os.getcwd())
    rules = load_rules(options)
    what = _what(options, rules)
    out: BlockWriter | JsonArray = BlockWriter(sys.stdout)
    if options.json and options.json_style != "stream":
        out = JsonArray(sys.stdout, pretty=options.json_style == "pretty")
    output = _Output(console, out, [], [] if owns_process else None)
    tally = _Tally()
    with scan_progress("searching") as bar:
        for path, engine_path in zip(paths, given, strict=True):
            if output.trees:
                output.trees.clear()  # only the last PATH's last file is kept
            # printed relative to the current folder, as ast-grep does
            form = RecordFormat(
                json=options.json,
                root=root if elsewhere else None,
                cwd=os.getcwd(),
                absolute=os.path.isabs(path),
                layout=layout,
            )
            where = ScopeSpec(root=root, path=engine_path, globs=options.globs, lang=options.lang)
            _search_path(options, what, (where, form), output, tally, bar)
            if tally.more:  # the limit was reached with a match left over
                break
            # With the limit just reached, the next PATH is searched for one match
            # only, printed nowhere, so "more remain" is said only when true.
    if isinstance(out, JsonArray):
        out.close()
    sys.stdout.flush()
    _report_skipped(output.skipped)
    return _search_end(options, tally, rules, (root, given), output.trees)


def _search_path(
    options: SearchOptions,
    what: MatchSpec,
    place: tuple[ScopeSpec, RecordFormat],
    output: _Output,
    tally: _Tally,
    bar: ScanProgress,
) -> None:
    """Search one PATH, printing up to the limit that remains and adding to ``tally``.

    ``place`` is the PATH's scope and how its records name files.
    """
    where, form = place
    remaining = None if options.limit is None else options.limit - tally.found
    cap = None if remaining is None else remaining + 1

    def progress(done: int, total: int) -> None:
        tally.scanned = max(tally.scanned, total)
        bar.callback(done, total)

    console = output.console
    if console is None:  # plain text or JSON: rendered as found, no Match built
        records = iter_records(
            what,
            where,
            form,
            progress=progress,
            skipped=output.skipped,
            max_per_file=cap,
            keep_last=output.trees,
        )

        def write(record: str) -> None:
            tally.errors += is_error_record(
                record, json=options.json, report=form.layout == "report"
            )
            output.out.write(record)

        try:
            # only a rule's match has a severity: a pattern's records are written as they
            # come, with no look at each
            to_stdout = write if what.rules else output.out.write
            count, tally.more = _print_all(records, to_stdout, remaining, bar)
        finally:
            output.out.flush()
    else:
        matches = iter_matches(
            what, where, progress=progress, skipped=output.skipped, max_per_file=cap
        )

        def emit(match: Match) -> None:
            tally.errors += match.rule is not None and match.rule.severity == "error"
            _emit_coloured(match, console)

        count, tally.more = _print_all(
            (dataclasses.replace(m, file=form.name(m.file)) for m in matches),
            emit,
            remaining,
            bar,
        )
    tally.found += count


def _search_end(
    options: SearchOptions,
    tally: _Tally,
    rules: list[CompiledRule],
    workspace: tuple[str, list[str]],
    trees: list[object] | None,
) -> int:
    """What a finished search says on stderr, and its exit code.

    ``workspace`` is the root and the PATHs as the engine sees them.
    """
    found = tally.found
    if tally.more:
        noun = "match" if found == 1 else "matches"
        error(f"stopped after {found} {noun} (--limit {options.limit}); more remain")
    if options.scan_exit:  # as `ast-grep scan`: only a match of severity error fails
        if tally.errors:
            error(f"{plural(tally.errors, 'match', 'matches')} of rules of severity error.")
        code = EXIT_NO_MATCH if tally.errors else EXIT_OK
        if trees:
            end_process(code)
        return code
    root, given = workspace
    if not found and not tally.scanned:
        error(empty_scope_message(options.lang, list(options.paths)))
        return EXIT_BAD_INPUT
    if not found:
        return EXIT_NO_MATCH if rules else _explain_nothing_found(options, root, given[0])
    if trees:
        end_process(EXIT_OK)
    return EXIT_OK


def _layout(options: SearchOptions) -> str:
    """How the text is laid out (:class:`~xcsh.structural.RecordFormat`'s ``layout``)."""
    if options.report:
        return "report"
    if options.heading is None:
        return "lines"
    if options.heading == "auto":
        return "heading" if sys.stdout.isatty() else "prefix"
    return "heading" if options.heading == "always" else "prefix"


def _print_all(
    source: Iterator[T], emit: Callable[[T], object], limit: int | None, bar: ScanProgress
) -> tuple[int, bool]:
    """Print the items of ``source`` (at most ``limit``); ``(printed, whether more remain)``.

    ``source`` is closed at the end, so a scan stopped by the limit stops its workers.
    """
    printed = 0
    more = False
    try:
        for item in source:
            if limit is not None and printed == limit:
                more = True
                break
            if not printed:
                bar.stop_for_output()
            emit(item)
            printed += 1
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    return printed, more


def _what(options: SearchOptions, rules: list[CompiledRule]) -> MatchSpec:
    """What ``options`` match: the ``-p`` pattern, or the rules instead."""
    return MatchSpec(
        patterns=() if rules or options.pattern is None else (options.pattern,),
        rules=tuple(rules),
        selector=options.selector,
        strictness=options.strictness,
    )


def _explain_nothing_found(options: SearchOptions, root: str, path: str) -> int:
    """Say why nothing was found when the pattern is suspect (contract §4); the exit code.

    A pattern that probably matches nothing (it does not match its own code, or
    parses as another kind inside a function) is bad input: exit 2 with the fix.
    One whose tree holds an ERROR node gets a hint, and exit 1.
    """
    doubt, unparsable = explain_nothing_found(
        _what(options, []),
        ScopeSpec(root=root, path=path, globs=options.globs, lang=options.lang),
    )
    if doubt is not None:
        error(doubt.worded(COMMAND_WORDING))
        return EXIT_BAD_INPUT
    for pattern in unparsable:
        error(error_pattern_note(pattern, COMMAND_WORDING))
    return EXIT_NO_MATCH


def _emit_coloured(match: Match, console: Console) -> None:
    """Print ``match`` as the text record, coloured (path, position, matched text)."""
    from rich.text import Text

    if match.rule is not None:  # a YAML rule's match: what the rule says first
        styled = Text(f"{match.rule.severity}[{match.rule.id}]", style="bold yellow")
        if match.rule.message:
            styled.append(f": {match.rule.message}")
        console.print(styled)
    for position, line, lo, hi in format_match_lines(match):
        styled = Text()
        styled.append(match.file, style="magenta")
        styled.append(position, style="green")
        styled.append(line[:lo])
        styled.append(line[lo:hi], style="bold red")
        styled.append(line[hi:])
        console.print(styled)
