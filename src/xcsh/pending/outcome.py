"""The typed outcome of one ``resolve`` call (the details of its result)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from xcsh.pending.preview import Preview, PreviewChange, change_from_dict, preview_from_dict

ResolveStatus = Literal["applied", "discarded", "declined", "failed", "rebuilt"]
"""What happened to the top action:

- ``applied``: applied (all of it, or the parts named by ``only``; the rest discarded);
- ``discarded``: discarded (``reject`` ran when the action has one);
- ``declined``: the person asked before the apply said no; discarded;
- ``failed``: the apply raised; the action is pending again;
- ``rebuilt``: the preview's files had changed, so it was computed again
  against them and the new preview is pending; nothing was applied.
"""

_SPEC_KEYS = ("action", "reason", "source_tool_name", "label")


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
class ResolveOutcome(Mapping[str, Any]):
    """The details of a ``resolve`` result.

    Read its attributes. As a mapping it shows exactly ``action``, ``reason``,
    ``source_tool_name`` and ``label`` (plus ``declined: True`` for a declined
    apply), the keys the resolve contract names, so ``details["label"]`` and
    ``details == {...}`` keep working for tool authors.

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
            to ``source_tool_name``. Display only: equality ignores it.
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

    def _view(self) -> dict[str, Any]:
        view: dict[str, Any] = {key: getattr(self, key) for key in _SPEC_KEYS}
        if self.declined:
            view["declined"] = True
        return view

    def __getitem__(self, key: str) -> Any:
        return self._view()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._view())

    def __len__(self) -> int:
        return len(self._view())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ResolveOutcome):
            return self._view() == other._view() and (
                self.status,
                self.preview_id,
                self.applied,
                self.dropped,
                self.rebuilt,
            ) == (other.status, other.preview_id, other.applied, other.dropped, other.rebuilt)
        if isinstance(other, Mapping):
            return self._view() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResolveOutcome | None:
        """Rebuild an outcome saved with ``dataclasses.asdict`` (a session file).

        Returns:
            ``None`` when ``data`` is not one (an older session's plain details).
        """
        status = data.get("status")
        if status not in ("applied", "discarded", "declined", "failed", "rebuilt"):
            return None
        rebuilt = data.get("rebuilt")
        return cls(
            action=str(data.get("action", "")),
            reason=str(data.get("reason", "")),
            source_tool_name=str(data.get("source_tool_name", "")),
            label=str(data.get("label", "")),
            status=status,
            preview_id=str(data.get("preview_id", "")),
            applied=tuple(change_from_dict(c) for c in data.get("applied", ())),
            dropped=tuple(change_from_dict(c) for c in data.get("dropped", ())),
            rebuilt=preview_from_dict(rebuilt) if isinstance(rebuilt, Mapping) else None,
            failure=_failure_from_dict(data.get("failure")),
            source_label=str(data.get("source_label", "")),
        )


def _failure_from_dict(data: Any) -> ApplyFailure | None:
    if not isinstance(data, Mapping):
        return None
    return ApplyFailure(
        message=str(data.get("message", "")),
        stale=tuple(str(name) for name in data.get("stale", ())),
        new_content=tuple(str(name) for name in data.get("new_content", ())),
    )


__all__ = ["ApplyFailure", "ResolveOutcome", "ResolveStatus"]
