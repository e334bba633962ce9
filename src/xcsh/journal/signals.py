"""Holding SIGTERM, SIGHUP and SIGINT while an apply commits.

A signal that arrives inside :func:`held_signals` is remembered, not acted
on; when the block ends (the apply finished or was rolled back) the
previous handlers are put back and the first signal held is raised again,
so the process then does what it would have done: exits with that signal's
code under the default action, or runs the front end's own handler.

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


@contextlib.contextmanager
def held_signals(signals: tuple[signal.Signals, ...] = HELD) -> Iterator[list[int]]:
    """Hold ``signals`` for the duration of the block.

    Yields:
        The list of signal numbers received so far (in arrival order).

    Re-entrant: an inner block holds nothing of its own and lets the outer one re-raise.
    """
    received: list[int] = []
    nested = getattr(signal.getsignal(signals[0]), "xcsh_holding", False) if signals else True
    if threading.current_thread() is not threading.main_thread() or nested:
        yield received
        return

    def remember(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    remember.xcsh_holding = True  # type: ignore[attr-defined]
    previous: dict[signal.Signals, object] = {}
    try:
        for sig in signals:
            previous[sig] = signal.signal(sig, remember)
        yield received
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        if received:
            signal.raise_signal(received[0])


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
