"""``xcsh mcp``: serve ``ast_grep``, ``ast_edit``, ``resolve`` and trusted custom tools over MCP."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import secrets
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from xcsh.cli.argparser import Parser
from xcsh.core import UsageError
from xcsh.fs import xcsh_home
from xcsh.mcp import (
    DEFAULT_MAX_PENDING,
    DEFAULT_MAX_SESSIONS,
    builtin_tool_factory,
    combine_factories,
    custom_tool_factory,
    journaled_factory,
    serve_http,
    serve_stdio,
)
from xcsh.mcp.session import McpToolsFactory
from xcsh.plugins import LoadError

if TYPE_CHECKING:
    from xcsh.core import Tool
    from xcsh.mcpclient import McpServers
    from xcsh.pending import PendingActionStore

DEFAULT_PORT = 8765


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh mcp`` argument parser; its description says what is served and how."""
    parser = Parser(
        prog="xcsh mcp",
        description=(
            "Serve xcsh's preview-first tools to an MCP client: ast_grep (search), ast_edit "
            "(preview a rewrite) and resolve (apply or discard the preview). Serves stdio by "
            "default; each client session has its own pending previews, discarded when it leaves."
        ),
    )
    parser.add_argument(
        "--cwd", metavar="PATH", default=".", help="workspace folder (default: the current one)"
    )
    parser.add_argument(
        "--max-pending",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_PENDING,
        help=f"refuse new previews while N wait for resolve (default {DEFAULT_MAX_PENDING})",
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="load the custom tools in the workspace's .xcsh/tools/ without asking",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 instead of stdio",
    )
    parser.add_argument(
        "--port",
        metavar="P",
        type=int,
        default=None,
        help=f"HTTP port on 127.0.0.1 (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        default=None,
        help="serve HTTP on this Unix socket (mode 0600: only you can connect) instead of TCP",
    )
    parser.add_argument(
        "--max-sessions",
        metavar="N",
        type=int,
        default=DEFAULT_MAX_SESSIONS,
        help=f"HTTP sessions open at once; more get 503 (default {DEFAULT_MAX_SESSIONS})",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help=(
            "serve HTTP without the bearer token (for tests only: any local process "
            "could then drive the tools)"
        ),
    )
    return parser


def _check(args: argparse.Namespace) -> Path:
    cwd = Path(args.cwd).expanduser()
    if not cwd.is_dir():
        raise UsageError(
            f"--cwd {args.cwd!r} is not a folder.",
            hint="pass the repository to serve, e.g. --cwd .",
        )
    if args.max_pending < 1:
        raise UsageError(
            f"--max-pending must be at least 1, got {args.max_pending}.",
            hint="use the default (8) unless a client needs more previews at once",
        )
    if args.port is not None and not args.http:
        raise UsageError("--port needs --http.", hint="add --http, or drop --port to serve stdio")
    for flag, value in (("--socket", args.socket), ("--no-auth", args.no_auth)):
        if value and not args.http:
            raise UsageError(f"{flag} needs --http.", hint=f"add --http, or drop {flag}")
    if args.socket is not None and args.port is not None:
        raise UsageError(
            "--socket and --port exclude each other.", hint="serve on a Unix socket or a port"
        )
    if args.max_sessions < 1:
        raise UsageError(
            f"--max-sessions must be at least 1, got {args.max_sessions}.",
            hint=f"use the default ({DEFAULT_MAX_SESSIONS})",
        )
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a TCP port.", hint="use 0..65535")
    return cwd.resolve()


def tool_factory(
    cwd: Path, *, trust_project: bool, downstream: McpServers | None = None
) -> McpToolsFactory:
    """The tools every session of ``xcsh mcp`` gets for the workspace ``cwd``.

    ``ast_grep``, ``ast_edit`` and ``resolve``, then the custom tools, then the
    tools of the MCP servers xcsh itself is a client of (``downstream``, started
    before the first session: a call of one that is not read-only is one more
    pending action the client resolves). Load errors and the downstream servers'
    notices go to stderr once (the MCP client owns stdout). Every apply is
    recorded in the workspace's undo journal (after settling any apply a
    crash interrupted), so ``xcsh undo`` reverts MCP clients' changes too.

    Raises:
        UsageError: a retention, check or ``index_memory`` setting in settings.toml
            is invalid.
    """
    from xcsh.app import open_checker, read_settings
    from xcsh.cli.say import say
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal, settled

    home = xcsh_home()
    reading = read_settings(home)  # once: the journal's section now, the rest below
    opened = settled(Journal.for_root(home, cwd, retention=reading.retention()))
    for recovered in opened.recovered:
        say(f"xcsh mcp: {recovered.message}", file=sys.stderr, one_line=True)
    if opened.problem:
        say(f"xcsh mcp: undo journal: {opened.problem}", file=sys.stderr, one_line=True)
    journal = opened.journal
    settings = reading.settings()
    checker = open_checker(cwd, home, settings)
    memory = settings.index_memory
    if checker.settings.notice:
        print(f"xcsh mcp: {checker.settings.notice}", file=sys.stderr)
    reported: set[tuple[str, str]] = set()

    def report(errors: list[LoadError]) -> None:
        for error in errors:
            key = (error.path, error.error)
            if key not in reported:
                reported.add(key)
                say(f"xcsh mcp: custom tool {error.path}: {error.error}", file=sys.stderr)

    factories = [
        builtin_tool_factory(cwd, journal=journal, checker=checker, index_memory=memory),
        custom_tool_factory(
            cwd, trust_project=trust_project, on_errors=report, checker=checker, journal=journal
        ),
    ]
    if downstream is not None:
        factories.append(_downstream_factory(downstream))
    return journaled_factory(combine_factories(*factories), journal)


def _downstream_factory(servers: McpServers) -> McpToolsFactory:
    """The downstream servers' tools for one session, built around its store."""

    def build(store: PendingActionStore) -> list[Tool]:
        return servers.session_tools(store)

    return build


def downstream_servers(cwd: Path, *, trust_project: bool) -> McpServers:
    """The MCP servers ``xcsh mcp`` is a client of (not started).

    Those of the settings and of a trusted project, as a session in ``cwd`` would
    start them.

    Raises:
        UsageError: bad ``[mcp_servers]`` settings.
    """
    from xcsh.app import load_settings
    from xcsh.app.mcp import session_servers
    from xcsh.mcpclient import McpServers

    home = xcsh_home()
    mcp, notices = session_servers(load_settings(home).mcp, cwd, home, trust_project=trust_project)
    for notice in notices:
        print(f"xcsh mcp: {notice}", file=sys.stderr)
    servers = McpServers(mcp, workspace=cwd, log_dir=home / "logs" / "mcp", env=os.environ)
    servers.taken = frozenset({"ast_grep", "ast_edit", "resolve"})
    return servers


def _say(notice: str) -> None:
    print(f"xcsh mcp: {notice}", file=sys.stderr, flush=True)


async def _with_servers(servers: McpServers, serve: Callable[[], Awaitable[None]]) -> None:
    """Start ``servers``, serve, and stop them (their processes end with the server)."""
    servers.on_notice = _say  # a server that stops later is named when it does
    await servers.start()
    try:
        await serve()
    finally:
        await servers.close()


def main(argv: list[str]) -> int:
    """Run ``xcsh mcp`` with the arguments ``argv`` (after the subcommand).

    Serves the preview-first tools to MCP clients on stdio, or over HTTP with
    ``--http``, until the clients leave.

    Returns:
        The process exit code: 0 after a clean end, 2 for a usage error (the message
        is on stderr).
    """
    args = build_parser().parse_args(argv)
    from xcsh.sandbox import make_undumpable

    make_undumpable()  # commands run for clients cannot read the server's memory or token
    try:
        cwd = _check(args)
        servers = downstream_servers(cwd, trust_project=args.trust_project)
        factory = tool_factory(cwd, trust_project=args.trust_project, downstream=servers)
    except UsageError as exc:
        print(f"xcsh mcp: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="xcsh mcp: %(message)s")
    if args.http:
        return _serve_http(args, factory, servers)
    serve = partial(serve_stdio, factory, max_pending=args.max_pending)
    anyio.run(_with_servers, servers, serve)
    return 0


def token_path(port: int, *, socket_path: str | None = None) -> Path:
    """Where the token of the HTTP server on ``port`` is written: ``$XCSH_HOME/mcp/``."""
    name = f"http-{port}.token" if socket_path is None else f"socket-{os.getpid()}.token"
    return xcsh_home() / "mcp" / name


def _write_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path`` readable by this user only (folder 0700, file 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")


def _serve_http(args: argparse.Namespace, factory: McpToolsFactory, servers: McpServers) -> int:
    # On a Unix socket the file's mode (0600) is the check: only this user can connect.
    token = None if args.no_auth or args.socket else secrets.token_urlsafe(32)
    port = DEFAULT_PORT if args.port is None else args.port
    written: list[Path] = []

    def ready(bound: int) -> None:
        where = f"unix:{args.socket}" if args.socket else f"http://127.0.0.1:{bound}/mcp"
        print(f"xcsh mcp: serving {where}", file=sys.stderr, flush=True)
        if token is None:
            why = (
                "the socket is private to you (mode 0600)"
                if args.socket
                else "--no-auth: any local process can use this server"
            )
            print(f"xcsh mcp: no token needed: {why}", file=sys.stderr, flush=True)
            return
        path = token_path(bound, socket_path=args.socket)
        try:
            _write_token(path, token)
            written.append(path)
            saved = f" (also in {path}, readable by you only)"
        except OSError as exc:
            saved = f" (could not write {path}: {exc.strerror})"
        print(
            f'xcsh mcp: token {token}{saved}; clients send "Authorization: Bearer <token>"',
            file=sys.stderr,
            flush=True,
        )

    def forget_token() -> None:
        while written:
            with contextlib.suppress(OSError):
                written.pop().unlink()

    try:
        serve = partial(
            serve_http,
            factory,
            port=port,
            token=token,
            socket_path=args.socket,
            max_pending=args.max_pending,
            max_sessions=args.max_sessions,
            on_ready=ready,
            on_stop=forget_token,
        )
        anyio.run(_with_servers, servers, serve)
    except UsageError as exc:  # the port is taken, for one
        print(f"xcsh mcp: {exc}", file=sys.stderr)
        return 2
    finally:
        forget_token()
    return 0
