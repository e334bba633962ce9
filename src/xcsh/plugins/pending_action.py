"""What a custom tool pushes for ``resolve``: :class:`CustomToolPendingAction` (contract §5).

A tool gives the action as this dataclass or as a mapping of the same fields
(:func:`from_mapping`); :meth:`CustomToolPendingAction.to_pending_action`
checks it and builds the core :class:`~xcsh.pending.PendingAction` with its
typed preview.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from xcsh.core import ToolError
from xcsh.pending import (
    DEFAULT_SOURCE_TOOL_NAME,
    PendingAction,
    Preview,
    PreviewChange,
    PreviewFile,
)
from xcsh.pending.effect import ApplyCallback, CallbackResult, RejectCallback

PartIdsCallback: TypeAlias = (
    "Callable[[list[str], str], CallbackResult | Awaitable[CallbackResult]]"
)
"""A custom tool's ``apply_parts(ids, reason)``, sync or async: returns like ``apply``."""


@dataclass
class CustomToolPendingAction:
    """A preview a custom tool stages for ``resolve`` (contract §5, the description's shape).

    Args:
        label: short, specific summary shown by the resolve renderer
            (``"Batch rename: 3 files"``). Required, non-empty.
        apply: ``apply(reason)``, sync or async; performs the change and returns an
            ``AgentToolResult`` (a str or ``{"content": [...]}`` dict works too).
            Raising keeps the action pending and reports ``Apply failed: ...``.
        reject: optional ``reject(reason)``, sync or async, for clean-up on
            discard; a returned result replaces the default ``Discarded: ...`` text.
        details: opaque data of the tool. For tools written before previews
            were typed, a mapping with ``files`` (paths or ``{"file": path}``),
            ``path`` and ``diff`` still names the files and diff shown and journaled.
        source_tool_name: the badge shown with the label; ``"custom_tool"`` by default.
        files: the files the action changes, relative to the workspace (shown
            by ``/pending``; recorded in the undo journal on apply). A mapping of
            each path to its new content (bytes, or text written as UTF-8)
            declares what the action will write, so the project's check can run
            on it staged (:meth:`CustomToolAPI.apush_pending_action`).
        diff: the text that shows the preview (a unified diff).
        parts: to let ``resolve`` apply a subset (``only``, ``/review``): the
            parts, each a :class:`~xcsh.pending.PreviewChange` (or a dict of its
            fields) with an ``id`` unique in the action; requires ``apply_parts``.
        apply_parts: ``apply_parts(ids, reason)``, sync or async: apply exactly
            the parts whose ids are listed (all or nothing), returning like ``apply``.
    """

    label: str
    apply: ApplyCallback
    reject: RejectCallback | None = None
    details: object = None
    source_tool_name: str = DEFAULT_SOURCE_TOOL_NAME
    files: Sequence[str] | Mapping[str, bytes | str] = ()
    diff: str = ""
    parts: Sequence[PreviewChange | Mapping[str, object]] = ()
    apply_parts: PartIdsCallback | None = None

    def declared_files(self) -> dict[str, bytes] | None:
        """The declared new content of each file (``files`` given as a mapping), else ``None``.

        Raises:
            ToolError: a value is neither bytes nor text.
        """
        if not isinstance(self.files, Mapping):
            return None
        out: dict[str, bytes] = {}
        for path, content in self.files.items():
            if isinstance(content, str):
                content = content.encode("utf-8")
            if not isinstance(path, str) or not isinstance(content, bytes | bytearray):
                raise ToolError(
                    f"Pending action '{self.label}': files maps each relative path to its new "
                    f"content (bytes or text); {path!r} maps to a {type(content).__name__}."
                )
            out[path] = bytes(content)
        return out

    def to_pending_action(self) -> PendingAction:
        """The core :class:`~xcsh.pending.PendingAction` pushed on the session's store.

        Raises:
            ToolError: ``label`` is empty, ``apply``/``reject``/``apply_parts`` is
                not callable, parts are malformed (no id, ids repeated), or parts
                are given without ``apply_parts`` (or the reverse).
        """
        if not isinstance(self.label, str) or not self.label.strip():
            raise ToolError("A pending action needs a non-empty label.")
        if not callable(self.apply):
            raise ToolError(f"Pending action '{self.label}': apply must be callable.")
        if self.reject is not None and not callable(self.reject):
            raise ToolError(f"Pending action '{self.label}': reject must be callable or None.")
        self.declared_files()  # checks the declared contents
        parts = _parts(self.label, self.parts)
        if bool(parts) != (self.apply_parts is not None):
            raise ToolError(
                f"Pending action '{self.label}': give both `parts` and `apply_parts` to let "
                "resolve apply a subset, or neither."
            )
        if self.apply_parts is not None and not callable(self.apply_parts):
            raise ToolError(f"Pending action '{self.label}': apply_parts must be callable.")
        apply_parts = None
        if self.apply_parts is not None:
            chosen_apply = self.apply_parts

            def apply_parts(
                subset: Preview, reason: str
            ) -> CallbackResult | Awaitable[CallbackResult]:
                return chosen_apply([c.id for c in subset.changes], reason)

        return PendingAction(
            label=self.label,
            source_tool_name=self.source_tool_name or DEFAULT_SOURCE_TOOL_NAME,
            apply=self.apply,
            reject=self.reject,
            details=self.details,
            preview=_preview(self, parts),
            apply_parts=apply_parts,
        )


_T = TypeVar("_T")


def _build(constructor: Callable[..., _T], given: Mapping[str, object]) -> _T:
    """A dataclass built from the fields a plugin gave by name.

    The constructor refuses an unknown or missing field (``TypeError``); the
    values are checked where they are used (:meth:`CustomToolPendingAction.to_pending_action`).
    """
    return constructor(**given)


def _parts(
    label: str, given: Sequence[PreviewChange | Mapping[str, object]]
) -> list[PreviewChange]:
    parts: list[PreviewChange] = []
    for item in given:
        if isinstance(item, Mapping):
            try:
                item = _build(PreviewChange, item)
            except TypeError as exc:
                raise ToolError(f"Pending action '{label}': a part is malformed: {exc}") from exc
        if not isinstance(item, PreviewChange) or not str(item.id).strip():
            raise ToolError(f"Pending action '{label}': every part needs a non-empty `id`.")
        parts.append(item)
    ids = [p.id for p in parts]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ToolError(f"Pending action '{label}': part ids repeat: {', '.join(repeated)}.")
    return parts


def _legacy_files(details: object) -> list[str]:
    """Files named by the opaque ``details`` of tools written before typed previews.

    ``details`` is a mapping with ``files`` (a list of paths or of mappings
    with ``file`` or ``path``) or a single ``path``; anything else names none.
    """
    names: list[str] = []
    match details:
        case {"files": [*files]}:
            names = [name for name in map(_legacy_name, files) if isinstance(name, str) and name]
    match details:
        case {"path": str(path)} if not names and path:
            names.append(path)
    return names


def _legacy_name(entry: object) -> object:
    """The file one entry of a legacy ``files`` list names (not checked to be text)."""
    match entry:
        case {"file": name}:
            return name
        case {"path": name}:
            return name
        case Mapping():
            return None
    return entry


def _legacy_diff(details: object) -> str:
    """The ``diff`` text of a legacy ``details`` mapping, or ``""``."""
    match details:
        case {"diff": str(diff)}:
            return diff
    return ""


def _preview(action: CustomToolPendingAction, parts: list[PreviewChange]) -> Preview:
    files = list(action.files) or _legacy_files(action.details)
    for part in parts:
        if part.file and part.file not in files:
            files.append(part.file)
    diff = action.diff or _legacy_diff(action.details)
    return Preview(
        files=tuple(
            PreviewFile(path=f, changes=tuple(p.id for p in parts if p.file == f)) for f in files
        ),
        changes=tuple(parts),
        diff=diff,
    )


_CAMEL_CASE = {"sourceToolName": "source_tool_name"}
"""Field names a mapping may spell in camel case (the snake-case spelling wins)."""

_EMPTY_MEANS_DEFAULT = frozenset({"source_tool_name", "files", "diff", "parts"})
"""Fields for which a mapping's empty value (``None``, ``""``, ``[]``) means the default."""

_ACTION_KEYS = {
    "label",
    "apply",
    "reject",
    "details",
    "source_tool_name",
    "sourceToolName",
    "files",
    "diff",
    "parts",
    "apply_parts",
}


def from_mapping(data: Mapping[str, object]) -> CustomToolPendingAction:
    """The action a custom tool gave as a mapping of its fields (``sourceToolName`` also).

    Raises:
        ToolError: a key is not a field (the message lists the fields), or
            ``label`` or ``apply`` is missing.
    """
    unknown = sorted(set(data) - _ACTION_KEYS)
    if unknown:
        raise ToolError(
            f"Unknown pending action field(s): {', '.join(unknown)}. "
            f"Use: {', '.join(sorted(_ACTION_KEYS - {'sourceToolName'}))}."
        )
    if not {"label", "apply"} <= set(data):
        raise ToolError("A pending action needs 'label' and 'apply'.")
    # the camel-case spellings first, so that a snake-case one given too wins
    named = sorted(data.items(), key=lambda item: item[0] not in _CAMEL_CASE)
    given = {_CAMEL_CASE.get(key, key): value for key, value in named}
    return _build(
        CustomToolPendingAction,
        {k: v for k, v in given.items() if v or k not in _EMPTY_MEANS_DEFAULT},
    )
