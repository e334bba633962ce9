"""Steering the model toward ``resolve`` while previews are pending (SPEC §3).

Everything here derives from the store's state at the moment it is asked:
the forced tool choice, the reminders actually sent, and the gate. Nothing is
remembered across turns except the count of consecutive forced turns without
progress, so a session can never demand ``resolve`` while the store is empty
(CASES R1).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from xcsh.agent.wording import plural
from xcsh.core import ForcedTool, Message, TextContent, ToolChoice, UserMessage
from xcsh.pending import RESOLVE_TOOL_NAME, PendingAction, PendingActionStore

REMINDER_TEXT = "This is a preview. Call the `resolve` tool to apply or discard these changes."
"""The hidden user-role reminder queued on each push (SPEC §3, exact text)."""

NO_FORCING_NOTE = (
    "Until it is resolved, other tool calls are refused: call `resolve` with action "
    "'apply' or 'discard' now."
)
"""Added as a second block to the reminder when the provider cannot force a named tool."""

DEFAULT_MAX_FORCED_TURNS = 5

current_tool_call: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "xcsh_current_tool_call", default=None
)
"""The id of the tool call running in this task (set by the loop), so pushes
can be attributed to the call that made them."""


@dataclass(frozen=True, kw_only=True)
class Push:
    """One push seen on the store: which call made it, what, and the count after it."""

    tool_call_id: str | None
    action: PendingAction
    count: int


def gate_message(top: PendingAction | None, tool_name: str) -> str:
    """The error result for a non-``resolve`` call in a turn that began with actions pending.

    Args:
        top: the action on top of the store now, or ``None`` when an earlier
            ``resolve`` of the same batch emptied it.
        tool_name: the refused call's tool.
    """
    if top is None:
        return (
            f"Not executed: '{tool_name}' was refused because this turn began with a "
            "pending preview to resolve, and calls made in such a turn wait for the next "
            f"one. Nothing is pending now: call '{tool_name}' again if you still need it."
        )
    return (
        f"Not executed: '{tool_name}' was refused because the pending preview "
        f"'{top.label}' must be resolved first. Call the `resolve` tool with action "
        "'apply' or 'discard' before any other tool."
    )


def cap_message(
    turns: int, store: PendingActionStore, *, failed: int = 0, last_error: str = ""
) -> str:
    """The run-end message when the forced-turn cap trips.

    Args:
        turns: consecutive forced turns without progress.
        store: the store (its actions stay pending).
        failed: ``resolve`` calls in those turns that failed (an apply that
            raised, invalid arguments); 0 when the model never called it.
        last_error: the first line of the last failure's text.
    """
    labels = "; ".join(a.label for a in store.snapshot()) or "none"
    previews = "preview" if store.count <= 1 else "previews"
    span = "in its last turn" if turns == 1 else f"{turns} turns in a row"
    stay = "the action stays pending" if store.count == 1 else "the actions stay pending"
    if failed:
        calls = plural(failed, "`resolve` call")
        window = "the last turn" if turns == 1 else f"the last {turns} turns"
        failed_all = "failed" if failed == 1 else "all failed"
        why = f" (last error: {last_error})" if last_error else ""
        what = f"the model's {calls} in {window} {failed_all}{why}"
        return (
            f"Stopped: {what}. Still pending (newest first): {labels}. Nothing was applied; {stay}."
        )
    return (
        f"Stopped: the model was asked to resolve the pending {previews} {span} "
        f"and did not. Still pending (newest first): {labels}. Nothing was applied; "
        f"{stay}."
    )


class Steering:
    """Per-session steering state: queued pushes and reminders, and the cap counter.

    Args:
        store: the session's store, or ``None`` (then nothing is ever forced).
        max_forced_turns: consecutive forced turns without progress before the
            run stops (SPEC §3 "a bounded number"); at least 1.
        supports_forced_tool_choice: from the provider; when False the reminder
            carries :data:`NO_FORCING_NOTE` as a second block.

    The store's push listener may run on a worker thread; it only appends to
    lists under a lock. Call :meth:`close` to unsubscribe.
    """

    def __init__(
        self,
        store: PendingActionStore | None,
        *,
        max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS,
        supports_forced_tool_choice: bool = True,
    ) -> None:
        if max_forced_turns < 1:
            raise ValueError(f"max_forced_turns must be at least 1, got {max_forced_turns}")
        self.store = store
        self.max_forced_turns = max_forced_turns
        self.supports_forced_tool_choice = supports_forced_tool_choice
        self._lock = threading.Lock()
        self._pushes: list[Push] = []
        self._reminders = 0
        self._streak = 0
        self._failed = 0
        self._last_failure = ""
        self._unsubscribe = store.subscribe_push(self._on_push) if store is not None else None

    def close(self) -> None:
        """Stop listening to the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_push(self, action: PendingAction, count: int) -> None:
        with self._lock:
            self._pushes.append(
                Push(tool_call_id=current_tool_call.get(), action=action, count=count)
            )
            self._reminders += 1

    def remind(self) -> None:
        """Queue one more reminder (after a forced turn in which the model called nothing)."""
        with self._lock:
            self._reminders += 1

    def take_pushes(self) -> list[Push]:
        """Pushes seen since the last call, in push order."""
        with self._lock:
            pushes, self._pushes = self._pushes, []
        return pushes

    def take_reminders(self) -> list[Message]:
        """The hidden reminder to append before the next request, if any.

        Queued reminders collapse into one message, and are dropped when the
        store is empty by now (a preview pushed and resolved in one batch): a
        reminder must never ask for ``resolve`` with nothing pending (R1).
        """
        with self._lock:
            queued, self._reminders = self._reminders, 0
        if not queued or not self.forced():
            return []
        blocks = [TextContent(REMINDER_TEXT)]
        if not self.supports_forced_tool_choice:
            blocks.append(TextContent(NO_FORCING_NOTE))
        return [UserMessage(content=list(blocks), hidden=True)]

    def forced(self) -> bool:
        """True exactly while the store has pending actions."""
        return self.store is not None and self.store.has_pending

    def tool_choice(self) -> ToolChoice:
        """``ForcedTool("resolve")`` while actions are pending, else ``"auto"``."""
        return ForcedTool(name=RESOLVE_TOOL_NAME) if self.forced() else "auto"

    def gate(self, tool_name: str, *, turn_began_pending: bool) -> str | None:
        """The refusal text for a call the gate stops, or ``None`` to run it."""
        if not turn_began_pending or tool_name == RESOLVE_TOOL_NAME:
            return None
        return gate_message(self.store.peek() if self.store else None, tool_name)

    def start_run(self) -> None:
        """Reset the forced-turn counter: each run gets the full cap."""
        self._streak = 0
        self._failed = 0
        self._last_failure = ""

    def end_turn(self, *, forced: bool, progressed: bool, failures: Sequence[str] = ()) -> bool:
        """Count a finished turn; True when the forced-turn cap is reached.

        Args:
            forced: the turn's request forced ``resolve``.
            progressed: at least one pending action was applied or discarded.
            failures: the texts of the turn's failed ``resolve`` calls.
        """
        if not forced or progressed:
            self._streak = 0
            self._failed = 0
            self._last_failure = ""
            return False
        self._streak += 1
        self._failed += len(failures)
        if failures:
            self._last_failure = (failures[-1].splitlines() or [""])[0]
        return self._streak >= self.max_forced_turns

    def cap_message(self) -> str:
        """The run-end message for the current streak (see :func:`cap_message`)."""
        assert self.store is not None  # the cap trips only while actions are pending
        return cap_message(
            self._streak, self.store, failed=self._failed, last_error=self._last_failure
        )

    @property
    def forced_streak(self) -> int:
        """Consecutive forced turns without progress so far."""
        return self._streak
