"""Resuming a recorded session: rebuilding the pending actions it left.

Only an action whose tool can re-run it from the recorded arguments (the
session's ``SessionConfig.rebuildable_tools``, ``ast_edit``) survives the process. The
others live only in memory (their ``apply`` and ``reject`` are callbacks of
the process that made them), so a session that ends discards them first,
running each ``reject`` (:func:`discard_unrebuildable`), and a later session
never finds one left behind except after a crash.

A session file keeps each pending action's originating tool call (its
tool name and arguments, see :mod:`xcsh.agent.record.recording`). On resume,
:func:`rebuild_pending` runs each rebuildable tool again with those
arguments, against the files as they are now, so what the user resolves is
what would change today; the rest are dropped. The model is told both in a
hidden user message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xcsh.agent.record.persistence import PendingRecord
from xcsh.agent.run.events import Resolved, RunEnd
from xcsh.agent.run.loop import resolved_event
from xcsh.core import (
    AgentToolResult,
    TextContent,
    Tool,
    ToolError,
    ToolResultMessage,
    UserMessage,
    cap_text,
)
from xcsh.pending import (
    RESOLVE_TOOL_NAME,
    PendingAction,
    PendingActionStore,
    RebuiltPreview,
    compare_rebuilt,
    discard_action,
)

NOT_REBUILT = (
    "it cannot be rebuilt from its tool's arguments, and xcsh stopped before "
    "discarding it, so its clean-up never ran"
)
"""Why a resumed session drops an action: only a crash or SIGKILL leaves one behind."""

RUN_ENDED_REASON = (
    "The xcsh run ended with this preview still pending, and it cannot be rebuilt "
    "in a later session, so it was discarded."
)
"""The ``reason`` handed to ``reject`` when an ``xcsh -p`` run ends with the action pending."""

SESSION_ENDED_REASON = (
    "The xcsh session ended with this preview still pending, and it cannot be rebuilt "
    "in a later session, so it was discarded."
)
"""The ``reason`` handed to ``reject`` when the terminal session ends with the action pending."""


@dataclass(frozen=True, kw_only=True)
class ResumeReport:
    """What happened to the pending actions of a resumed session.

    Args:
        repreviewed: labels of actions rebuilt by re-running their tool.
        dropped: labels (with why) of actions that could not be rebuilt.
        rebuilt: the rebuilt actions with their diffs and how each differs
            from the one left pending, bottom of the stack first; front ends
            show them before anything can apply them (contract §6).
    """

    repreviewed: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    rebuilt: list[RebuiltPreview] = field(default_factory=list)


async def rebuild_pending(
    records: Sequence[PendingRecord],
    *,
    tools: Mapping[str, Tool],
    rebuildable: frozenset[str],
    store: PendingActionStore | None,
    pushed: Callable[[ToolResultMessage], None],
) -> tuple[ResumeReport, UserMessage | None]:
    """Rebuild saved pending actions on ``store``, bottom of the stack first.

    Args:
        records: the saved stack (:attr:`SavedSession.pending`), bottom first.
        tools: the session's tools, by name.
        rebuildable: names of the tools whose actions are rebuilt by running
            them again with the recorded arguments; any other is dropped.
        store: where the rebuilt actions are pushed (``None``: all are dropped).
        pushed: called with each re-run's result right after it, so the
            session emits its :class:`~xcsh.agent.events.PendingPushed` events.

    Returns:
        The report, and the hidden user message telling the model what was
        rebuilt and dropped (``None`` when there was nothing to tell).
    """
    report = ResumeReport()
    texts: list[str] = []
    for number, record in enumerate(records, start=1):
        tool = tools.get(record.tool_name or "")
        if tool is None or store is None or not can_rebuild(record, tools, rebuildable):
            report.dropped.append(f"{record.label} ({NOT_REBUILT})")
            continue
        call_id = f"resume_{number}"
        before = store.count
        try:
            out = await tool.execute(call_id, record.arguments)
        except ToolError as exc:
            report.dropped.append(f"{record.label} (re-preview failed: {exc})")
            continue
        pushed(
            ToolResultMessage(
                tool_call_id=call_id,
                tool_name=tool.name,
                content=list(out.content),
                details=out.details,
            )
        )
        top = store.peek() if store.count > before else None
        if top is None:
            report.dropped.append(f"{record.label} (the re-preview found nothing to change)")
            continue
        rebuilt = RebuiltPreview(
            label=top.label,
            previous_label=record.label,
            source_tool_name=top.source_tool_name,
            preview=cap_text(top.preview.diff or out.text),
            files=top.preview.file_labels(),
            changes=compare_rebuilt(
                previous_label=record.label,
                previous_files=record.files,
                previous_digest=record.digest,
                label=top.label,
                preview=top.preview,
            ),
        )
        report.repreviewed.append(top.label)
        report.rebuilt.append(rebuilt)
        texts.append(f"- {top.label}: {rebuilt.note()}\n{cap_text(out.text)}")
    if not report.repreviewed and not report.dropped:
        return report, None
    lines = ["The session was resumed."]
    if report.repreviewed:
        lines.append(
            "Pending previews rebuilt against the current files (bottom of the stack "
            "first; the user was shown each one's diff). Resolve them as they are now, "
            "not as they were:"
        )
        lines += texts
    if report.dropped:
        lines.append("Pending actions dropped: " + "; ".join(report.dropped))
    return report, UserMessage(content=[TextContent("\n".join(lines))], hidden=True)


def can_rebuild(
    record: PendingRecord | PendingAction,
    tools: Mapping[str, Tool],
    rebuildable: frozenset[str],
) -> bool:
    """True when a later session can rebuild this action from its tool call's arguments.

    ``record`` is a saved action or a live one (read through its
    :attr:`~xcsh.pending.PendingAction.origin`).
    """
    if isinstance(record, PendingAction):
        origin = record.origin
        name = origin.tool_name if origin else None
        has_arguments = origin is not None and origin.arguments is not None
    else:
        name, has_arguments = record.tool_name, record.arguments is not None
    return name is not None and name in rebuildable and name in tools and has_arguments


@dataclass(frozen=True, kw_only=True)
class EndDiscard:
    """A pending action discarded because its session ended.

    Args:
        action: the action (already off the stack).
        result: what its discard returned (the ``reject``'s text, or the default
            ``Discarded: ...``; ``is_error`` when the ``reject`` raised);
            ``details`` is its :class:`~xcsh.pending.ResolveOutcome`.
    """

    action: PendingAction
    result: AgentToolResult


async def discard_unrebuildable(
    store: PendingActionStore,
    *,
    tools: Mapping[str, Tool],
    rebuildable: frozenset[str],
    reason: str,
) -> list[EndDiscard]:
    """Discard, newest first, every pending action a later session could not rebuild.

    Each is taken off ``store`` and its ``reject(reason)`` runs (a failing
    ``reject`` is reported in its result, never raised); rebuildable actions
    stay pending for ``--continue``. Nothing is ever applied.

    Returns:
        The discarded actions with their results, newest first.
    """
    discarded = []
    for action in store.snapshot():
        if can_rebuild(action, tools, rebuildable) or not store.remove(action):
            continue
        discarded.append(EndDiscard(action=action, result=await discard_action(action, reason)))
    return discarded


async def end_unrebuildable(
    store: PendingActionStore,
    *,
    tools: Mapping[str, Tool],
    rebuildable: frozenset[str],
    reason: str,
) -> tuple[list[Resolved], UserMessage | None]:
    """:func:`discard_unrebuildable`, as the events a session emits and what the model is told.

    Returns:
        One :class:`Resolved` per discarded action (``action="discard"``,
        ``tool_call_id=""``), newest first, and the hidden user message naming
        them with ``reason`` (``None`` when nothing was discarded).
    """
    discarded = await discard_unrebuildable(
        store, tools=tools, rebuildable=rebuildable, reason=reason
    )
    events = []
    for item in discarded:
        result = ToolResultMessage(
            tool_call_id="",
            tool_name=RESOLVE_TOOL_NAME,
            content=list(item.result.content),
            details=item.result.details,
            is_error=item.result.is_error,
        )
        event = resolved_event(result, store.count)
        if event is not None:
            events.append(event)
    if not discarded:
        return events, None
    labels = "; ".join(item.action.label for item in discarded)
    note = f"Pending previews discarded: {labels}. Reason: {reason}"
    return events, UserMessage(content=[TextContent(note)], hidden=True)


def ended_run(end: RunEnd, discarded: Sequence[str], pending: int) -> RunEnd:
    """``end`` of a session's last run after :func:`end_unrebuildable` discarded ``discarded``.

    Its ``message`` gains a sentence naming them and ``pending`` becomes
    ``pending`` (what is kept for ``--continue``); unchanged when none was.
    """
    if not discarded:
        return end
    told = (
        f"The run ended, so {'; '.join(discarded)} (it cannot be rebuilt in a later "
        "session) was discarded and its clean-up ran."
    )
    message = f"{end.message} {told}" if end.message else told
    return dataclasses.replace(end, message=message, pending=pending)


__all__ = [
    "RUN_ENDED_REASON",
    "SESSION_ENDED_REASON",
    "EndDiscard",
    "ResumeReport",
    "can_rebuild",
    "discard_unrebuildable",
    "end_unrebuildable",
    "ended_run",
    "rebuild_pending",
]
