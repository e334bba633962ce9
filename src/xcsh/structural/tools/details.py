"""The typed details of ``ast_grep`` and ``ast_edit`` results."""

from __future__ import annotations

from dataclasses import dataclass, field

from xcsh.core.details import JsonObject, JsonValue, ToolDetails
from xcsh.pending import Preview


@dataclass(frozen=True, kw_only=True)
class LeftOutFile:
    """A file an edit left out, and why (``"binary"``, ``"parse errors"``, ...)."""

    file: str
    reason: str


@dataclass(frozen=True, kw_only=True, eq=False)
class AstGrepDetails(ToolDetails):
    """The details of an ``ast_grep`` page of matches.

    Args:
        matches: the matches shown, each as the ``ast-grep`` CLI's JSON object
            (0-based lines and columns).
        total: matches found in all.
        offset: matches skipped before this page.
        limit: the most matches a page shows.
        files_scanned: files searched.
        skipped: every file left out, in scan order.
    """

    matches: tuple[JsonObject, ...] = ()
    total: int = 0
    offset: int = 0
    limit: int = 0
    files_scanned: int = 0
    skipped: tuple[LeftOutFile, ...] = ()


@dataclass(frozen=True, kw_only=True, eq=False)
class AstEditDetails(ToolDetails):
    """The details of an ``ast_edit`` preview: its typed preview plus what it left out.

    Args:
        preview: the preview pushed for ``resolve`` (its id, files, changes, diff);
            ``None`` when the edit changes nothing (no action was pushed).
        label: the pending action's label (``"AST Edit: 2 replacements in 1 file"``);
            ``""`` with no preview.
        total: replacements previewed.
        skipped: every file left out, in scan order.
        notes: the closing notes of the model's text, one per entry (nested
            matches, the limit, files left out), for a front end to print as they are.
        arguments: the call's model-facing arguments, when a tool call produced it.

    Read by key (:meth:`contract`) it shows the dict of earlier versions: ``total``,
    ``files`` (``file``, ``replacements``, ``diff``, ``changes``), ``diff``,
    ``skipped`` and, for a preview, ``arguments``, ``id`` and ``label`` (and
    ``check``, the verdict's fields, for a checked preview: the verdict itself is
    ``preview.check``).
    """

    preview: Preview | None = None
    label: str = ""
    total: int = 0
    skipped: tuple[LeftOutFile, ...] = ()
    notes: tuple[str, ...] = ()
    arguments: JsonObject | None = None

    def contract(self) -> JsonObject:
        """The dict earlier versions returned (see the class docstring)."""
        skipped: list[JsonValue] = [{"file": s.file, "reason": s.reason} for s in self.skipped]
        if self.preview is None:
            return {"total": 0, "files": [], "diff": "", "skipped": skipped}
        files: list[JsonValue] = [
            {
                "file": f.path,
                "replacements": len(f.changes),
                "diff": f.diff,
                "changes": list(f.changes),
            }
            for f in self.preview.files
        ]
        view: JsonObject = {
            "arguments": self.arguments,
            "id": self.preview.id,
            "label": self.label,
            "total": self.total,
            "files": files,
            "diff": self.preview.diff,
            "skipped": skipped,
        }
        if self.preview.check is not None:
            view["check"] = self.preview.check.contract()
        return view


@dataclass(frozen=True, kw_only=True, eq=False)
class AppliedEditDetails(ToolDetails):
    """The details of an applied ``ast_edit`` preview.

    Args:
        files: the files written, in order.
        total: replacements written.
    """

    files: tuple[str, ...] = field(default_factory=tuple)
    total: int = 0


__all__ = ["AppliedEditDetails", "AstEditDetails", "AstGrepDetails", "LeftOutFile"]
