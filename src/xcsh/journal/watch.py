"""Journal the apply of pending actions that do not journal themselves (custom tools).

The built-in producers (``ast_edit``, and ``write``/``edit``) write through
:func:`~xcsh.journal.apply.apply_changes` and mark their actions
``journaled``. A custom tool's ``apply`` (and ``apply_parts``) writes files
its own way, so :func:`record_applies` wraps it: before the apply runs, the
files its typed preview names (:attr:`xcsh.pending.Preview.paths`, relative
to the workspace; for a partial apply, those of the subset applied) are read
and an intent record with their before content is fsynced; after it returns
(or raises), their new content is recorded as the outcome. A file whose real
location is in a protected folder (``.git``, ``.hg``, ``.xcsh``) is refused
before the apply runs. A crash in between
leaves an incomplete entry that recovery rolls back. The wrapped action is a new
value (the original is never changed) that behaves the same otherwise (same
result, same exceptions), so ``resolve`` works as before. A session composes
the wrapper into its store once (:func:`record_applies`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from xcsh.core.protected import protected_reason
from xcsh.fs import Workspace
from xcsh.fs.confined import ConfinedError, RootDir, sha256_hex
from xcsh.journal.records import COMMITTED, ROLLED_BACK, FileRecord
from xcsh.journal.store import Journal, JournalError, OpenEntry
from xcsh.pending import PendingAction, PendingActionStore, Preview
from xcsh.pending.action import (
    ApplyFailedError,
    ApplyPartsCallback,
    CallbackResult,
    call_maybe_async,
)

log = logging.getLogger(__name__)


def journaled(journal: Journal) -> Callable[[PendingAction], PendingAction]:
    """Bind :func:`journal_action` to ``journal``: the wrapper for every action pushed.

    A session composes it once into its store
    (:meth:`~xcsh.pending.PendingActionStore.compose`).
    """

    def wrap(action: PendingAction) -> PendingAction:
        return journal_action(action, journal)

    return wrap


def journal_action(action: PendingAction, journal: Journal) -> PendingAction:
    """``action``, with what its ``apply`` (and ``apply_parts``) write recorded in ``journal``.

    Returns:
        A new action, marked ``journaled``, when ``action`` names files and does
        not journal itself; otherwise ``action`` unchanged.
    """
    if action.journaled:
        return action
    paths = _paths(journal, action.preview.paths)
    if not paths:
        return action
    original = action.apply
    original_parts = action.apply_parts
    # the label and source the entry records are the action's, fixed now
    label, source = action.label, action.source_tool_name

    async def apply(reason: str) -> CallbackResult:
        return await _journaled(journal, label, source, paths, lambda: original(reason))

    apply_parts: ApplyPartsCallback | None = None
    if original_parts is not None:
        run_parts = original_parts

        async def apply_subset(subset: Preview, reason: str) -> CallbackResult:
            chosen = _paths(journal, subset.paths) or paths
            return await _journaled(
                journal, label, source, chosen, lambda: run_parts(subset, reason)
            )

        apply_parts = apply_subset
    return dataclasses.replace(action, apply=apply, apply_parts=apply_parts, journaled=True)


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
    journal: Journal,
    label: str,
    source: str,
    paths: list[str],
    run: Callable[[], CallbackResult | Awaitable[CallbackResult]],
) -> CallbackResult:
    for path in paths:
        refusal = protected_reason(path)
        if refusal is not None:  # a link in the workspace may lead there
            raise ApplyFailedError(refusal)
    entry = _begin(journal, label, source, paths)
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


def _begin(journal: Journal, label: str, source: str, paths: list[str]) -> OpenEntry | None:
    try:
        before = _read(journal.root, paths)
        with journal.locked():
            return journal.begin(
                kind="apply",
                label=label,
                source_tool_name=source,
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
        log.warning("cannot record %r in the undo journal; it is not undoable", label)
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


def record_applies(store: PendingActionStore, journal: Journal) -> None:
    """Journal the apply of every action on ``store``, now and from now on.

    Composes :func:`journaled` into the store once. Actions that journal themselves
    (``action.journaled``) are left alone.

    Raises:
        RuntimeError: the store already composes a wrapper.
    """
    store.compose(journaled(journal))
