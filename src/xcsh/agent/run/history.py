"""History invariants: every tool call gets exactly one result (contract case R3).

Providers reject a request in which a tool call has no result right after
it ("tool_use ids were found without tool_result blocks"), or a result
answers no call. :func:`repair_tool_pairs` restores the invariant after an
interruption (Ctrl-C, a cancelled batch, a crash, a resumed session).
"""

from __future__ import annotations

from collections.abc import Sequence

from xcsh.core import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage

CANCELLED_TEXT = "Cancelled: the run was interrupted before this tool call returned a result."


def cancelled_result(call: ToolCall) -> ToolResultMessage:
    """The synthetic ``is_error`` result for a call that never finished."""
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(CANCELLED_TEXT)],
        details={"cancelled": True},
        is_error=True,
    )


def repair_tool_pairs(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Pair every tool call with exactly one result, placed right after its message.

    After each assistant message with tool calls, the results that follow it
    are kept in call order, a :func:`cancelled_result` is added for each call
    without one, and duplicate results or results answering no call of that
    message are dropped.

    Returns:
        ``(messages, changes)``: the repaired list (a new list) and how many
        results were added or dropped (0 when the history was already valid).
    """
    out: list[Message] = []
    changes = 0
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if isinstance(message, ToolResultMessage):
            changes += 1  # a result with no assistant message before it
            continue
        out.append(message)
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        found: dict[str, ToolResultMessage] = {}
        while i < len(messages) and isinstance(messages[i], ToolResultMessage):
            result = messages[i]
            assert isinstance(result, ToolResultMessage)
            i += 1
            ids = {c.id for c in message.tool_calls}
            if result.tool_call_id in ids and result.tool_call_id not in found:
                found[result.tool_call_id] = result
            else:
                changes += 1
        for call in message.tool_calls:
            if call.id in found:
                out.append(found[call.id])
            else:
                out.append(cancelled_result(call))
                changes += 1
    return out, changes
