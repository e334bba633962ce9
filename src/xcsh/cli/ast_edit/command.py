"""``xcsh ast-edit``: structural rewrite from the command line, previewed first.

The command makes the pending action the agent's ``ast_edit`` tool makes
(:func:`~xcsh.structural.preview_edit`, then
:func:`~xcsh.structural.tools.ast_tools.push_edit_preview`) on a
:class:`~xcsh.pending.PendingActionStore`, and the ``resolve`` tool applies
or discards it with a reason:

1. preview: the coloured diff (:func:`xcsh.ui.render_preview`) on stdout,
   notes (nested matches, skipped files) on stderr; nothing on disk changes;
2. decide:

   - ``--yes``: apply, reason ``applied with --yes``;
   - ``--dry-run``: stop after the preview;
   - on a terminal (stdin and stdout): ask ``apply`` or ``discard`` and a reason
     (outside any event loop, so Ctrl-C there discards the edit: exit 130);
   - otherwise: stop after the preview and say on stderr that nothing changed;

3. the outcome, drawn by :func:`xcsh.ui.render_resolution`. Every apply is
   recorded in the undo journal (``$XCSH_HOME/journal/ast-edit``), so
   ``xcsh undo`` can put the files back.

Several PATHs make one preview: each file once (by real path, so ``real.py .``
or a symlinked folder does not preview a file twice), one pending action,
one question, applied all or nothing and journaled as one change.

``--json`` prints one JSON object per replacement instead of the diff, with
the fields of ``ast-grep run -r ... --json=stream`` (``replacement`` and
``replacementOffsets`` included); it never asks (use ``--yes`` to apply).
The objects come from the very preview the pending action applies.

``--check`` runs the project's check on the preview staged over the
workspace and draws its verdict under the diff (:mod:`xcsh.cli.ast_edit.check`).

Exit codes: 0 done (applied, discarded or previewed), 1 no replacement,
2 bad input, 3 applying failed (nothing written; see the message), 4 ``--yes``
refused by ``apply_requires_checks`` (the check newly fails), 130
Ctrl-C before the edit was decided on (it is discarded, nothing written),
141 standard output closed early and nothing applied. Ctrl-C, SIGTERM or
SIGHUP once the edit is decided on (``--yes``, or the answer given) changes
nothing: an apply is never cut short, the exit code is the apply's (0 or 3),
and after a successful apply stderr says the signal came too late and how to
undo (:mod:`xcsh.cli.interrupts`).
When standard output closes early (``| head``) the command
still does what it was asked: with ``--yes`` the edit is applied, the
outcome is printed on stderr and the exit code is the apply's (0 or 3).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.app.reading import SettingsReading, read_settings
from xcsh.cli.ast_edit.args import build_parser
from xcsh.cli.ast_edit.check import EXIT_CHECK_REFUSED, CheckedPreview, check_preview
from xcsh.cli.ast_edit.output import Stdout
from xcsh.cli.ast_edit.preview import merged_preview
from xcsh.cli.errors import error, warn_interrupted
from xcsh.cli.exits import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_NO_MATCH,
    EXIT_OK,
)
from xcsh.cli.options import EditOptions, EditOutcome
from xcsh.cli.progress import is_interactive, stderr_is_terminal
from xcsh.cli.say import say
from xcsh.cli.scope import empty_scope_message, workspace_for
from xcsh.cli.search_flags import check_limit
from xcsh.cli.stdout import end_process
from xcsh.core import ToolError, UsageError
from xcsh.fs import xcsh_home
from xcsh.fs.home import interrupted_in
from xcsh.structural import EditPreview
from xcsh.ui import TerminalStyle, detect_style

if TYPE_CHECKING:
    from rich.console import Console

    from xcsh.cli.ast_edit.ask import Decision
    from xcsh.journal import Journal
    from xcsh.pending import PendingAction, PendingActionStore
    from xcsh.structural.tools.details import AstEditDetails

# The renderer (rich), the prompt, asyncio, the journal and the pending action (pydantic)
# load when first used: a --json preview that only prints its lines never needs them.

YES_REASON = "applied with --yes"
"""The reason ``resolve`` records when ``--yes`` applies without asking."""
NOT_A_TERMINAL_NOTE = (
    "not a terminal and no --yes: previewed only, nothing changed. "
    "Re-run with --yes to apply, or run it in a terminal to be asked."
)
DRY_RUN_NOTE = "dry run: previewed only, nothing changed."
JSON_NOTE = "--json never asks: previewed only, nothing changed. Add --yes to apply."
INTERRUPTED_NOTE = "interrupted: nothing changed."
CHECK_INTERRUPTED_NOTE = (
    "interrupted during the check: it was ended with every process it started; nothing changed."
)
INTERACTIVE_NEEDS_TERMINAL = (
    "-i asks about each change and needs a terminal: nothing changed. Run it in a "
    "terminal, or use --yes / --dry-run."
)
INTERRUPTED_REASON = "interrupted at the prompt (Ctrl-C)"


def main(argv: list[str], *, owns_process: bool = False) -> int:
    """Run ``xcsh ast-edit``; returns the exit code (see the module docstring).

    ``owns_process``: as for :func:`run`.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.rule is None and (args.pattern is None or args.rewrite is None):
        parser.error("give -p/--pattern and -r/--rewrite, or --rule FILE (rules with a fix)")
    if args.rule is not None and (args.pattern is not None or args.rewrite is not None):
        parser.error("--rule replaces -p/--pattern and -r/--rewrite; give one or the other")
    return run(EditOptions.from_args(args), owns_process=owns_process)


def run(options: EditOptions, *, owns_process: bool = False) -> int:
    """Preview, decide and resolve as ``options`` say; returns the exit code.

    As :func:`run_edit`, for a caller that needs only the exit code.
    """
    return run_edit(options, owns_process=owns_process).code


def run_edit(options: EditOptions, *, owns_process: bool = False) -> EditOutcome:
    """Preview, decide and resolve as ``options`` say; returns the exit code and what happened.

    ``options`` hold a pattern and rewrite, or rules with fixes (``--rule`` or
    ``xcsh scan --fix``). With ``owns_process`` (the ``xcsh`` command itself, with
    nothing left to do after this call), a preview that ends without an apply or a
    discard (``--dry-run``, ``--json`` without ``--yes``, no terminal to ask on)
    ends the process once its output is flushed (:func:`~xcsh.cli.stdout.end_process`):
    a big preview's changes are not freed one by one before the exit; so does the
    end of an apply or a discard, with Ctrl-C, SIGTERM and SIGHUP still held
    (:func:`~xcsh.cli.ast_edit.apply.resolve_decided`).
    """
    # -i asks about each change: refuse before the (possibly long) preview when it cannot ask
    if options.interactive and options.json:
        error("-i asks about each change and --json never asks: use one of them.")
        return EditOutcome(EXIT_BAD_INPUT)
    if options.interactive and not is_interactive():
        error(INTERACTIVE_NEEDS_TERMINAL)
        return EditOutcome(EXIT_BAD_INPUT)
    out = Stdout(None if options.json else _console())
    print_only = options.json and not options.yes
    try:
        check_limit(options.limit)
        root, given = workspace_for(options.paths)
        reading = read_settings(xcsh_home())  # once: the journal's section now, the check's below
        journal = (
            None  # applies nothing, no apply awaits settling, no retention to check
            if print_only and not reading.values and not interrupted_in(reading.home, Path(root))
            else _open_journal(Path(root), reading, settle=not options.dry_run)
        )
        preview = _with_spinner(lambda: merged_preview(options, root, given))
    except (ToolError, UsageError) as exc:
        error(exc)
        return EditOutcome(EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        error(INTERRUPTED_NOTE)
        return EditOutcome(EXIT_INTERRUPTED)
    if preview.files_scanned == 0:
        error(empty_scope_message(options.lang, list(options.paths)))
        return EditOutcome(EXIT_BAD_INPUT)
    elsewhere = root != os.path.realpath(os.getcwd())
    if elsewhere:
        error(f"workspace {root}: the files below are named relative to it")
    try:
        checked = check_preview(options, Path(root), preview, reading)
    except UsageError as exc:
        error(exc)
        return EditOutcome(EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        error(CHECK_INTERRUPTED_NOTE)
        return EditOutcome(EXIT_INTERRUPTED)
    if print_only:
        return EditOutcome(_print_only(preview, checked, out, owns_process=owns_process))
    from xcsh.pending import PendingActionStore
    from xcsh.structural.tools.edit_action import EditProducer, push_edit_preview

    store = PendingActionStore()
    # the apply is recorded in the folder's undo journal, so `xcsh undo` can put the files back
    try:
        producer = EditProducer(
            store=store, journal=journal, broken_flag="--include-broken", with_diff=not options.json
        )
        result = push_edit_preview(producer, preview, None, check=checked.verdict)
    except KeyboardInterrupt:  # Ctrl-C while the pending action is built: nothing to apply
        print(file=sys.stderr)
        error(INTERRUPTED_NOTE)
        return EditOutcome(EXIT_INTERRUPTED)
    for note in _notes(result.details):
        error(note)
    for note in checked.note.splitlines():
        error(note)
    action = store.peek()
    if action is None:
        return EditOutcome(EXIT_NO_MATCH)
    undo = f"cd {shlex.quote(root)} && xcsh undo" if elsewhere else "xcsh undo"
    return _show_and_resolve(
        options, preview, checked, (store, action), out, undo=undo, owns_process=owns_process
    )


def _print_only(
    preview: EditPreview, checked: CheckedPreview, out: Stdout, *, owns_process: bool
) -> int:
    """``--json`` without ``--yes``: the preview's lines and notes; returns the exit code.

    Nothing can be applied, so no pending action is built: not the typed change
    and the id of each replacement that only ``resolve`` and the model read
    (100,000 of them in a big preview). The notes, lines and exit codes are those
    the pending action's path gives; ``owns_process``: as for :func:`run`.
    """
    from xcsh.structural.tools.edit_text import edit_notes

    head = [] if preview.total else ["No replacements made"]
    for note in (*head, *edit_notes(preview, "--include-broken")):
        for line in note.split("\n"):
            if line:
                error(line)
    for note in checked.note.splitlines():
        error(note)
    if not preview.total:
        return EXIT_NO_MATCH
    try:
        out.write_json(preview)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        error(INTERRUPTED_NOTE)
        return EXIT_INTERRUPTED
    if checked.verdict is not None:
        error(checked.verdict.summary())
    error(JSON_NOTE)
    code = EXIT_BROKEN_PIPE if out.broken else EXIT_OK
    if owns_process:
        end_process(code)
    return code


def _show_and_resolve(
    options: EditOptions,
    preview: EditPreview,
    checked: CheckedPreview,
    pending: tuple[PendingActionStore, PendingAction],
    out: Stdout,
    *,
    undo: str,
    owns_process: bool = False,
) -> EditOutcome:
    """Show the pending edit, decide on it and resolve it; returns the exit code and more.

    ``pending`` is the store and its top action; the decision comes from asking,
    ``--yes`` or ``--dry-run``; ``undo`` is the command that takes the apply back;
    ``owns_process``: as for :func:`run_edit`.
    """
    from xcsh.journal.signals import SignalHold  # an apply is near: the journal is loaded

    store, action = pending
    held = SignalHold()  # Ctrl-C, SIGTERM and SIGHUP
    try:
        _show(options, preview, action, out)
        decision, code = _decide(options, action)
        if decision is not None:  # decided: from here no signal can change the outcome
            held.hold()
    except KeyboardInterrupt:  # Ctrl-C after the preview: discard, never apply
        from xcsh.cli.ast_edit.ask import Decision

        held.hold()
        print(file=sys.stderr)
        decision, code = Decision("discard", INTERRUPTED_REASON), EXIT_INTERRUPTED
    if decision is None:
        code = EXIT_BROKEN_PIPE if out.broken else code
        if owns_process:
            end_process(code)
        return EditOutcome(code)
    from xcsh.cli.ast_edit.apply import resolve_decided  # the outcome's renderer

    try:
        refusal = checked.refusal() if decision.reason == YES_REASON else ""
        if refusal:
            from xcsh.cli.ast_edit.ask import Decision

            decision, code = Decision("discard", refusal), EXIT_CHECK_REFUSED
        # an apply writes every file or none: Ctrl-C, SIGTERM and SIGHUP, held since the
        # decision, cannot cut it short, nor make the exit code say nothing was written
        return resolve_decided(
            store, decision, out, code=code, held=held, undo=undo, owns_process=owns_process
        )
    finally:
        held.release(raise_again=False)


def _open_journal(root: Path, reading: SettingsReading, *, settle: bool) -> Journal:
    """The undo journal of the workspace ``root``, after settling an interrupted apply.

    An apply a crash interrupted is settled first; with ``settle=False`` (``--dry-run``
    changes nothing) such an apply is only reported. ``reading`` gives its retention.
    """
    from xcsh.journal import Journal, settled

    journal = Journal.for_root(xcsh_home(), root, retention=reading.retention())
    if not settle:
        warn_interrupted(str(root))
        return journal
    opened = settled(journal)
    for recovered in opened.recovered:
        say(f"xcsh: {recovered.message}", file=sys.stderr, one_line=True)
    if opened.problem:
        say(
            f"xcsh: could not check the undo journal for interrupted applies: {opened.problem}",
            file=sys.stderr,
            one_line=True,
        )
    return opened.journal


def _show(options: EditOptions, preview: EditPreview, action: PendingAction, out: Stdout) -> None:
    """The preview on stdout: the whole diff (the user approves all of it) or JSON lines.

    The "apply or discard" footer is shown only when a question follows; a
    diff taller than the terminal goes through the pager (unless ``--no-pager``).
    With ``-i`` only the label: each change is shown when it is asked about.
    """
    if options.json:
        out.write_json(preview)
        if action.preview.check is not None:
            error(action.preview.check.summary())
        return
    if options.interactive:
        out.print(f"Preview {action.id}: {action.label}")
        return
    from xcsh.cli.pager import pager_command
    from xcsh.ui import render_preview

    will_ask = not (options.dry_run or options.yes) and is_interactive()
    rendered = render_preview(
        action.label,
        action.preview.diff,
        style=_style(),
        max_lines=None,
        max_line_chars=None,
        pending=will_ask,
        check=action.preview.check,
    )
    out.print(rendered, pager=None if options.no_pager else pager_command())


def _decide(options: EditOptions, action: PendingAction) -> tuple[Decision | None, int]:
    """How to resolve the previewed edit, asked on the terminal when needed.

    Runs outside any event loop, so Ctrl-C at the prompt is a plain
    KeyboardInterrupt (the caller discards the edit and exits 130).

    Returns:
        ``(decision, code)``: no decision means stop here with ``code``.

    Raises:
        KeyboardInterrupt: Ctrl-C at the prompt.
    """
    if options.dry_run:
        error(DRY_RUN_NOTE)
        return None, EXIT_OK
    from xcsh.cli.ast_edit.ask import Decision, ask, reviewed  # the prompt and its renderer

    if options.yes:
        return Decision("apply", YES_REASON), EXIT_OK
    if not is_interactive():
        error(INTERACTIVE_NEEDS_TERMINAL if options.interactive else NOT_A_TERMINAL_NOTE)
        return None, EXIT_BAD_INPUT if options.interactive else EXIT_OK
    try:
        if options.interactive:
            return reviewed(action.preview.changes), EXIT_OK
        return ask(changes=action.preview.changes), EXIT_OK
    except EOFError:
        print(file=sys.stderr)
        return Decision("discard", "no answer at the prompt"), EXIT_OK


def _notes(details: AstEditDetails | None) -> list[str]:
    """The preview's notes (nested matches, limit, skipped files), one line each.

    They are led by ``No replacements made`` when the edit changes nothing.
    """
    if details is None:
        return []
    head = ["No replacements made"] if details.preview is None else []
    return [line for note in (*head, *details.notes) for line in note.split("\n") if line]


def _with_spinner(job: Callable[[], EditPreview]) -> EditPreview:
    if not stderr_is_terminal():
        return job()
    from rich.console import Console

    status_console = Console(file=sys.stderr, no_color=not detect_style(sys.stderr).color)
    with status_console.status("previewing the rewrite...", spinner="dots"):
        return job()


def _style() -> TerminalStyle:
    return detect_style(sys.stdout)


def _console() -> Console:
    """The console of the diff and the outcome on stdout (rich loads here)."""
    from xcsh.ui import make_console

    return make_console(sys.stdout, _style())
