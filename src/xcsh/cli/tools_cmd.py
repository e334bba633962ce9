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
from dataclasses import dataclass

from rich.text import Text

from xcsh.cli.argparser import Parser
from xcsh.cli.say import say
from xcsh.core import UsageError
from xcsh.pending import RESOLVE_TOOL_NAME
from xcsh.plugins import LoadError, LoadResult, ToolSource, load_custom_tools
from xcsh.tools.registry import BUILTIN_TOOL_NAMES
from xcsh.ui import make_console


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``xcsh tools``."""
    parser = Parser(
        prog="xcsh tools",
        description="List the tools available in the current folder and any load errors.",
        epilog=(
            "exit status: 0 when every tool module loaded (an untrusted project folder "
            "is only a notice), 1 when a module failed to load, 2 on bad usage"
        ),
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


@dataclass(frozen=True)
class BuiltinEntry:
    """A built-in tool: its name, and whether it is hidden (``resolve``)."""

    name: str
    hidden: bool


@dataclass(frozen=True)
class CustomEntry:
    """A custom tool that loaded: what it is called and where it came from.

    Attributes:
        name: the name the model calls it by.
        label: its short label.
        description: what it tells the model.
        source: ``"project"``, ``"user"`` or ``"entry_point"``.
        path: its module file or package folder (or the entry point).
    """

    name: str
    label: str
    description: str
    source: ToolSource
    path: str


@dataclass(frozen=True)
class ToolsListing:
    """What ``xcsh tools`` shows; its JSON form is what ``--json`` prints.

    Attributes:
        cwd: the project folder (absolute).
        builtin: the built-in tools, in their order.
        custom: the custom tools that loaded.
        errors: the modules that did not load, and the untrusted-folder notice.
    """

    cwd: str
    builtin: tuple[BuiltinEntry, ...]
    custom: tuple[CustomEntry, ...]
    errors: tuple[LoadError, ...]


def collect(result: LoadResult, cwd: str) -> ToolsListing:
    """The listing of what loading the tools of ``cwd`` gave."""
    return ToolsListing(
        cwd=cwd,
        builtin=tuple(BuiltinEntry(name, name == RESOLVE_TOOL_NAME) for name in BUILTIN_TOOL_NAMES),
        custom=tuple(
            CustomEntry(
                name=entry.tool.name,
                label=entry.tool.label,
                description=entry.tool.description,
                source=entry.source,
                path=entry.path,
            )
            for entry in result.loaded
        ),
        errors=tuple(result.errors),
    )


def to_json(listing: ToolsListing) -> str:
    """The ``--json`` text: one object, indented by two spaces (module docstring)."""
    from pydantic import TypeAdapter

    return json.dumps(TypeAdapter(ToolsListing).dump_python(listing, mode="json"), indent=2)


def _print(listing: ToolsListing) -> None:
    console = make_console(sys.stdout)
    builtin = ", ".join(
        f"{item.name} (hidden)" if item.hidden else item.name for item in listing.builtin
    )
    console.print(Text("Built-in tools", style="bold"))
    console.print(Text(f"  {builtin}"))
    console.print()
    custom = listing.custom
    console.print(Text("Custom tools" if custom else "Custom tools: none", style="bold"))
    if custom:
        name_width = max(len(item.name) for item in custom)
        label_width = max(len(item.label) for item in custom)
        for item in custom:
            line = Text("  ")
            line.append(item.name.ljust(name_width), style="bold")
            line.append(f"  {item.label.ljust(label_width)}  ")
            line.append(f"[{item.source}]", style="cyan")
            line.append(f"  {item.path}", style="dim")
            console.print(line)
    sections = (
        ("untrusted", "Not loaded", "yellow"),
        ("error", "Load errors", "red"),
    )
    for kind, title, style in sections:
        errors = [error for error in listing.errors if error.kind == kind]
        if not errors:
            continue
        console.print()
        console.print(Text(title, style=f"bold {style}"))
        for error in errors:
            console.print(Text(f"  {error.path} ({error.source})", style=style))
            console.print(Text(f"    {error.error}"))


def main(argv: list[str]) -> int:
    """Run ``xcsh tools`` with ``argv`` (the words after ``tools``).

    Returns:
        The exit status: 0, 1 when a module failed to load, 2 on bad usage.
    """
    args = build_parser().parse_args(argv)
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        say(f"xcsh tools: {cwd} is not a folder.", file=sys.stderr, one_line=True)
        return 2
    try:
        result = load_custom_tools(cwd, store=None, trust_project=args.trust_project)
    except UsageError as exc:
        say(f"xcsh tools: {exc}", file=sys.stderr)
        return 2
    listing = collect(result, cwd)
    if args.json:
        print(to_json(listing))
    else:
        _print(listing)
    return 1 if result.failures else 0
