"""The per-session LIFO stack of pending actions (contract §1)."""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable

from xcsh.core import running_tool_call
from xcsh.pending.action import PendingAction, PushOrigin

PushListener = Callable[[PendingAction, int], None]
"""``listener(action, count)``: runs synchronously after each push, outside the lock.
``action`` is the copy on the stack; ``count`` is the stack size right after that push.
A listener must not raise."""
ActionWrapper = Callable[[PendingAction], PendingAction]
"""``wrap(action)``: the action to keep instead of ``action`` (a new value, such as one
whose ``apply`` is recorded in the undo journal), or ``action`` itself. Must not raise."""


class PendingActionStore:
    """A thread-safe LIFO stack of :class:`PendingAction` (contract §1).

    One store belongs to one agent session; there is no global store. All
    methods may be called from asyncio code and from worker threads.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stack: list[PendingAction] = []
        self._listeners: list[PushListener] = []
        self._wrap: ActionWrapper | None = None
        self._preview_ids = itertools.count(1)
        self._change_ids = itertools.count(1)

    def new_preview_id(self) -> str:
        """A preview id never given before by this store: ``p1``, ``p2``, ..."""
        with self._lock:
            return f"p{next(self._preview_ids)}"

    def new_change_ids(self, count: int) -> list[str]:
        """``count`` change ids never given before by this store: ``["c1", "c2", ...]``."""
        with self._lock:
            return [f"c{next(self._change_ids)}" for _ in range(count)]

    def compose(self, wrap: ActionWrapper) -> None:
        """Keep ``wrap(action)`` for every action pushed from now on, and wrap those on the stack.

        A session composes its wrapper once (the undo journal's).

        Raises:
            RuntimeError: a wrapper was composed already.
        """
        with self._lock:
            if self._wrap is not None:
                raise RuntimeError("this store already wraps its actions")
            self._wrap = wrap
            self._stack = [wrap(action) for action in self._stack]

    def push(self, action: PendingAction, *, origin: PushOrigin | None = None) -> PendingAction:
        """Stamp a copy of ``action``, put it on top, notify push listeners, and return it.

        Stamping fills the two fields the store owns, on a copy
        (``dataclasses.replace``; ``action`` itself never changes): its preview
        gets the next id (``p1``, ``p2``, ...) when it has none (an id from
        :meth:`new_preview_id` is kept), and its ``origin`` becomes ``origin``
        when given (a rebuilt preview keeps the one it replaces), else the tool
        call running in this task (:func:`xcsh.core.running_tool_call`), else
        stays as it is. A composed wrapper (:meth:`compose`) then wraps the copy.

        Returns:
            The action as it is on the stack (what :meth:`peek`, :meth:`find` and
            :meth:`pop` give), stamped; read its id from there.
        """
        preview = action.preview
        if not preview.id:
            preview = dataclasses.replace(preview, id=self.new_preview_id())
        if origin is None:
            call = running_tool_call()
            origin = PushOrigin.of_call(call) if call is not None else action.origin
        stamped = dataclasses.replace(action, preview=preview, origin=origin)
        with self._lock:
            wrap = self._wrap
        kept = wrap(stamped) if wrap is not None else stamped
        with self._lock:
            self._stack.append(kept)
            count = len(self._stack)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(kept, count)
        return kept

    def restore(self, action: PendingAction) -> None:
        """Put back an action that ``resolve`` popped but could not apply.

        Unlike :meth:`push` it does not notify listeners: the action is not a
        new preview, and the model already knows about it.
        """
        with self._lock:
            self._stack.append(action)

    def find(self, preview_id: str) -> PendingAction | None:
        """The pending action whose preview id is ``preview_id`` (``p3``), or ``None``."""
        with self._lock:
            return next((a for a in self._stack if a.id == preview_id), None)

    def peek(self) -> PendingAction | None:
        """The top action, or ``None`` when the stack is empty."""
        with self._lock:
            return self._stack[-1] if self._stack else None

    def pop(self) -> PendingAction | None:
        """Remove and return the top action, or ``None`` when the stack is empty."""
        with self._lock:
            return self._stack.pop() if self._stack else None

    def clear(self) -> list[PendingAction]:
        """Remove every action; returns them top first (callers may run their ``reject``)."""
        with self._lock:
            removed = list(reversed(self._stack))
            self._stack.clear()
        return removed

    def remove(self, action: PendingAction) -> bool:
        """Take ``action`` (by identity) off the stack wherever it is; True when it was there.

        Used when a preview must not stay pending although it is not on top, e.g.
        a preview whose tool result never reached the client.
        """
        with self._lock:
            for index, queued in enumerate(self._stack):
                if queued is action:
                    del self._stack[index]
                    return True
        return False

    def snapshot(self) -> list[PendingAction]:
        """A copy of the stack, top first."""
        with self._lock:
            return list(reversed(self._stack))

    @property
    def count(self) -> int:
        """How many actions are pending."""
        with self._lock:
            return len(self._stack)

    @property
    def has_pending(self) -> bool:
        """True while at least one action is pending."""
        return self.count > 0

    def subscribe_push(self, listener: PushListener) -> Callable[[], None]:
        """Call ``listener(action, count)`` after every push.

        Returns:
            A function that unsubscribes; calling it twice is harmless.
        """
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe
