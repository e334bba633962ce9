"""``xcsh mcp --http``: streamable HTTP on the loopback interface, one session per client.

Every request must carry the server's bearer token (:func:`create_http_app`),
checked before anything else; then the SDK checks Host and Origin. Each
``Mcp-Session-Id`` gets its own session, created on its first tool request
(so only after every check passed). A session ends when the client deletes
it (``DELETE``, acted on only once the SDK accepted it), when it has been
idle for the idle timeout, or when the server stops; its pending actions are
discarded then. At most ``max_sessions`` sessions are open at once. A tool
call whose response could not be completed (the connection dropped) has its
previews discarded (:class:`~xcsh.mcp.session.Delivery`). The 2026-07-28
protocol era has no sessions over HTTP, so this server answers its
``server/discover`` probe with "method not found", and clients fall back to
the handshake (as the ``mcp`` client's ``mode="auto"`` does).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import socket
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from xcsh.mcp.server import DELIVERY_KEY, RequestContext, SessionSource, create_server
from xcsh.mcp.session import (
    DEFAULT_MAX_PENDING,
    DISCONNECT_REASON,
    IDLE_REASON,
    STOP_REASON,
    Delivery,
    McpSession,
    McpToolsFactory,
)
from xcsh.mcp.sockets import bind_loopback, file_id, unix_listener

if TYPE_CHECKING:  # uvicorn is imported only when the server starts
    import uvicorn
    from starlette.requests import HTTPConnection
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

SESSION_HEADER = "mcp-session-id"
AUTHORIZATION = "authorization"
"""The header that carries the bearer token."""
TOKEN_PARAMETER = "token"
"""The query parameter that may carry the token instead (clients that cannot set headers)."""
DEFAULT_IDLE_TIMEOUT = 30 * 60.0
"""Seconds an HTTP session may stay idle before it is closed and its previews discarded."""

DEFAULT_MAX_SESSIONS = 32
"""How many HTTP sessions may be open at once; more are refused (503) until one ends."""

SHUTDOWN_GRACE = 1
"""Seconds the HTTP server waits for open requests when it stops, before cancelling them."""

UNAUTHORIZED_MESSAGE = (
    "Unauthorized: this xcsh MCP server needs its token. Send the header "
    "'Authorization: Bearer <token>' (or add ?token=<token> to the URL) with the token "
    "'xcsh mcp --http' printed when it started; it is also in the token file it named."
)


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

    def session_for(self, ctx: RequestContext) -> McpSession | None:
        """The session of the request's ``Mcp-Session-Id``, created on first use.

        ``None`` for a request without a session id.
        """
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
        """A session no client owns, whose tool list stands for every session's (made once)."""
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


def _session_id(ctx: RequestContext) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    value = headers.get(SESSION_HEADER)
    return value if isinstance(value, str) and value else None


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
    inner = _mcp_server(sessions).streamable_http_app(
        host="127.0.0.1",
        transport_security=_loopback_only(),
        session_idle_timeout=idle_timeout,
        max_sessions=max_sessions,
    )
    return _guarded(inner, sessions, token), sessions


def _mcp_server(sessions: HttpSessions) -> Server[SessionSource]:
    """The MCP server, with ``sessions`` reaped while it runs and closed when it stops.

    ``server/discover`` is refused (the previews are kept per initialized session).
    """

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

    async def no_discover(ctx: RequestContext, params: types.RequestParams) -> types.DiscoverResult:
        raise MCPError(
            code=types.METHOD_NOT_FOUND,
            message="xcsh keeps pending previews per session: use the initialize handshake",
        )

    server.add_request_handler("server/discover", types.RequestParams, no_discover)
    return server


def _loopback_only() -> TransportSecuritySettings:
    """The SDK's Host/Origin checks: the loopback names only, with or without a port."""
    local = ("127.0.0.1", "localhost", "[::1]")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        # with or without a port: a client on the Unix socket may send a bare "localhost"
        allowed_hosts=[*local, *(f"{host}:*" for host in local)],
        allowed_origins=[
            *(f"http://{host}" for host in local),
            *(f"http://{host}:*" for host in local),
        ],
    )


def _guarded(inner: ASGIApp, sessions: HttpSessions, token: str | None) -> ASGIApp:
    """``inner`` behind the token check.

    It also closes a session the client ended, and drops the previews of a
    response that did not reach the client.
    """
    from starlette.requests import Request  # imported once the server starts

    async def app(
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        match scope:
            case {"type": "lifespan"}:
                await inner(scope, receive, send)
                return
            case {"type": "http"}:
                pass
            case _:
                return  # nothing but HTTP is served (no websockets)
        request = Request(scope)
        if token is not None and not _authorized(request, token):
            await _unauthorized(send)
            return
        deleting = request.method == "DELETE"
        session_id = request.headers.get(SESSION_HEADER)
        delivery = Delivery()
        scope[DELIVERY_KEY] = delivery
        started = completed = False

        async def tracked_send(message: Message) -> None:
            nonlocal started, completed
            match message:
                case {"type": "http.response.start"}:
                    started = True
                    if deleting and session_id is not None and _succeeded(message):
                        # The SDK accepted the client's end of its session (Host, Origin
                        # and the session id checked): its previews are discarded, never
                        # applied, before the reply goes out, so the reply means "done".
                        await sessions.close(session_id)
                case {"type": "http.response.body", "more_body": True}:
                    pass
                case {"type": "http.response.body"}:
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

    return app


def _succeeded(start: Message) -> bool:
    """True when a response's start message has a 2xx status."""
    match start:
        case {"status": int(status)}:
            return 200 <= status < 300
    return False


def _authorized(request: HTTPConnection, token: str) -> bool:
    """True when the request carries ``token`` (compared in constant time).

    As ``Authorization: Bearer TOKEN``, or as the query parameter ``token``.
    """
    expected = token.encode()
    scheme, _, credential = request.headers.get(AUTHORIZATION, "").partition(" ")
    if scheme.lower() == "bearer" and hmac.compare_digest(
        credential.strip().encode("latin-1"), expected
    ):
        return True
    return any(
        hmac.compare_digest(value.encode("latin-1"), expected)
        for value in request.query_params.getlist(TOKEN_PARAMETER)
    )


async def _unauthorized(send: Send) -> None:
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
    sock = unix_listener(socket_path) if socket_path else bind_loopback(port)
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

    server, remove_socket = _stopping_server(config, sock, socket_path, on_stop)

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
        remove_socket()


def _stopping_server(
    config: uvicorn.Config,
    sock: socket.socket,
    socket_path: str | None,
    on_stop: Callable[[], None] | None,
) -> tuple[uvicorn.Server, Callable[[], None]]:
    """A uvicorn server that cleans up after itself, and its socket remover.

    Once shut down, the server removes its Unix socket (only the one it made)
    and calls ``on_stop``; the function returned with it removes the socket.
    """
    import uvicorn

    ours = file_id(socket_path) if socket_path else None

    def remove_socket() -> None:
        if socket_path is not None:
            sock.close()
            # only the socket this server made, not one a later server put there
            if ours is not None and file_id(socket_path) == ours:
                with contextlib.suppress(OSError):
                    os.unlink(socket_path)

    class _Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            try:
                await super().shutdown(sockets)
            finally:
                # before uvicorn ends the process by the stop signal
                remove_socket()
                if on_stop is not None:
                    on_stop()

    return _Server(config), remove_socket
