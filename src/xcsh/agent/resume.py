"""Resuming a recorded session: rebuilding the pending actions it left.

A session file keeps each pending action's originating tool call (its
tool name and arguments, see :mod:`xcsh.agent.recording`). On resume,
:func:`rebuild_pending` runs each rebuildable tool again with those
arguments, against the files as they are now, so what the user resolves is
what would change today; the rest are dropped. The model is told both in a
hidden user message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xcsh.agent.persistence import PendingRecord
from xcsh.agent.previews import RebuiltPreview, compare_rebuilt
from xcsh.core import (
    AgentTool,
    TextContent,
    ToolError,
    ToolResultMessage,
    UserMessage,
    cap_text,
)
from xcsh.pending import PendingActionStore


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
    tools: Mapping[str, AgentTool[Any]],
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
        if (
            tool is None
            or record.tool_name not in rebuildable
            or record.arguments is None
            or store is None
        ):
            report.dropped.append(
                f"{record.label} (it cannot be rebuilt from its tool's arguments)"
            )
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


__all__ = ["ResumeReport", "rebuild_pending"]
