"""The ``xcsh`` command: a thin dispatcher over one module per subcommand.

``xcsh SUBCOMMAND ...`` imports only that subcommand's module, so
``xcsh ast-grep`` never imports a model SDK and ``xcsh --help`` stays quick.
Each module exposes ``main(argv: list[str]) -> int``.
"""

from __future__ import annotations

import importlib
import sys

# subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ast-grep": ("xcsh.cli.ast_grep_cmd", "structural search (ast-grep patterns)"),
    "ast-edit": ("xcsh.cli.ast_edit_cmd", "structural rewrite with preview, then apply or discard"),
    "tools": ("xcsh.cli.tools_cmd", "list the tools available here and any load errors"),
    "trust": ("xcsh.cli.trust_cmd", "trust a project folder's custom tools"),
    "mcp": ("xcsh.cli.mcp_cmd", "serve xcsh's preview/apply tools over MCP"),
    "undo": ("xcsh.cli.undo_cmd", "undo the last change applied by xcsh ast-edit"),
}
AGENT_MODULE = "xcsh.cli.agent_cmd"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``xcsh`` console script; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module_name = SUBCOMMANDS[args[0]][0]
        args = args[1:]
    else:
        module_name = AGENT_MODULE
    module = importlib.import_module(module_name)
    code: int = module.main(args)
    return code


def subcommand_help() -> str:
    """The subcommand list for the agent command's ``--help``."""
    width = max(len(name) for name in SUBCOMMANDS)
    lines = [f"  {name.ljust(width)}  {text}" for name, (_, text) in SUBCOMMANDS.items()]
    return "subcommands:\n" + "\n".join(lines)
