"""The person's say in ``resolve``: approving the model's apply, or resolving themselves.

:func:`approval_resolve_tool` wraps the session's ``resolve`` tool: before
each model ``apply`` it awaits an :data:`ApprovalHook` (``--approve ask``, the
terminal), which answers with an :class:`Approval`. A refusal becomes a
discard the model is told about; an approval after a review part by part
applies only the changes kept. :func:`resolve_as_user` is ``/apply`` and
``/discard``: the same ``resolve``, run on the person's behalf.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    Content,
    JsonObject,
    TextContent,
    Tool,
    ToolCallContext,
    ToolError,
    ToolResultMessage,
    UserMessage,
    cap_text,
)
from xcsh.pending import (
    RESOLVE_TOOL_NAME,
    PendingAction,
    PendingActionStore,
    ResolveOutcome,
    ResolveParams,
    check_request,
    create_resolve_tool,
    resolve_top,
    select_parts,
)


@dataclass(frozen=True, kw_only=True)
class Approval:
    """A person's answer to "apply this?".

    Args:
        approved: True to let the apply go ahead.
        reason: why not (shown to the model when declined).
        only: when approved after a review part by part, the change ids the
            person kept (the rest is discarded); ``None`` keeps what the model asked.
    """

    approved: bool
    reason: str = ""
    only: tuple[str, ...] | None = None


ApprovalHook = Callable[[PendingAction, str, tuple[str, ...] | None], Awaitable[Approval]]
"""``await hook(action, model_reason, model_only)`` before the model's ``resolve`` applies
``action``.

``model_only`` is the change ids the model chose with ``only`` (a strict
subset of the preview's, in preview order), or ``None`` when it applies all
of them; a plain approval applies what the model chose. Called on the event
loop; it may await user input for as long as it likes (cancellation of the
run cancels it). A declined apply discards the action (its ``reject`` runs),
nothing changes, and the model's ``resolve`` result says the user declined,
with the user's reason. An approval with ``only`` applies just those changes
instead. Exceptions fail the ``resolve`` call and leave the action pending.
"""

DECLINED_TEXT = (
    "The user declined to apply '{label}'. Reason: {reason}. The preview was discarded "
    "and nothing changed."
)
SKIPPED_ALL_REASON = "the user skipped every change in review"
CHECK_REFUSED_TEXT = (
    "Not applied: {verdict} apply_requires_checks = true, so only the user can apply "
    "{id} (/apply in the terminal, or --approve ask). It is still pending: discard it and "
    "preview a change that keeps the check passing."
)
"""The model's ``resolve`` apply of a preview whose check newly fails (or timed out),
with ``apply_requires_checks`` on and no person to ask."""


def approval_resolve_tool(
    store: PendingActionStore,
    approval: ApprovalHook | None,
    *,
    requires_checks: bool = False,
) -> AgentTool[ResolveParams]:
    """The ``resolve`` tool, asking ``approval`` before each apply (when given).

    The same parameters, name and results as
    :func:`xcsh.pending.create_resolve_tool`; a declined apply becomes a
    discard whose result text is :data:`DECLINED_TEXT` and whose outcome has
    status ``declined``; an approval with ``only`` applies those changes.

    With ``requires_checks`` (``apply_requires_checks = true``), an apply of a
    preview whose check newly fails or timed out needs the person: with
    ``approval`` they are asked as for any apply; without, the call fails
    with :data:`CHECK_REFUSED_TEXT` and the preview stays pending.
    """
    inner = create_resolve_tool(store)
    if approval is None and not requires_checks:
        return inner

    async def run(params: ResolveParams, ctx: ToolCallContext) -> AgentToolResult[ResolveOutcome]:
        if params.action == "apply":
            top = check_request(store, params)
            verdict = top.preview.check
            gated = requires_checks and verdict is not None and verdict.blocks_apply
            if gated and approval is None and verdict is not None:
                raise ToolError(CHECK_REFUSED_TEXT.format(verdict=verdict.summary(), id=top.id))
            if approval is None:
                return await resolve_top(store, params)
            decision = await approval(top, params.reason, _model_only(top, params))
            if decision.approved and decision.only is not None and not decision.only:
                decision = Approval(approved=False, reason=SKIPPED_ALL_REASON)
            if not decision.approved:
                why = decision.reason.strip() or "no reason given"
                refusal = ResolveParams(action="discard", reason=f"declined by the user: {why}")
                discarded = await resolve_top(store, refusal)
                outcome = discarded.details
                if outcome is not None:
                    outcome = dataclasses.replace(outcome, status="declined")
                text = DECLINED_TEXT.format(label=top.label, reason=why)
                return AgentToolResult(content=[TextContent(text)], details=outcome)
            if decision.only is not None:
                params = params.model_copy(update={"only": list(decision.only)})
        return await resolve_top(store, params)

    return AgentTool(
        name=inner.name,
        label=inner.label,
        description=inner.description,
        parameters=ResolveParams,
        run=run,
        hidden=True,
    )


def _model_only(action: PendingAction, params: ResolveParams) -> tuple[str, ...] | None:
    """The change ids ``params.only`` chose, when fewer than all (checked already)."""
    if params.only is None:
        return None
    chosen = select_parts(action, params.only)
    return tuple(chosen) if len(chosen) < len(action.preview.changes) else None


def session_tools(
    tools: Iterable[Tool],
    store: PendingActionStore | None,
    approval: ApprovalHook | None,
    *,
    requires_checks: bool = False,
) -> dict[str, Tool]:
    """The tools a session offers, by name, in order, with its own ``resolve`` last.

    A ``resolve`` among ``tools`` is left out: with a store, the session's is
    :func:`approval_resolve_tool` bound to it (``requires_checks``: see there);
    without one there is none.

    Raises:
        ValueError: two tools share a name.
    """
    chosen: dict[str, Tool] = {}
    for tool in tools:
        if tool.name == RESOLVE_TOOL_NAME:
            continue
        if tool.name in chosen:
            raise ValueError(f"two tools are named {tool.name!r}; tool names must be unique")
        chosen[tool.name] = tool
    if store is not None:
        chosen[RESOLVE_TOOL_NAME] = approval_resolve_tool(
            store, approval, requires_checks=requires_checks
        )
    return chosen


@dataclass(frozen=True, kw_only=True)
class UserResolution:
    """What resolving the top action on the person's behalf gave.

    Args:
        message: the result, as a tool result of a ``user_<hex>`` call.
        outcome: what happened to the action; ``None`` when ``resolve`` refused
            the request (nothing pending, a blank reason, ...; ``message`` says why).
    """

    message: ToolResultMessage
    outcome: ResolveOutcome | None

    @property
    def is_error(self) -> bool:
        """The request was refused, the apply failed, or a discard's clean-up failed."""
        return self.message.is_error

    @property
    def content(self) -> list[Content]:
        """The result's blocks."""
        return self.message.content

    @property
    def text(self) -> str:
        """The result's text blocks joined by newlines."""
        return "\n".join(b.text for b in self.message.content if isinstance(b, TextContent))


async def resolve_as_user(
    store: PendingActionStore,
    action: Literal["apply", "discard"],
    reason: str,
    only: Sequence[str] | None = None,
) -> tuple[UserResolution, UserMessage | None]:
    """Run ``resolve`` on the person's behalf (no approval: they are the approver).

    Args:
        store: the session's store.
        action: ``"apply"`` or ``"discard"``, as the ``resolve`` tool takes it.
        reason: the person's reason, quoted in the result and to the model.
        only: with ``"apply"``, the change ids (``c12``) and/or file paths of the top
            preview to apply, the rest being discarded; ``None`` applies it whole.

    Returns:
        The resolution (the result as a tool result of a ``user_<hex>`` call,
        and the outcome), and the hidden user message that tells the model what
        the person did (``None`` when ``resolve`` refused the request, e.g. with
        nothing pending).
    """
    call_id = f"user_{secrets.token_hex(4)}"
    arguments: JsonObject = {"action": action, "reason": reason}
    if only is not None:
        arguments["only"] = list(only)
    try:
        out = await create_resolve_tool(store).execute(call_id, arguments)
    except ToolError as exc:  # refused: no outcome
        refused = ToolResultMessage(
            tool_call_id=call_id,
            tool_name=RESOLVE_TOOL_NAME,
            content=[TextContent(str(exc))],
            is_error=True,
        )
        return UserResolution(message=refused, outcome=None), None
    result = ToolResultMessage(
        tool_call_id=call_id,
        tool_name=RESOLVE_TOOL_NAME,
        content=list(out.content),
        details=out.details,
        is_error=out.is_error,
    )
    text = cap_text("\n".join(b.text for b in result.content if isinstance(b, TextContent)))
    note = f"The user resolved the top pending preview themselves ({action}): {text}"
    resolution = UserResolution(message=result, outcome=out.details)
    return resolution, UserMessage(content=[TextContent(note)], hidden=True)


__all__ = [
    "DECLINED_TEXT",
    "SKIPPED_ALL_REASON",
    "Approval",
    "ApprovalHook",
    "approval_resolve_tool",
    "resolve_as_user",
    "session_tools",
]
