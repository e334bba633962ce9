"""Choosing parts of a preview (``resolve``'s ``only``) and wording what was chosen."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xcsh.core import ToolError
from xcsh.core.wording import name_list
from xcsh.pending.action import PendingAction
from xcsh.pending.preview import PreviewChange

SHOWN = 20
"""Lists in messages name at most this many items, then ``and N more``."""


def _normal_path(text: str) -> str:
    path = text.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def select_parts(
    action: PendingAction, only: Sequence[str], others: Sequence[PendingAction] = ()
) -> list[str]:
    """The change ids ``only`` names in ``action``'s preview, in preview order.

    Each entry is a change id (``c12``) or a file path of the preview (all of
    that file's changes).

    Args:
        action: the top pending action.
        only: what the caller asked for.
        others: the whole stack, to say when an id belongs to another preview.

    Raises:
        ToolError: ``only`` is empty, the action cannot apply parts, or an entry
            names nothing in the preview (the text lists what it has).
    """
    preview = action.preview
    if not action.supports.apply_parts or not preview.has_parts:
        raise ToolError(
            f"{action.id} ({action.label}) cannot be applied in parts: its tool applies it "
            "whole. Leave out `only` to apply all of it, or discard it."
        )
    if not only:
        raise ToolError(
            "`only` is empty. Name the change ids (such as "
            f"{preview.changes[0].id}) or files to apply, or leave `only` out to apply "
            "everything."
        )
    by_file: dict[str, list[str]] = {}
    for change in preview.changes:
        by_file.setdefault(change.file, []).append(change.id)
    ids = {c.id for c in preview.changes}
    chosen: set[str] = set()
    unknown: list[str] = []
    for entry in only:
        name = entry.strip()
        if name in ids:
            chosen.add(name)
        elif _normal_path(name) in by_file and _normal_path(name):
            chosen.update(by_file[_normal_path(name)])
        else:
            unknown.append(name or repr(entry))
    if unknown:
        elsewhere = []
        for name in unknown:
            owner = next(
                (a for a in others if a is not action and a.preview.change(name) is not None),
                None,
            )
            if owner is not None:
                elsewhere.append(f"{name} belongs to {owner.id}, which is not the top")
        note = f" ({'; '.join(elsewhere)})" if elsewhere else ""
        raise ToolError(
            f"`only` names what {action.id} does not have: {name_list(unknown)}{note}. "
            f"{action.id} has {grouped(preview.changes)}. Nothing was applied; {action.id} "
            "is still pending."
        )
    return [c.id for c in preview.changes if c.id in chosen]


def grouped(changes: Iterable[PreviewChange]) -> str:
    """``c1, c2 in a.py; c3 in b.py`` (``none`` for no change), files in first-seen order."""
    by_file: dict[str, list[str]] = {}
    for change in changes:
        by_file.setdefault(change.file, []).append(change.id)
    if not by_file:
        return "none"
    parts = [
        f"{name_list(found)} in {file}" if file else name_list(found)
        for file, found in by_file.items()
    ]
    return "; ".join(parts[:SHOWN]) + (
        f"; and {len(parts) - SHOWN} more files" if len(parts) > SHOWN else ""
    )


__all__ = ["grouped", "select_parts"]
