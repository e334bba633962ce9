"""Ctrl-C held while a command writes files it never stops half way.

An apply or an undo writes every file or none, so Ctrl-C cannot cut it short.
:class:`CtrlCHeld` remembers a Ctrl-C instead of raising
:class:`KeyboardInterrupt`, from before the writes until the command has said
what it did (and, for the ``xcsh`` command itself, ended the process): a
Ctrl-C landing just after the files were written must not end the process
with 130, which a user reads as "nothing changed".
"""

from __future__ import annotations

import signal
import threading
from types import FrameType


class CtrlCHeld:
    """SIGINT remembered instead of raised, from :meth:`hold` until :meth:`release`.

    Only the main thread can install handlers; elsewhere nothing is held and
    :attr:`pressed` stays False.
    """

    def __init__(self) -> None:
        """Hold nothing yet."""
        self._previous: object = None
        self._holding = False
        self.pressed = False
        """Whether a Ctrl-C came while held."""

    def hold(self) -> None:
        """Install the remembering handler, keeping the previous one (main thread only)."""
        if not self._holding and threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._remember)
            self._holding = True

    def release(self) -> None:
        """Put the previous handler back; a Ctrl-C remembered is not raised again."""
        if self._holding:
            signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
            self._holding = False

    def _remember(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True
