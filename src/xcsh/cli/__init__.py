"""The ``xcsh`` command: a thin dispatcher over one module per subcommand.

``xcsh SUBCOMMAND ...`` imports only that subcommand's module, so
``xcsh ast-grep`` never imports a model SDK and ``xcsh --help`` stays quick.
Each module exposes ``main(argv: list[str]) -> int``.

Standard output closed early (``xcsh tools --json | head -3``) ends every
subcommand the way Unix tools killed by SIGPIPE end: quietly, with exit code
:data:`EXIT_BROKEN_PIPE` (141, 128 + SIGPIPE), so ``set -o pipefail`` scripts
still see that the output was cut short. This follows the recipe in the
Python documentation (``signal`` module, "Note on SIGPIPE").
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import signal
import sys

# subcommand -> (module, one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "ast-grep": ("xcsh.cli.ast_grep_cmd", "structural search (ast-grep patterns)"),
    "ast-edit": ("xcsh.cli.ast_edit_cmd", "structural rewrite with preview, then apply or discard"),
    "scan": ("xcsh.cli.scan_cmd", "run a project's YAML rules (sgconfig.yml), fixes previewed"),
    "tools": ("xcsh.cli.tools_cmd", "list the tools available here and any load errors"),
    "trust": ("xcsh.cli.trust_cmd", "trust a project folder's custom tools"),
    "mcp": ("xcsh.cli.mcp_cmd", "serve xcsh's preview/apply tools over MCP"),
    "undo": ("xcsh.cli.undo_cmd", "undo the last change xcsh applied in this folder (or entry N)"),
    "recover": (
        "xcsh.cli.recover_cmd",
        "settle applies a crash interrupted (roll back or complete)",
    ),
    "sandbox": ("xcsh.cli.sandbox_cmd", "show how bash commands are confined here (check)"),
}
AGENT_MODULE = "xcsh.cli.agent_cmd"
EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""Exit code when standard output was closed before xcsh finished writing (141)."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``xcsh`` console script; returns the exit code.

    Returns:
        The subcommand's exit code, or :data:`EXIT_BROKEN_PIPE` when the
        reader of standard output went away before xcsh finished writing
        (nothing more is printed, no traceback). ``--help`` is the exception:
        argparse writes the help in one call and ignores its failure, so it
        exits 0 as always.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module_name = SUBCOMMANDS[args[0]][0]
        args = args[1:]
    else:
        module_name = AGENT_MODULE
    stdout_was = _stdout_identity()
    try:
        try:
            module = importlib.import_module(module_name)
            code: int = module.main(args)
        finally:
            # Flush here, inside the handler, rather than at interpreter exit,
            # where a broken pipe can only be reported as "Exception ignored".
            _flush_stdout()
    except BrokenPipeError:
        stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except SystemExit:
        # rich's Console handles a broken pipe itself: it points stdout at
        # /dev/null and exits with 1. Report it like every other broken pipe.
        if stdout_was != _devnull_identity() and _stdout_identity() == _devnull_identity():
            return EXIT_BROKEN_PIPE
        raise
    return code


def _stdout_identity() -> tuple[int, int] | None:
    with contextlib.suppress(OSError):
        info = os.fstat(1)
        return info.st_dev, info.st_ino
    return None


def _devnull_identity() -> tuple[int, int]:
    info = os.stat(os.devnull)
    return info.st_dev, info.st_ino


def _flush_stdout() -> None:
    stream = sys.stdout
    if stream is not None and not stream.closed:
        stream.flush()


def stdout_to_devnull() -> None:
    """Point file descriptor 1 at /dev/null so the final flush at exit cannot fail again.

    For a subcommand that notices the broken pipe itself (an event listener
    that must not raise) and ends by raising :class:`BrokenPipeError` later.
    """
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def subcommand_help() -> str:
    """The subcommand list for the agent command's ``--help``."""
    width = max(len(name) for name in SUBCOMMANDS)
    lines = [f"  {name.ljust(width)}  {text}" for name, (_, text) in SUBCOMMANDS.items()]
    return "subcommands:\n" + "\n".join(lines)
