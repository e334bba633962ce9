"""Journal every apply of the pending actions pushed on a store.

:func:`record_applies` wraps the ``apply`` of each action pushed afterwards:
before the apply runs it reads the files the action names in its details,
after a successful apply it reads them again and records both sides in the
:class:`~xcsh.journal.Journal`. The action's behaviour is otherwise
unchanged (same result, same exceptions), so ``resolve`` works as before.

An action names its files in ``details["files"]``: a list of paths or of
``{"file": path}`` objects, relative to the root given here (the shape
``ast_edit`` uses, SPEC §4). Actions without such a list are not journaled.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xcsh.core import coerce_result
from xcsh.journal.store import FileChange, Journal, snapshot
from xcsh.pending import PendingAction, PendingActionStore
from xcsh.pending.action import call_maybe_async

log = logging.getLogger(__name__)


def files_of(details: Any) -> list[str]:
    """The relative paths an action's details name (``details["files"]``), in order."""
    if not isinstance(details, Mapping):
        return []
    files = details.get("files")
    if not isinstance(files, list):
        return []
    out: list[str] = []
    for item in files:
        name = item.get("file") if isinstance(item, Mapping) else item
        if isinstance(name, str) and name:
            out.append(name)
    return out


def journal_action(action: PendingAction, journal: Journal, root: Path) -> bool:
    """Wrap ``action.apply`` so a successful apply is recorded in ``journal``.

    Returns:
        True when the action names files and was wrapped, else False.
    """
    paths = files_of(action.details)
    if not paths:
        return False
    original = action.apply

    async def apply(reason: str) -> Any:
        try:
            before: dict[str, bytes | None] | None = snapshot(root, paths)
        except OSError:
            log.warning("cannot read the files of %r before applying; not journaled", action.label)
            before = None
        outcome = await call_maybe_async(original, reason)
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

    action.apply = apply
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
