"""The hidden ``resolve`` tool (SPEC §2)."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    TextContent,
    ToolCallContext,
    ToolError,
    coerce_result,
)
from xcsh.pending.action import PendingAction, call_maybe_async
from xcsh.pending.store import PendingActionStore

RESOLVE_TOOL_NAME = "resolve"
NOTHING_PENDING_MESSAGE = "No pending action to resolve. Nothing to apply or discard."

_DESCRIPTION = (
    "Apply or discard the most recent pending preview (the last one produced is resolved "
    "first). Call it after a tool such as ast_edit shows a preview: action 'apply' performs "
    "the previewed change, 'discard' drops it. Nothing changes on disk until you apply. "
    "Give a short reason either way."
)


class ResolveParams(BaseModel):
    """Arguments of ``resolve``: both required, no others (SPEC §2)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["apply", "discard"] = Field(
        description="'apply' to perform the previewed change, 'discard' to drop it."
    )
    reason: str = Field(description="Why you are applying or discarding.")


def create_resolve_tool(store: PendingActionStore) -> AgentTool[ResolveParams]:
    """Build the ``resolve`` tool bound to one session's store (SPEC §2).

    Behaviour, in order:

    1. Empty store: raises :class:`ToolError` with exactly
       ``No pending action to resolve. Nothing to apply or discard.``
    2. Pops the top action (LIFO).
    3. ``apply``: awaits ``apply(reason)``; the text is the non-empty text parts
       of its result joined by newlines, or ``Applied: <label>.``. If ``apply``
       raises, the action is put back on top and the result is an ``is_error``
       result ``Apply failed: <message>`` saying it is still pending.
    4. ``discard``: awaits ``reject(reason)`` when present and uses a returned
       result; otherwise ``Discarded: <label>. Reason: <reason>``. If ``reject``
       raises, the action stays discarded (nothing was applied) and the result
       is an ``is_error`` result naming the failed clean-up.

    The result's ``details`` are always
    ``{"action", "reason", "source_tool_name", "label"}``; ``reason`` never
    changes behaviour.

    Args:
        store: the session's pending-action store.

    Returns:
        A hidden :class:`AgentTool` named ``resolve``, label ``Resolve``.
    """

    async def run(params: ResolveParams, ctx: ToolCallContext) -> AgentToolResult:
        action = store.pop()
        if action is None:
            raise ToolError(NOTHING_PENDING_MESSAGE)
        details: dict[str, Any] = {
            "action": params.action,
            "reason": params.reason,
            "source_tool_name": action.source_tool_name,
            "label": action.label,
        }
        if params.action == "apply":
            return await _apply(store, action, params.reason, details)
        return await _discard(action, params.reason, details)

    return AgentTool(
        name=RESOLVE_TOOL_NAME,
        label="Resolve",
        description=_DESCRIPTION,
        parameters=ResolveParams,
        run=run,
        hidden=True,
    )


async def _apply(
    store: PendingActionStore, action: PendingAction, reason: str, details: dict[str, Any]
) -> AgentToolResult:
    try:
        result = coerce_result(await call_maybe_async(action.apply, reason))
    except asyncio.CancelledError:
        store.restore(action)
        raise
    except Exception as exc:  # any failure of user code keeps the action pending
        store.restore(action)
        message = str(exc) or type(exc).__name__
        text = (
            f"Apply failed: {message}\n"
            f"The action '{action.label}' is still pending: call resolve again with "
            "'apply' to retry or 'discard' to drop it."
        )
        return AgentToolResult(content=[TextContent(text)], details=details, is_error=True)
    text = result.text if result is not None else ""
    if not text:
        text = f"Applied: {action.label}."
    is_error = result.is_error if result is not None else False
    return AgentToolResult(content=[TextContent(text)], details=details, is_error=is_error)


async def _discard(action: PendingAction, reason: str, details: dict[str, Any]) -> AgentToolResult:
    default = f"Discarded: {action.label}. Reason: {reason}"
    if action.reject is None:
        return AgentToolResult(content=[TextContent(default)], details=details)
    try:
        result = coerce_result(await call_maybe_async(action.reject, reason))
    except Exception as exc:  # the discard stands; only its clean-up failed
        message = str(exc) or type(exc).__name__
        text = f"{default}\nDiscard clean-up failed: {message}"
        return AgentToolResult(content=[TextContent(text)], details=details, is_error=True)
    if result is None:
        return AgentToolResult(content=[TextContent(default)], details=details)
    return AgentToolResult(content=result.content, details=details, is_error=result.is_error)
