"""``xcsh mcp-servers``: start the MCP servers a session here would start, and list each.

Each server is started as a session starts it (concurrently, each within its
``timeout``), listed with its state (``ready``, ``failed``, ``disabled``), its
transport and command line or URL, and its tools: each as the model sees it
(``NAME__tool``), with how a call runs (``direct`` or ``preview``) and the
tools left out with why; then every server is stopped. ``--json`` prints one
object per server. Exit code 0 when every enabled server started, 1 when one
did not, 2 for bad settings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.cli.argparser import Parser
from xcsh.core import UsageError

if TYPE_CHECKING:
    from xcsh.mcpclient import BuiltTools, ServerConnection


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh mcp-servers`` argument parser."""
    parser = Parser(
        prog="xcsh mcp-servers",
        description=(
            "Start the MCP servers of settings.toml (and of a trusted project's "
            ".xcsh/settings.toml), list each with its state and tools, then stop them."
        ),
    )
    parser.add_argument(
        "--cwd", metavar="PATH", default=".", help="workspace folder (default: the current one)"
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="also start the servers of the workspace's .xcsh/settings.toml without trust",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per server")
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh mcp-servers`` with the arguments ``argv`` (after the subcommand).

    Returns:
        0 when every enabled server started, 1 when one did not, 2 for bad settings
        or a workspace that is not a folder (the message is on stderr).
    """
    args = build_parser().parse_args(argv)
    cwd = Path(args.cwd).expanduser()
    if not cwd.is_dir():
        print(f"xcsh mcp-servers: --cwd {args.cwd!r} is not a folder", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_list(cwd.resolve(), args))
    except UsageError as exc:
        print(f"xcsh mcp-servers: {exc}", file=sys.stderr)
        return 2


async def _list(cwd: Path, args: argparse.Namespace) -> int:
    from xcsh.app import load_settings
    from xcsh.app.mcp import session_servers
    from xcsh.fs import xcsh_home
    from xcsh.mcpclient import McpServers, build_tools

    home = xcsh_home()
    settings = load_settings(home)
    mcp, notices = session_servers(settings.mcp, cwd, home, trust_project=args.trust_project)
    for notice in notices:
        print(f"xcsh mcp-servers: {notice}", file=sys.stderr)
    if not mcp.servers:
        print(
            f"xcsh mcp-servers: no MCP server is configured (add [mcp_servers.NAME] to "
            f"{settings.path})",
            file=sys.stderr,
        )
        return 0
    servers = McpServers(mcp, workspace=cwd, log_dir=home / "logs" / "mcp", env=os.environ)
    try:
        await servers.start()
        failed = False
        for connection in servers.connections:
            status = connection.status()
            failed = failed or status.state == "failed"
            built = build_tools(connection, store=None, workspace=cwd)
            if args.json:
                print(json.dumps(_record(connection, built), ensure_ascii=False))
            else:
                _print(connection, built)
    finally:
        await servers.close()
    return 1 if failed else 0


def _modes(connection: ServerConnection) -> dict[str, str]:
    spec = connection.spec
    return {t.name: spec.mode_of(t.name, t.read_only) for t in connection.tools}


def _record(connection: ServerConnection, built: BuiltTools) -> dict[str, object]:
    from xcsh.mcpclient import tool_name

    status = connection.status()
    offered = {t.name for t in built.tools}
    modes = _modes(connection)
    return {
        "name": status.name,
        "state": status.state,
        "detail": status.detail,
        "transport": status.transport,
        "where": status.where,
        "tools": [
            {"name": tool_name(status.name, t.name), "mode": modes[t.name]}
            for t in status.tools
            if tool_name(status.name, t.name) in offered
        ],
        "left_out": list(built.notices),
    }


def _print(connection: ServerConnection, built: BuiltTools) -> None:
    from xcsh.core.safe import visible
    from xcsh.core.wording import plural
    from xcsh.mcpclient import tool_name

    status = connection.status()
    print(visible(f"{status.name}: {status.state} ({status.transport}: {status.where})"))
    if status.detail:
        print(visible(f"  {status.detail}"))
    if status.state == "ready":
        offered = {t.name for t in built.tools}
        modes = _modes(connection)
        shown = [t for t in status.tools if tool_name(status.name, t.name) in offered]
        print(f"  {plural(len(shown), 'tool')}:")
        for tool in shown:
            print(visible(f"    {tool_name(status.name, tool.name)}  {modes[tool.name]}"))
    for line in built.notices:
        print(visible(f"  {line}"))


__all__ = ["build_parser", "main"]
