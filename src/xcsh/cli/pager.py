"""Paging long output on a terminal, as git does.

The pager is ``$XCSH_PAGER``, else ``$PAGER``, else ``less``; an empty value
or ``cat`` means no pager. It runs through the shell (so ``less -R`` or
``delta`` with flags work) with ``LESS=FRX`` unless ``LESS`` is set: quit at
once when the text fits, keep colours, leave the text on the screen.
Front ends page only when standard output is a terminal and the text is
taller than it; ``--no-pager`` turns paging off.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping

DEFAULT_PAGER = "less"


def pager_command(env: Mapping[str, str] | None = None) -> str | None:
    """The pager to run, or ``None`` for none (an empty setting or ``cat``)."""
    environ = os.environ if env is None else env
    for key in ("XCSH_PAGER", "PAGER"):
        if key in environ:
            value = environ[key].strip()
            return None if value in ("", "cat") else value
    return DEFAULT_PAGER


def page(text: str, command: str) -> bool:
    """Show ``text`` (ANSI colours included) through the pager ``command``.

    Ctrl-C is left to the pager while it runs (as git does). A pager that
    cannot start (the shell reports 126 or 127) shows nothing.

    Returns:
        True when the pager showed the text; False when it could not run, and
        the caller should print the text itself.
    """
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env)
        except OSError:
            return False
        assert proc.stdin is not None
        try:
            proc.stdin.write(text.encode("utf-8", errors="replace"))
            proc.stdin.close()
        except BrokenPipeError:  # the user quit the pager before the end
            pass
        return proc.wait() not in (126, 127)
    finally:
        signal.signal(signal.SIGINT, previous)
