"""One MCP client's view of xcsh: its own pending-action store and tool instances.

Every MCP session (a stdio process, or one ``Mcp-Session-Id`` over HTTP) gets
an :class:`McpSession`. Nothing is shared between sessions, so one client can
never apply or discard another client's preview.

MCP has no way to force a client's next tool choice (contract §3 forces
``resolve`` inside xcsh's own loop), so the session steers in two other ways:

- while actions are pending, every tool result ends with
  :func:`pending_notice` naming how many wait and that ``resolve`` must be
  called;
- once ``max_pending`` actions wait, calls to tools that may push more
  (anything neither read-only nor ``resolve``) are refused with
  :func:`max_pending_message`.

When the client goes away, :meth:`McpSession.close` discards every pending
action, running each ``reject(reason)``; nothing is ever applied on disconnect.

A preview the client never saw is never left pending: when the call that
pushed it is cancelled (the client cancelled it, the session or the server is
ending) or its result could not be delivered (:class:`Delivery` reports the
connection dropped), the previews that call pushed are discarded with
:data:`UNDELIVERED_REASON`, so a later ``resolve`` can only apply a preview
whose result reached the client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

import anyio

from xcsh.core import AgentToolResult, JsonValue, TextContent, Tool, ToolError, cap_result
from xcsh.pending import (
    RESOLVE_TOOL_NAME,
    PendingAction,
    PendingActionStore,
)

logger = logging.getLogger(__name__)

DEFAULT_MAX_PENDING = 8
"""How many previews may wait for ``resolve`` before preview-producing calls are refused."""

DISCONNECT_REASON = "The MCP client disconnected before resolving this preview."
"""The ``reason`` handed to ``reject`` when the client ends its session with actions pending."""

STOP_REASON = "The xcsh MCP server stopped before this preview was resolved."
"""The ``reason`` handed to ``reject`` when the server stops with actions pending."""

IDLE_REASON = "The MCP session was idle too long and was closed before this preview was resolved."
"""The ``reason`` handed to ``reject`` when an idle HTTP session is closed."""

UNDELIVERED_REASON = (
    "The result of the tool call that made this preview never reached the MCP client "
    "(the call was cancelled or the connection dropped), so the preview was discarded unseen."
)
"""The ``reason`` handed to ``reject`` for a preview whose tool result was not delivered."""

STOP_GRACE = 1.0
"""Seconds :meth:`McpSession.shutdown` lets a call in progress finish before cancelling it."""


class Delivery:
    """Whether one tool call's result reached the client (set by the transport).

    The HTTP front end creates one per request and calls :meth:`lost` when the
    response could not be completed (the connection dropped first). Callbacks
    registered with :meth:`on_lost` run then, or at once if it is already lost.
    """

    def __init__(self) -> None:
        self._lost = False
        self._callbacks: list[Callable[[], Awaitable[None]]] = []

    async def on_lost(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run ``callback`` when the result is known undelivered (now, if it already is)."""
        if self._lost:
            await callback()
        else:
            self._callbacks.append(callback)

    async def lost(self) -> None:
        """The response did not reach the client: run every registered callback once."""
        self._lost = True
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            await callback()


McpToolsFactory = Callable[[PendingActionStore], Sequence[Tool]]
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

    tools: Sequence[Tool]
    store: PendingActionStore
    max_pending: int = DEFAULT_MAX_PENDING
    _by_name: dict[str, Tool] = field(init=False, repr=False)
    _lock: asyncio.Lock = field(init=False, repr=False)
    _closed: bool = field(init=False, default=False, repr=False)
    _calls: int = field(init=False, default=0, repr=False)
    _running: asyncio.Task[object] | None = field(init=False, default=None, repr=False)

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

    def produces_previews(self, tool: Tool) -> bool:
        """Whether a call to ``tool`` may push pending actions (neither read-only nor resolve)."""
        return not tool.read_only and tool.name != RESOLVE_TOOL_NAME

    async def call(
        self,
        name: str,
        arguments: Mapping[str, JsonValue] | None,
        *,
        delivery: Delivery | None = None,
    ) -> AgentToolResult:
        """Run one tool call and return its result with the steering line.

        Calls in one session run one at a time, so the stack limit and the
        LIFO order hold even when a client sends calls concurrently.

        Previews the call pushes are discarded (``reject`` runs with
        :data:`UNDELIVERED_REASON`) when the call is cancelled, when the
        session was closed while it ran, or later when ``delivery`` reports
        that the result did not reach the client.

        Args:
            name: the tool's name.
            arguments: the call's arguments (validated by the tool).
            delivery: tells whether the result reached the client (HTTP); ``None``
                when the transport cannot lose it without ending the session (stdio).

        Returns:
            The tool's result; a :class:`ToolError` (unknown tool, bad
            arguments, a failing tool, the stack limit, the empty-store
            ``resolve``) becomes an ``is_error`` result with its message. While
            actions are pending the text ends with :func:`pending_notice`.
            Each text block is cut to :data:`~xcsh.core.MAX_RESULT_CHARS`
            (:func:`~xcsh.core.cap_result`), whatever the tool returned.
        """
        async with self._lock:
            before = {id(action) for action in self.store.snapshot()}
            self._running = asyncio.current_task()
            cancel = asyncio.Event()
            try:
                result = cap_result(await self._call_locked(name, arguments, cancel))
            except BaseException:
                cancel.set()  # a tool working on a thread checks it and stops early
                await self._discard_new(before)
                raise
            finally:
                self._running = None
            pushed = [a for a in self.store.snapshot() if id(a) not in before]
            if self._closed:
                await self._discard(pushed)
                pushed = []
            elif delivery is not None and pushed:
                await delivery.on_lost(lambda: self._discard(pushed))
        notes = [TextContent(line) for line in _preview_ids(pushed)]
        count = self.store.count
        if count:
            notes.append(TextContent(pending_notice(count)))
        if notes:
            result = AgentToolResult(
                content=[*result.content, *notes],
                details=result.details,
                is_error=result.is_error,
            )
        return result

    async def _call_locked(
        self, name: str, arguments: Mapping[str, JsonValue] | None, cancel: asyncio.Event
    ) -> AgentToolResult:
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
            return await tool.execute(f"mcp-{self._calls}", arguments, cancel=cancel)
        except ToolError as exc:
            return _error(str(exc), details=exc.details)
        except Exception as exc:  # a tool bug must not end the call with a protocol error
            return _error(f"Tool '{name}' failed unexpectedly: {type(exc).__name__}: {exc}")

    async def _discard_new(self, before: set[int]) -> None:
        await self._discard([a for a in self.store.snapshot() if id(a) not in before])

    async def _discard(self, actions: Sequence[PendingAction]) -> None:
        """Take ``actions`` off the stack (those still there) and run their ``reject``."""
        with anyio_shield():
            for action in actions:
                if self.store.remove(action):
                    await _reject(action, UNDELIVERED_REASON)

    async def shutdown(self, reason: str = DISCONNECT_REASON, *, grace: float = STOP_GRACE) -> int:
        """End the session promptly, then :meth:`close` it.

        A call in progress may finish for ``grace`` seconds; it is cancelled if it has
        not (its previews are discarded). Returns how many actions :meth:`close`
        discarded.
        """
        running = self._running
        if running is not None and not running.done():
            await asyncio.wait({running}, timeout=grace)
            if not running.done():
                running.cancel()
                await asyncio.wait({running}, timeout=grace)
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
        with anyio_shield():
            for action in discarded:
                await _reject(action, reason)
        return len(discarded)


async def _reject(action: PendingAction, reason: str) -> None:
    try:
        await action.effect.reject(reason)
    except Exception:  # user clean-up code: report it, keep discarding the rest
        logger.exception("reject of pending action %r failed", action.label)


def anyio_shield() -> anyio.CancelScope:
    """A scope in which the rejects run to the end even while the caller is cancelled."""
    return anyio.CancelScope(shield=True)


def _preview_ids(pushed: Sequence[PendingAction]) -> list[str]:
    """``Preview p3 is pending (resolve id "p3").`` for each pushed action that has an id."""
    lines = []
    for action in reversed(pushed):  # oldest first
        preview_id = str(getattr(action, "id", "") or "")
        if preview_id:
            lines.append(f'Preview {preview_id} is pending (resolve id "{preview_id}").')
    return lines


def _error(text: str, *, details: object = None) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text)], details=details, is_error=True)
