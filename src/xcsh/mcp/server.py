"""The MCP server: xcsh's tools for any MCP client, one pending-action store per session.

Built on the low-level ``mcp.server.Server`` of the official ``mcp`` package
(2.x), so the input schemas are exactly :meth:`AgentTool.json_schema` and
results keep xcsh's text. This module answers ``tools/list`` and
``tools/call`` for whichever session a request belongs to
(:class:`SessionSource`) and serves stdio, where the process serves one
client, so the server's lifespan *is* the session: when the client closes
stdin (or the process is told to stop), the lifespan ends and every pending
action is discarded. Streamable HTTP, with one session per
``Mcp-Session-Id``, is :mod:`xcsh.mcp.http_server`.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext

from xcsh import __version__
from xcsh.mcp.session import (
    DEFAULT_MAX_PENDING,
    DISCONNECT_REASON,
    STOP_REASON,
    Delivery,
    McpSession,
    McpToolsFactory,
)
from xcsh.mcp.tools import mcp_content, mcp_tool

logger = logging.getLogger(__name__)

SERVER_NAME = "xcsh"
DELIVERY_KEY = "xcsh.delivery"
"""The ASGI scope key under which a request's :class:`Delivery` travels to the tool handler."""

INSTRUCTIONS = (
    "xcsh's editing tools only preview: ast_edit shows the change and queues it as a pending "
    "action, and nothing on disk changes until you call `resolve` with action 'apply' (or "
    "'discard') and a reason. Resolve each preview before doing anything else; the most "
    "recent preview is resolved first."
)

NO_SESSION_MESSAGE = (
    "This request belongs to no MCP session, and xcsh keeps pending previews per session. "
    "Connect with the initialize handshake (an Mcp-Session-Id over HTTP), or use stdio."
)


RequestContext = ServerRequestContext["SessionSource", object]
"""A request's context: its ``lifespan_context`` is the server's :class:`SessionSource`; its
``request`` is what the transport attached (a starlette request over HTTP, nothing over stdio),
read only through ``getattr`` and ``isinstance``."""


class SessionSource(Protocol):
    """Finds the :class:`McpSession` a request belongs to."""

    def session_for(self, ctx: RequestContext) -> McpSession | None:
        """The request's session, or ``None`` when it belongs to none."""

    def any_session(self) -> McpSession:
        """A session whose tool list stands for every session's (for ``tools/list``)."""


@dataclass
class SingleSession:
    """Every request belongs to one session: the stdio case."""

    session: McpSession

    def session_for(self, ctx: RequestContext) -> McpSession | None:
        """Return the one session, whatever the request."""
        return self.session

    def any_session(self) -> McpSession:
        """Return the one session, whose tool list is the server's."""
        return self.session


def _delivery(ctx: RequestContext) -> Delivery | None:
    scope = getattr(ctx.request, "scope", None)
    found = scope.get(DELIVERY_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Delivery) else None


Lifespan = Callable[[Server[SessionSource]], AbstractAsyncContextManager[SessionSource]]


def create_server(lifespan: Lifespan) -> Server[SessionSource]:
    """The low-level MCP server answering ``tools/list`` and ``tools/call``.

    Args:
        lifespan: yields the :class:`SessionSource` requests are routed with,
            and closes its sessions on exit.

    Returns:
        A ``mcp.server.Server`` to run over stdio or streamable HTTP.
    """

    async def list_tools(
        ctx: RequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        source = ctx.lifespan_context
        session = source.session_for(ctx) or source.any_session()
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in session.tools])

    async def call_tool(
        ctx: RequestContext, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = ctx.lifespan_context.session_for(ctx)
        if session is None:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=NO_SESSION_MESSAGE)], is_error=True
            )
        result = await session.call(params.name, params.arguments, delivery=_delivery(ctx))
        return types.CallToolResult(content=mcp_content(result.content), is_error=result.is_error)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _discard(session: McpSession, reason: str) -> None:
    # Shielded so the rejects finish even while the surrounding scope is cancelled.
    with anyio.CancelScope(shield=True):
        discarded = await session.shutdown(reason)
    if discarded:
        noun = "action" if discarded == 1 else "actions"
        why = "server stopping" if reason == STOP_REASON else "client left"
        logger.info("%s: discarded %d pending %s", why, discarded, noun)


async def serve_stdio(
    factory: McpToolsFactory,
    *,
    max_pending: int = DEFAULT_MAX_PENDING,
    stop_signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT),
) -> None:
    """Serve one MCP client over this process's stdin and stdout until stdin closes.

    The client's pending actions are discarded (``reject`` runs, nothing is
    applied) when it closes stdin, and also when the process receives one of
    ``stop_signals``: then the call in progress (if any) finishes, the
    actions are discarded, and the process ends by that signal's default
    action (stdin is read by a blocking thread, which no cancellation can
    interrupt).

    Args:
        factory: builds the session's tools around its store.
        max_pending: the stack depth at which preview-producing calls are refused.
        stop_signals: signals that end the server after discarding; ``()`` for none.
    """
    from mcp.server.stdio import stdio_server

    session = McpSession.create(factory, max_pending=max_pending)

    @asynccontextmanager
    async def lifespan(_: Server[SessionSource]) -> AsyncIterator[SessionSource]:
        yield SingleSession(session)

    server = create_server(lifespan)

    async def stop_on_signal() -> None:
        with anyio.open_signal_receiver(*stop_signals) as received:
            async for signum in received:
                await _discard(session, STOP_REASON)
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)
                return

    async with anyio.create_task_group() as tg:
        if stop_signals:
            tg.start_soon(stop_on_signal)
        try:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
        finally:
            await _discard(session, DISCONNECT_REASON)  # a no-op after a stop signal
            tg.cancel_scope.cancel()
