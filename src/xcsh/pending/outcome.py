"""The typed outcome of one ``resolve`` call (the details of its result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xcsh.core.details import JsonObject, ToolDetails
from xcsh.pending.check import CheckVerdict
from xcsh.pending.preview import Preview, PreviewChange

ResolveStatus = Literal["applied", "discarded", "declined", "failed", "rebuilt"]
"""What happened to the top action:

- ``applied``: applied (all of it, or the parts named by ``only``; the rest discarded);
- ``discarded``: discarded (``reject`` ran when the action has one);
- ``declined``: the person asked before the apply said no; discarded;
- ``failed``: the apply raised; the action is pending again;
- ``rebuilt``: the preview's files had changed, so it was computed again
  against them and the new preview is pending; nothing was applied.
"""


@dataclass(frozen=True, kw_only=True)
class ApplyFailure:
    """Why an apply failed (the action is pending again), for a front end to word.

    Attributes:
        message: the apply's error, as the model reads it.
        stale: files refused because they changed since the preview (nothing written).
        new_content: files left holding the new content (writing failed, and
            putting them back failed too).
    """

    message: str
    stale: tuple[str, ...] = ()
    new_content: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True, eq=False)
class ResolveOutcome(ToolDetails):
    """The details of a ``resolve`` result: a plain frozen value; read its attributes.

    The resolve contract's shape, ``{"action", "reason", "source_tool_name",
    "label"}`` (plus ``"declined": True`` for a declined apply), is
    :meth:`contract`, produced there only; reading the outcome by key
    (``details["label"]``, ``details == {...}``) sees that shape. The session
    file keeps every field (:meth:`~xcsh.core.ToolDetails.to_json`).

    Args:
        action: ``"apply"`` or ``"discard"``, as asked.
        reason: the reason given.
        source_tool_name: the tool that produced the resolved action.
        label: the resolved action's label.
        status: what happened (:data:`ResolveStatus`).
        preview_id: the resolved action's id (``p3``).
        applied: for an apply with ``only``, the changes applied.
        dropped: for an apply with ``only``, the changes discarded.
        rebuilt: for ``status == "rebuilt"``, the new pending preview.
        failure: for ``status == "failed"``, why the apply failed.
        source_label: who made the action, as displays name it
            (:attr:`~xcsh.pending.PendingAction.source_label`: a custom tool's
            label rather than the generic ``custom_tool``); ``""`` falls back
            to ``source_tool_name``.
        check: for an apply with ``only`` and ``check: true``, the verdict of
            the project's check on the parts applied.
        written: for ``status == "applied"``, the files the apply wrote, relative
            to the workspace (``()`` when its tool does not say).
        journal_entry: for ``status == "applied"``, the undo journal's entry
            recording it (``xcsh undo N``); ``None`` when not recorded.
        warnings: for ``status == "applied"``, what went wrong after the files
            landed (each one sentence; the result's text says them too).
    """

    action: str
    reason: str
    source_tool_name: str
    label: str
    status: ResolveStatus
    preview_id: str = ""
    applied: tuple[PreviewChange, ...] = ()
    dropped: tuple[PreviewChange, ...] = ()
    rebuilt: Preview | None = None
    failure: ApplyFailure | None = None
    source_label: str = ""
    check: CheckVerdict | None = None
    written: tuple[str, ...] = ()
    journal_entry: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def badge(self) -> str:
        """The source to show beside the label: :attr:`source_label`, else ``source_tool_name``."""
        return self.source_label or self.source_tool_name

    @property
    def declined(self) -> bool:
        """True when the person asked before the apply declined it."""
        return self.status == "declined"

    @property
    def left_stack(self) -> bool:
        """True when the action left the stack (anything but a failed apply or a rebuild)."""
        return self.status not in ("failed", "rebuilt")

    def event_json(self) -> JsonObject:
        """Every field: the events a script watches say what happened, not only what was asked."""
        return self.to_json()

    def contract(self) -> JsonObject:
        """Give the details the resolve contract names, as a JSON object.

        The keys are ``action``, ``reason``, ``source_tool_name`` and ``label``, plus
        ``"declined": True`` for a declined apply.
        """
        view: JsonObject = {
            "action": self.action,
            "reason": self.reason,
            "source_tool_name": self.source_tool_name,
            "label": self.label,
        }
        if self.declined:
            view["declined"] = True
        return view


__all__ = ["ApplyFailure", "ResolveOutcome", "ResolveStatus"]
