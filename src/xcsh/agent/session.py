"""The agent session: history, tools, store, steering, events, persistence.

A front end drives the agent only through :class:`AgentSession`::

    session = AgentSession(provider=provider, tools=tools, cwd=cwd, store=store)
    unsubscribe = session.subscribe(on_event)      # every AgentEvent, in order
    end = await session.prompt("rename foo to bar")  # one run; returns its RunEnd
    session.cancel()                                # from a key handler, mid-run
    await session.resolve_top("apply", "looks right")  # /apply, /discard between runs

Events are delivered synchronously on the event loop, in order; a listener
must not block or raise (an exception is logged and swallowed).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from xcsh.agent import loop
from xcsh.agent.compaction import compact_history
from xcsh.agent.events import (
    AgentError,
    AgentEvent,
    Notice,
    PendingPushed,
    Resolved,
    RunEnd,
    ToolCallStart,
    TurnEnd,
)
from xcsh.agent.history import repair_tool_pairs
from xcsh.agent.persistence import PendingRecord, SessionRecorder, message_to_dict
from xcsh.agent.previews import RebuiltPreview, compare_rebuilt, preview_digest
from xcsh.agent.prompt import build_system_prompt
from xcsh.agent.steering import (
    DEFAULT_MAX_FORCED_TURNS,
    Steering,
    SteeringMode,
    SteeringStyle,
    current_tool_call,
)
from xcsh.core import (
    AgentTool,
    AgentToolResult,
    Message,
    TextContent,
    ToolCall,
    ToolCallContext,
    ToolError,
    ToolResultMessage,
    UsageError,
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
)
from xcsh.providers import Provider
from xcsh.providers.windows import DEFAULT_CONTEXT_WINDOW, context_window_of

log = logging.getLogger(__name__)

EventListener = Callable[[AgentEvent], None]


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


ApprovalHook = Callable[[PendingAction, str], Awaitable[Approval]]
"""``await hook(action, model_reason)`` before the model's ``resolve`` applies ``action``.

Called on the event loop; it may await user input for as long as it likes
(cancellation of the run cancels it). A declined apply discards the action
(its ``reject`` runs), nothing changes, and the model's ``resolve`` result
says the user declined, with the user's reason. An approval with ``only``
applies just those changes. Exceptions fail the ``resolve`` call and leave
the action pending.
"""

DECLINED_TEXT = (
    "The user declined to apply '{label}'. Reason: {reason}. The preview was discarded "
    "and nothing changed."
)
SKIPPED_ALL_REASON = "the user skipped every change in review"


def approval_resolve_tool(
    store: PendingActionStore, approval: ApprovalHook | None
) -> AgentTool[ResolveParams]:
    """The ``resolve`` tool, asking ``approval`` before each apply (when given).

    The same parameters, name and results as
    :func:`xcsh.pending.create_resolve_tool`; a declined apply becomes a
    discard whose result text is :data:`DECLINED_TEXT` and whose outcome has
    status ``declined``; an approval with ``only`` applies those changes.
    """
    inner = create_resolve_tool(store)
    if approval is None:
        return inner

    async def run(params: ResolveParams, ctx: ToolCallContext) -> AgentToolResult:
        if params.action == "apply":
            top = check_request(store, params)
            decision = await approval(top, params.reason)
            if decision.approved and decision.only is not None and not decision.only:
                decision = Approval(approved=False, reason=SKIPPED_ALL_REASON)
            if not decision.approved:
                why = decision.reason.strip() or "no reason given"
                discarded = await inner.execute(
                    ctx.tool_call_id,
                    {"action": "discard", "reason": f"declined by the user: {why}"},
                    cancel=ctx.cancel,
                )
                outcome = discarded.details
                if isinstance(outcome, ResolveOutcome):
                    outcome = dataclasses.replace(outcome, status="declined")
                text = DECLINED_TEXT.format(label=top.label, reason=why)
                return AgentToolResult(content=[TextContent(text)], details=outcome)
            if decision.only is not None:
                params = params.model_copy(update={"only": list(decision.only)})
        return await inner.execute(
            ctx.tool_call_id, params.model_dump(exclude_none=True), cancel=ctx.cancel
        )

    return AgentTool(
        name=inner.name,
        label=inner.label,
        description=inner.description,
        parameters=ResolveParams,
        run=run,
        hidden=True,
    )


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


class AgentSession:
    """One conversation with a model, its tools and its pending-action store.

    Args:
        provider: the model (any :class:`~xcsh.providers.Provider`).
        tools: the tools to offer, in order; a tool named ``resolve`` is
            replaced by the session's own (bound to ``store``).
        cwd: the working folder (for the system prompt and resume).
        store: the pending-action store the tools push onto; ``None`` for a
            session without previews (then no ``resolve`` and no steering).
        system_prompt: overrides the default built from ``cwd`` and the tools.
        instructions: project and user instructions (``AGENTS.md``) added to
            the default system prompt.
        messages: history to continue from (a resumed session).
        approval: asked before each model ``apply`` (``--approve ask``, the TUI).
        recorder: where the session is saved; ``None`` keeps it in memory.
        session_id: the id shown to the user (default: the recorder's file name).
        max_forced_turns: consecutive forced turns without progress before a
            run stops with ``RunEnd(reason="forced_cap")`` (contract §3).
        thinking: ask for extended reasoning where the provider supports it.
        max_tokens: output cap per request.
        rebuildable_tools: tools whose pending actions :meth:`restore_pending`
            rebuilds by re-running the tool with the recorded arguments.
        steering: ``"forced"`` (default) or ``"soft"``: remind first, force
            only when the model ignores the reminder.
        context_window: the model's context window in tokens (default: the
            known window of ``provider.model``, else 128,000); older turns
            are compacted into a summary before a request would pass 80% of
            it (:mod:`xcsh.agent.compaction`).
        steering_mode: how ``provider`` takes a forced tool choice, when a
            resumed session already learnt it (:class:`SavedSession.steering`).

    Raises:
        ValueError: two tools share a name, or ``max_forced_turns < 1``.
    """

    def __init__(
        self,
        *,
        provider: Provider,
        tools: Iterable[AgentTool[Any]],
        cwd: Path,
        store: PendingActionStore | None,
        system_prompt: str | None = None,
        instructions: str = "",
        messages: Sequence[Message] = (),
        approval: ApprovalHook | None = None,
        recorder: SessionRecorder | None = None,
        session_id: str | None = None,
        max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS,
        thinking: bool = False,
        max_tokens: int | None = None,
        rebuildable_tools: Iterable[str] = ("ast_edit",),
        steering: SteeringStyle = "forced",
        context_window: int | None = None,
        steering_mode: SteeringMode | None = None,
    ) -> None:
        self.provider = provider
        self.cwd = cwd
        self.store = store
        self.recorder = recorder
        self.id = session_id or (recorder.path.stem if recorder else secrets.token_hex(4))
        self.thinking = thinking
        self.max_tokens = max_tokens
        self.rebuildable_tools = frozenset(rebuildable_tools)
        self._window_given = context_window is not None
        self.context_window = (
            context_window or context_window_of(provider.model) or DEFAULT_CONTEXT_WINDOW
        )
        self._tools: dict[str, AgentTool[Any]] = {}
        for tool in tools:
            if tool.name == RESOLVE_TOOL_NAME:
                continue
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name!r}; tool names must be unique")
            self._tools[tool.name] = tool
        if store is not None:
            self._tools[RESOLVE_TOOL_NAME] = approval_resolve_tool(store, approval)
        self.system_prompt = system_prompt or build_system_prompt(
            cwd, self._tools.values(), instructions
        )
        self._steering = Steering(
            store,
            max_forced_turns=max_forced_turns,
            supports_forced_tool_choice=getattr(provider, "supports_forced_tool_choice", True),
            style=steering,
            learn_tool_choice=getattr(provider, "compatible_server", False),
        )
        if steering_mode is not None:
            self._steering.mode = steering_mode
        self._messages: list[Message] = list(messages)
        self._listeners: list[EventListener] = []
        self._calls: dict[str, ToolCall] = {}
        self._origins: dict[int, tuple[PendingAction, str | None]] = {}
        self._unsubscribe_store = store.subscribe_push(self._on_push) if store else None
        self._task: asyncio.Task[RunEnd] | None = None
        self._cancel = asyncio.Event()

    # -- reading -------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """A copy of the history, oldest first (hidden reminders included)."""
        return list(self._messages)

    @property
    def tools(self) -> dict[str, AgentTool[Any]]:
        """The tools offered, by name, in order (``resolve`` last when there is a store)."""
        return dict(self._tools)

    @property
    def running(self) -> bool:
        """True while a run is in progress."""
        return self._task is not None

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener(event)`` for every :data:`~xcsh.agent.events.AgentEvent`.

        Returns:
            A function that unsubscribes; calling it twice is harmless.
        """
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    # -- running -------------------------------------------------------------

    async def prompt(self, text: str) -> RunEnd:
        """Add ``text`` as the user's message and run until the model stops.

        Returns:
            The run's :class:`RunEnd` (also emitted as the last event).

        Raises:
            UsageError: a run is already in progress.
            asyncio.CancelledError: the *caller's* task was cancelled (Ctrl-C under
                ``asyncio.run``); the history is consistent and RunEnd was emitted.
                A :meth:`cancel` returns ``RunEnd(reason="cancelled")`` instead.
        """
        if self._task is not None:
            raise UsageError(
                "a run is already in progress", hint="wait for its RunEnd event or call cancel()"
            )
        self._cancel = asyncio.Event()
        # A resumed or interrupted history: every tool call gets exactly one result
        # before anything is sent (the loop never rewrites the history it is given).
        repaired, changes = repair_tool_pairs(self._messages)
        if changes:
            self._messages[:] = repaired
        start = len(self._messages)
        self._append(UserMessage(content=[TextContent(text)]))
        ctx = loop.LoopContext(
            provider=self.provider,
            tools=self._tools,
            steering=self._steering,
            system_prompt=self.system_prompt,
            history=self._messages,
            append=self._append,
            emit=self._emit,
            cancel=self._cancel,
            thinking=self.thinking,
            max_tokens=self.max_tokens,
            before_request=self._compact_if_due,
        )
        self._task = asyncio.create_task(loop.run(ctx))
        try:
            end = await self._task
        except asyncio.CancelledError:
            end = self._run_end("cancelled", start, "Cancelled.")
            self._emit(end)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return end
        except Exception as exc:
            self._emit(AgentError(message=f"{type(exc).__name__}: {exc}", kind="internal"))
            self._emit(self._run_end("error", start, str(exc)))
            raise
        finally:
            self._task = None
        self._emit(end)
        return end

    async def compact(self) -> bool:
        """Compact the history now (``/compact``): all but the newest turn become a summary.

        Pending previews keep their tool call and result. Emits a
        :class:`~xcsh.agent.events.Notice` either way.

        Returns:
            True when the history was compacted; False when there was nothing
            older to summarise or the summary request failed.

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot compact while the model is running", hint="wait for it")
        return await self._compact(on_demand=True) > 0

    async def _compact_if_due(self) -> int:
        return await self._compact(on_demand=False)

    async def _compact(self, *, on_demand: bool) -> int:
        """Replace older turns by a summary; returns how many messages went away."""
        live = {id(a) for a in self.store.snapshot()} if self.store else set()
        outcome = await compact_history(
            self.provider,
            system=self.system_prompt,
            messages=self._messages,
            tools=[loop.tool_spec(t) for t in self._tools.values()],
            pending_calls={c for key, (_, c) in self._origins.items() if key in live and c},
            window=self.context_window,
            on_demand=on_demand,
            cancel=self._cancel,
        )
        before = len(self._messages)
        if outcome.history is not None:
            self._messages[:] = outcome.history
            if self.recorder is not None:
                self.recorder.write(
                    {
                        "type": "compaction",
                        "summary": outcome.summary,
                        "messages": [message_to_dict(m) for m in outcome.history],
                    }
                )
        if outcome.notice:
            self._emit(Notice(kind="compaction", message=outcome.notice))
        return before - len(self._messages)

    def set_provider(self, provider: Provider) -> None:
        """Use ``provider`` (another model, or another API) from the next request on.

        The history stays; steering starts afresh for the new provider (how it
        takes a forced tool choice is learnt again); the context window
        becomes the new model's unless one was given. Emits a ``Notice`` and
        records the switch in the session file.

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot switch models while the model is running")
        self.provider = provider
        self._steering.adapt_to(
            supports_forced_tool_choice=getattr(provider, "supports_forced_tool_choice", True),
            learn_tool_choice=getattr(provider, "compatible_server", False),
        )
        if not self._window_given:
            self.context_window = context_window_of(provider.model) or DEFAULT_CONTEXT_WINDOW
        if self.recorder is not None:
            self.recorder.write(
                {"type": "model", "provider": provider.name, "model": provider.model}
            )
        self._emit(Notice(kind="model", message=f"Now using {provider.name}: {provider.model}."))

    def cancel(self) -> None:
        """Cancel the current run, if any (call it on the event loop's thread).

        Tool calls in flight are cancelled and get a cancelled result; the run
        ends with ``RunEnd(reason="cancelled")``. Pending actions stay pending.
        """
        self._cancel.set()
        if self._task is not None:
            self._task.cancel()

    async def resolve_top(
        self,
        action: Literal["apply", "discard"],
        reason: str,
        *,
        only: Sequence[str] | None = None,
    ) -> ToolResultMessage:
        """Apply or discard the top pending action on the user's behalf (``/apply``).

        Runs the same ``resolve`` tool the model uses (without the approval
        hook: the user is the approver), emits :class:`Resolved` (and
        :class:`PendingPushed` for a preview rebuilt because its files
        changed), and adds a hidden user message with the outcome so the model
        sees it next turn.

        Args:
            action: ``"apply"`` or ``"discard"``.
            reason: why (not blank).
            only: with ``"apply"``, the change ids or files to apply (``/review``).

        Returns:
            The resolve result (``is_error`` with the exact text when nothing
            is pending, or when the apply failed and the action is pending again).

        Raises:
            UsageError: a run is in progress, or the session has no store.
        """
        if self._task is not None:
            raise UsageError(
                "cannot resolve while the model is running", hint="cancel the run first"
            )
        if self.store is None:
            raise UsageError("this session has no pending actions to resolve")
        call_id = f"user_{secrets.token_hex(4)}"
        tool = create_resolve_tool(self.store)
        arguments: dict[str, Any] = {"action": action, "reason": reason}
        if only is not None:
            arguments["only"] = list(only)
        token = current_tool_call.set(call_id)
        try:
            out = await tool.execute(call_id, arguments)
            result = ToolResultMessage(
                tool_call_id=call_id,
                tool_name=RESOLVE_TOOL_NAME,
                content=list(out.content),
                details=out.details,
                is_error=out.is_error,
            )
        except ToolError as exc:
            return ToolResultMessage(
                tool_call_id=call_id,
                tool_name=RESOLVE_TOOL_NAME,
                content=[TextContent(str(exc))],
                is_error=True,
            )
        finally:
            current_tool_call.reset(token)
        text = cap_text("\n".join(b.text for b in result.content if isinstance(b, TextContent)))
        note = f"The user resolved the top pending preview themselves ({action}): {text}"
        self._append(UserMessage(content=[TextContent(note)], hidden=True))
        loop.emit_pushes(self._emit, self._steering, result)
        event = loop.resolved_event(result, self.store.count)
        if event is not None:
            self._emit(event)
        self._record_pending()
        return result

    async def restore_pending(self, records: Sequence[PendingRecord]) -> ResumeReport:
        """Rebuild a resumed session's pending actions (bottom of the stack first).

        An action whose tool is in ``rebuildable_tools`` (``ast_edit``) is
        re-previewed by running the tool again with the recorded arguments,
        against the files as they are now; any other is dropped. The model
        is told both in a hidden user message.
        """
        report = ResumeReport()
        texts: list[str] = []
        for number, record in enumerate(records, start=1):
            tool = self._tools.get(record.tool_name or "")
            if (
                tool is None
                or record.tool_name not in self.rebuildable_tools
                or record.arguments is None
                or self.store is None
            ):
                report.dropped.append(
                    f"{record.label} (it cannot be rebuilt from its tool's arguments)"
                )
                continue
            call = ToolCall(id=f"resume_{number}", name=tool.name, arguments=record.arguments)
            self._calls[call.id] = call
            before = self.store.count
            token = current_tool_call.set(call.id)
            try:
                out = await tool.execute(call.id, call.arguments)
            except ToolError as exc:
                report.dropped.append(f"{record.label} (re-preview failed: {exc})")
                continue
            finally:
                current_tool_call.reset(token)
            result = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=tool.name,
                content=list(out.content),
                details=out.details,
            )
            loop.emit_pushes(self._emit, self._steering, result)
            top = self.store.peek() if self.store.count > before else None
            if top is not None:
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
            else:
                report.dropped.append(f"{record.label} (the re-preview found nothing to change)")
        if report.repreviewed or report.dropped:
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
            self._append(UserMessage(content=[TextContent("\n".join(lines))], hidden=True))
        self._record_pending()
        return report

    def close(self) -> None:
        """Stop listening to the store and close the session file (the session is done)."""
        self._steering.close()
        if self.recorder is not None:
            self.recorder.close()
        if self._unsubscribe_store is not None:
            self._unsubscribe_store()
            self._unsubscribe_store = None

    # -- internals -----------------------------------------------------------

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        if self.recorder is not None:
            self.recorder.message(message)

    def _on_push(self, action: PendingAction, count: int) -> None:
        origin = current_tool_call.get()
        if action.preview.rebuilt_from:  # rebuilt by a resolve: it comes from the same call
            for old, call_id in list(self._origins.values()):
                if old.id == action.preview.rebuilt_from:
                    origin = call_id
                    break
        self._origins[id(action)] = (action, origin)

    def _emit(self, event: AgentEvent) -> None:
        self._record(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("an event listener raised on %s", type(event).__name__)

    def _record(self, event: AgentEvent) -> None:
        if isinstance(event, ToolCallStart):
            self._calls[event.id] = ToolCall(
                id=event.id, name=event.name, arguments=event.arguments
            )
        if self.recorder is None:
            return
        if isinstance(event, PendingPushed):
            call = self._calls.get(event.tool_call_id or "")
            self.recorder.write(
                {
                    "type": "pending_pushed",
                    "tool_call_id": event.tool_call_id,
                    "tool_name": call.name if call else None,
                    "arguments": call.arguments if call else None,
                    "label": event.label,
                    "source_tool_name": event.source_tool_name,
                }
            )
        elif isinstance(event, Resolved):
            self.recorder.write(
                {
                    "type": "resolved",
                    "tool_call_id": event.tool_call_id,
                    "action": event.action,
                    "reason": event.reason,
                    "label": event.label,
                    "is_error": event.is_error,
                }
            )
        elif isinstance(event, TurnEnd):
            self._record_pending()
            self._forget_resolved()
        elif isinstance(event, Notice):
            self.recorder.write({"type": "notice", "kind": event.kind, "message": event.message})
            if event.kind == "steering":
                self.recorder.write(
                    {
                        "type": "steering",
                        "provider": self.provider.name,
                        "model": self.provider.model,
                        "mode": self._steering.mode,
                    }
                )
        elif isinstance(event, RunEnd):
            self.recorder.write(
                {"type": "run_end", "reason": event.reason, "message": event.message}
            )
            self._record_pending()

    def pending_records(self) -> list[PendingRecord]:
        """The store as it would be saved: bottom first, with each action's origin call."""
        if self.store is None:
            return []
        records = []
        for action in reversed(self.store.snapshot()):
            origin = self._origins.get(id(action))
            call = self._calls.get(origin[1] or "") if origin else None
            records.append(
                PendingRecord(
                    tool_name=call.name if call else None,
                    arguments=call.arguments if call else None,
                    label=action.label,
                    source_tool_name=action.source_tool_name,
                    files=action.preview.file_labels(),
                    digest=preview_digest(action.preview),
                )
            )
        return records

    def _forget_resolved(self) -> None:
        """Keep origins and calls only for actions still pending (bounded memory)."""
        live = {id(a) for a in self.store.snapshot()} if self.store else set()
        self._origins = {k: v for k, v in self._origins.items() if k in live}
        keep = {call_id for _, call_id in self._origins.values()}
        self._calls = {k: v for k, v in self._calls.items() if k in keep}

    def _record_pending(self) -> None:
        if self.recorder is not None:
            self.recorder.pending(self.pending_records())

    def _run_end(self, reason: Literal["cancelled", "error"], start: int, message: str) -> RunEnd:
        return RunEnd(
            reason=reason,
            final_text=loop.final_text(self._messages, start),
            message=message,
            pending=self.store.count if self.store else 0,
        )
