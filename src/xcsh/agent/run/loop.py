"""The agent loop: ``run → turn → query → execute`` (contract §3).

``run`` sends requests until the model answers without tool calls, the
forced-turn cap trips, or the provider fails. Each turn builds the request
(steering decides the tool choice from the store's state), streams the
model's answer, then executes its tool calls and appends their results in
call order. The loop keeps no state of its own beyond one run: the history,
the store and the steering counters live in the :class:`LoopContext` the
session hands it. Cancellation is ordinary asyncio task cancellation; on the
way out every tool call of the interrupted batch gets exactly one result
(contract case R3).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xcsh.agent.run.compact_notes import compact_noted, quoted_request, request_reminder
from xcsh.agent.run.events import (
    AgentError,
    AgentEvent,
    Notice,
    PendingPushed,
    Resolved,
    RunEnd,
    RunEndReason,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolProgress,
    ToolResult,
    TurnEnd,
    TurnStart,
)
from xcsh.agent.run.history import cancelled_result
from xcsh.agent.run.profile import COMPACT_RESULT_CHARS, compact_spec, with_applied_note
from xcsh.agent.run.steering import Steering
from xcsh.core import (
    MAX_RESULT_CHARS,
    AgentToolResult,
    AssistantMessage,
    Message,
    ModelRequest,
    Progress,
    ProviderError,
    TextContent,
    Tool,
    ToolCall,
    ToolError,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
    cap_content,
)
from xcsh.core.wording import plural
from xcsh.pending import RESOLVE_TOOL_NAME, resolve_outcome
from xcsh.providers import Provider, ResponseDone, TextChunk, ThinkingChunk


@dataclass(kw_only=True)
class LoopContext:
    """Everything one run needs; the session owns it.

    Args:
        provider: the model.
        tools: tools offered, by name, in the order the model sees them.
        steering: the session's steering state (store, reminders, cap).
        system_prompt: sent with every request.
        preamble: text sent as a user message before the history, on every
            request (``""``: none); a server's template joins it to the first user
            message.
        history: reads the conversation as it is now. The loop never changes
            it but through ``append``; the session may replace it between
            requests (compaction), so it is read afresh each time.
        append: adds a message to the history (the session also records it).
        emit: delivers an event to subscribers; must not raise.
        cancel: set when the user cancels; passed to the provider and tools.
        thinking: ask for extended reasoning (adapters switch it off when forced).
        max_tokens: output cap per request, or ``None``.
        before_request: awaited before each request; may shorten the history
            (compaction) and returns how many messages it removed.
        compact: the compact profile (:mod:`xcsh.agent.run.profile`): trimmed tool
            schemas, and a note after a read-only call that repeats the one before.
        refresh: awaited before each request; the tools (and prompt) to offer when
            they changed since, else ``None``.
    """

    provider: Provider
    tools: Mapping[str, Tool]
    steering: Steering
    system_prompt: str
    history: Callable[[], Sequence[Message]]
    append: Callable[[Message], None]
    emit: Callable[[AgentEvent], None]
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    thinking: bool = False
    max_tokens: int | None = None
    before_request: Callable[[], Awaitable[int]] | None = None
    compact: bool = False
    preamble: str = ""
    refresh: Callable[[], Awaitable[Refreshed | None]] | None = None


@dataclass(frozen=True, kw_only=True)
class Refreshed:
    """The session's tools changed between turns (an MCP server's list changed or it stopped).

    Args:
        tools: the tools offered from the next request on.
        system_prompt: the system prompt that goes with them.
        preamble: the text sent before the history that goes with them (see
            :attr:`LoopContext.preamble`).
    """

    tools: Mapping[str, Tool]
    system_prompt: str
    preamble: str = ""


async def run(ctx: LoopContext) -> RunEnd:
    """Run turns until the model stops; returns the (not yet emitted) :class:`RunEnd`.

    Raises:
        asyncio.CancelledError: the run was cancelled; the history is consistent.
    """
    ctx.steering.start_run()
    start = len(ctx.history())
    specs = _specs(ctx)
    turn = 0
    while True:
        turn += 1
        if ctx.refresh is not None:
            fresh = await ctx.refresh()
            if fresh is not None:
                ctx.tools, ctx.system_prompt = fresh.tools, fresh.system_prompt
                ctx.preamble = fresh.preamble
                specs = _specs(ctx)
        if ctx.before_request is not None:
            start = max(0, start - await ctx.before_request())
        forced = ctx.steering.forced()
        try:
            message = await query(ctx, turn, forced, specs)
        except ProviderError as exc:
            notice = ctx.steering.fall_back(exc, ctx.provider.name)
            if notice is None:
                ctx.emit(AgentError(message=str(exc), kind="provider"))
                return _end(ctx, "error", start, str(exc))
            ctx.emit(Notice(kind="steering", message=notice))
            turn -= 1  # the same turn again, steered by reminder
            continue
        notice = ctx.steering.check_answer(message, ctx.provider.name)
        if notice is not None:
            ctx.emit(Notice(kind="steering", message=notice))
        _notice_text_calls(ctx, message)
        results = await execute(ctx, message.tool_calls, turn_began_pending=forced)
        ctx.emit(TurnEnd(turn=turn, message=message, results=results))
        reminder = request_reminder(ctx.history()) if ctx.steering.bars_resolve else None
        if reminder is not None:  # the turn after a premature resolve: what was asked
            ctx.append(reminder)
        progressed = any(_resolved_something(r) for r in results)
        failures = [_text(r) for r in results if r.tool_name == RESOLVE_TOOL_NAME and r.is_error]
        if ctx.steering.end_turn(forced=forced, progressed=progressed, failures=failures):
            return _end(ctx, "forced_cap", start, ctx.steering.cap_message())
        if not message.tool_calls:
            if not forced:
                return _end(ctx, "stop", start, "")
            ctx.steering.remind()  # forced, yet the model called nothing: ask again


def _specs(ctx: LoopContext) -> list[ToolSpec]:
    """The tools as offered to the model (trimmed in the compact profile)."""
    specs = [tool_spec(t) for t in ctx.tools.values()]
    return [compact_spec(s) for s in specs] if ctx.compact else specs


async def query(
    ctx: LoopContext, turn: int, forced: bool, specs: list[ToolSpec]
) -> AssistantMessage:
    """One model request: reminders, tool choice from the store, then stream the answer.

    Raises:
        ProviderError: the provider failed, or answered with an error.
    """
    quote = quoted_request(ctx.history()) if ctx.compact else ""
    for reminder in ctx.steering.take_reminders(quote):
        ctx.append(reminder)
    plan = ctx.steering.next_request()
    messages = list(ctx.history())
    if ctx.preamble:
        messages.insert(0, UserMessage(content=[TextContent(ctx.preamble)]))
    request = ModelRequest(
        system=ctx.system_prompt,
        messages=messages,
        tools=plan.offered(specs),
        tool_choice=plan.tool_choice,
        not_chosen=plan.not_chosen,
        thinking=ctx.thinking,
        max_tokens=ctx.max_tokens,
    )
    store = ctx.steering.store
    ctx.emit(TurnStart(turn=turn, forced=forced, pending=store.count if store else 0))
    partial: list[str] = []
    message: AssistantMessage | None = None
    try:
        async for event in ctx.provider.stream(request, cancel=ctx.cancel):
            if isinstance(event, TextChunk):
                partial.append(event.text)
                ctx.emit(TextDelta(text=event.text))
            elif isinstance(event, ThinkingChunk):
                ctx.emit(ThinkingDelta(text=event.text))
            elif isinstance(event, ResponseDone):
                message = event.message
    except asyncio.CancelledError:
        if "".join(partial):  # keep what the user already saw
            ctx.append(
                AssistantMessage(content=[TextContent("".join(partial))], stop_reason="aborted")
            )
        raise
    if message is None:
        raise ProviderError(f"{ctx.provider.name}: the response stream ended without a message")
    if message.stop_reason == "error":
        raise ProviderError(
            f"{ctx.provider.name}: {message.error or 'the model returned an error'}"
        )
    ctx.append(message)
    return message


async def execute(
    ctx: LoopContext, calls: list[ToolCall], *, turn_began_pending: bool
) -> list[ToolResultMessage]:
    """Execute one batch; results are appended to the history in call order.

    Consecutive read-only calls run concurrently; any other call runs alone,
    in call order, so pushes happen in the order the model asked for them
    and the LIFO order of ``resolve`` is the model's order. If the batch is
    cancelled, finished calls keep their results and the others get a
    cancelled ``is_error`` result before the cancellation propagates.
    """
    results: list[ToolResultMessage | None] = [None] * len(calls)

    async def one(index: int) -> None:
        call = calls[index]
        ctx.emit(ToolCallStart(id=call.id, name=call.name, arguments=call.arguments))
        limit = COMPACT_RESULT_CHARS if ctx.compact else MAX_RESULT_CHARS
        result = _capped(await _call_tool(ctx, call, turn_began_pending), limit)
        result = with_applied_note(result, ctx.steering.store)
        if ctx.compact:
            result = compact_noted(call, result, ctx.tools, ctx.history(), ctx.steering)
        results[index] = result
        emit_pushes(ctx.emit, ctx.steering, result)
        store = ctx.steering.store
        resolved = resolved_event(result, store.count if store else 0)
        ctx.emit(ToolResult(message=result, text=_text(result), resolved=resolved is not None))
        if resolved is not None:
            ctx.emit(resolved)

    try:
        for group in _groups(ctx, calls, turn_began_pending):
            await asyncio.gather(*(asyncio.create_task(one(i)) for i in group))
    finally:
        final = [
            r if r is not None else cancelled_result(c) for r, c in zip(results, calls, strict=True)
        ]
        for index, result in enumerate(final):
            if results[index] is None:
                ctx.emit(ToolResult(message=result, text=_text(result)))
            ctx.append(result)
    return final


async def _call_tool(
    ctx: LoopContext, call: ToolCall, turn_began_pending: bool
) -> ToolResultMessage:
    def result(text: str, *, details: object = None, is_error: bool = True) -> ToolResultMessage:
        return ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(text)],
            details=details,
            is_error=is_error,
        )

    refusal = ctx.steering.gate(call.name, turn_began_pending=turn_began_pending)
    if refusal is not None:
        return result(refusal, details={"gated": True})
    tool = ctx.tools.get(call.name)
    if tool is None:
        names = ", ".join(ctx.tools) or "none"
        return result(f"Unknown tool '{call.name}'. Available tools: {names}.")
    if call.invalid_arguments is not None:
        return result(invalid_arguments_text(call), details={"invalid_arguments": True})

    def progress(update: AgentToolResult) -> None:
        if isinstance(update.details, Progress):  # a report of how far, not partial output
            ctx.emit(ToolProgress(tool_call_id=call.id, name=call.name, text=update.details.text))

    try:
        outcome = await tool.execute(call.id, call.arguments, cancel=ctx.cancel, on_update=progress)
    except ToolError as exc:
        return result(str(exc), details=exc.details)
    except Exception as exc:  # a tool bug must not kill the session
        return result(f"Tool '{call.name}' failed unexpectedly: {type(exc).__name__}: {exc}")
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=list(outcome.content),
        details=outcome.details,
        is_error=outcome.is_error,
    )


INVALID_ARGUMENTS_SHOWN = 2000
"""At most this many characters of malformed arguments are quoted back to the model."""


def invalid_arguments_text(call: ToolCall) -> str:
    """Word the error result for a call whose arguments could not be read (it is not run).

    Such arguments are not a JSON object, or put parameters beside ``arguments``
    instead of inside it. At most :data:`INVALID_ARGUMENTS_SHOWN` characters of them
    are quoted back.
    """
    raw = call.invalid_arguments or ""
    if len(raw) > INVALID_ARGUMENTS_SHOWN:
        raw = raw[:INVALID_ARGUMENTS_SHOWN] + f"... ({plural(len(raw), 'character')} in all)"
    why = call.arguments_error or "not a JSON object"
    return (
        f"Not executed: the arguments for '{call.name}' could not be read ({why}). "
        f"You sent:\n{raw}\nCall '{call.name}' again with its arguments as one complete "
        "JSON object."
    )


def _capped(result: ToolResultMessage, limit: int = MAX_RESULT_CHARS) -> ToolResultMessage:
    """Cut each text block of a result to ``limit`` characters.

    Head and tail are kept. Applies whatever tool made the result: built-in tools bound
    their own output, custom and MCP tools may not. The compact profile passes
    :data:`~xcsh.agent.run.profile.COMPACT_RESULT_CHARS`.
    """
    content = cap_content(result.content, limit)
    return result if content is result.content else dataclasses.replace(result, content=content)


def _groups(ctx: LoopContext, calls: list[ToolCall], gated: bool) -> list[list[int]]:
    """Split a batch: runs of read-only (or refused) calls together, every other call alone."""
    groups: list[list[int]] = []
    previous_parallel = False
    for index, call in enumerate(calls):
        tool = ctx.tools.get(call.name)
        refused = tool is None or (gated and call.name != RESOLVE_TOOL_NAME)
        parallel = refused or (tool is not None and tool.read_only)
        if parallel and previous_parallel:
            groups[-1].append(index)
        else:
            groups.append([index])
        previous_parallel = parallel
    return groups


def emit_pushes(
    emit: Callable[[AgentEvent], None], steering: Steering, result: ToolResultMessage
) -> None:
    """Emit :class:`PendingPushed` for the pushes seen since the last call.

    A preview without a diff is shown by the text of ``result`` when the push
    came from that call.
    """
    for push in steering.take_pushes():
        preview = push.action.preview
        own = push.tool_call_id == result.tool_call_id
        emit(
            PendingPushed(
                tool_call_id=push.tool_call_id,
                label=push.action.label,
                source_tool_name=push.action.source_tool_name,
                count=push.count,
                value=preview,
                result_text="" if preview.diff or not own else _text(result),
            )
        )


def resolved_event(result: ToolResultMessage, pending: int) -> Resolved | None:
    """The :class:`Resolved` event for a ``resolve`` result that resolved something."""
    outcome = resolve_outcome(result.tool_name, result.details)
    if outcome is None:
        return None
    return Resolved(
        tool_call_id=result.tool_call_id,
        is_error=result.is_error,
        text=_text(result),
        pending=pending,
        outcome=outcome,
    )


def _notice_text_calls(ctx: LoopContext, message: AssistantMessage) -> None:
    for call in message.tool_calls:
        if call.from_text:
            outcome = (
                "it was run as a tool call."
                if call.invalid_arguments is None
                else f"it was not run ({call.arguments_error}); the model is told why."
            )
            ctx.emit(
                Notice(
                    kind="text_tool_call",
                    message=(
                        f"{ctx.provider.name}: the model wrote a call of '{call.name}' as "
                        f"text; {outcome}"
                    ),
                )
            )


def _resolved_something(result: ToolResultMessage) -> bool:
    """The stack changed: applied, discarded, or rebuilt (a failed apply puts it back)."""
    outcome = resolve_outcome(result.tool_name, result.details)
    return outcome is not None and outcome.status != "failed"


def tool_spec(tool: Tool) -> ToolSpec:
    """The tool as offered to a model: name, description, parameter schema."""
    return ToolSpec(name=tool.name, description=tool.description, parameters=tool.json_schema())


def _text(result: ToolResultMessage) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent) and b.text)


def final_text(history: Sequence[Message], start: int) -> str:
    """The answer of a run: the last non-empty assistant text from ``start`` on."""
    for message in reversed(history[start:]):
        if isinstance(message, AssistantMessage) and message.text:
            return message.text
    return ""


def _end(ctx: LoopContext, reason: RunEndReason, start: int, message: str) -> RunEnd:
    store = ctx.steering.store
    return RunEnd(
        reason=reason,
        final_text=final_text(ctx.history(), start),
        message=message,
        pending=store.count if store else 0,
    )
