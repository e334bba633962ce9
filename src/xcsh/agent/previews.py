"""What a pending action touches, and how a preview rebuilt on resume compares with the old one.

A :class:`~xcsh.pending.PendingAction`'s ``details`` are opaque (SPEC §1),
but the built-in tools fill them in known shapes: ``ast_edit`` gives
``{"files": [{"file", "replacements", "diff"}, ...], "diff": str}``, the
file tools ``{"path": str}``. :func:`action_files` reads those shapes so
front ends can tell two previews with the same label apart (``/pending``),
and :func:`preview_digest` fingerprints the changed lines so a resumed
session can say when a re-previewed action no longer does what the pending
one did (SPEC §6: a pending preview is shown with its label and diff).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xcsh.agent.wording import plural


def action_files(details: Any) -> list[str]:
    """The files an action's ``details`` say it touches, in order, with counts when known.

    Args:
        details: a pending action's ``details`` (any value; only mappings are read).

    Returns:
        ``["a.py (2 replacements)", "b.py (1 replacement)"]`` for ``ast_edit``;
        ``["notes.txt"]`` for details with a ``path``; ``[]`` when the details
        name no file.
    """
    if not isinstance(details, Mapping):
        return []
    files = details.get("files")
    names: list[str] = []
    if isinstance(files, Sequence) and not isinstance(files, str):
        for entry in files:
            if isinstance(entry, str):
                names.append(entry)
            elif isinstance(entry, Mapping):
                name = entry.get("file", entry.get("path"))
                if not isinstance(name, str):
                    continue
                count = entry.get("replacements")
                if isinstance(count, int) and not isinstance(count, bool):
                    name = f"{name} ({plural(count, 'replacement')})"
                names.append(name)
    for key in ("path", "file"):
        value = details.get(key)
        if not names and isinstance(value, str):
            names.append(value)
    return names


def preview_text(details: Any, fallback: str = "") -> str:
    """The text that shows a preview: ``details["diff"]`` when it is a string, else ``fallback``."""
    diff = details.get("diff") if isinstance(details, Mapping) else None
    return diff if isinstance(diff, str) and diff else fallback


def preview_digest(details: Any) -> str | None:
    """A fingerprint of what a preview changes: its diff's ``+``/``-`` lines.

    Context lines and line numbers are left out, so editing an unrelated part
    of a file keeps the digest; changing what is replaced, or by what, does not.

    Returns:
        A hex SHA-256, or ``None`` when the details hold no diff.
    """
    diff = details.get("diff") if isinstance(details, Mapping) else None
    if not isinstance(diff, str) or not diff:
        return None
    changed = [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return hashlib.sha256("\n".join(changed).encode("utf-8")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class RebuiltPreview:
    """A pending action rebuilt on resume by re-running its tool against the current files.

    Args:
        label: the rebuilt action's label.
        previous_label: the label of the action that was pending when the session was saved.
        source_tool_name: the tool that produced it.
        preview: the text that shows it (its diff), for the terminal.
        files: the files it touches now (:func:`action_files`).
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
    details: Any,
) -> list[str]:
    """How a rebuilt preview differs from the saved one (see :attr:`RebuiltPreview.changes`).

    Args:
        previous_label, previous_files, previous_digest: what was saved
            (files and digest are ``None`` in sessions saved before they were recorded).
        label: the rebuilt action's label.
        details: the rebuilt action's details.
    """
    changes: list[str] = []
    if label != previous_label:
        changes.append(f'it was "{previous_label}" and is now "{label}"')
    files = action_files(details)
    if previous_files is not None and list(previous_files) != files:
        before = ", ".join(previous_files) or "no files"
        changes.append(f"it touched {before}; it now touches {', '.join(files) or 'no files'}")
    digest = preview_digest(details)
    if not changes and previous_digest is not None and digest != previous_digest:
        changes.append("the lines it replaces, or what it puts in their place, are not the same")
    return changes
