"""The session's pending actions between runs.

Covers ``/apply`` on the user's behalf, rebuilding a resumed session's previews, and
discarding what cannot outlive the session.

:class:`SessionPending` is ``AgentSession.pending``; the work itself is done by
:mod:`xcsh.agent.policy.approval` and :mod:`xcsh.agent.record.resume`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from xcsh.agent.policy.approval import UserResolution, resolve_as_user
from xcsh.agent.record.persistence import PendingRecord
from xcsh.agent.record.recording import SessionLog, pending_records
from xcsh.agent.record.resume import (
    RUN_ENDED_REASON,
    SESSION_ENDED_REASON,
    ResumeReport,
    end_unrebuildable,
    ended_run,
    rebuild_pending,
)
from xcsh.agent.run import loop
from xcsh.agent.run.events import AgentEvent, RunEnd
from xcsh.agent.run.steering import Steering
from xcsh.core import Message, Tool, UsageError
from xcsh.pending import PendingActionStore


class SessionPending:
    """What a front end does with a session's pending actions outside a run.

    Args:
        store: the session's pending-action store (``None``: a session without previews).
        tools: the session's tools, by name (``resolve`` among them when there is a store);
            the session sets it anew when its tools change between turns.
        rebuildable: tools whose actions a later session rebuilds (they outlive the session).
        steering: the session's steering (told of previews pushed again).
        log: the session file's writer.
        emit: emits an event to the session's listeners.
        append: adds a message to the session's history (and its file).
        running: True while a run is in progress.
    """

    def __init__(
        self,
        *,
        store: PendingActionStore | None,
        tools: Mapping[str, Tool],
        rebuildable: frozenset[str],
        steering: Steering,
        log: SessionLog,
        emit: Callable[[AgentEvent], None],
        append: Callable[[Message], None],
        running: Callable[[], bool],
    ) -> None:
        self.store = store
        self.rebuildable = rebuildable
        self.tools = tools
        self._steering = steering
        self._log = log
        self._emit = emit
        self._append = append
        self._running = running

    async def end(self, reason: str = SESSION_ENDED_REASON) -> list[str]:
        """Discard, ``reject`` run, the pending actions a later session cannot rebuild.

        Call it when the session ends (see :func:`~xcsh.agent.resume.end_unrebuildable`):
        each emits :class:`Resolved` (``tool_call_id=""``), the model is told in
        a hidden message, ``rebuildable``'s actions stay. Returns their labels.

        Raises:
            UsageError: a run is in progress.
        """
        if self._running():
            raise UsageError("cannot end the session while the model is running")
        if self.store is None:
            return []
        events, note = await end_unrebuildable(
            self.store, tools=self.tools, rebuildable=self.rebuildable, reason=reason
        )
        for event in events:
            self._emit(event)
        if note is not None:
            self._append(note)
            self._log.pending()
        return [event.label for event in events]

    async def ending(self, end: RunEnd, last: bool) -> RunEnd:
        """``end``, after :meth:`end` when the run is the session's last."""
        if not last:
            return end
        labels = await self.end(RUN_ENDED_REASON)
        return ended_run(end, labels, self.store.count if self.store else 0)

    async def resolve_top(
        self,
        action: Literal["apply", "discard"],
        reason: str,
        *,
        only: Sequence[str] | None = None,
    ) -> UserResolution:
        """Apply or discard the top pending action on the user's behalf (``/apply``).

        Runs the same ``resolve`` tool the model uses (without the approval
        hook: the user is the approver), emits :class:`Resolved` (and
        :class:`PendingPushed` for a preview rebuilt because its files
        changed), and adds a hidden user message with the outcome so the model
        sees it next turn.

        Args:
            action: ``"apply"`` or ``"discard"``.
            reason: why (not blank).
            only: with ``"apply"``, the change ids or files to apply (``/review``).

        Returns:
            The resolve result and its outcome (``is_error`` with the exact text
            and no outcome when nothing is pending; ``is_error`` with an outcome
            when the apply failed and the action is pending again).

        Raises:
            UsageError: a run is in progress, or the session has no store.
        """
        if self._running():
            raise UsageError(
                "cannot resolve while the model is running", hint="cancel the run first"
            )
        if self.store is None:
            raise UsageError("this session has no pending actions to resolve")
        resolution, note = await resolve_as_user(self.store, action, reason, only)
        if note is None:
            return resolution
        self._append(note)
        loop.emit_pushes(self._emit, self._steering, resolution.message)
        event = loop.resolved_event(resolution.message, self.store.count)
        if event is not None:
            self._emit(event)
        self._log.pending()
        return resolution

    async def restore(self, records: Sequence[PendingRecord]) -> ResumeReport:
        """Rebuild a resumed session's pending actions (bottom of the stack first).

        An action whose tool is in ``rebuildable`` (``ast_edit``) is
        re-previewed by running the tool again with the recorded arguments,
        against the files as they are now; any other is dropped. The model
        is told both in a hidden user message.
        """
        report, note = await rebuild_pending(
            records,
            tools=self.tools,
            rebuildable=self.rebuildable,
            store=self.store,
            pushed=lambda result: loop.emit_pushes(self._emit, self._steering, result),
        )
        if note is not None:
            self._append(note)
        self._log.pending()
        return report

    def records(self) -> list[PendingRecord]:
        """The store as it would be saved: bottom first, with each action's origin call."""
        return pending_records(self.store)


__all__ = ["SessionPending"]
