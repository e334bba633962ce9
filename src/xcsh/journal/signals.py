"""Holding SIGTERM, SIGHUP and SIGINT while an apply commits.

A signal that arrives inside :func:`held_signals` is remembered, not acted
on; when the block ends (the apply finished or was rolled back) the
previous handlers are put back and the first signal held is raised again,
so the process then does what it would have done: exits with that signal's
code under the default action, or runs the front end's own handler.

One mechanism, :class:`SignalHold`, does the holding: :func:`held_signals`
raises the first signal again when its block ends; a command that must
finish and say what it did (``xcsh ast-edit --yes``, ``xcsh undo``, ``xcsh
rewind``) holds the three itself until its process ends, and reports the
signal instead of raising it.

Python lets only the main thread install handlers; elsewhere the block
holds nothing and an interrupted apply is left to recovery. An event loop
that applies in a worker thread (the agent's ``resolve``) awaits the apply
through :func:`finish_in_thread`, which holds the signals in the main thread
while the worker writes and lets no cancellation cut the wait short.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TypeVar

_T = TypeVar("_T")

HELD = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class SignalHold:
    """``signals`` remembered instead of acted on, from :meth:`hold` until :meth:`release`.

    Holding is for the main thread only (elsewhere nothing is held and
    :attr:`received` stays empty), and is not nested: while another hold has
    the first of ``signals``, this one holds nothing and leaves the signals to
    it.
    """

    def __init__(self, signals: tuple[signal.Signals, ...] = HELD) -> None:
        """Hold nothing yet; :meth:`hold` takes ``signals`` over."""
        self._signals = signals
        self._previous: dict[signal.Signals, object] = {}
        self.received: list[int] = []
        """The signal numbers received while held, in arrival order."""

    @property
    def first(self) -> int | None:
        """The first signal received while held, or None."""
        return self.received[0] if self.received else None

    def hold(self) -> None:
        """Install the remembering handler, keeping the previous ones.

        Does nothing off the main thread, when already holding, or when another
        :class:`SignalHold` holds the first of the signals (it remembers them).
        """
        if self._previous or not self._signals:
            return
        if threading.current_thread() is not threading.main_thread():
            return
        if isinstance(getattr(signal.getsignal(self._signals[0]), "__self__", None), SignalHold):
            return
        for sig in self._signals:
            self._previous[sig] = signal.signal(sig, self._remember)

    def release(self, *, raise_again: bool) -> None:
        """Put the previous handlers back.

        Args:
            raise_again: raise the first signal received again, so the process
                does what it would have done (exit with the signal's code, or
                run the handler just put back); otherwise it stays remembered
                in :attr:`received` only.
        """
        previous, self._previous = self._previous, {}
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        if previous and raise_again and self.received:
            signal.raise_signal(self.received[0])

    def _remember(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)


@contextlib.contextmanager
def held_signals(signals: tuple[signal.Signals, ...] = HELD) -> Iterator[list[int]]:
    """Hold ``signals`` for the duration of the block, then raise the first one received.

    Yields:
        The list of signal numbers received so far (in arrival order).

    Re-entrant: inside another hold (this block or a :class:`SignalHold`) it holds
    nothing of its own and leaves the signals to the outer one.
    """
    hold = SignalHold(signals)
    hold.hold()
    try:
        yield hold.received
    finally:
        hold.release(raise_again=True)


async def finish_in_thread(func: Callable[[], _T]) -> _T:
    """Run ``func()`` in a worker thread and wait for its end, whatever interrupts the wait.

    For an apply, which writes every file or none: once started it is never cut
    short, and its caller always learns what it did.

    A cancellation of the awaiting task while ``func`` runs (Ctrl-C under
    :func:`asyncio.run`, an event loop's SIGTERM handler, the terminal's Ctrl-C,
    a client cancelling its MCP request) does not end the wait: ``func``'s
    outcome is still returned, and the task is cancelled again just before, so
    the cancellation reaches the caller's next ``await`` (a task that awaits
    nothing more ends cancelled) once the outcome was handed back.

    The signals of :data:`HELD` that would act outside the event loop (their
    default action, :class:`KeyboardInterrupt`, :func:`asyncio.run`'s Ctrl-C
    handler, where a second Ctrl-C raises) are held by :func:`held_signals`
    meanwhile, when the caller runs on the main thread; the first one held is
    raised again after ``func`` returned. A signal the loop handles itself
    (``loop.add_signal_handler``: SIGTERM and SIGHUP in ``xcsh -p``, all three
    in the terminal) is not held: its handler runs at once and the cancellation
    it makes waits as above.

    Returns:
        What ``func`` returned.

    Raises:
        Exception: whatever ``func`` raised (after it ended).
    """
    task = asyncio.current_task()
    cancelled = False
    with held_signals(tuple(sig for sig in HELD if _acts_outside_the_loop(sig))):
        running = asyncio.ensure_future(asyncio.to_thread(func))
        while not running.done():
            try:
                await asyncio.shield(running)
            except asyncio.CancelledError:
                if running.cancelled():  # the worker's own future, never cancelled here
                    raise
                cancelled = True
    if cancelled and task is not None:
        task.cancel()
    return running.result()


def _acts_outside_the_loop(sig: signal.Signals) -> bool:
    """Whether ``sig`` would kill, raise, or run :func:`asyncio.run`'s own Ctrl-C handler."""
    handler = signal.getsignal(sig)
    if handler in (signal.SIG_DFL, signal.default_int_handler):
        return True
    return isinstance(getattr(handler, "__self__", None), asyncio.Runner)
