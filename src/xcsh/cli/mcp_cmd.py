"""``xcsh mcp``: serve ``ast_grep``, ``ast_edit``, ``resolve`` and trusted custom tools over MCP."""

from __future__ import annotations

import argparse
import logging
import sys
from functools import partial
from pathlib import Path

import anyio

from xcsh.core import UsageError
from xcsh.mcp import (
    DEFAULT_MAX_PENDING,
    builtin_tool_factory,
    combine_factories,
    custom_tool_factory,
    journaled_factory,
    serve_http,
    serve_stdio,
)
from xcsh.mcp.session import McpToolsFactory
from xcsh.plugins import LoadError

DEFAULT_PORT = 8765


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a TCP port.", hint="use 0..65535")
    return cwd.resolve()


def tool_factory(cwd: Path, *, trust_project: bool) -> McpToolsFactory:
    """The tools every session of ``xcsh mcp`` gets for the workspace ``cwd``.

    ``ast_grep``, ``ast_edit`` and ``resolve``, then the custom tools. Load
    errors go to stderr once (the MCP client owns stdout). Every apply is
    recorded in the workspace's undo journal (after settling any apply a
    crash interrupted), so ``xcsh undo`` reverts MCP clients' changes too.

    Raises:
        UsageError: a retention setting in settings.toml is invalid.
    """
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal, JournalError, Retention, recover

    home = xcsh_home()
    journal = Journal.for_root(home, cwd, retention=Retention.of_home(home))
    try:
        for recovered in recover(journal):
            print(f"xcsh mcp: {recovered.message}", file=sys.stderr)
    except (JournalError, OSError) as exc:
        print(f"xcsh mcp: undo journal: {exc}", file=sys.stderr)
    reported: set[tuple[str, str]] = set()

    def report(errors: list[LoadError]) -> None:
        for error in errors:
            key = (error.path, error.error)
            if key not in reported:
                reported.add(key)
                print(f"xcsh mcp: custom tool {error.path}: {error.error}", file=sys.stderr)

    return journaled_factory(
        combine_factories(
            builtin_tool_factory(cwd, journal=journal),
            custom_tool_factory(cwd, trust_project=trust_project, on_errors=report),
        ),
        journal,
    )


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        cwd = _check(args)
        factory = tool_factory(cwd, trust_project=args.trust_project)
    except UsageError as exc:
        print(f"xcsh mcp: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="xcsh mcp: %(message)s")
    if args.http:
        port = DEFAULT_PORT if args.port is None else args.port

        def ready(bound: int) -> None:
            url = f"http://127.0.0.1:{bound}/mcp"
            print(f"xcsh mcp: serving {url}", file=sys.stderr, flush=True)

        serve = partial(
            serve_http, factory, port=port, max_pending=args.max_pending, on_ready=ready
        )
    else:
        serve = partial(serve_stdio, factory, max_pending=args.max_pending)
    try:
        anyio.run(serve)
    except UsageError as exc:  # the port is taken, for one
        print(f"xcsh mcp: {exc}", file=sys.stderr)
        return 2
    return 0
