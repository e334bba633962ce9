"""``xcsh check``: run the project's check on the unchanged tree, to try the setting."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from xcsh.cli.argparser import Parser
from xcsh.cli.say import say

EXIT_FAILED = 1
"""The check failed (non-zero exit)."""
EXIT_TIMED_OUT = 124
"""The check was ended at its timeout (as timeout(1) says it)."""


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh check`` argument parser; its description states the exit codes."""
    parser = Parser(
        prog="xcsh check",
        description=(
            "Run the check command (the `check` setting, in $XCSH_HOME/settings.toml or "
            "a trusted project's .xcsh/settings.toml) on the unchanged workspace, staged "
            "so nothing it writes reaches the workspace. Exit code: 0 passed, 1 failed, "
            "124 timed out, 2 no check set or bad settings."
        ),
    )
    parser.add_argument(
        "--cwd", type=Path, default=None, help="the workspace (default: the current folder)"
    )
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``xcsh check``; returns the exit code."""
    args = build_parser().parse_args(argv)
    from xcsh.app import open_checker
    from xcsh.core import ToolError, UsageError
    from xcsh.fs import xcsh_home

    cwd = (args.cwd or Path.cwd()).resolve()
    if not cwd.is_dir():
        say(f"xcsh: {cwd} is not a folder", file=sys.stderr, one_line=True)
        return 2
    home = xcsh_home()
    try:
        checker = open_checker(cwd, home)
    except UsageError as exc:
        say(f"xcsh: {exc}", file=sys.stderr)  # its text ends with the hint's line
        return 2
    settings = checker.settings
    if settings.notice:
        say(f"note: {settings.notice}", file=sys.stderr)
    if not settings.configured:
        say(f"xcsh: {checker.how_to_set()}", file=sys.stderr)
        return 2
    support = checker.overlay_support()
    how = (
        "an overlay of the workspace"
        if support is not None and support.available
        else "a copy of the workspace"
        + (f" ({support.reason})" if support is not None and support.reason else "")
    )
    say(f"check: {settings.command}  (from {settings.source}, timeout {settings.timeout:g} s)")
    print(f"runs in: {how}; the workspace is not written", flush=True)
    try:
        run = asyncio.run(checker.baseline(fresh=True))
    except ToolError as exc:
        say(f"xcsh: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("xcsh: check interrupted; it was ended with its process tree", file=sys.stderr)
        return 130
    finally:
        checker.close()
    sys.stdout.write(
        run.output if run.output.endswith("\n") or not run.output else run.output + "\n"
    )
    if run.timed_out:
        print(f"timed out after {settings.timeout:g} s ({run.killed} processes ended)")
        code = EXIT_TIMED_OUT
    elif run.passed:
        print(f"passed in {run.seconds:.1f} s")
        code = 0
    else:
        print(f"failed (exit {run.exit_code}) in {run.seconds:.1f} s")
        code = EXIT_FAILED
    if run.log:
        say(f"whole output: {run.log}", one_line=True)
    return code
