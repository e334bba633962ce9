"""One MCP server as xcsh runs it: started, listed, called, watched, restarted once, stopped.

A :class:`ServerConnection` holds the official SDK's :class:`mcp.Client` open
in a task of its own (the SDK's transports are entered and left in one
task), so any task may call the server while it runs. A server that exits,
closes its output or drops the connection is marked ``stopped`` at once and
named in a notice; the next call starts it again, once. A server that fails
to start (cannot be run, exits, never answers ``initialize`` within its
``timeout``) is ``failed`` and named once; the session goes on without it.

What a stdio server writes on stderr goes to ``$XCSH_HOME/logs/mcp/NAME.log``
(never to the terminal, whose screen xcsh draws); its last line is quoted
when the server fails. A line it prints on stdout that is no JSON-RPC
message goes to the same log, after ``[stdout, not JSON-RPC]``; the session
goes on. Environment and header values are expanded only here,
when the server starts, and kept nowhere else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client._transport import TransportStreams
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError

from xcsh.core.safe import visible_line
from xcsh.mcpclient.settings import ServerSpec, expand, server_folder
from xcsh.mcpclient.wire import RemoteTool, list_tools, quiet_parse_failures, watched

log = logging.getLogger(__name__)

ServerState = Literal["disabled", "starting", "ready", "failed", "stopped"]
"""``stopped``: it ran and went away (restarted once on its next call)."""

ProgressCallback = ProgressFnT
"""``await progress(done, total, message)`` for each progress notification of a call."""

_TransportStreams = TransportStreams


NOISE_MARK = "[stdout, not JSON-RPC]"
"""Starts each line of a server's log that it printed on stdout but was no message."""

_CLIENT = types.Implementation(name="xcsh", version=metadata.version("xcsh"))
"""How xcsh introduces itself to a server."""


class ServerUnavailableError(Exception):
    """The server cannot take calls now; the message names it and why (for the model)."""


class ServerCallError(Exception):
    """A call failed outside the tool (the server died, timed out, refused the request)."""


@dataclass(frozen=True, kw_only=True)
class ServerStatus:
    """Where a server stands, for listings and notices.

    Args:
        name: its name in the settings.
        state: see :data:`ServerState`.
        detail: why it failed or stopped (``""`` otherwise).
        tools: its tools while it runs (the last known list when it stopped).
        transport: ``"stdio"`` or ``"http"``.
        where: its command line or URL.
    """

    name: str
    state: ServerState
    detail: str = ""
    tools: tuple[RemoteTool, ...] = ()
    transport: str = "stdio"
    where: str = ""


class ServerConnection:
    """One configured server (see the module's docstring).

    Args:
        spec: its settings.
        workspace: the session's folder (a stdio server runs there unless ``cwd`` says).
        env: the environment ``${VAR}`` references are read from.
        log_dir: where a stdio server's stderr goes (``NAME.log``).
        on_notice: receives each one-line notice (a failure, a stop, a restart).
        on_tools_changed: called when the server says its tools changed.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        workspace: Path,
        env: Mapping[str, str],
        log_dir: Path,
        on_notice: Callable[[str], None],
        on_tools_changed: Callable[[], None],
    ) -> None:
        self.spec = spec
        self._workspace = workspace
        self._env = env
        self._log_path = log_dir / f"{spec.name}.log"
        self._on_notice = on_notice
        self._on_tools_changed = on_tools_changed
        self._state: ServerState = "starting" if spec.enabled else "disabled"
        self._detail = ""
        self._tools: tuple[RemoteTool, ...] = ()
        self._client: Client | None = None
        self._holder: asyncio.Task[None] | None = None
        self._end: asyncio.Event = asyncio.Event()
        self._closing = False
        self._restarted = False
        self._start_lock = asyncio.Lock()
        self.logged = 0
        """Log notifications received (counted, never shown)."""
        self._schema_notes: dict[str, tuple[str, str]] = {}

    # -- reading ---------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's name in the settings."""
        return self.spec.name

    def status(self) -> ServerStatus:
        """Its state, detail and tools now."""
        return ServerStatus(
            name=self.name,
            state=self._state,
            detail=self._detail,
            tools=self._tools,
            transport=self.spec.transport,
            where=self.spec.where,
        )

    @property
    def tools(self) -> tuple[RemoteTool, ...]:
        """Its tools as last listed, the allow list applied."""
        return self._tools

    # -- starting and stopping ---------------------------------------------------

    async def start(self) -> bool:
        """Start the server and list its tools, within its ``timeout``.

        Returns:
            True when it runs; False when it is disabled or failed (then
            :meth:`status` says why, and a notice named it).
        """
        async with self._start_lock:
            if not self.spec.enabled:
                return False
            if self._state == "ready":
                return True
            self._state = "starting"
            self._end = asyncio.Event()
            started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._holder = asyncio.create_task(self._hold(started), name=f"mcp {self.name}")
            try:
                await asyncio.shield(started)
            except Exception as exc:
                self._fail(_start_problem(exc, self.spec.timeout, self._stderr_tail()))
                await self._wait_holder()
                return False
            self._state = "ready"
            self._detail = ""
            return True

    async def close(self) -> None:
        """Stop the server (its process tree ends); safe to call more than once."""
        self._closing = True
        self._end.set()
        await self._wait_holder()
        if self._state in ("ready", "starting"):
            self._state = "stopped"
            self._detail = "closed"

    async def _wait_holder(self) -> None:
        holder = self._holder
        if holder is not None and not holder.done():
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.shield(holder)

    async def _hold(self, started: asyncio.Future[None]) -> None:
        """Keep the client open until :meth:`close` or the transport ends (runs as a task)."""
        try:
            # the deadline covers starting only: it is lifted once the tools are listed
            with anyio.CancelScope(deadline=anyio.current_time() + self.spec.timeout) as scope:
                async with AsyncExitStack() as stack:
                    transport = self._transport(stack)
                    client = Client(
                        transport,
                        message_handler=self._on_message,
                        logging_callback=self._on_log,
                        client_info=_CLIENT,
                    )
                    await stack.enter_async_context(client)
                    tools = await list_tools(client, self._schema_notes)
                    scope.deadline = math.inf
                    self._client = client
                    self._tools = tuple(t for t in tools if self.spec.allows(t.name))
                    started.set_result(None)
                    await self._end.wait()
            if scope.cancelled_caught and not started.done():
                raise TimeoutError
        except BaseException as exc:
            if not started.done():
                started.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            elif not self._closing:
                self._stopped(f"{type(exc).__name__}: {exc}")
            if not isinstance(exc, Exception):
                raise
        finally:
            self._client = None
        if not self._closing and self._state == "ready":
            self._stopped("")

    def _transport(self, stack: AsyncExitStack) -> AbstractAsyncContextManager[_TransportStreams]:
        """The watched transport (stdio or Streamable HTTP); env and headers expanded now.

        Raises:
            KeyError: a value names an unset environment variable.
            OSError: the log file cannot be opened.
        """
        spec = self.spec
        if spec.url:
            headers = {k: expand(v, self._env, f"header {k}") for k, v in spec.headers.items()}
            http = httpx2.AsyncClient(
                headers=headers, timeout=httpx2.Timeout(30.0, read=max(300.0, spec.timeout))
            )
            stack.push_async_callback(http.aclose)
            inner: AbstractAsyncContextManager[_TransportStreams] = streamable_http_client(
                spec.url, http_client=http
            )
        else:
            env = {k: expand(v, self._env, f"env {k}") for k, v in spec.env.items()}
            self._log_path.parent.mkdir(parents=True, exist_ok=True)
            errlog: TextIO = stack.enter_context(self._log_path.open("w", encoding="utf-8"))
            params = StdioServerParameters(
                command=spec.command,
                args=list(spec.args),
                env=env or None,
                cwd=server_folder(spec, self._workspace),
            )
            inner = stdio_client(params, errlog=errlog)
            quiet_parse_failures()

            def on_noise(line: str) -> None:
                with contextlib.suppress(OSError, ValueError):  # the log closed at the end
                    errlog.write(f"{NOISE_MARK} {visible_line(line)}\n")
                    errlog.flush()

            return watched(inner, self._transport_ended, self._schema_notes, on_noise)
        return watched(inner, self._transport_ended, self._schema_notes)

    def _transport_ended(self) -> None:
        """The server's output ended: it is gone, whatever we were doing."""
        if not self._closing:
            self._end.set()

    def _stopped(self, why: str) -> None:
        if self._state != "ready":
            return
        tail = self._stderr_tail()
        detail = why or "it exited or closed the connection"
        if tail:
            detail += f" (last line on stderr: {tail})"
        self._state = "stopped"
        self._detail = detail
        again = " once more on its next call" if not self._restarted else ""
        restart = f"; xcsh starts it{again}" if not self._restarted else "; it stays stopped"
        self._on_notice(f"MCP server {self.name} stopped: {detail}{restart}.")

    def _fail(self, detail: str) -> None:
        self._state = "failed"
        self._detail = detail
        self._on_notice(f"MCP server {self.name} did not start: {detail}. Its tools are left out.")

    def _stderr_tail(self) -> str:
        if self.spec.url:
            return ""
        try:
            text = self._log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = [
            line.strip()
            for line in text.splitlines()
            if line.strip() and not line.startswith(NOISE_MARK)
        ]
        return lines[-1][:200] if lines else ""

    # -- notifications -------------------------------------------------------------

    async def _on_message(self, message: object) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._on_tools_changed()

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logged += 1

    async def relist(self) -> bool:
        """List the tools again (after ``tools/list_changed``); False when that failed."""
        client = self._client
        if client is None or self._state != "ready":
            return False
        try:
            with anyio.fail_after(self.spec.timeout):
                tools = await list_tools(client, self._schema_notes)
        except Exception as exc:
            log.info("MCP server %s: listing tools again failed: %s", self.name, exc)
            return False
        self._tools = tuple(t for t in tools if self.spec.allows(t.name))
        return True

    # -- calls -------------------------------------------------------------------

    async def call(
        self,
        tool: str,
        arguments: Mapping[str, object],
        *,
        progress: ProgressCallback | None = None,
    ) -> types.CallToolResult:
        """Call ``tool``; a server that stopped is started again first, once per session.

        Raises:
            ServerUnavailableError: the server is disabled, failed, or stopped and
                its one restart is used or failed.
            ServerCallError: the call timed out, the server went away during it, or
                the server answered with a protocol error.
            asyncio.CancelledError: the caller was cancelled (the SDK tells the
                server with ``notifications/cancelled``).
        """
        client = await self._ready_client()
        try:
            return await client.call_tool(
                tool,
                dict(arguments),
                read_timeout_seconds=self.spec.timeout,
                progress_callback=progress,
            )
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                await asyncio.sleep(0)  # let the transport's end be seen
                self._stopped("")
                raise ServerCallError(
                    f"MCP server {self.name} went away during the call ({self._detail}); "
                    "it is started again on the next call"
                    if not self._restarted
                    else f"MCP server {self.name} went away during the call ({self._detail})"
                ) from exc
            if exc.code == types.REQUEST_TIMEOUT:
                raise ServerCallError(
                    f"MCP server {self.name} did not answer within {self.spec.timeout:g} s "
                    "(its timeout setting); the call was cancelled"
                ) from exc
            raise ServerCallError(f"MCP server {self.name} refused the call: {exc}") from exc
        except (OSError, httpx2.HTTPError, anyio.BrokenResourceError) as exc:
            self._stopped(f"{type(exc).__name__}: {exc}")
            raise ServerCallError(f"MCP server {self.name} could not be reached: {exc}") from exc

    async def _ready_client(self) -> Client:
        if self._state == "stopped" and not self._restarted and not self._closing:
            self._restarted = True
            await self._wait_holder()
            await self.start()
        client = self._client
        if self._state != "ready" or client is None:
            what = {
                "disabled": "is disabled in the settings (enabled = false)",
                "starting": "is still starting",
                "failed": f"did not start ({self._detail})",
                "stopped": f"stopped ({self._detail or 'closed'})",
                "ready": "is not connected",
            }[self._state]
            raise ServerUnavailableError(f"MCP server {self.name} {what}; nothing was called.")
        return client


def _start_problem(exc: BaseException, timeout: float, tail: str) -> str:
    """Why a server did not start, in one phrase."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    said = f" (last line on stderr: {tail})" if tail else ""
    if isinstance(exc, TimeoutError):
        return f"it did not answer initialize within {timeout:g} s (its timeout setting){said}"
    if isinstance(exc, KeyError):
        return str(exc.args[0]) if exc.args else str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"cannot run it: {exc.strerror or exc} ({exc.filename or ''})".replace(" ()", "")
    if isinstance(exc, OSError):
        return f"cannot run it: {exc.strerror or exc}"
    if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:
        return f"it exited or closed the connection before answering{said}"
    if isinstance(exc, httpx2.HTTPError):
        return f"cannot reach it: {type(exc).__name__}: {exc}"
    return f"{type(exc).__name__}: {exc}{said}"


__all__ = [
    "ProgressCallback",
    "ServerCallError",
    "ServerConnection",
    "ServerState",
    "ServerStatus",
    "ServerUnavailableError",
]
