"""Long sessions: replace older turns by a summary the model writes.

Before a request whose history would pass :data:`COMPACT_AT` of the model's
context window, the session compacts: the history is split into

- the *older* part, which the model summarises (one request with the same
  tools and tool choice ``"none"``, ending with :data:`SUMMARY_REQUEST`);
- every *pending* block: the assistant message whose call pushed a preview
  that is still pending, with all of that message's tool results (a call is
  never separated from its result);
- the *recent* part: the newest messages, about :data:`KEEP_RECENT` of the
  window, starting at a message that is not a tool result.

The new history is one hidden user message holding the summary, then the
pending blocks and the recent part in their original order. The system
prompt is not part of the history and is always kept.

Token counts are estimates: the last answer's reported usage when the
provider gives one, plus about four characters per token for what came
after it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from xcsh.core import (
    AssistantMessage,
    Message,
    ModelRequest,
    ProviderError,
    TextContent,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from xcsh.providers import Provider, ResponseDone

COMPACT_AT = 0.8
"""Compact when a request would use more than this share of the context window."""

KEEP_RECENT = 0.25
"""The newest messages kept as they are: about this share of the window."""

MIN_GAIN = 0.1
"""Automatic compaction is skipped when the older part is under this share of
the window (a huge recent message or many pending previews fill it: a summary
would free almost nothing, before every request)."""

SUMMARY_REQUEST = (
    "The conversation above is getting too long for the context window. Write a summary "
    "that lets you continue the work without it: the user's requests and constraints, what "
    "was done and found (files, functions, commands, results), decisions made, pending "
    "previews and what is left to do. Be specific and concise. Answer with the summary only."
)
"""The user message that ends the summary request."""

SUMMARY_HEADER = "Summary of the earlier conversation (older turns were compacted):"
"""Opens the hidden user message that replaces the older turns."""


@dataclass(frozen=True, kw_only=True)
class CompactionPlan:
    """How a history splits (see the module docstring).

    Args:
        older: the messages to summarise, in order.
        kept: the messages kept as they are (pending blocks, then the recent
            part), in their original order.
    """

    older: list[Message]
    kept: list[Message]


def message_chars(message: Message) -> int:
    """Characters of a message as a model reads it (text, reasoning, call arguments)."""
    size = 16
    for block in message.content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            size += len(text)
        thinking = getattr(block, "thinking", None)
        if isinstance(thinking, str):
            size += len(thinking)
        arguments = getattr(block, "arguments", None)
        if isinstance(arguments, dict):
            size += len(json.dumps(arguments)) + len(getattr(block, "name", ""))
        if getattr(block, "type", "") == "image":
            size += 4000  # an image costs about a thousand tokens
    return size


def estimate_tokens(system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
    """Tokens a request would take, about (see the module docstring)."""
    base_index = -1
    base = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage):
            usage = message.usage
            counted = (
                usage.input_tokens
                + usage.cache_read_tokens
                + usage.cache_write_tokens
                + usage.output_tokens
            )
            if counted:
                base_index, base = index, counted
                break
    if base_index < 0:
        chars = len(system) + sum(len(json.dumps(t.parameters)) + len(t.description) for t in tools)
        chars += sum(message_chars(m) for m in messages)
        return chars // 4
    return base + sum(message_chars(m) for m in messages[base_index + 1 :]) // 4


def plan_compaction(
    messages: Sequence[Message], *, pending_calls: Collection[str], keep_tokens: int
) -> CompactionPlan | None:
    """Split ``messages`` for compaction, or ``None`` when nothing older can go.

    Args:
        messages: the history (calls paired with their results).
        pending_calls: ids of the tool calls whose previews are still pending.
        keep_tokens: about how many tokens of the newest messages to keep.
    """
    cut = len(messages)
    used = 0
    while cut > 0:
        size = message_chars(messages[cut - 1]) // 4
        if used + size > keep_tokens and cut < len(messages):
            break
        used += size
        cut -= 1
    while 0 < cut < len(messages) and isinstance(messages[cut], ToolResultMessage):
        cut -= 1  # a result stays with the call before it
    if cut <= 0:
        return None
    older: list[Message] = []
    pending: list[Message] = []
    index = 0
    while index < cut:
        message = messages[index]
        block = [message]
        index += 1
        if isinstance(message, AssistantMessage) and message.tool_calls:
            while index < len(messages) and isinstance(messages[index], ToolResultMessage):
                block.append(messages[index])
                index += 1
            if any(c.id in pending_calls for c in message.tool_calls):
                pending.extend(block)
                continue
        older.extend(block)
    if not older:
        return None
    return CompactionPlan(older=older, kept=[*pending, *messages[index:]])


def summary_message(summary: str) -> UserMessage:
    """The hidden user message that replaces the older turns."""
    return UserMessage(content=[TextContent(f"{SUMMARY_HEADER}\n\n{summary.strip()}")], hidden=True)


async def summarize(
    provider: Provider,
    *,
    system: str,
    older: list[Message],
    tools: list[ToolSpec],
    cancel: asyncio.Event | None = None,
) -> str:
    """Ask the model for a summary of ``older``.

    Raises:
        ProviderError: the request failed, or the answer had no text.
    """
    request = ModelRequest(
        system=system,
        messages=[*older, UserMessage(content=[TextContent(SUMMARY_REQUEST)], hidden=True)],
        tools=tools,
        tool_choice="none",
    )
    message: AssistantMessage | None = None
    async for event in provider.stream(request, cancel=cancel):
        if isinstance(event, ResponseDone):
            message = event.message
    if message is None or message.stop_reason in ("error", "aborted") or not message.text.strip():
        why = message.error if message is not None and message.error else "no summary text"
        raise ProviderError(f"{provider.name}: compaction failed: {why}")
    return message.text


@dataclass(frozen=True, kw_only=True)
class CompactionOutcome:
    """What :func:`compact_history` did.

    Args:
        history: the new history, or ``None`` when nothing changed.
        summary: the model's summary ("" when nothing changed).
        notice: a sentence for the user, or "" (an automatic compaction that
            is not due, or would free too little, says nothing).
    """

    history: list[Message] | None = None
    summary: str = ""
    notice: str = ""


async def compact_history(
    provider: Provider,
    *,
    system: str,
    messages: Sequence[Message],
    tools: list[ToolSpec],
    pending_calls: Collection[str],
    window: int,
    on_demand: bool,
    cancel: asyncio.Event | None = None,
) -> CompactionOutcome:
    """Compact ``messages`` when due (past :data:`COMPACT_AT` of ``window``), or now.

    ``on_demand`` (``/compact``) keeps only the newest message block and
    always says what happened; otherwise compaction runs only when the
    request would pass the threshold, keeps about :data:`KEEP_RECENT` of the
    window, and is skipped quietly when it would free less than
    :data:`MIN_GAIN` of it. A failed summary request changes nothing and is
    told in the notice.
    """
    if not on_demand and estimate_tokens(system, messages, tools) <= window * COMPACT_AT:
        return CompactionOutcome()
    keep = 0 if on_demand else int(window * KEEP_RECENT)
    plan = plan_compaction(messages, pending_calls=pending_calls, keep_tokens=keep)
    if plan is None:
        return CompactionOutcome(notice="Nothing older to compact yet." if on_demand else "")
    if not on_demand and sum(message_chars(m) for m in plan.older) // 4 < window * MIN_GAIN:
        return CompactionOutcome()
    try:
        summary = await summarize(
            provider, system=system, older=plan.older, tools=tools, cancel=cancel
        )
    except ProviderError as exc:
        return CompactionOutcome(notice=f"Could not compact: {exc}")
    return CompactionOutcome(
        history=[summary_message(summary), *plan.kept],
        summary=summary,
        notice=(
            f"Compacted {len(plan.older)} older messages into a summary to stay within "
            f"the {window:,}-token context window; {len(plan.kept)} recent or pending "
            "messages kept as they were."
        ),
    )
