"""``xcsh`` without a subcommand: the agent itself (interactive, or ``-p "task"``)."""

from __future__ import annotations

import argparse
import sys

from xcsh.cli import subcommand_help


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xcsh",
        description="A coding agent whose destructive tools preview first.",
        epilog=subcommand_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-p", "--print", dest="prompt", metavar="TASK", help="run one task")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.version:
        from xcsh import __version__

        print(f"xcsh {__version__}")
        return 0
    print(
        "xcsh: the agent runtime is not part of this build yet; "
        "use 'xcsh ast-grep' or 'xcsh ast-edit'.",
        file=sys.stderr,
    )
    return 2
