"""The hidden ``resolve`` tool: apply or discard the top pending action, whole or in part.

The exact texts of its results are listed in ``docs/resolve.md``.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    TextContent,
    ToolCallContext,
    ToolError,
)
from xcsh.pending.action import (
    ApplyFailedError,
    PendingAction,
    StalePreviewError,
)
from xcsh.pending.check import CheckVerdict
from xcsh.pending.effect import ApplyReport
from xcsh.pending.outcome import ApplyFailure, ResolveOutcome, ResolveStatus
from xcsh.pending.parts import grouped, select_parts
from xcsh.pending.rebuilt import describe_rebuild
from xcsh.pending.store import PendingActionStore

RESOLVE_TOOL_NAME = "resolve"
NOTHING_PENDING_MESSAGE = "No pending action to resolve. Nothing to apply or discard."
BLANK_REASON_MESSAGE = (
    "`reason` is blank. Say in a few words why you apply or discard this preview."
)

_DESCRIPTION = (
    "Apply or discard the most recent pending preview (the last one produced is resolved "
    "first). Call it after a tool such as ast_edit shows a preview: action 'apply' performs "
    "the previewed change, 'discard' drops it. Nothing changes on disk until you apply. "
    "Give a short reason either way. Optional: `id`, the preview id shown with the preview "
    "(p3), to make sure you resolve the one you mean; `only`, with 'apply', a list of change "
    "ids (c12) and/or file paths of that preview to apply just those parts (the rest is "
    "discarded)."
)


class ResolveParams(BaseModel):
    """Arguments of ``resolve``: ``action`` and ``reason`` required, ``id`` and ``only`` not."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["apply", "discard"] = Field(
        description="'apply' to perform the previewed change, 'discard' to drop it."
    )
    reason: str = Field(description="Why you are applying or discarding.")
    id: str | None = Field(
        default=None,
        description="The preview id shown with the preview (e.g. 'p3'); it must be the top one.",
    )
    only: list[str] | None = Field(
        default=None,
        description="With 'apply': change ids (e.g. 'c12') and/or file paths of the top preview; "
        "exactly those parts are applied, all or nothing, and the rest is discarded.",
    )
    check: bool = Field(
        default=False,
        description="With 'apply' and `only`: first run the project's check on just those "
        "parts (a subset can fail where the whole passed); if it newly fails or times out, "
        "nothing is applied and the preview stays pending.",
    )


def check_request(store: PendingActionStore, params: ResolveParams) -> PendingAction:
    """The top action, after checking the arguments against it (nothing is popped).

    Raises:
        ToolError: nothing pending (exactly :data:`NOTHING_PENDING_MESSAGE`), a
            blank reason, an ``id`` that is not the top's, or an ``only`` the top
            cannot honour (see ``docs/resolve.md`` for each text).
    """
    top = store.peek()
    if top is None:
        raise ToolError(NOTHING_PENDING_MESSAGE)
    if not params.reason.strip():
        raise ToolError(BLANK_REASON_MESSAGE)
    if params.id is not None and params.id.strip() != top.id:
        given = params.id.strip()
        known = any(a.id == given for a in store.snapshot())
        where = "is not the top pending preview" if known else "is not a pending preview"
        raise ToolError(
            f"{given} {where}: the top is {top.id} ({top.label}). Previews are resolved last "
            f"first: resolve {top.id} first, or leave out `id`."
        )
    if params.only is not None:
        if params.action != "apply":
            raise ToolError(
                "`only` goes with action 'apply' (it names the parts to apply); to discard a "
                "whole preview leave `only` out."
            )
        select_parts(top, params.only, store.snapshot())
    return top


def create_resolve_tool(store: PendingActionStore) -> AgentTool[ResolveParams, ResolveOutcome]:
    """Build the ``resolve`` tool bound to one session's store.

    Behaviour, in order:

    1. Empty store: raises :class:`ToolError` with exactly
       ``No pending action to resolve. Nothing to apply or discard.``; a blank
       reason, an ``id`` other than the top's, or an ``only`` the top cannot
       honour also raise, popping nothing.
    2. Pops the top action (LIFO).
    3. ``apply``: awaits ``apply(reason)`` (or, with ``only``, ``apply_parts``
       with the chosen subset); the text is the non-empty text parts of its
       result joined by newlines, or ``Applied: <label>.``, led for a partial
       apply by a line naming what was applied and what was discarded. If the
       apply raises, the action is put back on top and the result is an
       ``is_error`` result ``Apply failed: <message>`` saying it is still
       pending. If it raises :class:`StalePreviewError` and the action can be
       rebuilt, the rebuilt preview is pushed instead and the result says how
       it differs; nothing is applied. A whole apply of a checked preview
       repeats its verdict (:meth:`CheckVerdict.summary`) as the last line.
       With ``only`` and ``check: true`` the action's ``check_parts`` runs the
       project's check on just those parts first; a verdict that newly fails
       or timed out (or an action that cannot check parts) raises
       :class:`ToolError` with the action put back; otherwise the result ends
       with the verdict on the parts applied.
    4. ``discard``: awaits ``reject(reason)`` when present and uses a returned
       result; otherwise ``Discarded: <label>. Reason: <reason>``. If ``reject``
       raises, the action stays discarded (nothing was applied) and the result
       is an ``is_error`` result naming the failed clean-up.

    The result's ``details`` are a :class:`ResolveOutcome`, whose
    :meth:`~ResolveOutcome.contract` (what reading it by key sees) is
    ``{"action", "reason", "source_tool_name", "label"}``; ``reason`` never
    changes behaviour.

    Args:
        store: the session's pending-action store.

    Returns:
        A hidden :class:`AgentTool` named ``resolve``, label ``Resolve``.
    """

    async def run(params: ResolveParams, ctx: ToolCallContext) -> AgentToolResult[ResolveOutcome]:
        return await resolve_top(store, params)

    return AgentTool(
        name=RESOLVE_TOOL_NAME,
        label="Resolve",
        description=_DESCRIPTION,
        parameters=ResolveParams,
        run=run,
        hidden=True,
    )


async def resolve_top(
    store: PendingActionStore, params: ResolveParams
) -> AgentToolResult[ResolveOutcome]:
    """What the ``resolve`` tool does (see :func:`create_resolve_tool`).

    Raises:
        ToolError: see :func:`check_request`.
    """
    check_request(store, params)
    action = store.pop()
    if action is None:  # resolved meanwhile by another caller
        raise ToolError(NOTHING_PENDING_MESSAGE)
    if params.action == "discard":
        return await discard_action(action, params.reason)
    only = None
    if params.only is not None:
        chosen = select_parts(action, params.only, [])
        if len(chosen) < len(action.preview.changes):
            only = chosen
    verdict = None
    if params.check and only is not None:
        if not action.supports.check_parts:
            store.restore(action)
            raise ToolError(
                f"{action.id} cannot check a subset of its changes (no project check here, or "
                "its tool does not stage them). It is still pending: apply without `check`, or "
                "discard it."
            )
        try:
            verdict = await action.effect.check_parts(action.preview.subset(only))
        except BaseException:
            store.restore(action)
            raise
        if verdict.blocks_apply:
            store.restore(action)
            raise ToolError(
                f"Not applied: on the parts you chose, {verdict.text()}\n"
                f"{action.id} is still pending: choose other parts, apply all of it, or discard it."
            )
    return await _apply(store, action, params.reason, only, verdict)


def _outcome(
    action: PendingAction, verb: str, reason: str, status: ResolveStatus, **extra: object
) -> ResolveOutcome:
    return ResolveOutcome(
        action=verb,
        reason=reason,
        source_tool_name=action.source_tool_name,
        label=action.label,
        status=status,
        preview_id=action.id,
        source_label=action.source_label,
        **extra,  # type: ignore[arg-type]
    )


def _result(
    text: str, outcome: ResolveOutcome, *, is_error: bool = False
) -> AgentToolResult[ResolveOutcome]:
    return AgentToolResult(content=[TextContent(text)], details=outcome, is_error=is_error)


async def _apply(
    store: PendingActionStore,
    action: PendingAction,
    reason: str,
    only: list[str] | None,
    subset_check: CheckVerdict | None = None,
) -> AgentToolResult[ResolveOutcome]:
    try:
        if only is None:
            report = await action.effect.apply(reason)
        else:  # select_parts checked that the action can apply a subset
            report = await action.effect.apply_parts(action.preview.subset(only), reason)
    except asyncio.CancelledError:
        store.restore(action)
        raise
    except StalePreviewError as exc:
        if action.supports.rebuild:
            return await _rebuild(store, action, reason, exc)
        return _failed(store, action, reason, exc)
    except Exception as exc:  # any failure of user code keeps the action pending
        return _failed(store, action, reason, exc)
    text = report.text or f"Applied: {action.label}."
    if only is None and action.preview.check is not None:
        text += "\n" + action.preview.check.summary()
    if only is None:
        details = _outcome(action, "apply", reason, "applied", **_written(report))
        return _result(text, details, is_error=report.is_error)
    keep = set(only)
    applied = tuple(c for c in action.preview.changes if c.id in keep)
    dropped = tuple(c for c in action.preview.changes if c.id not in keep)
    head = (
        f"Applied {len(applied)} of {len(action.preview.changes)} changes of {action.id} "
        f"({action.label}): {grouped(applied)}. Discarded: {grouped(dropped)}."
    )
    details = _outcome(
        action,
        "apply",
        reason,
        "applied",
        applied=applied,
        dropped=dropped,
        check=subset_check,
        **_written(report),
    )
    if subset_check is not None:
        text += f"\nOn the parts applied: {subset_check.summary()}"
    return _result(f"{head}\n{text}", details, is_error=report.is_error)


def _written(report: ApplyReport) -> dict[str, object]:
    """The outcome's fields for what an apply wrote."""
    return {
        "written": report.files,
        "journal_entry": report.journal_entry,
        "warnings": report.warnings,
    }


def _failed(
    store: PendingActionStore, action: PendingAction, reason: str, exc: Exception
) -> AgentToolResult[ResolveOutcome]:
    store.restore(action)
    message = str(exc) or type(exc).__name__
    text = (
        f"Apply failed: {message}\n"
        f"The action '{action.label}' is still pending: call resolve again with "
        "'apply' to retry or 'discard' to drop it."
    )
    failure = ApplyFailure(message=message)
    if isinstance(exc, ApplyFailedError):
        failure = ApplyFailure(message=message, stale=exc.stale, new_content=exc.new_content)
    outcome = _outcome(action, "apply", reason, "failed", failure=failure)
    return _result(text, outcome, is_error=True)


async def _rebuild(
    store: PendingActionStore, action: PendingAction, reason: str, stale: StalePreviewError
) -> AgentToolResult[ResolveOutcome]:
    """The files of ``action`` changed since its preview: preview again, leave that pending."""
    files = ", ".join(stale.files) or "its files"
    try:
        rebuilt = await action.effect.rebuild()
    except Exception as exc:  # the old preview can never apply; keep it for a discard
        store.restore(action)
        why = str(exc) or type(exc).__name__
        text = (
            f"Not applied: the files of {action.id} changed since its preview ({files}), and "
            f"previewing it again failed: {why}\n"
            f"{action.id} is still pending; discard it."
        )
        failure = ApplyFailure(message=f"previewing it again failed: {why}", stale=stale.stale)
        details = _outcome(action, "apply", reason, "failed", failure=failure)
        return _result(text, details, is_error=True)
    if rebuilt is None:
        text = (
            f"Not applied: the files of {action.id} changed since its preview ({files}). "
            "Previewed again against them, it finds nothing to change, so it was dropped; "
            "nothing changed."
        )
        return _result(text, _outcome(action, "apply", reason, "rebuilt"), is_error=True)
    new_action = store.push(rebuilt.action, origin=action.origin)
    changes = describe_rebuild(action, new_action)
    text = (
        f"Not applied: the files of {action.id} changed since its preview ({files}). "
        f"It was previewed again against them as {new_action.id}, which is now pending "
        f"instead: {changes}. Check it, then resolve {new_action.id}.\n{rebuilt.text}"
    )
    details = _outcome(action, "apply", reason, "rebuilt", rebuilt=new_action.preview)
    return _result(text, details, is_error=True)


def resolve_outcome(tool_name: str, details: object) -> ResolveOutcome | None:
    """The outcome of a ``resolve`` result (``tool_name`` and the result's ``details``).

    Returns:
        The :class:`ResolveOutcome`, or ``None`` for another tool's result and
        for a ``resolve`` that refused (nothing pending, bad arguments).
    """
    if tool_name != RESOLVE_TOOL_NAME or not isinstance(details, ResolveOutcome):
        return None
    return details


async def discard_action(action: PendingAction, reason: str) -> AgentToolResult[ResolveOutcome]:
    """Discard ``action`` (already off the stack) as ``resolve`` ``discard`` does.

    Awaits ``reject(reason)`` when the action has one. Returns the result
    ``resolve`` would give: the reject's text, else ``Discarded: <label>.
    Reason: <reason>``; a reject that raised gives an ``is_error`` result naming
    the failed clean-up (the discard stands). ``details`` is the
    :class:`ResolveOutcome`. Never raises for a failing ``reject``.
    """
    default = f"Discarded: {action.label}. Reason: {reason}"
    details = _outcome(action, "discard", reason, "discarded")
    try:
        result = await action.effect.reject(reason)
    except Exception as exc:  # the discard stands; only its clean-up failed
        message = str(exc) or type(exc).__name__
        return _result(f"{default}\nDiscard clean-up failed: {message}", details, is_error=True)
    if result is None:
        return _result(default, details)
    return AgentToolResult(content=result.content, details=details, is_error=result.is_error)


__all__ = [
    "BLANK_REASON_MESSAGE",
    "NOTHING_PENDING_MESSAGE",
    "RESOLVE_TOOL_NAME",
    "ResolveParams",
    "check_request",
    "create_resolve_tool",
    "discard_action",
    "resolve_outcome",
    "resolve_top",
]
