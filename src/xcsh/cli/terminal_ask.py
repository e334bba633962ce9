"""Questions print mode asks on the terminal: ``--approve ask`` and ``ask`` approval rules.

The question goes to stderr, so stdout keeps only the answer; the line is
read on a daemon thread so Ctrl-C is never stuck behind a blocked read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from xcsh.agent import Approval, ApprovalHook, ToolApprovalHook, ToolQuestion
    from xcsh.pending import PendingAction


NO_TERMINAL_MESSAGE = (
    "--approve ask needs a terminal on stdin to ask on before each apply, and stdin is "
    "not a terminal"
)
NO_TERMINAL_HINT = (
    "run xcsh from a terminal, or leave out --approve ask (then the model's resolve "
    "applies or discards as it says)"
)


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal; False when it is closed or cannot tell."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced by something odd
        return False


INPUT_CLOSED_REASON = "input closed before an answer"


def terminal_approval(stdin: TextIO, prompt_out: TextIO) -> ApprovalHook:
    """An approval hook that asks on the terminal (``--approve ask``).

    ``stdin`` must be a terminal (:func:`run_print` refuses ``--approve ask``
    without one, at start-up). The question goes to ``prompt_out`` (stderr),
    so stdout keeps only the answer. Unclear answers are asked again
    (:func:`xcsh.tui.approval.ask_approval`); input closed declines. The line
    is read on a daemon thread so Ctrl-C is never stuck behind a blocked read.
    """
    from xcsh.tui.approval import ask_approval
    from xcsh.ui import make_console

    console = make_console(prompt_out)

    read = _prompt_reader(stdin, prompt_out)

    async def ask(action: PendingAction, reason: str, only: tuple[str, ...] | None) -> Approval:
        return await _declined_when_closed(ask_approval(action, reason, read, console.print, only))

    return ask


def terminal_tool_approval(stdin: TextIO, prompt_out: TextIO) -> ToolApprovalHook:
    """A hook that asks on the terminal before a call an ``ask`` approval rule covers.

    Clear answers only (``y``, ``n`` or ``n REASON``); others are asked again.
    """
    from xcsh.tui.approval import ask_plain
    from xcsh.ui import make_console

    console = make_console(prompt_out)

    read = _prompt_reader(stdin, prompt_out)

    async def ask(question: ToolQuestion) -> Approval:
        return await _declined_when_closed(ask_plain(question.prompt(), read, console.print))

    return ask


async def _declined_when_closed(question: Awaitable[Approval]) -> Approval:
    """The answer to ``question``, or a decline when standard input closed first."""
    from xcsh.agent import Approval

    try:
        return await question
    except EOFError:
        return Approval(approved=False, reason=INPUT_CLOSED_REASON)


def _prompt_reader(stdin: TextIO, prompt_out: TextIO) -> Callable[[str], Awaitable[str]]:
    """``read(prompt)``: write ``prompt`` to ``prompt_out``, await one line of ``stdin``.

    Raises:
        EOFError: ``stdin`` was closed before a line came.
    """

    async def read(prompt: str) -> str:
        prompt_out.write(prompt)
        prompt_out.flush()
        line = await read_line(stdin)
        if not line:
            raise EOFError
        return line

    return read


async def read_line(stream: TextIO) -> str:
    """Read one line from ``stream`` without blocking the event loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(line: str) -> None:
        if not future.done():
            future.set_result(line)

    def worker() -> None:
        loop.call_soon_threadsafe(deliver, stream.readline())

    import threading

    threading.Thread(target=worker, name="xcsh-approval", daemon=True).start()
    return await future
