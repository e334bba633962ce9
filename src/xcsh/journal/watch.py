"""Journal the apply of pending actions that do not journal themselves (custom tools).

The built-in producers (``ast_edit``, and ``write``/``edit``) write through
:func:`~xcsh.journal.apply.apply_changes` and mark their actions
``journaled``. A custom tool's ``apply`` (and ``apply_parts``) writes files
its own way, so :func:`record_applies` wraps it: before the apply runs, the
files its typed preview names (:attr:`xcsh.pending.Preview.paths`, relative
to the workspace; for a partial apply, those of the subset applied) are read
and an intent record with their before content is fsynced; after it returns
(or raises), their new content is recorded as the outcome. A crash in between
leaves an incomplete entry that recovery rolls back. The action's behaviour is
otherwise unchanged (same result, same exceptions), so ``resolve`` works as
before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xcsh.fs import Workspace
from xcsh.fs.confined import ConfinedError, RootDir, sha256_hex
from xcsh.journal.records import COMMITTED, ROLLED_BACK, FileRecord
from xcsh.journal.store import Journal, JournalError, OpenEntry
from xcsh.pending import PendingAction, PendingActionStore, Preview
from xcsh.pending.action import call_maybe_async

log = logging.getLogger(__name__)


def journal_action(action: PendingAction, journal: Journal) -> bool:
    """Wrap ``action.apply`` so what it writes is recorded in ``journal``.

    Returns:
        True when the action names files, does not journal itself, and was wrapped.
    """
    if action.journaled:
        return False
    paths = _paths(journal, action.preview.paths)
    if not paths:
        return False
    original = action.apply
    original_parts = action.apply_parts

    async def apply(reason: str) -> Any:
        return await _journaled(journal, action, paths, lambda: original(reason))

    action.apply = apply
    if original_parts is not None:

        async def apply_parts(subset: Preview, reason: str) -> Any:
            chosen = _paths(journal, subset.paths) or paths
            return await _journaled(journal, action, chosen, lambda: original_parts(subset, reason))

        action.apply_parts = apply_parts
    action.journaled = True
    return True


def _paths(journal: Journal, names: list[str]) -> list[str]:
    """``names`` as paths relative to the journal's workspace (those inside it, once each)."""
    ws = Workspace(journal.root)
    paths: list[str] = []
    for name in names:
        located = ws.locate(ws.root / name)
        if located is not None and located[0] == ws.root and located[1] != ".":
            paths.append(located[1])
    return list(dict.fromkeys(paths))


async def _journaled(
    journal: Journal, action: PendingAction, paths: list[str], run: Callable[[], Any]
) -> Any:
    entry = _begin(journal, action, paths)
    try:
        return await call_maybe_async(run)
    finally:
        if entry is not None:
            _finish(journal, entry, paths)


def _read(root: Path, paths: list[str]) -> dict[str, tuple[bytes | None, int | None]]:
    out: dict[str, tuple[bytes | None, int | None]] = {}
    with RootDir(root) as rd:
        for path in paths:
            found = rd.read(path)
            out[path] = (None, None) if found is None else (found[0], found[1].st_mode & 0o7777)
    return out


def _begin(journal: Journal, action: PendingAction, paths: list[str]) -> OpenEntry | None:
    try:
        before = _read(journal.root, paths)
        with journal.locked():
            return journal.begin(
                kind="apply",
                label=action.label,
                source_tool_name=action.source_tool_name,
                after_known=False,
                files=[
                    (
                        FileRecord(
                            path=p,
                            before=None if data is None else sha256_hex(data),
                            after=None,
                            mode=mode,
                        ),
                        data,
                        None,
                    )
                    for p, (data, mode) in before.items()
                ],
            )
    except (OSError, ConfinedError, JournalError):
        log.warning("cannot record %r in the undo journal; it is not undoable", action.label)
        return None


def _finish(journal: Journal, entry: OpenEntry, paths: list[str]) -> None:
    try:
        after = _read(journal.root, paths)
        hashes = {p: (None if data is None else sha256_hex(data)) for p, (data, _) in after.items()}
        changed = any(hashes[f.path] != f.before for f in entry.record.files)
        with journal.locked():
            journal.finish(entry, COMMITTED if changed else ROLLED_BACK, after=hashes)
    except (OSError, ConfinedError, JournalError):
        journal.release(entry)
        log.warning("cannot record the end of %r in the undo journal", entry.record.label)


def record_applies(store: PendingActionStore, journal: Journal) -> Callable[[], None]:
    """Journal the apply of every action pushed on ``store`` from now on (and those on it now).

    Actions that journal themselves (``action.journaled``) are left alone.

    Returns:
        A function that stops wrapping new pushes.
    """
    for action in store.snapshot():
        journal_action(action, journal)

    def on_push(action: PendingAction, count: int) -> None:
        journal_action(action, journal)

    return store.subscribe_push(on_push)
