"""Which progress reports of a running call a front end shows: a server may send thousands.

A report is shown when its percentage (or, without a total, its message)
differs from the one shown last for that call, and at least
:data:`PROGRESS_INTERVAL` seconds have passed since, except the report that
reaches 100%, always shown. A flood of notifications costs at most one line
per percent and per interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PROGRESS_INTERVAL = 0.2
"""Seconds between two progress lines of one call, at the least."""


class ProgressGate:
    """Decides, per call, whether a progress line is worth showing.

    Args:
        clock: seconds, monotonic (tests pass their own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._shown: dict[str, tuple[str, float]] = {}

    def show(self, call_id: str, text: str) -> bool:
        """Whether to show ``text`` (``40% (4/10): indexing``) for the call ``call_id``."""
        key = _key(text)
        now = self._clock()
        last = self._shown.get(call_id)
        if last is not None:
            if last[0] == key:
                return False
            if now - last[1] < PROGRESS_INTERVAL and not key.startswith("100%"):
                return False
        self._shown[call_id] = (key, now)
        return True


def _key(text: str) -> str:
    """What tells two reports apart: the percentage and the message, not the raw count."""
    amount, _, message = text.partition(": ")
    percent = amount.split(" (", 1)[0] if "%" in amount else amount
    return f"{percent}: {message}"


__all__ = ["PROGRESS_INTERVAL", "ProgressGate"]
