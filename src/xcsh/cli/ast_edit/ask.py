"""The questions of ``xcsh ast-edit``: apply, discard or review, and ``-i`` change by change.

Answers are explicit: an unclear one (``sure``, an empty Enter) is asked
again. ``[r]eview`` and ``-i`` walk the preview's changes with the keys of
``git add -p`` (:class:`xcsh.ui.ReviewWalk`); the kept ones are applied at
the end, all or nothing.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from xcsh.pending import PreviewChange
from xcsh.ui import (
    REVIEW_HELP,
    REVIEW_PROMPT,
    ReviewWalk,
    make_console,
    parse_decision,
    render_change,
)

if TYPE_CHECKING:
    from rich.console import RenderableType

QUESTION = "Apply this edit? [a]pply / [d]iscard / [r]eview: "
UNCLEAR = "Please answer a to apply, d to discard or r to review it change by change."
NOTHING_KEPT_REASON = "no change kept in the review"
REVIEW_INTRO = (
    "y apply, n skip, a apply the rest of the file, d skip the rest of the file, "
    "q quit (skip the rest); Ctrl-C discards everything."
)

Read = Callable[[str], str]
Write = Callable[["RenderableType"], None]
"""Where a message goes (stderr by default): text or a rich renderable."""


@dataclass(frozen=True)
class Decision:
    """What to do with the previewed edit.

    Args:
        action: ``apply`` or ``discard``.
        reason: why.
        only: change ids to apply (from a review); ``None`` applies everything.
    """

    action: Literal["apply", "discard"]
    reason: str
    only: tuple[str, ...] | None = None


def read_line(prompt: str) -> str:
    """:func:`input` for the prompt, without losing a Ctrl-C typed at any moment.

    ``input()`` blocks in C: a SIGINT that lands after the prompt is written
    but before the read starts is only noticed once a line is typed. Here the
    wait is a :func:`select.select` on stdin and a :func:`signal.set_wakeup_fd`
    pipe, so Ctrl-C always wakes it and raises KeyboardInterrupt. The terminal
    stays in its usual line mode (typing, backspace and echo as with ``input()``).

    Returns:
        The line typed, without its line ending.

    Raises:
        EOFError: input ended (Ctrl-D) before a line.
        KeyboardInterrupt: Ctrl-C.
    """
    sys.stdout.write(prompt)
    sys.stdout.flush()
    fd = sys.stdin.fileno()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    previous = signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
    data = b""
    try:
        while b"\n" not in data:
            # a signal raises here, at the latest once the wake-up pipe is readable
            ready, _, _ = select.select([fd, wake_read], [], [])
            if wake_read in ready:
                os.read(wake_read, 512)
            if fd in ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    if data:
                        break
                    raise EOFError
                data += chunk
    finally:
        signal.set_wakeup_fd(previous)
        os.close(wake_read)
        os.close(wake_write)
    return data.split(b"\n", 1)[0].decode("utf-8", errors="replace").rstrip("\r")


def _stderr(text: RenderableType) -> None:
    make_console(sys.stderr).print(text)


def review(
    changes: Sequence[PreviewChange], read: Read = read_line, write: Write = _stderr
) -> list[str]:
    """Walk ``changes`` one by one; returns the ids kept, in preview order.

    Raises:
        EOFError, KeyboardInterrupt: from ``read`` (the caller discards everything).
    """
    walk = ReviewWalk(changes)
    while (change := walk.current) is not None:
        write(render_change(change, walk.position, len(walk.changes)))
        while not walk.answer(read(REVIEW_PROMPT)):
            write(REVIEW_HELP)
    return walk.kept


def reviewed(
    changes: Sequence[PreviewChange], read: Read = read_line, write: Write = _stderr
) -> Decision:
    """``-i`` (and ``[r]eview``): walk the changes, then ask why; keeping none discards."""
    write(REVIEW_INTRO)
    kept = review(changes, read, write)
    if not kept:
        return Decision("discard", NOTHING_KEPT_REASON)
    reason = read("Reason (optional): ").strip() or "applied the changes kept in the review"
    only = None if len(kept) == len(changes) else tuple(kept)
    return Decision("apply", reason, only)


def ask(
    read: Read = read_line,
    write: Write | None = None,
    changes: Sequence[PreviewChange] = (),
) -> Decision:
    """Ask on the terminal whether to apply, discard or review, then why.

    Args:
        read: ``read(prompt) -> str``, :func:`read_line` by default.
        write: ``write(text)`` for messages; stderr by default.
        changes: the preview's changes, for ``[r]eview``.

    Returns:
        The decision; an empty reason becomes ``applied at the prompt`` or
        ``discarded at the prompt``.

    Raises:
        EOFError: input closed before an answer (the caller discards).
        KeyboardInterrupt: Ctrl-C (the caller discards).
    """
    say = write if write is not None else _stderr
    while True:
        answer = parse_decision(read(QUESTION), review=bool(changes))
        if answer is not None:
            break
        say(UNCLEAR)
    if answer.decision == "review":
        return reviewed(changes, read, say)
    reason = answer.reason or read("Reason (optional): ").strip()
    if not reason:
        reason = (
            "applied at the prompt" if answer.decision == "apply" else "discarded at the prompt"
        )
    return Decision(answer.decision, reason)
