"""The session's pending actions between runs: ``/apply`` on the user's behalf,
rebuilding a resumed session's previews, and discarding what cannot outlive it.

:class:`PendingOperations` is a part of :class:`~xcsh.agent.session.AgentSession`
(mixed in); the work itself is done by :mod:`xcsh.agent.approval` and
:mod:`xcsh.agent.resume`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from xcsh.agent import loop
from xcsh.agent.approval import UserResolution, resolve_as_user
from xcsh.agent.events import AgentEvent, RunEnd
from xcsh.agent.persistence import PendingRecord
from xcsh.agent.recording import SessionLog, pending_records
from xcsh.agent.resume import (
    RUN_ENDED_REASON,
    SESSION_ENDED_REASON,
    ResumeReport,
    end_unrebuildable,
    ended_run,
    rebuild_pending,
)
from xcsh.agent.steering import Steering
from xcsh.core import AgentTool, Message, UsageError
from xcsh.pending import PendingActionStore


class PendingOperations:
    """What a front end does with the pending actions outside a run (mixed into
    ``AgentSession``, which owns the attributes declared here)."""

    store: PendingActionStore | None
    rebuildable_tools: frozenset[str]
    _task: asyncio.Task[RunEnd] | None
    _tools: dict[str, AgentTool[Any]]
    _steering: Steering
    _log: SessionLog

    if TYPE_CHECKING:

        def _emit(self, event: AgentEvent) -> None: ...

        def _append(self, message: Message) -> None: ...

    async def end_pending(self, reason: str = SESSION_ENDED_REASON) -> list[str]:
        """Discard, ``reject`` run, the pending actions a later session cannot rebuild.

        Call it when the session ends (see :func:`~xcsh.agent.resume.end_unrebuildable`):
        each emits :class:`Resolved` (``tool_call_id=""``), the model is told in
        a hidden message, ``rebuildable_tools``' actions stay. Returns their labels.

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot end the session while the model is running")
        if self.store is None:
            return []
        events, note = await end_unrebuildable(
            self.store, tools=self._tools, rebuildable=self.rebuildable_tools, reason=reason
        )
        for event in events:
            self._emit(event)
        if note is not None:
            self._append(note)
            self._log.pending()
        return [event.label for event in events]

    async def _ending(self, end: RunEnd, last: bool) -> RunEnd:
        """``end``, after :meth:`end_pending` when the run is the session's last."""
        if not last:
            return end
        labels = await self.end_pending(RUN_ENDED_REASON)
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
        if self._task is not None:
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

    async def restore_pending(self, records: Sequence[PendingRecord]) -> ResumeReport:
        """Rebuild a resumed session's pending actions (bottom of the stack first).

        An action whose tool is in ``rebuildable_tools`` (``ast_edit``) is
        re-previewed by running the tool again with the recorded arguments,
        against the files as they are now; any other is dropped. The model
        is told both in a hidden user message.
        """
        report, note = await rebuild_pending(
            records,
            tools=self._tools,
            rebuildable=self.rebuildable_tools,
            store=self.store,
            pushed=lambda result: loop.emit_pushes(self._emit, self._steering, result),
        )
        if note is not None:
            self._append(note)
        self._log.pending()
        return report

    def pending_records(self) -> list[PendingRecord]:
        """The store as it would be saved: bottom first, with each action's origin call."""
        return pending_records(self.store)


__all__ = ["PendingOperations"]
