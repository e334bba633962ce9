"""The typed preview of a pending action: its id, files, changes and diff.

A :class:`Preview` is what front ends, the journal and ``resolve`` read about
a pending action (never keys of its opaque ``details``). Its ``id`` (``p3``)
is given by the store on push; each change has a short id (``c12``) that
``resolve``'s ``only`` argument and the terminal's ``/review`` use to pick
parts. A preview with changes can be cut down to a subset with
:meth:`Preview.subset`, which is what a partial apply hands to the action's
``apply_parts``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xcsh.pending.check import CheckVerdict


@dataclass(frozen=True, kw_only=True)
class PreviewChange:
    """One part of a preview that can be applied without the others.

    Args:
        id: short id unique in its store, ``c12`` for ``ast_edit``
            (a custom tool may choose its own).
        file: the file it changes, relative to the workspace (``""`` when it
            changes no file).
        line: 1-based line where the change starts (0 when unknown).
        column: 1-based column (code points; 0 when unknown).
        old: the text replaced.
        new: the text put in its place.
        summary: one line for parts that are not a text replacement.
    """

    id: str
    file: str = ""
    line: int = 0
    column: int = 0
    old: str = ""
    new: str = ""
    summary: str = ""

    @property
    def where(self) -> str:
        """``a.py:3:5`` (or ``a.py``, or the id when there is no file)."""
        if not self.file:
            return self.id
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file


@dataclass(frozen=True, kw_only=True)
class PreviewFile:
    """A file a preview touches.

    Args:
        path: relative to the workspace, ``/`` separators.
        diff: its unified diff (``""`` when not known).
        changes: ids of the :class:`PreviewChange` values in this file, in file order.
    """

    path: str
    diff: str = ""
    changes: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class LeftOut:
    """A file left out of a preview, and why (``"parse errors"``, ``"binary"``, ...).

    Args:
        file: relative path.
        reason: a short phrase.
        error: where the first new parse error is (``"line 3, column 7"``) for
            a rewrite that would break the file, else ``""``.
    """

    file: str
    reason: str
    error: str = ""


@dataclass(frozen=True, kw_only=True)
class Preview:
    """What a pending action would do (typed; front ends and ``resolve`` read it).

    Args:
        id: ``p<n>``, given by the store on push (``""`` until then).
        files: the files touched, in order.
        changes: the parts that can be applied on their own, in file order
            (empty for an action that applies all or nothing).
        diff: the text that shows the whole preview (a unified diff when the
            action changes files).
        left_out: files the producer left out of this preview.
        rebuilt_from: for a preview computed again because the files of a
            pending one changed, that preview's id; else ``""``.
        check: the verdict of the project's check on a staged copy of the
            workspace with this preview applied (``None``: not checked).
    """

    id: str = ""
    files: tuple[PreviewFile, ...] = ()
    changes: tuple[PreviewChange, ...] = ()
    diff: str = ""
    left_out: tuple[LeftOut, ...] = ()
    rebuilt_from: str = ""
    check: CheckVerdict | None = None

    @property
    def paths(self) -> list[str]:
        """The relative paths of :attr:`files`, in order."""
        return [f.path for f in self.files]

    @property
    def has_parts(self) -> bool:
        """True when single changes can be picked (``only``, ``/review``)."""
        return bool(self.changes)

    def change(self, change_id: str) -> PreviewChange | None:
        """The change with this id, or ``None``."""
        return next((c for c in self.changes if c.id == change_id), None)

    def file_labels(self) -> list[str]:
        """``["a.py (2 replacements)", "notes.txt"]``: each file, with its change count."""
        out = []
        for entry in self.files:
            count = len(entry.changes)
            if count:
                noun = "replacement" if count == 1 else "replacements"
                out.append(f"{entry.path} ({count} {noun})")
            else:
                out.append(entry.path)
        return out

    def subset(self, change_ids: Iterable[str]) -> Preview:
        """This preview cut down to ``change_ids`` (same id; unknown ids are ignored).

        Files keep their whole diff only when all their changes are kept; a
        file partly kept gets an empty diff (the producer's ``apply_parts``
        knows how to write it). Files without changes are dropped.
        """
        keep = set(change_ids)
        files = []
        for entry in self.files:
            kept = tuple(c for c in entry.changes if c in keep)
            if kept:
                diff = entry.diff if kept == entry.changes else ""
                files.append(PreviewFile(path=entry.path, diff=diff, changes=kept))
        return Preview(
            id=self.id,
            files=tuple(files),
            changes=tuple(c for c in self.changes if c.id in keep),
            diff="".join(f.diff for f in files),
            left_out=self.left_out,
            rebuilt_from=self.rebuilt_from,
        )


__all__ = [
    "LeftOut",
    "Preview",
    "PreviewChange",
    "PreviewFile",
]
