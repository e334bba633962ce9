"""The MCP server: xcsh's tools for any MCP client, one pending-action store per session.

Built on the low-level ``mcp.server.Server`` of the official ``mcp`` package
(2.x), so the input schemas are exactly :meth:`AgentTool.json_schema` and
results keep xcsh's text. Where a session comes from depends on the transport:

- **stdio**: the process serves one client, so the server's lifespan *is*
  the session. When the client closes stdin (or the process is told to
  stop), the lifespan ends and every pending action is discarded.
- **streamable HTTP** (loopback only): every request must carry the
  server's bearer token (:func:`create_http_app`), checked before anything
  else; then the SDK checks Host and Origin. Each ``Mcp-Session-Id`` gets
  its own session, created on its first tool request (so only after every
  check passed). A session ends when the client deletes it (``DELETE``,
  acted on only once the SDK accepted it), when it has been idle for the
  idle timeout, or when the server stops; its pending actions are discarded
  then. At most ``max_sessions`` sessions are open at once. A tool call
  whose response could not be completed (the connection dropped) has its
  previews discarded (:class:`~xcsh.mcp.session.Delivery`). The
  2026-07-28 protocol era has no sessions over HTTP, so this server answers
  its ``server/discover`` probe with "method not found", and clients fall
  back to the handshake (as the ``mcp`` client's ``mode="auto"`` does).
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import json
import logging
import os
import signal
import socket
import stat
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from xcsh import __version__
from xcsh.core import UsageError
from xcsh.mcp.session import (
    DEFAULT_MAX_PENDING,
    DISCONNECT_REASON,
    IDLE_REASON,
    STOP_REASON,
    Delivery,
    McpSession,
    McpToolsFactory,
)
from xcsh.mcp.tools import mcp_content, mcp_tool

logger = logging.getLogger(__name__)

SERVER_NAME = "xcsh"
SESSION_HEADER = "mcp-session-id"
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
"""Seconds an HTTP session may stay idle before it is closed and its previews discarded."""

DEFAULT_MAX_SESSIONS = 32
"""How many HTTP sessions may be open at once; more are refused (503) until one ends."""

SHUTDOWN_GRACE = 1
"""Seconds the HTTP server waits for open requests when it stops, before cancelling them."""

DELIVERY_KEY = "xcsh.delivery"
"""The ASGI scope key under which a request's :class:`Delivery` travels to the tool handler."""

UNAUTHORIZED_MESSAGE = (
    "Unauthorized: this xcsh MCP server needs its token. Send the header "
    "'Authorization: Bearer <token>' (or add ?token=<token> to the URL) with the token "
    "'xcsh mcp --http' printed when it started; it is also in the token file it named."
)

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


class SessionSource(Protocol):
    """Finds the :class:`McpSession` a request belongs to."""

    def session_for(self, ctx: ServerRequestContext[Any, Any]) -> McpSession | None:
        """The request's session, or ``None`` when it belongs to none."""

    def any_session(self) -> McpSession:
        """A session whose tool list stands for every session's (for ``tools/list``)."""


@dataclass
class SingleSession:
    """Every request belongs to one session: the stdio case."""

    session: McpSession

    def session_for(self, ctx: ServerRequestContext[Any, Any]) -> McpSession | None:
        return self.session

    def any_session(self) -> McpSession:
        return self.session


@dataclass
class HttpSessions:
    """Sessions keyed by the ``Mcp-Session-Id`` header, created on first use.

    Args:
        factory: builds each session's tools.
        max_pending: each session's stack limit.
        idle_timeout: seconds without a request after which :meth:`reap_idle`
            closes a session (the HTTP transport forgets it after the same time).
    """

    factory: McpToolsFactory
    max_pending: int = DEFAULT_MAX_PENDING
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT
    _sessions: dict[str, McpSession] = field(default_factory=dict)
    _last_seen: dict[str, float] = field(default_factory=dict)
    _template: McpSession | None = None

    def session_for(self, ctx: ServerRequestContext[Any, Any]) -> McpSession | None:
        session_id = _session_id(ctx)
        if session_id is None:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            session = McpSession.create(self.factory, max_pending=self.max_pending)
            self._sessions[session_id] = session
        self._last_seen[session_id] = time.monotonic()
        return session

    def any_session(self) -> McpSession:
        if self._template is None:
            self._template = McpSession.create(self.factory, max_pending=self.max_pending)
        return self._template

    def __len__(self) -> int:
        return len(self._sessions)

    async def close(self, session_id: str, reason: str = DISCONNECT_REASON) -> int:
        """Close one session, discarding its pending actions; returns how many.

        Args:
            session_id: the ``Mcp-Session-Id``.
            reason: handed to each ``reject``: :data:`DISCONNECT_REASON` when
                the client ends the session, :data:`IDLE_REASON` or
                :data:`STOP_REASON` when the server ends it.
        """
        self._last_seen.pop(session_id, None)
        session = self._sessions.pop(session_id, None)
        return 0 if session is None else await session.close(reason)

    async def reap_idle(self, now: float | None = None) -> None:
        """Close the sessions idle for longer than ``idle_timeout``."""
        now = time.monotonic() if now is None else now
        stale = [sid for sid, seen in self._last_seen.items() if now - seen > self.idle_timeout]
        for session_id in stale:
            await self.close(session_id, IDLE_REASON)

    async def close_all(self) -> None:
        """Close every session (server shutdown): rejects get :data:`STOP_REASON`."""
        for session_id in list(self._sessions):
            await self.close(session_id, STOP_REASON)


def _delivery(ctx: ServerRequestContext[Any, Any]) -> Delivery | None:
    scope = getattr(ctx.request, "scope", None)
    found = scope.get(DELIVERY_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Delivery) else None


def _session_id(ctx: ServerRequestContext[Any, Any]) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    value = headers.get(SESSION_HEADER)
    return value if isinstance(value, str) and value else None


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
        ctx: ServerRequestContext[SessionSource, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        source = ctx.lifespan_context
        session = source.session_for(ctx) or source.any_session()
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in session.tools])

    async def call_tool(
        ctx: ServerRequestContext[SessionSource, Any], params: types.CallToolRequestParams
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


ASGIApp = Callable[
    [MutableMapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


def create_http_app(
    factory: McpToolsFactory,
    *,
    token: str | None,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
) -> tuple[ASGIApp, HttpSessions]:
    """A streamable-HTTP ASGI app (path ``/mcp``) with one xcsh session per MCP session.

    Order of checks for every HTTP request: the token first (answered 401
    with ``WWW-Authenticate: Bearer`` when missing or wrong, before anything
    is read or changed), then the SDK's Host/Origin checks (421/403), then
    the request. Session state changes only after all of them passed.

    Args:
        factory: builds each session's tools around its store.
        token: the bearer token every request must carry (``Authorization:
            Bearer <token>``, or ``?token=<token>`` in the URL for clients
            that cannot set headers); ``None`` turns authentication off.
        max_pending: each session's stack limit.
        idle_timeout: seconds of inactivity after which a session is closed.
        max_sessions: sessions open at once; an initialize beyond it gets 503.

    Returns:
        The ASGI app (serve it on 127.0.0.1 only) and the session registry.
    """
    sessions = HttpSessions(factory, max_pending=max_pending, idle_timeout=idle_timeout)

    @asynccontextmanager
    async def lifespan(_: Server[SessionSource]) -> AsyncIterator[SessionSource]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_reap_forever, sessions)
            try:
                yield sessions
            finally:
                tg.cancel_scope.cancel()
                with anyio.CancelScope(shield=True):
                    await sessions.close_all()

    server = create_server(lifespan)

    async def no_discover(
        ctx: ServerRequestContext[SessionSource, Any], params: types.RequestParams
    ) -> types.DiscoverResult:
        raise MCPError(
            code=types.METHOD_NOT_FOUND,
            message="xcsh keeps pending previews per session: use the initialize handshake",
        )

    server.add_request_handler("server/discover", types.RequestParams, no_discover)
    local = ("127.0.0.1", "localhost", "[::1]")
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        # with or without a port: a client on the Unix socket may send a bare "localhost"
        allowed_hosts=[*local, *(f"{host}:*" for host in local)],
        allowed_origins=[
            *(f"http://{host}" for host in local),
            *(f"http://{host}:*" for host in local),
        ],
    )
    inner = server.streamable_http_app(
        host="127.0.0.1",
        transport_security=security,
        session_idle_timeout=idle_timeout,
        max_sessions=max_sessions,
    )

    async def app(
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope.get("type") == "lifespan":
            await inner(scope, receive, send)
            return
        if scope.get("type") != "http":
            return  # nothing but HTTP is served (no websockets)
        if token is not None and not _authorized(scope, token):
            await _unauthorized(send)
            return
        method = scope.get("method")
        session_id = _header(scope, SESSION_HEADER)
        delivery = Delivery()
        scope[DELIVERY_KEY] = delivery
        started = completed = False

        async def tracked_send(message: Any) -> None:
            nonlocal started, completed
            if message.get("type") == "http.response.start":
                started = True
                status = int(message.get("status", 0))
                if method == "DELETE" and session_id is not None and 200 <= status < 300:
                    # The SDK accepted the client's end of its session (Host, Origin
                    # and the session id checked): its previews are discarded, never
                    # applied, before the reply goes out, so the reply means "done".
                    await sessions.close(session_id)
            elif message.get("type") == "http.response.body" and not message.get("more_body"):
                completed = True
            await send(message)

        try:
            await inner(scope, receive, tracked_send)
        finally:
            if not completed:
                # The response did not reach the client in full (it went away,
                # or the server is stopping): a preview it made is not kept.
                with anyio.CancelScope(shield=True):
                    await delivery.lost()
        if started and not completed:
            # On server shutdown the SDK's event streams (sse-starlette) stop
            # without the final body message, and uvicorn then logs "ASGI
            # callable returned without completing response". End them cleanly.
            with contextlib.suppress(OSError):
                await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app, sessions


def _header(scope: MutableMapping[str, Any], name: str) -> str | None:
    wanted = name.encode("latin-1")
    for key, value in scope.get("headers", []):
        if key.lower() == wanted:
            return str(value.decode("latin-1"))
    return None


def _authorized(scope: MutableMapping[str, Any], token: str) -> bool:
    """True when the request carries ``token`` (compared in constant time)."""
    expected = token.encode()
    header = _header(scope, "authorization")
    if header is not None:
        scheme, _, credential = header.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(
            credential.strip().encode("latin-1"), expected
        ):
            return True
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
    return any(
        hmac.compare_digest(value.encode("latin-1"), expected) for value in query.get("token", [])
    )


async def _unauthorized(send: Callable[[Any], Awaitable[None]]) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32001, "message": UNAUTHORIZED_MESSAGE},
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"www-authenticate", b'Bearer realm="xcsh-mcp"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _reap_forever(sessions: HttpSessions) -> None:
    period = max(1.0, min(60.0, sessions.idle_timeout / 4))
    while True:
        await anyio.sleep(period)
        await sessions.reap_idle()


async def serve_http(
    factory: McpToolsFactory,
    *,
    port: int,
    token: str | None,
    socket_path: str | None = None,
    max_pending: int = DEFAULT_MAX_PENDING,
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    on_ready: Callable[[int], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> None:
    """Serve streamable HTTP on ``http://127.0.0.1:<port>/mcp`` until stopped.

    On SIGTERM or SIGINT the server stops taking requests, gives open ones
    :data:`SHUTDOWN_GRACE` seconds, cancels what still runs (a hanging tool
    call included; its previews are discarded), then discards every session's
    pending actions (``reject`` runs with :data:`STOP_REASON`) and ends.

    Args:
        factory: builds each session's tools around its store.
        port: TCP port on the loopback interface; ``0`` picks a free one.
        token: the bearer token requests must carry; ``None`` for none.
        socket_path: serve on this Unix socket instead of TCP; it is created
            with mode 0600, so only this user can connect.
        max_pending: each session's stack limit.
        idle_timeout: seconds of inactivity after which a session is closed.
        max_sessions: sessions open at once.
        on_ready: called with the bound port (``0`` on a Unix socket) once the
            server accepts connections.
        on_stop: called once the server has shut down, before the process ends
            by the stop signal (remove files that only made sense while it ran).
    """
    import uvicorn

    # Bind first, so a busy port is a clear error rather than uvicorn's exit.
    sock = _unix_listener(socket_path) if socket_path else bind_loopback(port)
    bound = 0 if socket_path else int(sock.getsockname()[1])
    app, _ = create_http_app(
        factory,
        token=token,
        max_pending=max_pending,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
    )
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=bound,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
    )

    ours = _file_id(socket_path) if socket_path else None

    def _remove_socket() -> None:
        if socket_path is not None:
            sock.close()
            # only the socket this server made, not one a later server put there
            if ours is not None and _file_id(socket_path) == ours:
                with contextlib.suppress(OSError):
                    os.unlink(socket_path)

    class _Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            try:
                await super().shutdown(sockets)
            finally:
                # before uvicorn ends the process by the stop signal
                _remove_socket()
                if on_stop is not None:
                    on_stop()

    server = _Server(config)

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.02)
        if on_ready is not None:
            on_ready(bound)

    try:
        with sock:
            async with anyio.create_task_group() as tg:
                tg.start_soon(announce)
                await server.serve(sockets=[sock])
                tg.cancel_scope.cancel()
    finally:
        _remove_socket()


def _unix_listener(path: str) -> socket.socket:
    """A listening Unix socket at ``path`` that only this user may connect to (mode 0600).

    The mode is set before ``listen``, so there is no moment when others could connect.
    Only a stale socket (one nobody listens on any more) is replaced; any other file
    at ``path`` is left alone.

    Raises:
        UsageError: ``path`` is a file that is not a socket, a socket another server
            still listens on, or cannot be bound (its folder is missing, for one).
    """
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise UsageError(
                f"--socket {path!r} exists and is not a socket; it was left as it is.",
                hint="pick a path that does not exist yet",
            )
        if _socket_in_use(path):
            raise UsageError(
                f"--socket {path!r}: another server is listening on it.",
                hint="stop that server, or pick another path",
            )
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, 0o600)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"cannot listen on --socket {path!r}: {exc.strerror or exc}",
            hint="pick a path in an existing folder you can write",
        ) from exc
    return sock


def _file_id(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of ``path`` itself, ``None`` when it is gone."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _socket_in_use(path: str) -> bool:
    """True when a server accepts connections on the Unix socket ``path``."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on ``127.0.0.1:port`` (``0`` picks a free port).

    Raises:
        UsageError: the port is in use (the message says to try ``--port 0``),
            or it cannot be bound for another reason (named by the system).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} is in use (try --port 0)") from exc
        raise UsageError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}",
            hint="pick another port, or --port 0 for a free one",
        ) from exc
    return sock
