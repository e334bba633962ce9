"""Holding SIGTERM, SIGHUP and SIGINT while an apply commits.

A signal that arrives inside :func:`held_signals` is remembered, not acted
on; when the block ends (the apply finished or was rolled back) the
previous handlers are put back and the first signal held is raised again,
so the process then does what it would have done: exits with that signal's
code under the default action, or runs the front end's own handler.

Python lets only the main thread install handlers; elsewhere the block
holds nothing and an interrupted apply is left to recovery.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

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
