"""A direct MCP tool call recorded in the undo journal the way a ``bash`` command is.

A server writes the workspace itself, so the session's one
:class:`~xcsh.journal.commands.CommandRecorder` looks at the workspace before
the call and again after it: whatever the call created, changed or deleted
becomes one journal entry of kind ``bash`` labelled ``MCP: fs__write_file
notes.txt`` (its ``source_tool_name`` is the tool's name), which ``xcsh undo``
and ``xcsh rewind`` take back. The result ends with the same ``[undo]`` lines a
``bash`` result has when something could not be recorded.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Awaitable, Callable

from xcsh.core import AgentToolResult, TextContent
from xcsh.journal import finish_in_thread
from xcsh.journal.commands import CommandRecorder, Recorded, background_note, recorded_note


async def recorded_call(
    recorder: CommandRecorder,
    *,
    label: str,
    tool: str,
    call: Callable[[], Awaitable[AgentToolResult]],
) -> AgentToolResult:
    """Make ``call`` with what it changes in the workspace recorded as one entry.

    Args:
        recorder: the session's command recorder.
        label: the entry's label (``MCP: fs__write_file notes.txt``).
        tool: the tool's name (the entry's ``source_tool_name``).
        call: makes the call.

    Returns:
        The call's result, with a line for each thing that could not be recorded.
        A call that raises (the server went away mid-call) is recorded all the
        same (it may have written before it failed), then the error goes on.
    """
    earlier = await finish_in_thread(recorder.before)
    started = time.time_ns()
    recorded: Recorded | None = None
    try:
        result = await call()
    finally:
        record = functools.partial(
            recorder.after, label, None, since_ns=started, background=False, tool=tool
        )
        recorded = await finish_in_thread(record)
    lines = [
        background_note(earlier) if earlier is not None else "",
        recorded_note(recorded, recorder.settings.max_bytes, what="This call"),
    ]
    notes = "\n".join(line for line in lines if line)
    if not notes:
        return result
    return dataclasses.replace(result, content=[*result.content, TextContent(notes)])


__all__ = ["recorded_call"]
