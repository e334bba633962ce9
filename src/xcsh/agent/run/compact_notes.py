"""What the compact profile adds to tool results for a small model, and when.

Each note answers a mistake Qwen2.5 1.5B was seen to make under ``make e2e-model``:
repeating a read-only call until it gave up (``REPEATED_CALL_NOTE``, in
:mod:`xcsh.agent.run.profile`); calling ``resolve`` before any preview existed
(``NOTHING_PREVIEWED_NOTE``, then a hidden
reminder quoting the user's request, :func:`request_reminder`, while the next turn
must call another tool), or again after the preview was resolved
(:data:`ALREADY_RESOLVED_NOTE`); and, asked to read a file and change one line with
``edit``, changing it with ``ast_edit`` or not at all (:data:`READ_EDIT_NOTE`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from xcsh.agent.run.profile import (
    NOTHING_PREVIEWED_NOTE,
    REPEATED_CALL_NOTE,
    repeats_previous_call,
)
from xcsh.agent.run.steering import Steering
from xcsh.core import Message, TextContent, Tool, ToolCall, ToolResultMessage, UserMessage
from xcsh.pending import NOTHING_PENDING_MESSAGE, RESOLVE_TOOL_NAME

ALREADY_RESOLVED_NOTE = (
    "The preview this request asked for was already resolved in this run; nothing is left "
    "to apply or discard. Do not call resolve again: answer the user now, saying what was done."
)
"""Appended to a ``resolve`` refused because nothing was pending, when a preview was
already applied or discarded in this run (``NOTHING_PREVIEWED_NOTE`` otherwise): the work
is done, so nothing is forced and the model answers."""

READ_EDIT_NOTE = (
    "To change a line of this file, call `edit` with `path`, `old_text` (the line's text "
    "as shown, without its number) and `new_text`."
)
"""The last line of a ``read`` result when ``edit`` is offered: asked to read a file and
change one line with ``edit``, a small model wrote an ``ast_edit`` pattern instead."""

QUOTED_REQUEST_CHARS = 600
"""At most this many characters of the user's request are quoted back."""


def compact_noted(
    call: ToolCall,
    result: ToolResultMessage,
    tools: Mapping[str, Tool],
    history: Sequence[Message],
    steering: Steering,
) -> ToolResultMessage:
    """``result`` of ``call`` with the compact profile's notes, if any apply.

    A read-only call that repeats the previous turn's call gets ``REPEATED_CALL_NOTE``; a
    ``resolve`` refused because nothing was pending tells ``steering``
    (:meth:`~xcsh.agent.run.steering.Steering.refused_resolve`) and gets
    ``NOTHING_PREVIEWED_NOTE``, or :data:`ALREADY_RESOLVED_NOTE` after this run resolved a
    preview; a ``read`` gets :data:`READ_EDIT_NOTE` while ``edit`` is offered.
    ``history``: the conversation with ``call``'s own message.
    """
    if refused_for_nothing_pending(result):
        first = steering.refused_resolve()
        return noted(result, NOTHING_PREVIEWED_NOTE if first else ALREADY_RESOLVED_NOTE)
    tool = tools.get(call.name)
    if result.is_error or tool is None:
        return result
    if tool.read_only and repeats_previous_call(history, call):
        result = noted(result, REPEATED_CALL_NOTE)
    if call.name == "read" and "edit" in tools:
        result = noted(result, READ_EDIT_NOTE)
    return result


def refused_for_nothing_pending(result: ToolResultMessage) -> bool:
    """Whether ``result`` is a ``resolve`` refused because nothing was pending."""
    return result.tool_name == RESOLVE_TOOL_NAME and _text(result) == NOTHING_PENDING_MESSAGE


def noted(result: ToolResultMessage, note: str) -> ToolResultMessage:
    """``result`` with ``note`` as one more text block."""
    return dataclasses.replace(result, content=[*result.content, TextContent(note)])


def user_request(history: Sequence[Message]) -> str:
    """The text of the user's latest request (hidden reminders skipped), or ``""``."""
    for message in reversed(history):
        if isinstance(message, UserMessage) and not message.hidden and message.text.strip():
            return message.text.strip()
    return ""


def quoted_request(history: Sequence[Message]) -> str:
    """``The request was: "..."``, the user's request cut to :data:`QUOTED_REQUEST_CHARS`.

    ``""`` when the history holds no request.
    """
    request = user_request(history)
    if not request:
        return ""
    if len(request) > QUOTED_REQUEST_CHARS:
        request = request[:QUOTED_REQUEST_CHARS].rstrip() + "..."
    return f'The request was: "{request}"'


def request_reminder(history: Sequence[Message]) -> UserMessage | None:
    """The hidden reminder after a ``resolve`` refused with nothing pending, or ``None``.

    It quotes the user's request (:func:`quoted_request`), so the turn that must call
    another tool calls the one the request needs.
    """
    quote = quoted_request(history)
    if not quote:
        return None
    text = (
        f"{quote}\n"
        "Nothing is pending, so resolve cannot be called now. Call the tool this request "
        "needs first (ast_edit makes a preview; resolve comes after it)."
    )
    return UserMessage(content=[TextContent(text)], hidden=True)


def _text(result: ToolResultMessage) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent) and b.text)
