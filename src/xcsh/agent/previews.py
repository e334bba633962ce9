"""How a preview rebuilt on resume compares with the one left pending.

Front ends read a pending action's typed :class:`~xcsh.pending.Preview`
(files, changes, diff); :func:`preview_digest` fingerprints its changed lines
so a resumed session can say when a re-previewed action no longer does what
the pending one did.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from xcsh.pending import Preview


def preview_digest(preview: Preview) -> str | None:
    """A fingerprint of what a preview changes: its diff's ``+``/``-`` lines.

    Context lines and line numbers are left out, so editing an unrelated part
    of a file keeps the digest; changing what is replaced, or by what, does not.

    Returns:
        A hex SHA-256, or ``None`` when the preview has no diff.
    """
    if not preview.diff:
        return None
    changed = [
        line
        for line in preview.diff.splitlines()
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
        changes.append(f'it was "{previous_label}" and is now "{label}"')
    files = preview.file_labels()
    if previous_files is not None and list(previous_files) != files:
        before = ", ".join(previous_files) or "no files"
        changes.append(f"it touched {before}; it now touches {', '.join(files) or 'no files'}")
    digest = preview_digest(preview)
    if not changes and previous_digest is not None and digest != previous_digest:
        changes.append("the lines it replaces, or what it puts in their place, are not the same")
    return changes
