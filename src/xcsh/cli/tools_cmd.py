"""``xcsh tools``: the tools available in the current folder, and the load errors.

Lists the built-in tools (``resolve`` marked hidden: the model gets it whenever
a preview is pending, a user never selects it), then the custom tools with
their source and path, then every load error. ``--json`` prints one object::

    {"cwd": ..., "builtin": [{"name", "hidden"}],
     "custom": [{"name", "label", "description", "source", "path"}],
     "errors": [{"path", "error", "source", "kind"}]}

Exit code: 0 when every tool module loaded (an untrusted project folder is a
notice, not a failure), 1 when at least one module failed to load, 2 on bad
usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from xcsh.core import UsageError
from xcsh.pending import RESOLVE_TOOL_NAME
from xcsh.plugins import LoadResult, load_custom_tools
from xcsh.tools.registry import BUILTIN_TOOL_NAMES
from xcsh.ui import make_console


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xcsh tools",
        description="List the tools available in the current folder and any load errors.",
    )
    parser.add_argument(
        "--trust-project",
        action="store_true",
        help="load this folder's .xcsh/tools even if it is not trusted (this run only)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "-C", "--cwd", default=None, metavar="PATH", help="the project folder (default: here)"
    )
    return parser


def collect(result: LoadResult, cwd: str) -> dict[str, Any]:
    """The listing as plain data (the ``--json`` shape)."""
    return {
        "cwd": cwd,
        "builtin": [
            {"name": name, "hidden": name == RESOLVE_TOOL_NAME} for name in BUILTIN_TOOL_NAMES
        ],
        "custom": [
            {
                "name": entry.tool.name,
                "label": entry.tool.label,
                "description": entry.tool.description,
                "source": entry.source,
                "path": entry.path,
            }
            for entry in result.loaded
        ],
        "errors": [error.to_dict() for error in result.errors],
    }


def _print(data: dict[str, Any]) -> None:
    console = make_console(sys.stdout)
    builtin = ", ".join(
        f"{item['name']} (hidden)" if item["hidden"] else item["name"] for item in data["builtin"]
    )
    console.print(Text("Built-in tools", style="bold"))
    console.print(f"  {builtin}")
    console.print()
    if data["custom"]:
        table = Table(title=None, show_edge=False, pad_edge=False, box=None)
        for column in ("name", "label", "source", "path"):
            table.add_column(column, style="bold" if column == "name" else "")
        for item in data["custom"]:
            table.add_row(item["name"], item["label"], item["source"], item["path"])
        console.print(Text("Custom tools", style="bold"))
        console.print(table)
    else:
        console.print(Text("Custom tools: none", style="bold"))
    if data["errors"]:
        console.print()
        console.print(Text("Load errors", style="bold red"))
        for error in data["errors"]:
            style = "yellow" if error["kind"] == "untrusted" else "red"
            console.print(Text(f"  {error['path']} ({error['source']})", style=style))
            console.print(f"    {error['error']}")


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        print(f"xcsh tools: {cwd} is not a folder.", file=sys.stderr)
        return 2
    try:
        result = load_custom_tools(cwd, store=None, trust_project=args.trust_project)
    except UsageError as exc:
        print(f"xcsh tools: {exc}", file=sys.stderr)
        return 2
    data = collect(result, cwd)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        _print(data)
    return 1 if result.failures else 0
