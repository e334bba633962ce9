"""Events the agent emits: a closed, tagged union every front end subscribes to.

A run (one prompt) produces, in order::

    TurnStart
      TextDelta* / ThinkingDelta*          while the model streams
      (ToolCallStart  ToolProgress*  PendingPushed*  ToolResult  Resolved?)*   per tool call
    TurnEnd
    ... more turns ...
    RunEnd                                 always last, exactly once per run

``AgentError`` may appear before ``RunEnd`` when the provider fails;
``Notice`` whenever the session changes how it works (steering adapted to the
provider, the history compacted, a tool call read from the model's text). Every
event is a frozen, keyword-only dataclass with a ``type`` tag; front ends
match on the class (``match event: case TextDelta(text=t): ...``) or on
``event.type``. :func:`event_to_dict` gives the JSON shape that
``xcsh -p --mode json`` prints one per line.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from xcsh.core import AssistantMessage, JsonObject, ToolDetails, ToolResultMessage, cap_text
from xcsh.pending import Preview, ResolveOutcome


@dataclasses.dataclass(frozen=True, kw_only=True)
class TurnStart:
    """A model request is about to be sent.

    Args:
        turn: 1-based turn number within the run.
        forced: the request forces the ``resolve`` tool (actions are pending).
        pending: how many actions were pending when the turn began.
    """

    turn: int
    forced: bool
    pending: int
    type: Literal["turn_start"] = "turn_start"


@dataclasses.dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of answer text as the model streams it."""

    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThinkingDelta:
    """A piece of reasoning text as the model streams it."""

    text: str
    type: Literal["thinking_delta"] = "thinking_delta"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolCallStart:
    """A tool call is about to be executed (or gated / refused).

    Args:
        id: the provider's call id.
        name: the tool's name as the model wrote it.
        arguments: the parsed arguments.
    """

    id: str
    name: str
    arguments: JsonObject
    type: Literal["tool_call_start"] = "tool_call_start"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolResult:
    """A tool call finished; ``message`` is exactly what goes into the history.

    Args:
        message: the result (``is_error`` for failures, gated or cancelled calls).
        text: the result's text blocks joined by newlines, for display.
        resolved: a ``resolve`` result that resolved something: the
            :class:`Resolved` event that follows shows it (with its error).
    """

    message: ToolResultMessage
    text: str
    resolved: bool = False
    type: Literal["tool_result"] = "tool_result"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolProgress:
    """A running tool reported progress (an MCP server's progress notification).

    Args:
        tool_call_id: the call.
        name: its tool.
        text: the progress in one line (``40% (4/10): indexing``).
    """

    tool_call_id: str
    name: str
    text: str
    type: Literal["tool_progress"] = "tool_progress"


@dataclasses.dataclass(frozen=True, kw_only=True)
class PendingPushed:
    """A tool staged a preview: a pending action was pushed on the store.

    Args:
        tool_call_id: the tool call running when it was pushed (``resume_1``
            when a resumed session re-previews; for a preview rebuilt by
            ``resolve``, that ``resolve`` call); ``None`` outside any tool
            call. The call that produced the preview is the action's
            ``origin`` (:class:`~xcsh.pending.PushOrigin`).
        label: the action's label (``"AST Edit: 2 replacements in 1 file"``).
        source_tool_name: the tool that produced it.
        count: pending actions right after the push.
        value: the action's typed preview (its id, files, changes with ids, diff).
        result_text: for a preview without a diff, the text of the call that
            pushed it (what shows it instead); ``""`` otherwise.
    """

    tool_call_id: str | None
    label: str
    source_tool_name: str
    count: int
    value: Preview = dataclasses.field(default_factory=Preview)
    result_text: str = ""
    type: Literal["pending_pushed"] = "pending_pushed"

    @property
    def preview(self) -> str:
        """The text that shows the preview: its diff, else the pushing call's text (capped)."""
        return cap_text(self.value.diff or self.result_text)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Resolved:
    """A ``resolve`` call finished (by the model, or by the user through the session).

    Args:
        tool_call_id: the ``resolve`` call.
        is_error: the apply failed (the action is pending again) or clean-up failed.
        text: the result text.
        pending: actions still pending afterwards.
        outcome: the typed outcome: what was asked (action, reason), of which
            action (label, source), what happened (status, changes applied and
            dropped, files written, the journal entry, warnings).
    """

    tool_call_id: str
    is_error: bool
    text: str
    pending: int
    outcome: ResolveOutcome
    type: Literal["resolved"] = "resolved"

    @property
    def action(self) -> str:
        """``"apply"`` or ``"discard"``, as asked."""
        return self.outcome.action

    @property
    def reason(self) -> str:
        """The reason given."""
        return self.outcome.reason

    @property
    def label(self) -> str:
        """The resolved action's label."""
        return self.outcome.label

    @property
    def source_tool_name(self) -> str:
        """The tool that produced the resolved action."""
        return self.outcome.source_tool_name


@dataclasses.dataclass(frozen=True, kw_only=True)
class TurnEnd:
    """A turn finished: the model's message and the results of its calls (call order)."""

    turn: int
    message: AssistantMessage
    results: list[ToolResultMessage]
    type: Literal["turn_end"] = "turn_end"


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgentError:
    """Something failed outside any tool call (usually the provider).

    Args:
        message: what failed, for the user.
        kind: ``"provider"`` for :class:`xcsh.core.ProviderError`, else ``"internal"``.
    """

    message: str
    kind: Literal["provider", "internal"]
    type: Literal["error"] = "error"


NoticeKind = Literal["steering", "text_tool_call", "compaction", "model", "mcp"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Notice:
    """The session changed how it works; tell the user once.

    Args:
        kind: ``"steering"`` (how a forced turn is sent changed for this
            provider), ``"text_tool_call"`` (a tool call the model wrote as
            text was run as a call), ``"compaction"`` (older turns were
            replaced by a summary), ``"model"`` (the model was switched),
            ``"mcp"`` (an MCP server stopped or started again, a tool of one was
            left out).
        message: one or two sentences for the user.
    """

    kind: NoticeKind
    message: str
    type: Literal["notice"] = "notice"


RunEndReason = Literal["stop", "cancelled", "forced_cap", "error"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunEnd:
    """The run is over; always the last event of a run.

    Args:
        reason: ``"stop"`` (the model answered without tool calls),
            ``"cancelled"``, ``"forced_cap"`` (the model kept not resolving the
            pending preview; actions are left pending), ``"error"``.
        final_text: the text of the last assistant message (the answer).
        message: a sentence for the user when ``reason`` is not ``"stop"``.
        pending: actions still pending.
    """

    reason: RunEndReason
    final_text: str
    message: str
    pending: int
    type: Literal["run_end"] = "run_end"


AgentEvent = (
    TurnStart
    | TextDelta
    | ThinkingDelta
    | ToolCallStart
    | ToolResult
    | ToolProgress
    | PendingPushed
    | Resolved
    | TurnEnd
    | AgentError
    | Notice
    | RunEnd
)
"""Every event a session emits; the set is closed."""

EVENT_TYPES: tuple[type[AgentEvent], ...] = (
    TurnStart,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolResult,
    ToolProgress,
    PendingPushed,
    Resolved,
    TurnEnd,
    AgentError,
    Notice,
    RunEnd,
)


def event_to_dict(event: AgentEvent) -> dict[str, object]:
    """The event as JSON-ready data: ``{"type": ..., <fields>}``.

    Nested messages become dicts, field by field. A tool result's typed
    details are written as their :meth:`~xcsh.core.ToolDetails.event_json`
    (the keys earlier releases printed: ``ast_edit``'s ``id``, ``label``,
    ``total``, ``files``, ``diff``, ``skipped``, ``arguments``; ``resolve``'s
    outcome field by field). :class:`PendingPushed` and :class:`Resolved` keep
    the keys they always printed (the preview's text; what was resolved).
    Values JSON cannot carry are left for ``json.dumps(default=str)``.
    """
    names = _KEYS.get(type(event))
    if names is None:
        data = _plain(event)
        assert isinstance(data, dict)
        return data
    return {name: _plain(getattr(event, name)) for name in names}


_KEYS: dict[type[object], tuple[str, ...]] = {
    PendingPushed: (
        "tool_call_id",
        "label",
        "source_tool_name",
        "count",
        "preview",
        "value",
        "type",
    ),
    Resolved: (
        "tool_call_id",
        "action",
        "reason",
        "label",
        "source_tool_name",
        "is_error",
        "text",
        "pending",
        "outcome",
        "type",
    ),
}
"""The keys of the events whose JSON form holds more than their fields, in printed order."""


def _plain(value: object) -> object:
    if isinstance(value, ToolDetails):
        return value.event_json()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
