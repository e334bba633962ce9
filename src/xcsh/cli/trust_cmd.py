"""``xcsh trust [PATH]``: let a project folder's custom tools load (contract §5).

``xcsh trust`` trusts the current folder, ``xcsh trust PATH`` another one
(its real path is recorded in ``$XCSH_HOME/trusted.json``). ``--list`` shows
the trusted folders, ``--remove`` forgets one. Exit code 0 on success, 2 on
bad usage (not a folder, malformed trust file).
"""

from __future__ import annotations

import argparse
import os
import sys

from xcsh.cli.argparser import Parser
from xcsh.cli.say import say
from xcsh.core import UsageError
from xcsh.core.safe import visible_line
from xcsh.plugins import project_tools_dir, trust_folder, trusted_folders, untrust_folder


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh trust`` argument parser: a folder, and ``--list`` or ``--remove``."""
    parser = Parser(
        prog="xcsh trust",
        description=(
            "Trust a project folder so the custom tools in its .xcsh/tools/ load. "
            "They are Python code from the repository: trust only folders whose code you trust."
        ),
    )
    parser.add_argument("path", nargs="?", default=None, help="the folder (default: here)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="list the trusted folders")
    group.add_argument("--remove", action="store_true", help="stop trusting the folder")
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh trust`` with the arguments ``argv`` (after the subcommand).

    Trusts the folder given (the current folder by default), stops trusting it
    (``--remove``) or lists the trusted folders (``--list``).

    Returns:
        The process exit code: 0 on success, 2 when the trust file cannot be read or
        written or the folder cannot be trusted (the message is on stderr).
    """
    args = build_parser().parse_args(argv)
    folder = args.path or os.getcwd()
    try:
        if args.list:
            for record in trusted_folders():
                say(f"{visible_line(record.path)}\t{record.trusted_at}")
            return 0
        if args.remove:
            if untrust_folder(folder):
                say(f"No longer trusted: {os.path.realpath(folder)}", one_line=True)
            else:
                say(f"Was not trusted: {os.path.realpath(folder)}", one_line=True)
            return 0
        real = trust_folder(folder)
    except UsageError as exc:
        say(f"xcsh trust: {exc}", file=sys.stderr)
        return 2
    say(f"Trusted {real}: custom tools in {project_tools_dir(real)} will load.", one_line=True)
    return 0
