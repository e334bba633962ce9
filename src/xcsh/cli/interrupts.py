"""Ctrl-C, SIGTERM and SIGHUP held while a command writes files it never stops half way.

An apply, an undo or a rewind writes every file or none, so no signal cuts
it short. ``xcsh ast-edit`` (from the moment the edit is decided on), ``xcsh
scan --fix`` (the same), ``xcsh undo`` and ``xcsh rewind`` (from their start)
hold the three signals a user or a supervisor sends to stop a command: Ctrl-C,
SIGTERM (``kill``, ``timeout``, a CI job cancelled) and SIGHUP (the terminal
closed). They are remembered, not acted on, until the command has said what
it did and, for the ``xcsh`` command itself, ended the process: the exit code
is the command's own, and stderr names the signal that came too late. A signal
landing just after the files were written must not end the process with 130,
143 or 129, which a user reads as "nothing changed".

The holding itself is the journal's :class:`xcsh.journal.SignalHold` (which
also holds them around each commit), released with ``raise_again=False``: the
signal is reported, with :func:`signal_name`, not raised again.
"""

from __future__ import annotations

import signal


def signal_name(signum: int) -> str:
    """How a user knows ``signum``: ``Ctrl-C`` for SIGINT, else its name (``SIGTERM``)."""
    if signum == signal.SIGINT:
        return "Ctrl-C"
    return signal.Signals(signum).name
