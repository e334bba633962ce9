"""Pieces shared by ``xcsh ast-grep`` and ``xcsh ast-edit``: flags, errors, progress."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from xcsh.cli.say import say
from xcsh.core import UsageError
from xcsh.fs.home import interrupted_in, xcsh_home
from xcsh.fs.walk import repository_top
from xcsh.structural.base.errors import StructuralError, Wording
from xcsh.structural.base.strictness import STRICTNESS_LEVELS
from xcsh.ui import detect_style

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from xcsh.cli.options import SearchOptions
    from xcsh.structural.rules.compile import CompiledRule

EXIT_OK = 0
"""Done: matches printed, or an edit previewed, applied or discarded."""
EXIT_NO_MATCH = 1
"""The pattern matched nothing (no replacement for ``ast-edit``)."""
EXIT_BAD_INPUT = 2
"""Bad input: a flag, pattern, language or path, including a scope with no file left
to search (PATH, --globs and -l exclude everything); the message is on stderr."""
EXIT_APPLY_FAILED = 3
"""``ast-edit`` only: applying failed (a file changed since the preview, a write
failed); nothing was written, earlier files were restored."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT): ``ast-edit`` discards the edit; nothing was written."""
EXIT_BROKEN_PIPE = 141
"""Standard output closed early (128 + SIGPIPE), as the ``xcsh`` dispatcher reports it.
``ast-edit`` returns it only when nothing was applied (see its module docstring)."""

PROGRESS_MIN_FILES = 200
"""A progress bar is shown (on a terminal only) when a scan covers this many files."""

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


def load_rules(options: SearchOptions) -> list[CompiledRule]:
    """The rules ``options`` name (loaded by ``xcsh scan``, or ``--rule FILE``); empty for none.

    Raises:
        ToolError: the file cannot be read or holds a bad rule (naming its YAML path).
    """
    if options.rules:
        return list(options.rules)
    if options.rule:
        from xcsh.structural.rules.compile import load_rule_file
        from xcsh.structural.rules.schema import RuleWarning

        warnings: list[RuleWarning] = []
        rules = load_rule_file(
            Path(options.rule), display=options.rule, strict=False, warnings=warnings
        )
        for warning in warnings:
            error(f"warning: {warning}")
        return rules
    return []


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


def empty_scope_message(lang: str | None, paths: list[str]) -> str:
    """Why nothing was searched: PATH, ``--globs`` and ``-l`` leave no file in scope.

    Both commands exit :data:`EXIT_BAD_INPUT` with it, with or without ``-l``
    (without ``-l`` the engine says the same in its own words).
    """
    where = ", ".join(f"'{path}'" for path in paths) or "'.'"
    return (
        f"No {lang} file to search in {where}. Check PATH and --globs "
        "(a glob starting with ! leaves files out)."
    )


def workspace_for(paths: Sequence[str], cwd: str | None = None) -> tuple[str, list[str]]:
    """The workspace of one run and the PATHs to give the engine.

    A person running ``xcsh ast-grep``/``ast-edit`` decides what may be read, as
    with the ``ast-grep`` CLI: PATHs inside the current folder are searched with
    the current folder as the workspace; PATHs outside it make their
    repository (the nearest folder above holding ``.git``), or else their own
    folder, the workspace. A glob or a missing PATH stays relative to the
    current folder (the engine then says what is wrong). Confinement to the
    workspace still holds for what a model asks through the tools.

    Returns:
        ``(root, paths)``: the workspace folder, and each PATH as given when it
        is inside the current folder, else as an absolute path.

    Raises:
        UsageError: PATHs outside the current folder lie in different workspaces, or
            one of them (not a glob) does not exist.
    """
    here = os.path.realpath(cwd if cwd is not None else os.getcwd())
    roots: dict[str, list[str]] = {}
    given: list[str] = []
    for path in paths:
        real = os.path.realpath(os.path.expanduser(path))
        inside = real == here or real.startswith(here + os.sep)
        if not inside and not os.path.lexists(real) and not set("*?[") & set(path):
            raise UsageError(
                f"Path '{path}' does not exist.",
                hint="give an existing file, folder or a glob such as 'src/**/*.py'",
            )
        if inside or not os.path.exists(real):
            roots.setdefault(here, []).append(path)
            given.append(path)
            continue
        folder = Path(real if os.path.isdir(real) else os.path.dirname(real))
        root = str(repository_top(folder) or folder)
        roots.setdefault(root, []).append(path)
        given.append(real)
    if len(roots) > 1:
        listed = "; ".join(f"{root} ({', '.join(ps)})" for root, ps in roots.items())
        raise UsageError(
            f"the PATHs lie in different workspaces: {listed}",
            hint="run the command once per workspace",
        )
    return (next(iter(roots)) if roots else here), given


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


def stderr_is_terminal() -> bool:
    """True when stderr is a terminal (progress bars go there)."""
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def is_interactive(stdin: TextIO | None = None, stdout: TextIO | None = None) -> bool:
    """True when a question can be asked: stdin and stdout are both terminals."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    return bool(inp is not None and inp.isatty() and out is not None and out.isatty())


class ScanProgress:
    """A progress bar on stderr for scans of many files; silent otherwise.

    Use :meth:`callback` as the engine's ``progress(files_done, files_total)``.
    The bar appears only when stderr is a terminal (without colour under
    ``NO_COLOR``), and only once ``files_total`` reaches
    :data:`PROGRESS_MIN_FILES`. It is transient: it disappears when done.
    """

    def __init__(self, description: str, *, enabled: bool | None = None) -> None:
        self._description = description
        self._enabled = stderr_is_terminal() if enabled is None else enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def callback(self, done: int, total: int) -> None:
        """Advance the bar to ``done`` of ``total`` files."""
        if not self._enabled or total < PROGRESS_MIN_FILES:
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            style = detect_style(sys.stderr)
            console = Console(file=sys.stderr, no_color=not style.color)
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("files"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
                # on a shared screen, output printed meanwhile goes above the bar
                redirect_stdout=bool(sys.stdout.isatty()),
                redirect_stderr=False,
            )
            self._progress.start()
            self._task = self._progress.add_task(self._description, total=total)
        assert self._task is not None
        self._progress.update(self._task, completed=done)

    def close(self) -> None:
        """Remove the bar, if one was drawn."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def stop_for_output(self) -> None:
        """Remove the bar for good before the first line of output.

        The matches printed from then on show the scan's progress themselves;
        a bar redrawn between them would be glued to, or overwrite, a line.
        """
        self.close()
        self._enabled = False


@contextmanager
def scan_progress(description: str) -> Iterator[ScanProgress]:
    """A :class:`ScanProgress` that is always closed."""
    bar = ScanProgress(description)
    try:
        yield bar
    finally:
        bar.close()
