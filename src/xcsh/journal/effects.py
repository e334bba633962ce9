"""Effects that write files through the undo journal.

:class:`FileChangesEffect` is the one effect for a previewed set of file
changes: ``ast_edit``'s rewrite, a command run on a staged copy, a custom
tool's proposed contents. It holds each file's expected and new bytes
(:class:`~xcsh.journal.Change`) and writes them with
:func:`~xcsh.journal.apply_changes`: all or nothing, recorded for ``xcsh
undo``, off the event loop and never cut short. A file changed since the
preview makes its apply raise :class:`~xcsh.pending.StalePreviewError`, so
``resolve`` previews it again when the producer said how
(``recompute``). :func:`proposed_changes` reads what proposed files hold now;
:func:`file_changes_action` builds the whole pending action (preview with one
change per file, diffs) from a list of changes.

:class:`JournaledEffect` wraps any other effect (a custom tool's callbacks)
so that the files its preview names are recorded around its apply; a
session composes it into its store (:func:`~xcsh.journal.record_applies`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import AgentToolResult, TextContent, ToolError
from xcsh.core.protected import protected_reason
from xcsh.core.safe import visible
from xcsh.core.wording import name_list
from xcsh.fs import Workspace
from xcsh.fs.confined import ConfinedError, FileId, RootDir
from xcsh.journal.apply import Applied, ApplyError, Change, apply_changes
from xcsh.journal.signals import finish_in_thread
from xcsh.journal.store import Journal
from xcsh.pending import (
    ApplyReport,
    CheckVerdict,
    PendingAction,
    PendingActionStore,
    PendingEffect,
    Preview,
    PreviewChange,
    PreviewFile,
    RebuiltAction,
    StalePreviewError,
    Supports,
)
from xcsh.pending.diff import file_diff

Select = Callable[[Preview], Sequence[Change]]
"""``select(subset)``: the changes that apply exactly the changes of ``subset``
(a :meth:`Preview.subset` of the effect's preview)."""
Describe = Callable[[Preview | None, Applied], AgentToolResult | None]
"""``describe(subset, applied)``: what the model reads after an apply of the whole
preview (``subset`` is ``None``) or of ``subset`` (``None`` returned: the default
``Applied: <label>.``)."""
Recompute = Callable[[], Awaitable[RebuiltAction | None]]
"""``await recompute()``: the same proposal previewed again against the files as they are
now, as a new action (``None``: it would change nothing now)."""
CheckFiles = Callable[[Mapping[str, bytes | None]], Awaitable[CheckVerdict]]
"""``await check(files)``: the project's check on ``files`` (relative path → new bytes,
``None`` for a file deleted) staged over the workspace."""


@dataclass(frozen=True, kw_only=True)
class FileChangesEffect(PendingEffect):
    """A previewed set of file changes, written all or nothing through the undo journal.

    Args:
        root: the folder the changes' paths are relative to (the workspace).
        changes: each file's expected content now and its new content
            (:class:`~xcsh.journal.Change`; ``after=None`` deletes it).
        journal: the workspace's undo journal (``None``: written unrecorded).
        label: the journal entry's label (the action's label).
        source_tool_name: the tool recorded with the entry.
        select: the changes of a subset of the preview, for ``resolve`` with
            ``only``; the default takes whole files, the preview's files being
            the changes' ``shown`` names (each file one change).
        describe: the text of an applied result (default: ``Applied: <label>.``
            and the files written).
        recompute: previews it again when its files changed (``None``: a stale
            apply fails, naming the files).
        check: runs the project's check on staged files, for ``only`` with
            ``check: true`` (``None``: cannot check parts). Deleted files are
            removed in the staged tree.
    """

    root: Path
    changes: tuple[Change, ...]
    journal: Journal | None
    label: str
    source_tool_name: str
    select: Select | None = None
    describe: Describe | None = None
    recompute: Recompute | None = None
    check: CheckFiles | None = None

    @property
    def supports(self) -> Supports:
        """Parts, always; rebuild and check when given; it records itself when journaled."""
        return Supports(
            apply_parts=True,
            rebuild=self.recompute is not None,
            check_parts=self.check is not None,
            records_itself=self.journal is not None,
        )

    async def apply(self, reason: str) -> ApplyReport:
        """Write every change (see :meth:`write`)."""
        return await self.write(self.changes, self.label)

    async def apply_parts(self, subset: Preview, reason: str) -> ApplyReport:
        """Write the changes of ``subset``, recorded as ``<label> (only c1, c2)``."""
        chosen = self._chosen(subset)
        label = f"{self.label} (only {', '.join(subset_ids(subset))})"
        return await self.write(chosen, label, subset)

    async def rebuild(self) -> RebuiltAction | None:
        """The proposal previewed again, when ``recompute`` was given."""
        return await self.recompute() if self.recompute is not None else None

    async def check_parts(self, subset: Preview) -> CheckVerdict:
        """The project's check on the changes of ``subset`` staged."""
        if self.check is None:
            return await super().check_parts(subset)
        chosen = self._chosen(subset)
        return await self.check({c.path: c.after for c in chosen})

    async def write(
        self, changes: Sequence[Change], label: str, subset: Preview | None = None
    ) -> ApplyReport:
        """Write ``changes`` (all, or those of ``subset``) off the event loop, never cut short.

        Raises:
            StalePreviewError: a file changed since the preview (nothing written).
            ApplyError: the apply was refused or failed (the message says what was
                restored and names any file left holding new content).
        """
        job = functools.partial(
            apply_changes,
            self.root,
            list(changes),
            journal=self.journal,
            label=label,
            source_tool_name=self.source_tool_name,
        )
        try:
            applied = await finish_in_thread(job)
        except ApplyError as exc:
            if exc.stale and not exc.new_content:
                raise StalePreviewError(str(exc), files=exc.stale) from exc
            raise
        describe = self.describe or _default_text(self.label, changes)
        return ApplyReport(
            result=describe(subset, applied),
            files=tuple(c.shown for c in changes),
            journal_entry=applied.seq,
            warnings=(applied.warning,) if applied.warning else (),
        )

    def _chosen(self, subset: Preview) -> Sequence[Change]:
        if self.select is not None:
            return self.select(subset)
        return by_file(self.changes, subset)


def subset_ids(subset: Preview) -> list[str]:
    """The change ids of ``subset``, in order."""
    return [c.id for c in subset.changes]


def by_file(changes: Sequence[Change], subset: Preview) -> list[Change]:
    """The changes of the files ``subset`` keeps (each file one change, written whole)."""
    kept = {f.path for f in subset.files}
    return [c for c in changes if c.shown in kept]


def _default_text(label: str, written: Sequence[Change]) -> Describe:
    def describe(subset: Preview | None, applied: Applied) -> AgentToolResult:
        names = name_list([visible(c.shown) for c in written])
        text = f"Applied: {label}. Files written: {names}."
        if applied.warning:
            text += "\n" + applied.warning
        return AgentToolResult(content=[TextContent(text)])

    return describe


def file_changes_action(
    store: PendingActionStore,
    root: Path,
    changes: Sequence[Change],
    *,
    label: str,
    source_tool_name: str,
    journal: Journal | None,
    details: object = None,
    recompute: Recompute | None = None,
    check: CheckFiles | None = None,
    summaries: Mapping[str, str] | None = None,
) -> PendingAction:
    """A pending action proposing whole-file ``changes``: one change id per file, diffs.

    Each file becomes one :class:`~xcsh.pending.PreviewChange` (id from
    ``store``, its file, a one-line summary: ``created``, ``deleted`` or
    ``changed``, unless ``summaries`` names it otherwise) and one
    :class:`~xcsh.pending.PreviewFile` with its unified diff, so ``resolve``'s
    ``only`` picks files by path or by id. Files that would not change (content,
    file type or mode) are left out. The action is not pushed.

    Args:
        store: gives the change ids.
        root: the workspace; each change's ``path`` is relative to it.
        changes: the proposed files.
        label: the action's label (``"Command: sed -i ... (3 files)"``).
        source_tool_name: the tool that proposes it.
        journal: the workspace's undo journal (``None``: unrecorded).
        details: the producing tool's details, carried by the action.
        recompute: previews it again when its files changed.
        check: runs the project's check on a subset staged.
        summaries: a one-line summary per file (by ``shown``), replacing the default.
    """
    todo = tuple(c for c in changes if c.differs)
    ids = store.new_change_ids(len(todo))
    parts: list[PreviewChange] = []
    files: list[PreviewFile] = []
    for change_id, change in zip(ids, todo, strict=True):
        summary = (summaries or {}).get(change.shown) or _summary(change)
        parts.append(PreviewChange(id=change_id, file=change.shown, summary=summary))
        diff = change_diff(change)
        files.append(PreviewFile(path=change.shown, diff=diff, changes=(change_id,)))
    preview = Preview(files=tuple(files), changes=tuple(parts), diff="".join(f.diff for f in files))
    effect = FileChangesEffect(
        root=root,
        changes=todo,
        journal=journal,
        label=label,
        source_tool_name=source_tool_name,
        recompute=recompute,
        check=check,
    )
    return PendingAction(
        label=label,
        source_tool_name=source_tool_name,
        effect=effect,
        details=details,
        preview=preview,
    )


def proposed_changes(root: Path, files: Mapping[str, bytes | None]) -> list[Change]:
    """Each proposed file beside what it holds now, ready for :func:`file_changes_action`.

    Args:
        root: the workspace.
        files: each file (relative to ``root``, or absolute inside it) mapped to its
            new content; ``None`` deletes it.

    Returns:
        One :class:`~xcsh.journal.Change` per file, in the given order: its real
        place below ``root``, its name as given (normalised), its current bytes
        (``None`` when missing) and the identity of the file read, so an apply
        refuses it as stale if it changes meanwhile.

    Raises:
        ToolError: a path is outside the workspace, is the workspace itself, lies in
            a protected folder (``.git``, ``.hg``, ``.xcsh``), or is not a regular
            file that can be read (the message names it and says why).
    """
    ws = Workspace(root)
    changes: list[Change] = []
    with RootDir(ws.root) as rd:
        for given, after in files.items():
            path = ws.resolve(given)
            shown = ws.display(path)
            located = ws.locate(path)
            if located is None or located[0] != ws.root or located[1] == ".":
                raise ToolError(f"{shown} is not a file inside the workspace {ws.root}.")
            rel = located[1]
            refusal = protected_reason(rel, shown)
            if refusal is not None:
                raise ToolError(refusal)
            try:
                found = rd.read(rel)
            except (ConfinedError, OSError) as exc:
                raise ToolError(f"Cannot read {shown}: it is not a regular file ({exc}).") from exc
            before = None if found is None else found[0]
            ident = None if found is None else FileId.of(found[1])
            changes.append(Change(path=rel, shown=shown, before=before, after=after, ident=ident))
    return changes


def _summary(change: Change) -> str:
    if change.after is not None and change.link_after:
        target = visible(change.after.decode("utf-8", "replace"))
        return f"symlink to {target}" + (" (created)" if change.before is None else "")
    if change.before is None:
        return "created"
    if change.after is None:
        return "deleted"
    if change.link_before:
        return "symlink replaced by a file"
    if change.before == change.after:
        return f"mode {_mode(change.before_mode)} → {_mode(change.after_mode)}"
    if change.after_mode is not None and change.before_mode != change.after_mode:
        return f"changed, mode {_mode(change.before_mode)} → {_mode(change.after_mode)}"
    return "changed"


def _mode(bits: int | None) -> str:
    return "?" if bits is None else f"{bits:o}"


def change_diff(change: Change) -> str:
    """The diff of one change as git writes it: mode lines, symlinks as their target."""
    head = ""
    old_mode = (
        None
        if change.before is None
        else (0o120000 if change.link_before else 0o100000 | (change.before_mode or 0o644))
    )
    new_mode = (
        None
        if change.after is None
        else (
            0o120000
            if change.link_after
            else 0o100000
            | (
                change.after_mode
                if change.after_mode is not None
                else (change.before_mode or 0o644)
            )
        )
    )
    if old_mode is not None and new_mode is not None and old_mode != new_mode:
        head = f"old mode {old_mode:o}\nnew mode {new_mode:o}\n"
    elif old_mode is None and new_mode is not None and change.link_after:
        head = f"new file mode {new_mode:o}\n"
    return head + file_diff(change.shown, change.before, change.after)


__all__ = [
    "CheckFiles",
    "Describe",
    "FileChangesEffect",
    "Recompute",
    "Select",
    "by_file",
    "change_diff",
    "file_changes_action",
    "proposed_changes",
    "subset_ids",
]
