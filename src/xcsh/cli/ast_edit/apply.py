"""Resolving an ``xcsh ast-edit`` the user decided on, and showing the outcome.

The pending edit is applied or discarded through the ``resolve`` tool, with
Ctrl-C, SIGTERM and SIGHUP remembered, not acted on (:mod:`xcsh.cli.interrupts`).

An apply writes every file or none, so no signal cuts it short. Once the edit
is approved, a :class:`~xcsh.journal.SignalHold` takes the three signals over:
each is remembered instead of raising :class:`KeyboardInterrupt` or ending the
process, until the command has said what was applied and either ended the
process (the ``xcsh`` command itself) or given the handlers back (a caller's
interpreter). Without it a signal landing just after the commit ended the
process with 130, 143 or 129 (or killed it while the interpreter shut down),
and a user reading that code believes nothing changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys

from xcsh.cli.ast_edit.ask import Decision
from xcsh.cli.ast_edit.output import Stdout
from xcsh.cli.errors import error
from xcsh.cli.exits import EXIT_APPLY_FAILED, EXIT_BROKEN_PIPE, EXIT_OK
from xcsh.cli.interrupts import signal_name
from xcsh.cli.options import EditOutcome
from xcsh.cli.stdout import end_process
from xcsh.core.wording import name_list
from xcsh.journal import SignalHold
from xcsh.pending import ApplyFailure, PendingActionStore, ResolveParams, resolve_top
from xcsh.ui import detect_style, render_resolution

APPLIED_DESPITE_SIGNAL = (
    "{signal} came while the edit was being applied: an apply is never cut short, so "
    "every file above was written. Undo it with: {undo}"
)
"""Said on stderr, after the outcome, when Ctrl-C (or SIGTERM, SIGHUP: ``{signal}``) came
during or after a successful apply; ``{undo}`` is the command that takes the apply back."""
APPLY_FAILED_NOTE = (
    "The edit was dropped. Run the same xcsh ast-edit command again to preview the files "
    "as they are now."
)
"""Follows an apply failure, whose message already says that nothing was written."""


def resolve_decided(
    store: PendingActionStore,
    decision: Decision,
    out: Stdout,
    *,
    code: int,
    held: SignalHold,
    undo: str,
    owns_process: bool,
) -> EditOutcome:
    """Apply or discard the top pending edit as ``decision`` says, and show the outcome.

    ``code`` is the exit code the decision already set (130 for Ctrl-C at the
    question, 4 for a refused ``--yes``), else ``EXIT_OK``; ``held`` holds Ctrl-C,
    SIGTERM and SIGHUP from the decision on (the caller releases it); ``undo`` is the
    command that takes the apply back. When one of them came and the apply happened,
    stderr says so after the outcome. With ``owns_process`` the process then ends with
    the exit code (the ``xcsh`` command, nothing left to do), the signals still held,
    so none can turn a written edit into exit 130, 143 or 129; if flushing standard
    output fails it returns and the dispatcher reports that as usual.

    Returns:
        The exit code (``code``, else 0 applied or discarded, 3 applying failed,
        141 standard output closed and nothing applied) and what happened.
    """
    resolved = asyncio.run(_resolve(store, decision, out, undo=undo))
    applied = decision.action == "apply" and resolved == EXIT_OK
    if applied and held.first is not None:
        error(APPLIED_DESPITE_SIGNAL.format(signal=signal_name(held.first), undo=undo))
    if code == EXIT_OK:
        code = EXIT_BROKEN_PIPE if out.broken and decision.action != "apply" else resolved
    if owns_process:
        with contextlib.suppress(OSError):
            end_process(code)
    return EditOutcome(code, applied=applied, interrupted=held.first is not None)


async def _resolve(store: PendingActionStore, decision: Decision, out: Stdout, *, undo: str) -> int:
    """Resolve the pending edit through the ``resolve`` tool and show the outcome."""
    if out.console is not None and not out.broken:
        style = detect_style(sys.stdout)
    else:
        style = detect_style(sys.stderr)
    params = ResolveParams(
        action=decision.action,
        reason=decision.reason,
        only=list(decision.only) if decision.only is not None else None,
    )
    result = await resolve_top(store, params)
    outcome = result.details
    assert outcome is not None  # resolve_top always gives its outcome
    if not result.is_error:
        out.print(render_resolution(outcome, style=style))
        if decision.action == "apply":
            out.print(result.text)
            out.print(f"Undo it with: {undo}")
        return EXIT_OK
    # apply failed and the action went back on the stack: nothing of it was written.
    store.pop()
    # a failed apply always says why (this command's previews are never rebuilt)
    failure = outcome.failure or ApplyFailure(message=outcome.status)
    # the model's text goes on to say the action is still pending: not so here
    first = f"Apply failed: {failure.message.partition(chr(10))[0]}"
    if failure.stale:
        first = (
            f"Apply failed: These files changed since the preview: {name_list(failure.stale)}. "
            "Nothing was written."
        )
    # when putting files back failed, the message names them and says how to finish
    note = "" if failure.new_content else f"\n  {APPLY_FAILED_NOTE}"
    failed = render_resolution(
        outcome, is_error=True, message=f"{first}{note}", style=detect_style(sys.stderr)
    )
    out.error(failed)  # on stderr: `--yes > /dev/null` must not hide why nothing changed
    return EXIT_APPLY_FAILED
