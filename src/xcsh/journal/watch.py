"""Journal the apply of pending actions whose effect does not record itself (custom tools).

The built-in producers write through :func:`~xcsh.journal.apply.apply_changes`
(a :class:`~xcsh.journal.effects.FileChangesEffect` records itself). A custom
tool's ``apply`` (and ``apply_parts``) writes files its own way, so
:func:`record_applies` wraps its effect in a :class:`JournaledEffect`: before the apply runs, the
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
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import AgentToolResult
from xcsh.core.protected import protected_reason
from xcsh.fs import Workspace
from xcsh.fs.confined import ConfinedError, RootDir, sha256_hex
from xcsh.journal.records import COMMITTED, ROLLED_BACK, FileRecord
from xcsh.journal.store import Journal, JournalError, OpenEntry
from xcsh.pending import (
    ApplyFailedError,
    ApplyReport,
    CheckVerdict,
    PendingAction,
    PendingActionStore,
    PendingEffect,
    Preview,
    RebuiltAction,
    Supports,
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
    """``action``, with what its apply (and apply of parts) write recorded in ``journal``.

    Returns:
        A new action whose effect is a :class:`JournaledEffect` around its own,
        when ``action`` names files and its effect does not record itself;
        otherwise ``action`` unchanged.
    """
    if action.supports.records_itself:
        return action
    paths = _paths(journal, action.preview.paths)
    if not paths:
        return action
    effect = JournaledEffect(
        inner=action.effect,
        journal=journal,
        label=action.label,
        source_tool_name=action.source_tool_name,
        paths=tuple(paths),
    )
    return dataclasses.replace(action, effect=effect)


@dataclass(frozen=True, kw_only=True)
class JournaledEffect(PendingEffect):
    """An effect whose apply is recorded in the undo journal around it.

    Before ``inner``'s apply runs, the files named (relative to the workspace)
    are read and an intent record with their content is fsynced; after it
    returns or raises, their new content is the outcome. A file whose real
    place is protected (``.git``, ``.hg``, ``.xcsh``) is refused first.

    Args:
        inner: the effect that writes.
        journal: where the entry goes.
        label: the entry's label (the action's).
        source_tool_name: recorded with the entry.
        paths: the files recorded for a whole apply; a partial apply records the
            subset's files.
    """

    inner: PendingEffect
    journal: Journal
    label: str
    source_tool_name: str
    paths: tuple[str, ...]

    @property
    def supports(self) -> Supports:
        """``inner``'s, and it records itself."""
        return dataclasses.replace(self.inner.supports, records_itself=True)

    async def apply(self, reason: str) -> ApplyReport:
        """``inner``'s apply, recorded."""
        return await self._recorded(list(self.paths), lambda: self.inner.apply(reason))

    async def apply_parts(self, subset: Preview, reason: str) -> ApplyReport:
        """``inner``'s apply of ``subset``, recording the subset's files."""
        chosen = _paths(self.journal, subset.paths) or list(self.paths)
        return await self._recorded(chosen, lambda: self.inner.apply_parts(subset, reason))

    async def reject(self, reason: str) -> AgentToolResult | None:
        """``inner``'s clean-up."""
        return await self.inner.reject(reason)

    async def rebuild(self) -> RebuiltAction | None:
        """``inner``'s rebuild (the store wraps the new action again on push)."""
        return await self.inner.rebuild()

    async def check_parts(self, subset: Preview) -> CheckVerdict:
        """``inner``'s check of a subset."""
        return await self.inner.check_parts(subset)

    async def _recorded(
        self, paths: list[str], run: Callable[[], Awaitable[ApplyReport]]
    ) -> ApplyReport:
        for path in paths:
            refusal = protected_reason(path)
            if refusal is not None:  # a link in the workspace may lead there
                raise ApplyFailedError(refusal)
        entry = _begin(self.journal, self.label, self.source_tool_name, paths)
        committed = False
        try:
            report = await run()
        finally:
            if entry is not None:
                committed = _finish(self.journal, entry, paths)
        if entry is None or not committed:
            return report
        return dataclasses.replace(report, journal_entry=entry.record.seq)


def _paths(journal: Journal, names: list[str]) -> list[str]:
    """``names`` as paths relative to the journal's workspace (those inside it, once each)."""
    ws = Workspace(journal.root)
    paths: list[str] = []
    for name in names:
        located = ws.locate(ws.root / name)
        if located is not None and located[0] == ws.root and located[1] != ".":
            paths.append(located[1])
    return list(dict.fromkeys(paths))


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


def _finish(journal: Journal, entry: OpenEntry, paths: list[str]) -> bool:
    """Record the outcome of ``entry``; True when it committed a change."""
    try:
        after = _read(journal.root, paths)
        hashes = {p: (None if data is None else sha256_hex(data)) for p, (data, _) in after.items()}
        changed = any(hashes[f.path] != f.before for f in entry.record.files)
        with journal.locked():
            journal.finish(entry, COMMITTED if changed else ROLLED_BACK, after=hashes)
    except (OSError, ConfinedError, JournalError):
        journal.release(entry)
        log.warning("cannot record the end of %r in the undo journal", entry.record.label)
        return False
    return changed


def record_applies(store: PendingActionStore, journal: Journal) -> None:
    """Journal the apply of every action on ``store``, now and from now on.

    Composes :func:`journaled` into the store once. Actions whose effect records
    itself (``action.supports.records_itself``) are left alone.

    Raises:
        RuntimeError: the store already composes a wrapper.
    """
    store.compose(journaled(journal))
