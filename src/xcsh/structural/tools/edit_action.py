"""The ``ast_edit`` preview as the model reads it and as the pending action it pushes.

:func:`build_edit_action` turns an engine :class:`EditPreview` into the
tool's result text (every change with its id, notes on files left out) and
a :class:`~xcsh.pending.PendingAction` carrying the typed
:class:`~xcsh.pending.Preview`, whose effect is a
:class:`~xcsh.journal.FileChangesEffect` over the previewed bytes: it writes
all of them or a subset of the replacements through the undo journal, and
previews the same edit again when its files changed.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import AgentToolResult, JsonObject, TextContent
from xcsh.core.wording import name_list, plural
from xcsh.journal import Applied, Change, FileChangesEffect, Journal
from xcsh.journal.effects import CheckFiles
from xcsh.pending import (
    CheckVerdict,
    LeftOut,
    PendingAction,
    PendingActionStore,
    Preview,
    PreviewChange,
    PreviewFile,
    RebuiltAction,
)
from xcsh.structural.base.results import EditPreview
from xcsh.structural.edit.apply import AppliedEdit, journal_changes
from xcsh.structural.edit.scan_edit import BROKEN_REASON
from xcsh.structural.engine import select_replacements
from xcsh.structural.tools.details import AppliedEditDetails, AstEditDetails, LeftOutFile
from xcsh.structural.tools.edit_text import applied_result, edit_label, edit_notes, result_text


@dataclass(frozen=True, kw_only=True)
class EditAction:
    """A previewed ``ast_edit`` ready to push: the action, the result for the model.

    Args:
        action: the pending action (``None`` when the preview changes nothing).
        result: the tool result (its text lists every change with its id).
    """

    action: PendingAction | None
    result: AgentToolResult[AstEditDetails]


Recompute = Callable[[], EditPreview]
"""``recompute()``: the same edit previewed again against the files as they are now."""


def _typed_preview(
    preview: EditPreview,
    preview_id: str,
    ids: list[str],
    rebuilt_from: str,
    with_diff: bool,
    check: CheckVerdict | None = None,
) -> Preview:
    numbered = iter(ids)
    changes: list[PreviewChange] = []
    files: list[PreviewFile] = []
    for edit in preview.files:
        mine = []
        for rep in edit.replacements:
            change = PreviewChange(
                id=next(numbered),
                file=edit.file,
                line=rep.line + 1,
                column=rep.column + 1,
                old=rep.old_text,
                new=rep.new_text,
            )
            changes.append(change)
            mine.append(change.id)
        diff = edit.diff() if with_diff else ""
        files.append(PreviewFile(path=edit.file, diff=diff, changes=tuple(mine)))
    return Preview(
        id=preview_id,
        files=tuple(files),
        changes=tuple(changes),
        diff="".join(f.diff for f in files),
        left_out=tuple(
            LeftOut(file=s.file, reason=s.reason, error=s.error) for s in preview.skipped
        ),
        rebuilt_from=rebuilt_from,
        check=check,
    )


def staged_files(preview: EditPreview) -> dict[str, bytes]:
    """What a check stages for ``preview``: each changed file's relative path → new bytes."""
    return {edit.file: edit.new_bytes for edit in preview.files}


def _change_ids(
    store: PendingActionStore, preview: EditPreview, previous: Preview | None
) -> list[str]:
    """One id per replacement; one that a rebuilt preview still makes keeps its old id."""
    if previous is None:
        return store.new_change_ids(preview.total)
    free: dict[tuple[str, str, str], list[str]] = {}
    for change in previous.changes if previous is not None else ():
        free.setdefault((change.file, change.old, change.new), []).append(change.id)
    ids: list[str | None] = []
    for edit in preview.files:
        for rep in edit.replacements:
            same = free.get((edit.file, rep.old_text, rep.new_text))
            ids.append(same.pop(0) if same else None)
    fresh = iter(store.new_change_ids(sum(1 for i in ids if i is None)))
    return [i if i is not None else next(fresh) for i in ids]


def _overlap_note(store: PendingActionStore, files: list[str]) -> str | None:
    """Which pending previews also touch these files (they would be rebuilt when resolved)."""
    mine = set(files)
    shared = []
    for action in reversed(store.snapshot()):
        common = [p for p in action.preview.paths if p in mine]
        if common:
            shared.append(f"{action.id} ({name_list(common, 5)})")
    if not shared:
        return None
    return (
        f"Pending previews below this one touch the same files: {'; '.join(shared)}. "
        "Applying this one first changes those files, so they will be previewed again "
        "against them when resolved."
    )


@dataclass(frozen=True, kw_only=True)
class EditProducer:
    """How one front end turns ``ast_edit`` previews into pending actions (the same for each).

    Args:
        store: gives the ids; notes name the pending previews touching the same files.
        journal: the workspace's undo journal the apply records into (``None``:
            unrecorded).
        broken_flag: how the notes name the way to include files whose rewrite
            would not parse (``--include-broken`` on the command line).
        with_diff: build the typed preview's unified diff (``False`` for a front end that
            never shows it, ``xcsh ast-edit --json``: the diffs are then ``""``).
        check_files: runs the project's check on staged files (relative path → new
            bytes); given, the action can check some changes (``check_parts``).
    """

    store: PendingActionStore
    journal: Journal | None = None
    broken_flag: str = "`include_broken`"
    with_diff: bool = True
    check_files: CheckFiles | None = None


def build_edit_action(
    producer: EditProducer,
    preview: EditPreview,
    arguments: JsonObject | None,
    *,
    recompute: Recompute | None = None,
    previous: Preview | None = None,
    check: CheckVerdict | None = None,
    check_note: str = "",
    apply_note: str = "",
    notes: Sequence[str] = (),
    held_languages: Mapping[str, int] | None = None,
) -> EditAction:
    """The ``ast_edit`` result and pending action for a computed preview, not pushed yet.

    Ids come from the producer's store: the preview's (``p3``) and one per replacement
    (``c12``, in file order). The action's effect is a
    :class:`~xcsh.journal.FileChangesEffect` holding each file's previewed and new
    bytes: it applies all of them, or a subset of the replacements (spliced again into
    the bytes read at preview time), through the undo journal; with ``recompute`` it
    can be rebuilt when its files changed since.

    Args:
        producer: the front end's settings (store, journal, flags, check).
        preview: the preview to offer; its apply writes exactly these bytes.
        arguments: the model-facing arguments of the call that produced the
            preview (:attr:`AstEditDetails.arguments`), or ``None`` outside a tool call.
        recompute: previews the same edit again (for ``rebuild``).
        previous: the stale preview this one rebuilds; a change that is the same
            (file, old text, new text) keeps its id, so ids stay stable.
        check: the project's check's verdict on this preview staged (the typed
            preview's ``check``, carried by the details; its text ends the result).
        check_note: a line about checks instead of a verdict (none set or can run).
        apply_note: ends the result of applying the whole preview (``""``: nothing).
        notes: the caller's paragraphs after the preview's own (with no change: why).
        held_languages: files of each language the call's scope holds without its
            ``lang`` (named when that ``lang`` left no file in scope).
    """
    store = producer.store
    notes = [*edit_notes(preview, producer.broken_flag), *notes]
    skipped = tuple(LeftOutFile(file=s.file, reason=s.reason) for s in preview.skipped)
    if preview.total == 0:
        return _nothing_to_apply(_why_nothing(preview, arguments, notes, held_languages), skipped)
    label = _label(preview)
    preview_id = store.new_preview_id()
    ids = _change_ids(store, preview, previous)
    typed = _typed_preview(
        preview, preview_id, ids, previous.id if previous else "", producer.with_diff, check
    )
    details = AstEditDetails(
        preview=typed, label=label, total=preview.total, skipped=skipped, notes=tuple(notes)
    )
    if arguments is not None:
        details = dataclasses.replace(details, arguments=dict(arguments))
    ending = [*notes, *_verdict(check, check_note), *_overlap(store, typed)]
    text = result_text(preview, ids, ending, preview_id)
    effect = _edit_effect(producer, preview, ids, label, arguments, recompute, typed, apply_note)
    action = PendingAction(
        label=label, source_tool_name="ast_edit", effect=effect, details=details, preview=typed
    )
    return EditAction(
        action=action, result=AgentToolResult(content=[TextContent(text)], details=details)
    )


def _edit_effect(
    producer: EditProducer,
    preview: EditPreview,
    ids: list[str],
    label: str,
    arguments: JsonObject | None,
    recompute: Recompute | None,
    typed: Preview,
    apply_note: str,
) -> FileChangesEffect:
    """The effect of an edit preview: its files' bytes, written through the journal."""

    def select(subset: Preview) -> list[Change]:
        return journal_changes(_subset(preview, ids, subset))

    def describe(subset: Preview | None, applied: Applied) -> AgentToolResult[AppliedEditDetails]:
        if subset is None:
            files = tuple(e.file for e in preview.files)
            done = AppliedEdit(files=files, replacements=preview.total)
        else:
            done = AppliedEdit(files=tuple(subset.paths), replacements=len(subset.changes))
        done = dataclasses.replace(done, seq=applied.seq, warning=applied.warning)
        return applied_result(done, apply_note if subset is None else "")

    rebuild = None
    if recompute is not None:
        again = recompute

        async def rebuild() -> RebuiltAction | None:
            fresh = await asyncio.to_thread(again)
            built = build_edit_action(producer, fresh, arguments, recompute=again, previous=typed)
            if built.action is None:
                return None
            return RebuiltAction(action=built.action, text=built.result.text)

    return FileChangesEffect(
        root=Path(preview.root),
        changes=tuple(journal_changes(preview)),
        journal=producer.journal,
        label=label,
        source_tool_name="ast_edit",
        select=select,
        describe=describe,
        recompute=rebuild,
        check=producer.check_files,
    )


def _why_nothing(
    preview: EditPreview,
    arguments: JsonObject | None,
    notes: list[str],
    held: Mapping[str, int] | None,
) -> list[str]:
    """The notes of a preview that replaced nothing, with why, where that can be told.

    No file in scope gets :func:`empty_scope_note` (naming the languages ``held``);
    otherwise ``notes`` already say why (files left out, or the caller's notes).
    """
    if preview.files_scanned == 0 and not preview.skipped:
        lang = arguments.get("lang") if arguments is not None else None
        return [*notes, empty_scope_note(lang, held)]
    return notes


def _label(preview: EditPreview) -> str:
    """The preview's label: how many changes in how many files, and files left out broken."""
    broken = sum(1 for s in preview.skipped if s.reason == BROKEN_REASON)
    return edit_label(preview.total, len(preview.files), broken)


def _verdict(check: CheckVerdict | None, check_note: str) -> list[str]:
    """The check's verdict as the result's last lines, or the note about checks, or none."""
    return [check.text()] if check is not None else [check_note] if check_note else []


def _overlap(store: PendingActionStore, typed: Preview) -> list[str]:
    """The note on pending previews touching the same files, as a list of none or one."""
    note = _overlap_note(store, typed.paths)
    return [note] if note is not None else []


def empty_scope_note(lang: object, held: Mapping[str, int] | None = None) -> str:
    """Why a search or a preview found nothing when no file was in scope.

    A small model often sets a ``lang`` the folder has no file of, or a
    ``path`` that holds none; ``lang`` is the call's (None when not given).
    ``held``: files of each language the scope holds without ``lang`` (named
    when there are some: ``lang`` contradicts them).
    """
    if isinstance(lang, str) and lang and held:
        kinds = name_list([plural(count, f"{name} file") for name, count in held.items()], 4)
        return (
            f"No {lang} file was in scope, so nothing was searched; the scope holds {kinds}: "
            "leave `lang` out to read each file in the language of its extension."
        )
    if isinstance(lang, str) and lang:
        return (
            f"No {lang} file was in scope, so nothing was searched: leave `lang` out to read "
            "each file in the language of its extension, or check `path` and `glob`."
        )
    return "No file was in scope, so nothing was searched: check `path` and `glob`."


def _nothing_to_apply(notes: list[str], skipped: tuple[LeftOutFile, ...]) -> EditAction:
    """The result of a preview without replacements: no action, and why."""
    text = "\n".join(["No replacements made", *notes])
    details = AstEditDetails(skipped=skipped, notes=tuple(notes))
    return EditAction(
        action=None, result=AgentToolResult(content=[TextContent(text)], details=details)
    )


def _subset(preview: EditPreview, ids: list[str], subset: Preview) -> EditPreview:
    """``preview`` cut down to the changes of ``subset`` (by id)."""
    # (file, replacement) places of the subset's changes, built only when asked for
    places = ((f, r) for f, e in enumerate(preview.files) for r in range(len(e.replacements)))
    index = dict(zip(ids, places, strict=True))
    return select_replacements(preview, {index[c.id] for c in subset.changes if c.id in index})


def push_edit_preview(
    producer: EditProducer,
    preview: EditPreview,
    arguments: JsonObject | None,
    *,
    recompute: Recompute | None = None,
    check: CheckVerdict | None = None,
    check_note: str = "",
    apply_note: str = "",
    notes: Sequence[str] = (),
    held_languages: Mapping[str, int] | None = None,
) -> AgentToolResult[AstEditDetails]:
    """Turn a computed preview into the ``ast_edit`` result and push its pending action.

    This is what the ``ast_edit`` tool does after :func:`preview_edit`; front
    ends that build one preview from several scopes (``xcsh ast-edit PATH...``)
    call it so their edit is the same pending action, applied by ``resolve``.
    See :func:`build_edit_action` for the arguments.

    Returns:
        The tool result described in :func:`create_ast_edit_tool`.
    """
    built = build_edit_action(
        producer,
        preview,
        arguments,
        recompute=recompute,
        check=check,
        check_note=check_note,
        apply_note=apply_note,
        notes=notes,
        held_languages=held_languages,
    )
    if built.action is not None:
        producer.store.push(built.action)
    return built.result


__all__ = [
    "CheckFiles",
    "EditAction",
    "EditProducer",
    "Recompute",
    "build_edit_action",
    "edit_label",
    "push_edit_preview",
    "staged_files",
]
