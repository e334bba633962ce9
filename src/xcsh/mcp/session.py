"""One MCP client's view of xcsh: its own pending-action store and tool instances.

Every MCP session (a stdio process, or one ``Mcp-Session-Id`` over HTTP) gets
an :class:`McpSession`. Nothing is shared between sessions, so one client can
never apply or discard another client's preview.

MCP has no way to force a client's next tool choice (SPEC §3 forces
``resolve`` inside xcsh's own loop), so the session steers in two other ways:

- while actions are pending, every tool result ends with
  :func:`pending_notice` naming how many wait and that ``resolve`` must be
  called;
- once ``max_pending`` actions wait, calls to tools that may push more
  (anything neither read-only nor ``resolve``) are refused with
  :func:`max_pending_message`.

When the client goes away, :meth:`McpSession.close` discards every pending
action, running each ``reject(reason)``; nothing is ever applied on disconnect.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolError, cap_result
from xcsh.pending import RESOLVE_TOOL_NAME, PendingActionStore, call_maybe_async

logger = logging.getLogger(__name__)

DEFAULT_MAX_PENDING = 8
"""How many previews may wait for ``resolve`` before preview-producing calls are refused."""

DISCONNECT_REASON = "The MCP client disconnected before resolving this preview."
"""The ``reason`` handed to ``reject`` when the client ends its session with actions pending."""

STOP_REASON = "The xcsh MCP server stopped before this preview was resolved."
"""The ``reason`` handed to ``reject`` when the server stops with actions pending."""

IDLE_REASON = "The MCP session was idle too long and was closed before this preview was resolved."
"""The ``reason`` handed to ``reject`` when an idle HTTP session is closed."""

McpToolsFactory = Callable[[PendingActionStore], Sequence[AgentTool[Any]]]
"""Builds one session's tools around that session's store. Called once per session."""


def pending_notice(count: int) -> str:
    """The steering line appended to every result while ``count`` actions are pending.

    It speaks only of the actions still waiting, so it stays true right after
    a ``resolve`` that applied another one.

    Args:
        count: pending actions in the session's store, at least 1.

    Returns:
        For example ``Pending: 1 action waits for resolve and has not been applied:
        call the `resolve` tool with action "apply" or "discard" (and a reason)
        before anything else.``
    """
    waiting = (
        "1 action waits for resolve and has not been applied"
        if count == 1
        else f"{count} actions wait for resolve and none of them has been applied"
    )
    return (
        f"Pending: {waiting}: call the `resolve` tool with action "
        '"apply" or "discard" (and a reason) before anything else.'
    )


def max_pending_message(tool_name: str, count: int, limit: int) -> str:
    """The error text of a preview-producing call refused at the stack limit.

    Args:
        tool_name: the refused tool.
        count: pending actions now.
        limit: the session's ``max_pending``.
    """
    waiting = f"{count} pending action waits" if count == 1 else f"{count} pending actions wait"
    return (
        f"Refused: '{tool_name}' was not run because {waiting} for resolve (this server "
        f'allows {limit}). Call the `resolve` tool with action "apply" or "discard" first, '
        "then retry."
    )


@dataclass
class McpSession:
    """The tools and pending actions of one MCP client.

    Args:
        tools: the session's tools, in the order clients list them; names must be unique.
        store: the session's pending-action store (the tools push onto it).
        max_pending: the depth at which preview-producing calls are refused (at least 1).

    Raises:
        ValueError: duplicate tool names or ``max_pending < 1``.
    """

    tools: Sequence[AgentTool[Any]]
    store: PendingActionStore
    max_pending: int = DEFAULT_MAX_PENDING
    _by_name: dict[str, AgentTool[Any]] = field(init=False, repr=False)
    _lock: asyncio.Lock = field(init=False, repr=False)
    _closed: bool = field(init=False, default=False, repr=False)
    _calls: int = field(init=False, default=0, repr=False)

    def __post_init__(self) -> None:
        if self.max_pending < 1:
            raise ValueError(f"max_pending must be at least 1, got {self.max_pending}")
        self._by_name = {}
        for tool in self.tools:
            if tool.name in self._by_name:
                raise ValueError(f"two tools are named {tool.name!r}; tool names must be unique")
            self._by_name[tool.name] = tool
        self._lock = asyncio.Lock()

    @classmethod
    def create(
        cls, factory: McpToolsFactory, *, max_pending: int = DEFAULT_MAX_PENDING
    ) -> McpSession:
        """A new session with a fresh store and the tools ``factory`` builds around it."""
        store = PendingActionStore()
        return cls(tools=list(factory(store)), store=store, max_pending=max_pending)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran; later calls fail."""
        return self._closed

    def produces_previews(self, tool: AgentTool[Any]) -> bool:
        """Whether a call to ``tool`` may push pending actions (neither read-only nor resolve)."""
        return not tool.read_only and tool.name != RESOLVE_TOOL_NAME

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> AgentToolResult:
        """Run one tool call and return its result with the steering line.

        Calls in one session run one at a time, so the stack limit and the
        LIFO order hold even when a client sends calls concurrently.

        Args:
            name: the tool's name.
            arguments: the call's arguments (validated by the tool).

        Returns:
            The tool's result; a :class:`ToolError` (unknown tool, bad
            arguments, a failing tool, the stack limit, the empty-store
            ``resolve``) becomes an ``is_error`` result with its message. While
            actions are pending the text ends with :func:`pending_notice`.
            Each text block is cut to :data:`~xcsh.core.MAX_RESULT_CHARS`
            (:func:`~xcsh.core.cap_result`), whatever the tool returned.
        """
        async with self._lock:
            result = cap_result(await self._call_locked(name, arguments))
        count = self.store.count
        if count:
            result = AgentToolResult(
                content=[*result.content, TextContent(pending_notice(count))],
                details=result.details,
                is_error=result.is_error,
            )
        return result

    async def _call_locked(self, name: str, arguments: Mapping[str, Any] | None) -> AgentToolResult:
        if self._closed:
            return _error("This MCP session is closed; reconnect to start a new one.")
        tool = self._by_name.get(name)
        if tool is None:
            known = ", ".join(sorted(self._by_name)) or "none"
            return _error(f"Unknown tool '{name}'. Tools on this server: {known}.")
        count = self.store.count
        if self.produces_previews(tool) and count >= self.max_pending:
            return _error(max_pending_message(name, count, self.max_pending))
        self._calls += 1
        try:
            return await tool.execute(f"mcp-{self._calls}", arguments)
        except ToolError as exc:
            return _error(str(exc), details=exc.details)

    async def shutdown(self, reason: str = DISCONNECT_REASON) -> int:
        """Wait for the call in progress (if any), then :meth:`close`; returns the count."""
        async with self._lock:
            return await self.close(reason)

    async def close(self, reason: str = DISCONNECT_REASON) -> int:
        """Discard every pending action, newest first, running each ``reject(reason)``.

        Safe to call more than once. A failing ``reject`` is logged and the
        others still run. Nothing is ever applied.

        Args:
            reason: passed to each ``reject``.

        Returns:
            How many actions were discarded.
        """
        self._closed = True
        discarded = self.store.clear()
        for action in discarded:
            if action.reject is None:
                continue
            try:
                await call_maybe_async(action.reject, reason)
            except Exception:  # user clean-up code: report it, keep discarding the rest
                logger.exception("reject of pending action %r failed", action.label)
        return len(discarded)


def _error(text: str, *, details: Any = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text)], details=details, is_error=True)
