"""What one sentence says about a preview computed again: one home for those sentences.

A preview is computed again in two places: ``resolve`` rebuilds a stale
action (:func:`describe_rebuild`, one phrase for the model), and a resumed
session re-runs the tool calls of the actions left pending
(:func:`compare_rebuilt` against the saved record, :class:`RebuiltPreview`
for the user and the model). Both say how the new preview differs from the
one it replaces with the phrases below; :func:`preview_digest` fingerprints
what a preview changes so a saved one can be compared without keeping it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from xcsh.core.wording import name_list
from xcsh.pending.action import PendingAction
from xcsh.pending.preview import Preview

LINES_DIFFER = "the lines it replaces, or what it puts in their place, are not the same"
"""Said when a rebuilt preview touches the same files under the same label but changes
other text."""
_CHANGES = "changes:"
"""The prefix of a digest taken from a preview's changes (older digests are of its diff)."""


def _label_phrase(before: str, after: str) -> str:
    return f'it was "{before}" and is now "{after}"'


def preview_digest(preview: Preview) -> str | None:
    """A fingerprint of what a preview changes.

    Taken from its changes' files, old and new text where they hold text
    (``ast_edit``'s), else from its diff's ``+``/``-`` lines; positions and
    context lines are left out, so editing an unrelated part of a file keeps
    the digest, while changing what is replaced, or by what, does not.

    Returns:
        A hex SHA-256 (``changes:`` and one for a digest of changes), or ``None``
        when the preview shows nothing to compare.
    """
    texts = [(c.file, c.old, c.new) for c in preview.changes if c.old or c.new]
    if texts:
        data = json.dumps(texts, ensure_ascii=False).encode("utf-8")
        return _CHANGES + hashlib.sha256(data).hexdigest()
    return _diff_digest(preview)


def _diff_digest(preview: Preview) -> str | None:
    if not preview.diff:
        return None
    changed = [
        line
        for line in preview.diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return hashlib.sha256("\n".join(changed).encode("utf-8")).hexdigest()


def _same_digest(saved: str, preview: Preview) -> bool:
    """Whether ``preview`` changes what the saved digest says (of either kind)."""
    if saved.startswith(_CHANGES):
        return preview_digest(preview) == saved
    return _diff_digest(preview) == saved  # saved by an earlier version, from its diff


def describe_rebuild(old: PendingAction, new: PendingAction) -> str:
    """How a rebuilt preview differs from the stale one, as one phrase.

    Example: ``it was "AST Edit: 2 replacements in 1 file" and is now "AST Edit:
    1 replacement in 1 file"; it no longer touches b.py``.
    """
    phrases = []
    if old.label != new.label:
        phrases.append(_label_phrase(old.label, new.label))
    before, after = old.preview.paths, new.preview.paths
    gone = [p for p in before if p not in after]
    added = [p for p in after if p not in before]
    if gone:
        phrases.append(f"it no longer touches {name_list(gone)}")
    if added:
        phrases.append(f"it now also touches {name_list(added)}")
    if not phrases:
        same = [(c.file, c.old, c.new) for c in old.preview.changes] == [
            (c.file, c.old, c.new) for c in new.preview.changes
        ]
        phrases.append("it makes the same changes at their new positions" if same else LINES_DIFFER)
    return "; ".join(phrases)


@dataclass(frozen=True, kw_only=True)
class RebuiltPreview:
    """A pending action rebuilt on resume by re-running its tool against the current files.

    Args:
        label: the rebuilt action's label.
        previous_label: the label of the action that was pending when the session was saved.
        source_tool_name: the tool that produced it.
        preview: the text that shows it (its diff), for the terminal.
        files: the files it touches now (:meth:`~xcsh.pending.Preview.file_labels`).
        changes: how it differs from the pending one, one phrase each
            (empty when it is the same change).
    """

    label: str
    previous_label: str
    source_tool_name: str
    preview: str
    files: list[str] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when the rebuilt preview is not the change that was pending."""
        return bool(self.changes)

    def note(self) -> str:
        """One sentence for the user and the model; says whether it differs.

        Example: ``This preview differs from the one left pending: it was "AST
        Edit: 1 replacement in 1 file" and is now "AST Edit: 2 replacements in
        1 file". Review its diff before applying it.``
        """
        if not self.changes:
            return "It makes the same change as the preview left pending."
        return (
            "This preview differs from the one left pending: "
            + "; ".join(self.changes)
            + ". Review its diff before applying it."
        )


def compare_rebuilt(
    *,
    previous_label: str,
    previous_files: Sequence[str] | None,
    previous_digest: str | None,
    label: str,
    preview: Preview,
) -> list[str]:
    """How a rebuilt preview differs from the saved one (see :attr:`RebuiltPreview.changes`).

    Args:
        previous_label: the saved action's label.
        previous_files: the files the saved preview touched (``None`` in sessions saved
            before they were recorded).
        previous_digest: the saved preview's digest (``None`` likewise).
        label: the rebuilt action's label.
        preview: the rebuilt action's preview.

    Returns:
        One sentence per difference (label, files, or the lines changed); ``[]`` when
        the rebuilt preview is the saved one.
    """
    changes: list[str] = []
    if label != previous_label:
        changes.append(_label_phrase(previous_label, label))
    files = preview.file_labels()
    if previous_files is not None and list(previous_files) != files:
        before = ", ".join(previous_files) or "no files"
        changes.append(f"it touched {before}; it now touches {', '.join(files) or 'no files'}")
    if not changes and previous_digest is not None and not _same_digest(previous_digest, preview):
        changes.append(LINES_DIFFER)
    return changes


__all__ = [
    "LINES_DIFFER",
    "RebuiltPreview",
    "compare_rebuilt",
    "describe_rebuild",
    "preview_digest",
]
