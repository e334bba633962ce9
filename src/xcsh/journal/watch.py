"""Journal every apply of the pending actions pushed on a store.

:func:`record_applies` wraps the ``apply`` (and ``apply_parts``) of each
action pushed afterwards: before the apply runs it reads the files the
action's preview names, after a successful apply it reads them again and
records both sides in the :class:`~xcsh.journal.Journal`. The action's
behaviour is otherwise unchanged (same result, same exceptions), so
``resolve`` works as before.

The files are those of the action's typed preview
(:attr:`xcsh.pending.Preview.paths`, relative to the root given here; for a
partial apply, the files of the subset applied). Actions whose preview names
no file are not journaled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xcsh.core import coerce_result
from xcsh.journal.store import FileChange, Journal, snapshot
from xcsh.pending import PendingAction, PendingActionStore, Preview
from xcsh.pending.action import call_maybe_async

log = logging.getLogger(__name__)


async def _journaled(
    action: PendingAction,
    journal: Journal,
    root: Path,
    paths: list[str],
    run: Callable[[], Any],
) -> Any:
    try:
        before: dict[str, bytes | None] | None = snapshot(root, paths)
    except OSError:
        log.warning("cannot read the files of %r before applying; not journaled", action.label)
        before = None
    outcome = await call_maybe_async(run)
    result = coerce_result(outcome)
    if before is not None and not (result is not None and result.is_error):
        try:
            after = snapshot(root, paths)
            journal.record_apply(
                root=root,
                label=action.label,
                source_tool_name=action.source_tool_name,
                changes=[FileChange(path=p, before=before[p], after=after[p]) for p in paths],
            )
        except OSError:
            log.exception("recording the undo journal for %r failed", action.label)
    return outcome


def journal_action(action: PendingAction, journal: Journal, root: Path) -> bool:
    """Wrap ``action.apply`` (and ``apply_parts``) so a successful apply is recorded.

    Returns:
        True when the action's preview names files and was wrapped, else False.
    """
    paths = action.preview.paths
    if not paths:
        return False
    original = action.apply
    original_parts = action.apply_parts

    async def apply(reason: str) -> Any:
        return await _journaled(action, journal, root, paths, lambda: original(reason))

    action.apply = apply
    if original_parts is not None:

        async def apply_parts(subset: Preview, reason: str) -> Any:
            return await _journaled(
                action, journal, root, subset.paths, lambda: original_parts(subset, reason)
            )

        action.apply_parts = apply_parts
    return True


def record_applies(store: PendingActionStore, journal: Journal, root: Path) -> Callable[[], None]:
    """Journal the apply of every action pushed on ``store`` from now on.

    Args:
        store: the pending-action store (a session's, or ``xcsh ast-edit``'s).
        journal: where entries go.
        root: the folder the actions' file paths are relative to (the workspace).

    Returns:
        A function that stops wrapping new pushes.
    """
    resolved = root.resolve()

    def on_push(action: PendingAction, count: int) -> None:
        journal_action(action, journal, resolved)

    return store.subscribe_push(on_push)
