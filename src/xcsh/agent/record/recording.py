"""What a session writes to its session file: each event mapped to its record.

:class:`SessionLog` turns a session's history messages and events into the
records of :mod:`xcsh.agent.record.persistence` (``message``, ``pending_pushed``,
``resolved``, ``notice``, ``steering``, ``compaction``, ``model``,
``run_end`` and ``pending``, the whole store). Which tool call pushed each
pending action is read from the action itself (:attr:`PendingAction.origin`,
stamped by the store), so a saved stack names the call whose arguments
rebuild it on resume.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xcsh.agent.record.persistence import PendingRecord, SessionRecorder, message_to_dict
from xcsh.agent.run.events import AgentEvent, Notice, PendingPushed, Resolved, RunEnd, TurnEnd
from xcsh.core import JsonObject, Message
from xcsh.pending import PendingAction, PendingActionStore, preview_digest

SteeringState = Callable[[], dict[str, str]]
"""``state()``: the ``provider``, ``model`` and steering ``mode`` as they are now."""


def pending_records(store: PendingActionStore | None) -> list[PendingRecord]:
    """The store as it is saved: bottom first, each action with the call that pushed it."""
    if store is None:
        return []
    records = []
    for action in reversed(store.snapshot()):
        origin = action.origin
        records.append(
            PendingRecord(
                tool_name=origin.tool_name if origin else None,
                arguments=_arguments(action),
                label=action.label,
                source_tool_name=action.source_tool_name,
                files=action.preview.file_labels(),
                digest=preview_digest(action.preview),
                tool_call_id=origin.tool_call_id if origin else None,
            )
        )
    return records


def _arguments(action: PendingAction | None) -> JsonObject | None:
    origin = action.origin if action is not None else None
    if origin is None or origin.arguments is None:
        return None
    return dict(origin.arguments)


class SessionLog:
    """Writes one session's messages and events to its session file.

    Args:
        recorder: the session file; ``None`` writes nothing (an in-memory session).
        store: the session's pending-action store (for ``pending`` records).
        steering: reads the provider, model and steering mode when a
            ``steering`` notice is recorded.
    """

    def __init__(
        self,
        recorder: SessionRecorder | None,
        store: PendingActionStore | None,
        steering: SteeringState,
    ) -> None:
        self.recorder = recorder
        self.store = store
        self._steering = steering

    def message(self, message: Message) -> None:
        """Record a message added to the history."""
        if self.recorder is not None:
            self.recorder.message(message)

    def pending(self) -> None:
        """Record the whole store (``pending``), bottom first."""
        if self.recorder is not None:
            self.recorder.pending(pending_records(self.store))

    def compaction(self, summary: str, history: Sequence[Message]) -> None:
        """Record a compaction: the summary and the history that replaced the old one."""
        if self.recorder is not None:
            self.recorder.write(
                {
                    "type": "compaction",
                    "summary": summary,
                    "messages": [message_to_dict(m) for m in history],
                }
            )

    def model(self, provider: str, model: str) -> None:
        """Record a switch to another provider or model."""
        if self.recorder is not None:
            self.recorder.write({"type": "model", "provider": provider, "model": model})

    def event(self, event: AgentEvent) -> None:
        """Record what ``event`` changes in the session file (most events change nothing)."""
        if self.recorder is None:
            return
        if isinstance(event, PendingPushed):
            self.recorder.write(self._pushed(event))
        elif isinstance(event, Resolved):
            self.recorder.write(
                {
                    "type": "resolved",
                    "tool_call_id": event.tool_call_id,
                    "action": event.action,
                    "reason": event.reason,
                    "label": event.label,
                    "is_error": event.is_error,
                }
            )
        elif isinstance(event, TurnEnd):
            self.pending()
        elif isinstance(event, Notice):
            self.recorder.write({"type": "notice", "kind": event.kind, "message": event.message})
            if event.kind == "steering":
                self.recorder.write({"type": "steering", **self._steering()})
        elif isinstance(event, RunEnd):
            self.recorder.write(
                {"type": "run_end", "reason": event.reason, "message": event.message}
            )
            self.pending()

    def _pushed(self, event: PendingPushed) -> JsonObject:
        """The ``pending_pushed`` record: the call that produced the preview, from its action."""
        action = self._pending(event.value.id)
        origin = action.origin if action is not None else None
        return {
            "type": "pending_pushed",
            "tool_call_id": origin.tool_call_id if origin else event.tool_call_id,
            "tool_name": origin.tool_name if origin else None,
            "arguments": _arguments(action),
            "label": event.label,
            "source_tool_name": event.source_tool_name,
        }

    def _pending(self, preview_id: str) -> PendingAction | None:
        if self.store is None or not preview_id:
            return None
        return next((a for a in self.store.snapshot() if a.id == preview_id), None)


__all__ = ["SessionLog", "SteeringState", "pending_records"]
